import crypto from 'node:crypto';
import { runCommand, startServer, type TestServer } from '@hearth/testing';
import { condaPackage, md5, sha256 } from './helpers';

describe('conda registry', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let write: string;

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const req = (method: string, p: string, token?: string, body?: Buffer, headers: Record<string, string> = {}) =>
    fetch(url(p), { method, headers: { ...(token ? { Authorization: `token ${token}` } : {}), ...headers }, body });
  const repodata = async (p: string): Promise<any> => {
    const res = await req('GET', p);
    expect([p, res.status]).toEqual([p, 200]);
    return res.json();
  };

  beforeAll(async () => {
    server = await startServer({ plugins: { conda: { enabled: true } } });
    alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
  });
  afterAll(() => server.close());

  test('.conda and .tar.bz2 uploads appear in repodata.json with their hashes and download byte for byte', async () => {
    const v2 = await condaPackage(
      { name: 'tool', version: '1.0', depends: ['libz >=1.2'], about: { summary: 'A tool', home: 'https://example.com' } },
      '.conda',
    );
    const v1 = await condaPackage({ name: 'tool', version: '1.0', build: 'h1_1', index: { build_number: 1 } }, '.tar.bz2');
    expect((await req('PUT', `alice/conda/${v2.filename}`, write, v2.data)).status).toBe(201);
    expect((await req('PUT', `alice/conda/${v1.filename}`, write, v1.data)).status).toBe(201);
    const doc = await repodata('alice/conda/noarch/repodata.json');
    expect(doc.info).toEqual({ subdir: 'noarch' });
    expect(doc.repodata_version).toBe(1);
    expect(doc.removed).toEqual([]);
    expect(doc['packages.conda']).toEqual({
      'tool-1.0-h0_0.conda': {
        name: 'tool',
        version: '1.0',
        build: 'h0_0',
        build_number: 0,
        depends: ['libz >=1.2'],
        subdir: 'noarch',
        noarch: 'generic',
        license: 'MIT',
        timestamp: 1700000000000,
        md5: md5(v2.data),
        sha256: sha256(v2.data),
        size: v2.data.length,
      },
    });
    expect(Object.keys(doc.packages)).toEqual(['tool-1.0-h1_1.tar.bz2']);
    expect(doc.packages['tool-1.0-h1_1.tar.bz2']).toMatchObject({
      build_number: 1,
      sha256: sha256(v1.data),
      md5: md5(v1.data),
      size: v1.data.length,
    });
    expect(await repodata('alice/conda/noarch/current_repodata.json')).toEqual(doc);
    for (const f of [v1, v2]) {
      const got = await req('GET', `alice/conda/noarch/${f.filename}`);
      expect(got.status).toBe(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(f.data)).toBe(true);
    }
    // Every subdir answers, empty until something is uploaded; compressed variants are clean 404s.
    expect(await repodata('alice/conda/linux-64/repodata.json')).toEqual({
      info: { subdir: 'linux-64' },
      packages: {},
      'packages.conda': {},
      removed: [],
      repodata_version: 1,
    });
    for (const p of ['noarch/repodata.json.zst', 'noarch/repodata_shards.msgpack.zst'])
      expect([p, (await req('GET', `alice/conda/${p}`)).status]).toEqual([p, 404]);
    // repodata.json.bz2 (older conda clients) holds exactly repodata.json: checked with the real bzip2.
    const compressed = await req('GET', 'alice/conda/noarch/repodata.json.bz2');
    expect(compressed.status).toBe(200);
    expect(compressed.headers.get('content-type')).toBe('application/x-bzip2');
    const plain = Buffer.from(await (await req('GET', 'alice/conda/noarch/repodata.json')).arrayBuffer());
    const unpacked = await runCommand('bzip2', ['-dc'], { input: Buffer.from(await compressed.arrayBuffer()) });
    expect(unpacked.code).toBe(0);
    expect(unpacked.stdoutBytes.equals(plain)).toBe(true);
    const etag = compressed.headers.get('etag')!;
    expect((await req('GET', 'alice/conda/noarch/repodata.json.bz2', undefined, undefined, { 'If-None-Match': etag })).status).toBe(304);
    const channeldata = await repodata('alice/conda/channeldata.json');
    expect(channeldata).toEqual({
      channeldata_version: 1,
      packages: {
        tool: {
          summary: 'A tool',
          home: 'https://example.com',
          license: 'MIT',
          version: '1.0',
          timestamp: 1700000000000,
          subdirs: ['noarch'],
        },
      },
      subdirs: ['noarch'],
    });
    const listed = await server.api('GET', '/packages/alice?type=conda');
    expect(listed.body.map((p: any) => `${p.name}@${p.version}`)).toEqual(['tool@1.0']);
  });

  test('channels and platform subdirs are separate; the same file twice is 409', async () => {
    const pkg = await condaPackage({ name: 'native', version: '2.1.0', subdir: 'linux-64' }, '.conda');
    expect((await req('PUT', `alice/conda/main/${pkg.filename}`, write, pkg.data)).status).toBe(201);
    expect((await req('PUT', `alice/conda/team/nightly/${pkg.filename}`, write, pkg.data)).status).toBe(201);
    expect((await req('PUT', `alice/conda/main/${pkg.filename}`, write, pkg.data)).status).toBe(409);
    expect(Object.keys((await repodata('alice/conda/main/linux-64/repodata.json'))['packages.conda'])).toEqual(['native-2.1.0-h0_0.conda']);
    expect(Object.keys((await repodata('alice/conda/team/nightly/linux-64/repodata.json'))['packages.conda'])).toEqual([
      'native-2.1.0-h0_0.conda',
    ]);
    expect((await repodata('alice/conda/main/noarch/repodata.json'))['packages.conda']).toEqual({});
    expect(Object.keys((await repodata('alice/conda/linux-64/repodata.json'))['packages.conda'])).toEqual([]);
    expect((await req('GET', `alice/conda/main/linux-64/${pkg.filename}`)).status).toBe(200);
    expect((await req('GET', `alice/conda/main/noarch/${pkg.filename}`)).status).toBe(404);
    const first = await req('GET', 'alice/conda/main/linux-64/repodata.json');
    const etag = first.headers.get('etag')!;
    expect((await fetch(url('alice/conda/main/linux-64/repodata.json'), { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  test('bad uploads are 400 with a message, and store nothing', async () => {
    const good = await condaPackage({ name: 'bad', version: '1.0' }, '.conda');
    const goodBz2 = await condaPackage({ name: 'bad', version: '1.0' }, '.tar.bz2');
    const cases: [string, string, Buffer, RegExp][] = [
      ['wrong extension', 'bad-1.0-h0_0.zip', good.data, /invalid file name/],
      ['name mismatch', 'other-1.0-h0_0.conda', good.data, /must be bad-1.0-h0_0.conda/],
      ['empty', 'bad-1.0-h0_0.conda', Buffer.alloc(0), /empty/],
      ['not a zip', 'bad-1.0-h0_0.conda', Buffer.from('not a zip at all'), /invalid .conda package/],
      ['not bzip2', 'bad-1.0-h0_0.tar.bz2', Buffer.from('not bzip2 data, just text'), /invalid .tar.bz2 package/],
      ['.tar.bz2 posing as .conda', 'bad-1.0-h0_0.conda', goodBz2.data, /invalid .conda package/],
      ['.conda posing as .tar.bz2', 'bad-1.0-h0_0.tar.bz2', good.data, /invalid .tar.bz2 package/],
      [
        'bad json',
        'bad-1.0-h0_0.conda',
        (await condaPackage({ name: 'bad', version: '1.0', rawIndex: '{"name": ' }, '.conda')).data,
        /not valid JSON/,
      ],
      [
        'upper-case name',
        'Bad-1.0-h0_0.conda',
        (await condaPackage({ name: 'Bad', version: '1.0' }, '.conda')).data,
        /invalid or missing name/,
      ],
      [
        'dash in version',
        'bad-1.0-1-h0_0.conda',
        (await condaPackage({ name: 'bad', version: '1.0-1' }, '.conda')).data,
        /invalid or missing version/,
      ],
      [
        'no subdir',
        'bad-1.0-h0_0.conda',
        (await condaPackage({ name: 'bad', version: '1.0', index: { subdir: undefined, noarch: undefined } }, '.conda')).data,
        /subdir/,
      ],
      [
        'traversal subdir',
        'bad-1.0-h0_0.conda',
        (await condaPackage({ name: 'bad', version: '1.0', subdir: '../x' }, '.conda')).data,
        /subdir/,
      ],
      [
        'depends not a list',
        'bad-1.0-h0_0.conda',
        (await condaPackage({ name: 'bad', version: '1.0', index: { depends: 'python' } }, '.conda')).data,
        /depends/,
      ],
    ];
    for (const [what, filename, body, message] of cases) {
      const res = await req('PUT', `alice/conda/${filename}`, write, body);
      const json: any = await res.json();
      expect([what, res.status]).toEqual([what, 400]);
      expect([what, json.message]).toEqual([what, expect.stringMatching(message)]);
    }
    for (const channel of ['..x', 'a/b/c/d', '.hidden', 'sp%20ace']) {
      expect([channel, (await req('PUT', `alice/conda/${channel}/${good.filename}`, write, good.data)).status]).toEqual([channel, 400]);
    }
    expect((await server.api('GET', '/packages/alice?type=conda&q=bad')).body).toEqual([]);
    expect((await repodata('alice/conda/noarch/repodata.json'))['packages.conda']['bad-1.0-h0_0.conda']).toBeUndefined();
    for (const p of ['noarch/..%2F..%2Fx.conda', 'BAD/repodata.json', 'a/b/c/d/noarch/repodata.json', 'x'])
      expect([p, (await req('GET', `alice/conda/${p}`)).status]).toEqual([p, 404]);
  });

  test('deletes: a file through the channel path and a version through the package API; repodata follows at once', async () => {
    const bob = await server.user('bob');
    const token = await server.token(bob, ['write:package', 'delete:package']);
    const a = await condaPackage({ name: 'gone', version: '1.0' }, '.conda');
    const b = await condaPackage({ name: 'gone', version: '1.0' }, '.tar.bz2');
    const c = await condaPackage({ name: 'gone', version: '2.0' }, '.conda');
    for (const f of [a, b, c]) expect((await req('PUT', `bob/conda/${f.filename}`, token, f.data)).status).toBe(201);
    expect((await req('DELETE', `bob/conda/noarch/${a.filename}`, token)).status).toBe(204);
    let doc = await repodata('bob/conda/noarch/repodata.json');
    expect(Object.keys(doc['packages.conda'])).toEqual(['gone-2.0-h0_0.conda']);
    expect(Object.keys(doc.packages)).toEqual(['gone-1.0-h0_0.tar.bz2']);
    expect((await req('GET', `bob/conda/noarch/${a.filename}`)).status).toBe(404);
    expect((await server.api('DELETE', '/packages/bob/conda/gone/2.0', { token })).status).toBe(204);
    doc = await repodata('bob/conda/noarch/repodata.json');
    expect(doc['packages.conda']).toEqual({});
    expect((await repodata('bob/conda/channeldata.json')).packages.gone.version).toBe('1.0');
    expect((await req('DELETE', `bob/conda/noarch/${b.filename}`, token)).status).toBe(204);
    expect((await server.kernel.db('conda_file').where({ owner_id: bob.id })).length).toBe(0);
    expect((await req('DELETE', `bob/conda/noarch/${b.filename}`, token)).status).toBe(404);
  });

  test('permissions: uploads need write:package of the owner; private owners challenge anonymous readers', async () => {
    const pkg = await condaPackage({ name: 'perm', version: '1.0' }, '.conda');
    const read = await server.token(alice, ['read:package']);
    const mallory = await server.user('mallory');
    const mtoken = await server.token(mallory, ['write:package']);
    expect((await req('PUT', `alice/conda/${pkg.filename}`, undefined, pkg.data)).status).toBe(401);
    expect((await req('PUT', `alice/conda/${pkg.filename}`, read, pkg.data)).status).toBe(403);
    expect((await req('PUT', `alice/conda/${pkg.filename}`, mtoken, pkg.data)).status).toBe(403);
    expect((await req('DELETE', 'alice/conda/noarch/tool-1.0-h0_0.conda', write)).status).toBe(403);

    const carol = await server.user('carol', { visibility: 'private' });
    const ctoken = await server.token(carol, ['write:package']);
    expect((await req('PUT', `carol/conda/${pkg.filename}`, ctoken, pkg.data)).status).toBe(201);
    const anonymous = await req('GET', 'carol/conda/noarch/repodata.json');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await req('GET', 'carol/conda/noarch/repodata.json', mtoken)).status).toBe(404);
    const basic = await fetch(url('carol/conda/noarch/repodata.json'), {
      headers: { Authorization: `Basic ${Buffer.from(`carol:${ctoken}`).toString('base64')}` },
    });
    expect(basic.status).toBe(200);
    expect(Object.keys(((await basic.json()) as any)['packages.conda'])).toEqual(['perm-1.0-h0_0.conda']);

    // conda's token in the URL: /t/<token>/… reads as the token's owner, downloads included; a bad token is 401.
    const viaPath = await req('GET', `carol/conda/t/${ctoken}/noarch/repodata.json`);
    expect(viaPath.status).toBe(200);
    expect(Object.keys(((await viaPath.json()) as any)['packages.conda'])).toEqual(['perm-1.0-h0_0.conda']);
    const download = await req('GET', `carol/conda/t/${ctoken}/noarch/perm-1.0-h0_0.conda`);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(pkg.data)).toBe(true);
    expect((await req('GET', `carol/conda/t/${ctoken}/noarch/repodata.json?x=1`)).status).toBe(200);
    expect((await req('GET', 'carol/conda/t/not-a-valid-token/noarch/repodata.json')).status).toBe(401);
    expect((await req('GET', `carol/conda/t/${mtoken}/noarch/repodata.json`)).status).toBe(404);
  });
});

describe('conda registry settings and enablement', () => {
  test('uploads over maxUploadSize are 413', async () => {
    const server = await startServer({ plugins: { conda: { enabled: true, settings: { maxUploadSize: 2048 } } } });
    try {
      const user = await server.user('dora');
      const token = await server.token(user, ['write:package']);
      const res = await fetch(new URL('api/packages/dora/conda/big-1.0-h0_0.conda', server.url), {
        method: 'PUT',
        headers: { Authorization: `token ${token}` },
        body: crypto.randomBytes(5000),
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).message).toMatch(/larger than the limit of 2048/);
    } finally {
      await server.close();
    }
  });

  test('a server without the plugin answers 404 and has no conda_* tables', async () => {
    const server = await startServer();
    try {
      await server.user('erin');
      expect((await fetch(new URL('api/packages/erin/conda/noarch/repodata.json', server.url))).status).toBe(404);
      expect(await server.kernel.db.schema.hasTable('conda_file')).toBe(false);
    } finally {
      await server.close();
    }
  });
});
