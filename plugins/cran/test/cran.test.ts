import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { startServer, type TestServer } from '@hearth/testing';
import { binaryPackage, md5, parsePackages, sourcePackage, tarGz, zip } from './helpers';

describe('CRAN registry', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let write: string;

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const req = (method: string, p: string, token?: string, body?: Buffer) =>
    fetch(url(p), { method, headers: token ? { Authorization: `token ${token}` } : {}, body });
  const upload = (p: string, body: Buffer, token = write) => req('PUT', p, token, body);
  const packagesOf = async (p: string) => {
    const res = await req('GET', p);
    expect(res.status).toBe(200);
    return parsePackages(await res.text());
  };
  const summary = async (p: string) => (await packagesOf(p)).map((r) => `${r.Package}@${r.Version}`);

  beforeAll(async () => {
    server = await startServer({ plugins: { cran: { enabled: true } } });
    alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
  });
  afterAll(() => server.close());

  test('a source upload appears in PACKAGES, PACKAGES.gz and PACKAGES.rds and downloads byte for byte', async () => {
    const tarball = sourcePackage('alpha', '1.0.0', { Depends: 'R (>= 3.5),\n    methods', Imports: 'stats', NeedsCompilation: 'no' });
    expect((await upload('alice/cran/src', tarball)).status).toBe(201);
    const records = await packagesOf('alice/cran/src/contrib/PACKAGES');
    expect(records).toEqual([
      {
        Package: 'alpha',
        Version: '1.0.0',
        Depends: 'R (>= 3.5), methods',
        Imports: 'stats',
        License: 'MIT',
        MD5sum: md5(tarball),
        NeedsCompilation: 'no',
      },
    ]);
    const plain = await (await req('GET', 'alice/cran/src/contrib/PACKAGES')).text();
    const gz = Buffer.from(await (await req('GET', 'alice/cran/src/contrib/PACKAGES.gz')).arrayBuffer());
    expect(zlib.gunzipSync(gz).toString()).toBe(plain);
    const rds = await req('GET', 'alice/cran/src/contrib/PACKAGES.rds');
    expect(rds.status).toBe(200);
    expect(
      zlib
        .gunzipSync(Buffer.from(await rds.arrayBuffer()))
        .subarray(0, 2)
        .toString(),
    ).toBe('X\n');
    const file = await req('GET', 'alice/cran/src/contrib/alpha_1.0.0.tar.gz');
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(tarball)).toBe(true);
    // The package API shows it, with the DESCRIPTION's metadata kept.
    const listed = await server.api('GET', '/packages/alice?type=cran');
    expect(listed.body.map((p: any) => `${p.name}@${p.version}`)).toEqual(['alpha@1.0.0']);
  });

  test('ETag and 304 for indexes; the index changes with each upload', async () => {
    const first = await req('GET', 'alice/cran/src/contrib/PACKAGES');
    const etag = first.headers.get('etag')!;
    const again = await fetch(url('alice/cran/src/contrib/PACKAGES'), { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await upload('alice/cran/src', sourcePackage('beta', '0.1'))).toHaveProperty('status', 201);
    const changed = await req('GET', 'alice/cran/src/contrib/PACKAGES');
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(await summary('alice/cran/src/contrib/PACKAGES')).toEqual(['alpha@1.0.0', 'beta@0.1']);
  });

  test('newer versions replace older ones in PACKAGES; older ones stay under Archive/<name>/', async () => {
    for (const v of ['1.10.0', '1.9.0', '0.3.4.0.2'])
      expect([v, (await upload('alice/cran/src', sourcePackage('gamma', v))).status]).toEqual([v, 201]);
    expect((await summary('alice/cran/src/contrib/PACKAGES')).filter((s) => s.startsWith('gamma'))).toEqual(['gamma@1.10.0']);
    for (const v of ['1.9.0', '0.3.4.0.2']) {
      expect((await req('GET', `alice/cran/src/contrib/Archive/gamma/gamma_${v}.tar.gz`)).status).toBe(200);
      expect((await req('GET', `alice/cran/src/contrib/gamma_${v}.tar.gz`)).status).toBe(200);
    }
    expect((await req('GET', 'alice/cran/src/contrib/Archive/other/gamma_1.9.0.tar.gz')).status).toBe(404);
    expect((await upload('alice/cran/src', sourcePackage('gamma', '1.9.0'))).status).toBe(409);
  });

  test('binary packages: Windows zip and macOS tgz, per platform and R version', async () => {
    const win = binaryPackage('alpha', '1.0.0', 'zip');
    expect((await upload('alice/cran/bin?platform=windows&rversion=4.2', win)).status).toBe(201);
    const mac = binaryPackage('alpha', '1.0.0', 'tgz');
    expect((await upload('alice/cran/bin?platform=macosx/big-sur-arm64&rversion=4.3', mac)).status).toBe(201);
    expect(await packagesOf('alice/cran/bin/windows/contrib/4.2/PACKAGES')).toEqual([
      { Package: 'alpha', Version: '1.0.0', License: 'MIT', MD5sum: md5(win) },
    ]);
    expect(await summary('alice/cran/bin/macosx/big-sur-arm64/contrib/4.3/PACKAGES')).toEqual(['alpha@1.0.0']);
    expect(await summary('alice/cran/bin/windows/contrib/4.3/PACKAGES')).toEqual([]);
    const got = await req('GET', 'alice/cran/bin/windows/contrib/4.2/alpha_1.0.0.zip');
    expect(Buffer.from(await got.arrayBuffer()).equals(win)).toBe(true);
    expect((await req('GET', 'alice/cran/bin/macosx/big-sur-arm64/contrib/4.3/alpha_1.0.0.tgz')).status).toBe(200);
    expect((await req('GET', 'alice/cran/bin/windows/contrib/4.3/alpha_1.0.0.zip')).status).toBe(404);
    // The binaries belong to the same version as the source package.
    const files = await server.api('GET', '/packages/alice/cran/alpha/1.0.0/files');
    expect(files.body.map((f: any) => f.name).sort()).toEqual(['alpha_1.0.0.tar.gz', 'alpha_1.0.0.tgz', 'alpha_1.0.0.zip']);
    expect((await upload('alice/cran/bin?platform=windows&rversion=4.2', win)).status).toBe(409);
  });

  test('bad uploads are 400 with a message, and store nothing', async () => {
    const cases: [string, string, Buffer, RegExp][] = [
      ['empty', 'src', Buffer.alloc(0), /empty/],
      ['not an archive', 'src', Buffer.from('hello, not a package'), /neither/],
      ['gzip, not tar', 'src', zlib.gzipSync(Buffer.alloc(2048, 'x')), /not a tar/],
      ['truncated gzip', 'src', sourcePackage('bad', '1.0').subarray(0, 40), /invalid package archive/],
      ['no DESCRIPTION', 'src', tarGz({ 'bad/NAMESPACE': '' }), /no <package>\/DESCRIPTION/],
      ['nested DESCRIPTION only', 'src', tarGz({ 'bad/inst/DESCRIPTION': 'Package: bad\nVersion: 1.0\n' }), /no <package>\/DESCRIPTION/],
      ['wrong directory', 'src', sourcePackage('bad', '1.0', {}, 'other'), /directory "other"/],
      ['bad name', 'src', sourcePackage('1bad', '1.0', {}, '1bad'), /invalid package name/],
      ['name with a slash', 'src', tarGz({ 'x/DESCRIPTION': 'Package: ../x\nVersion: 1.0\n' }), /invalid package name/],
      ['bad version', 'src', sourcePackage('bad', '1.0.0-beta'), /invalid package version/],
      ['one-component version', 'src', sourcePackage('bad', '1'), /invalid package version/],
      ['no version', 'src', tarGz({ 'bad/DESCRIPTION': 'Package: bad\n' }), /no Version/],
      ['malformed line', 'src', tarGz({ 'bad/DESCRIPTION': 'Package: bad\nVersion: 1.0\nthis is not a field\n' }), /malformed line/],
      ['zip as source', 'src', binaryPackage('bad', '1.0', 'zip'), /source package must be a .tar.gz/],
      ['no Built line', 'bin?platform=windows&rversion=4.2', zip({ 'bad/DESCRIPTION': 'Package: bad\nVersion: 1.0\n' }), /no Built field/],
      ['tgz for Windows', 'bin?platform=windows&rversion=4.2', binaryPackage('bad', '1.0', 'tgz'), /must be a zip/],
      ['zip for macOS', 'bin?platform=macosx&rversion=4.2', binaryPackage('bad', '1.0', 'zip'), /must be a gzip-compressed tar/],
      ['no platform', 'bin?rversion=4.2', binaryPackage('bad', '1.0', 'zip'), /platform/],
      ['traversal platform', 'bin?platform=../x&rversion=4.2', binaryPackage('bad', '1.0', 'zip'), /platform/],
      ['bad rversion', 'bin?platform=windows&rversion=4', binaryPackage('bad', '1.0', 'zip'), /rversion/],
      ['truncated zip', 'bin?platform=windows&rversion=4.2', binaryPackage('bad', '1.0', 'zip').subarray(0, 60), /invalid package archive/],
    ];
    for (const [what, where, body, message] of cases) {
      const res = await upload(`alice/cran/${where}`, body);
      const json: any = await res.json();
      expect([what, res.status]).toEqual([what, 400]);
      expect([what, json.message]).toEqual([what, expect.stringMatching(message)]);
    }
    expect((await server.api('GET', '/packages/alice?type=cran&q=bad')).body).toEqual([]);
    for (const p of [
      'src/contrib/..%2F..%2Fx',
      'src/contrib/Archive/..%2F/x.tar.gz',
      'bin/../contrib/4.2/PACKAGES',
      'src/contrib/bad_1.0.tar.gz',
      'nothing',
    ]) {
      expect([p, (await req('GET', `alice/cran/${p}`)).status]).toEqual([p, 404]);
    }
  });

  test('deletes: one file, a version, and through the package API; indexes follow at once', async () => {
    const bob = await server.user('bob');
    const token = await server.token(bob, ['write:package', 'delete:package']);
    for (const v of ['1.0', '2.0']) expect((await upload('bob/cran/src', sourcePackage('delta', v), token)).status).toBe(201);
    expect((await upload('bob/cran/bin?platform=windows&rversion=4.2', binaryPackage('delta', '2.0', 'zip'), token)).status).toBe(201);
    expect(await summary('bob/cran/src/contrib/PACKAGES')).toEqual(['delta@2.0']);

    expect((await req('DELETE', 'bob/cran/bin/windows/contrib/4.2/delta_2.0.zip', token)).status).toBe(204);
    expect(await summary('bob/cran/bin/windows/contrib/4.2/PACKAGES')).toEqual([]);
    expect((await req('DELETE', 'bob/cran/delta/2.0', token)).status).toBe(204);
    expect(await summary('bob/cran/src/contrib/PACKAGES')).toEqual(['delta@1.0']);
    expect((await req('GET', 'bob/cran/src/contrib/delta_2.0.tar.gz')).status).toBe(404);
    expect((await server.api('DELETE', '/packages/bob/cran/delta/1.0', { token })).status).toBe(204);
    expect(await summary('bob/cran/src/contrib/PACKAGES')).toEqual([]);
    expect((await server.kernel.db('cran_file').where({ owner_id: bob.id })).length).toBe(0);
    expect((await req('DELETE', 'bob/cran/delta/1.0', token)).status).toBe(404);
  });

  test('permissions: writes need write:package of the owner; private owners challenge anonymous readers', async () => {
    const read = await server.token(alice, ['read:package']);
    const mallory = await server.user('mallory');
    const mtoken = await server.token(mallory, ['write:package']);
    const body = sourcePackage('perm', '1.0');
    expect((await req('PUT', 'alice/cran/src', undefined, body)).status).toBe(401);
    expect((await upload('alice/cran/src', body, read)).status).toBe(403);
    expect((await upload('alice/cran/src', body, mtoken)).status).toBe(403);
    expect((await req('DELETE', 'alice/cran/alpha/1.0.0', undefined)).status).toBe(401);
    expect((await req('DELETE', 'alice/cran/alpha/1.0.0', write)).status).toBe(403);
    expect((await server.api('GET', '/packages/alice?type=cran&q=perm')).body).toEqual([]);

    const carol = await server.user('carol', { visibility: 'private' });
    const ctoken = await server.token(carol, ['write:package']);
    expect((await upload('carol/cran/src', sourcePackage('secret', '1.0'), ctoken)).status).toBe(201);
    const anonymous = await req('GET', 'carol/cran/src/contrib/PACKAGES');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await req('GET', 'carol/cran/src/contrib/secret_1.0.tar.gz', mtoken)).status).toBe(404);
    const basic = await fetch(url('carol/cran/src/contrib/PACKAGES'), {
      headers: { Authorization: `Basic ${Buffer.from(`carol:${ctoken}`).toString('base64')}` },
    });
    expect(basic.status).toBe(200);
    expect(parsePackages(await basic.text()).map((r) => r.Package)).toEqual(['secret']);
  });
});

describe('CRAN registry settings and enablement', () => {
  test('uploads over maxUploadSize are 413', async () => {
    const server = await startServer({ plugins: { cran: { enabled: true, settings: { maxUploadSize: 2048 } } } });
    try {
      const user = await server.user('dora');
      const token = await server.token(user, ['write:package']);
      const big = tarGz({ 'big/DESCRIPTION': 'Package: big\nVersion: 1.0\n', 'big/data.bin': crypto.randomBytes(8000) });
      const res = await fetch(new URL('api/packages/dora/cran/src', server.url), {
        method: 'PUT',
        headers: { Authorization: `token ${token}` },
        body: big,
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).message).toMatch(/larger than the limit of 2048/);
    } finally {
      await server.close();
    }
  });

  test('a server without the plugin answers 404 and has no cran_* tables', async () => {
    const server = await startServer();
    try {
      await server.user('erin');
      expect((await fetch(new URL('api/packages/erin/cran/src/contrib/PACKAGES', server.url))).status).toBe(404);
      expect(await server.kernel.db.schema.hasTable('cran_file')).toBe(false);
    } finally {
      await server.close();
    }
  });
});
