import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ADMIN, createTestDatabase, startServer, type TestServer } from '@hearth/testing';
import { buildDeb, gpgv, parseStanzas, releaseSha256, xz } from './helpers';

const sha256 = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');

describe('Debian registry', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let write: string;
  let del: string;

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const get = (p: string, headers: Record<string, string> = {}) => fetch(url(p), { headers });
  const text = async (p: string) => {
    const res = await get(p);
    if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${await res.text()}`);
    return res.text();
  };
  const bytes = async (p: string) => Buffer.from(await (await get(p)).arrayBuffer());
  const upload = (owner: string, dist: string, comp: string, body: Buffer, token: string | null = write) =>
    fetch(url(`${owner}/debian/pool/${dist}/${comp}/upload`), {
      method: 'PUT',
      body,
      headers: token ? { Authorization: `token ${token}` } : {},
    });
  const remove = (p: string, token = del) =>
    fetch(url(`alice/debian/pool/${p}`), { method: 'DELETE', headers: { Authorization: `token ${token}` } });
  const packagesOf = async (dist: string, comp: string, arch: string) =>
    parseStanzas(await text(`alice/debian/dists/${dist}/${comp}/binary-${arch}/Packages`));

  beforeAll(async () => {
    server = await startServer({ plugins: { debian: { enabled: true } } });
    alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
    del = await server.token(alice, ['delete:package']);
  });
  afterAll(() => server.close());

  test('an upload is indexed: Packages with checksums, Packages.gz, Packages.xz, by-hash, signed Release and InRelease', async () => {
    const deb = buildDeb({ name: 'hello-hearth', version: '1.0-1', architecture: 'amd64', extraFields: 'Depends: libc6 (>= 2.17)' });
    const res = await upload('alice', 'bookworm', 'main', deb);
    expect(res.status).toBe(201);

    const [stanza, ...rest] = await packagesOf('bookworm', 'main', 'amd64');
    expect(rest).toEqual([]);
    expect(stanza).toMatchObject({
      Package: 'hello-hearth',
      Version: '1.0-1',
      Architecture: 'amd64',
      Depends: 'libc6 (>= 2.17)',
      Maintainer: 'Test Maintainer <test@example.com>',
      Filename: 'pool/bookworm/main/hello-hearth_1.0-1_amd64.deb',
      Size: String(deb.length),
      SHA256: sha256(deb),
      MD5sum: crypto.createHash('md5').update(deb).digest('hex'),
      SHA1: crypto.createHash('sha1').update(deb).digest('hex'),
    });
    expect(stanza.Description).toBe(
      'test package hello-hearth\n A package built by the Hearth Debian registry tests.\n .\n Second paragraph.',
    );
    expect(await bytes(`alice/debian/${stanza.Filename}`)).toEqual(deb);

    const release = await text('alice/debian/dists/bookworm/Release');
    expect(release).toMatch(
      /^Origin: alice\nLabel: alice\nSuite: bookworm\nCodename: bookworm\nDate: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d UTC\n/,
    );
    expect(release).toContain('\nArchitectures: amd64\nComponents: main\nAcquire-By-Hash: yes\n');
    const listed = releaseSha256(release);
    expect([...listed.keys()].sort()).toEqual([
      'main/binary-amd64/Packages',
      'main/binary-amd64/Packages.gz',
      'main/binary-amd64/Packages.xz',
    ]);
    const plain = await bytes('alice/debian/dists/bookworm/main/binary-amd64/Packages');
    const gz = await bytes('alice/debian/dists/bookworm/main/binary-amd64/Packages.gz');
    const xzFile = await get('alice/debian/dists/bookworm/main/binary-amd64/Packages.xz');
    expect(xzFile.status).toBe(200);
    expect(xzFile.headers.get('content-type')).toBe('application/x-xz');
    const xzBytes = Buffer.from(await xzFile.arrayBuffer());
    expect(listed.get('main/binary-amd64/Packages')).toEqual({ sha256: sha256(plain), size: plain.length });
    expect(listed.get('main/binary-amd64/Packages.gz')).toEqual({ sha256: sha256(gz), size: gz.length });
    expect(listed.get('main/binary-amd64/Packages.xz')).toEqual({ sha256: sha256(xzBytes), size: xzBytes.length });
    expect(zlib.gunzipSync(gz)).toEqual(plain);
    // The real xz: a valid .xz file (integrity check) that decompresses to the Packages bytes.
    expect(xz(['-t'], xzBytes)).toMatchObject({ code: 0, stderr: '' });
    expect(xz(['-dc'], xzBytes).stdout).toEqual(plain);
    expect(await bytes(`alice/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256/${sha256(gz)}`)).toEqual(gz);
    expect(await bytes(`alice/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256/${sha256(xzBytes)}`)).toEqual(xzBytes);
    expect(await bytes(`alice/debian/dists/bookworm/by-hash/SHA256/${sha256(plain)}`)).toEqual(plain);

    const key = await text('alice/debian/repository.key');
    expect(key).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    const inRelease = await text('alice/debian/dists/bookworm/InRelease');
    const releaseGpg = await text('alice/debian/dists/bookworm/Release.gpg');
    expect((await gpgv(key, { InRelease: inRelease }, ['InRelease'])).code).toBe(0);
    expect(inRelease).toContain(release.trimEnd());
    expect((await gpgv(key, { Release: release, 'Release.gpg': releaseGpg }, ['Release.gpg', 'Release'])).code).toBe(0);
    expect(
      (
        await gpgv(key, { Release: release.replace('Suite: bookworm', 'Suite: trixie'), 'Release.gpg': releaseGpg }, [
          'Release.gpg',
          'Release',
        ])
      ).code,
    ).not.toBe(0);
  });

  test('index files answer conditional requests: by-hash immutable, Release revalidated by date or ETag', async () => {
    expect((await upload('alice', 'cache', 'main', buildDeb({ name: 'cached', version: '1.0', architecture: 'amd64' }))).status).toBe(201);
    const release = await text('alice/debian/dists/cache/Release');
    const { sha256: xzHash } = releaseSha256(release).get('main/binary-amd64/Packages.xz')!;
    const byHash = await get(`alice/debian/dists/cache/main/binary-amd64/by-hash/SHA256/${xzHash}`);
    expect(byHash.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
    expect(byHash.headers.get('etag')).toBe(`"${xzHash}"`);
    expect(byHash.headers.get('content-length')).toBe(String((await byHash.arrayBuffer()).byteLength));
    const again = await get(`alice/debian/dists/cache/main/binary-amd64/by-hash/SHA256/${xzHash}`, { 'If-None-Match': `"${xzHash}"` });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const byName = await get('alice/debian/dists/cache/main/binary-amd64/Packages.xz', { 'If-None-Match': `"${xzHash}"` });
    expect(byName.status).toBe(304);
    expect(byName.headers.get('cache-control')).toBe('no-cache');

    // Last-Modified is given once its second is over (a change within that second would share the date).
    await new Promise((r) => setTimeout(r, 1100));
    const inRelease = await get('alice/debian/dists/cache/InRelease');
    const lastModified = inRelease.headers.get('last-modified');
    const etag = inRelease.headers.get('etag');
    expect(lastModified).toMatch(/GMT$/);
    expect((await get('alice/debian/dists/cache/InRelease', { 'If-Modified-Since': lastModified! })).status).toBe(304);
    expect((await get('alice/debian/dists/cache/InRelease', { 'If-None-Match': etag! })).status).toBe(304);
    expect((await get('alice/debian/dists/cache/InRelease', { 'If-None-Match': '"other"' })).status).toBe(200);
    // A change makes the same validators stale.
    expect((await upload('alice', 'cache', 'main', buildDeb({ name: 'cached', version: '1.1', architecture: 'amd64' }))).status).toBe(201);
    const changed = await get('alice/debian/dists/cache/InRelease', { 'If-Modified-Since': lastModified!, 'If-None-Match': etag! });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toContain('Suite: cache');
  });

  test('control archives compressed with gzip, xz, zstd or not at all are read', async () => {
    for (const compression of ['gzip', 'xz', 'zstd', 'none'] as const) {
      const res = await upload(
        'alice',
        'compress',
        'main',
        buildDeb({ name: `pkg-${compression}`, version: '2.0', architecture: 'amd64', compression }),
      );
      expect({ compression, status: res.status }).toEqual({ compression, status: 201 });
    }
    const names = (await packagesOf('compress', 'main', 'amd64')).map((s) => s.Package);
    expect(names).toEqual(['pkg-gzip', 'pkg-none', 'pkg-xz', 'pkg-zstd']);
  });

  test('Architecture all packages are listed in every architecture; several versions stay installable', async () => {
    expect((await upload('alice', 'multi', 'main', buildDeb({ name: 'tool', version: '1.0', architecture: 'amd64' }))).status).toBe(201);
    expect((await upload('alice', 'multi', 'main', buildDeb({ name: 'tool', version: '1.1', architecture: 'amd64' }))).status).toBe(201);
    expect((await upload('alice', 'multi', 'main', buildDeb({ name: 'tool', version: '1.1', architecture: 'arm64' }))).status).toBe(201);
    expect((await upload('alice', 'multi', 'main', buildDeb({ name: 'docs', version: '1:3.0', architecture: 'all' }))).status).toBe(201);
    expect((await upload('alice', 'multi', 'contrib', buildDeb({ name: 'extra', version: '0.1', architecture: 'all' }))).status).toBe(201);
    const amd64 = (await packagesOf('multi', 'main', 'amd64')).map((s) => `${s.Package}=${s.Version}/${s.Architecture}`);
    expect(amd64).toEqual(['docs=1:3.0/all', 'tool=1.0/amd64', 'tool=1.1/amd64']);
    const arm64 = (await packagesOf('multi', 'main', 'arm64')).map((s) => `${s.Package}=${s.Version}/${s.Architecture}`);
    expect(arm64).toEqual(['docs=1:3.0/all', 'tool=1.1/arm64']);
    expect((await packagesOf('multi', 'contrib', 'arm64')).map((s) => s.Package)).toEqual(['extra']);
    const docs = (await packagesOf('multi', 'main', 'amd64'))[0];
    expect(docs.Filename).toBe('pool/multi/main/docs_3.0_all.deb');
    const release = await text('alice/debian/dists/multi/Release');
    expect(release).toContain('\nArchitectures: amd64 arm64\nComponents: contrib main\n');
    expect(release).toContain('No-Support-for-Architecture-all: Packages');
    expect(releaseSha256(release).size).toBe(12);
  });

  test('bad input gets a clear 4xx and stores nothing', async () => {
    const before = await server.kernel.db('package_file').count({ n: '*' }).first();
    const good = buildDeb({ name: 'victim', version: '1.0', architecture: 'amd64' });
    const cases: Array<[string, Buffer, number, RegExp]> = [
      ['not an ar archive', Buffer.from('hello, this is not a package'), 400, /not an ar archive/],
      ['empty', Buffer.alloc(0), 400, /empty/],
      ['truncated', good.subarray(0, 200), 400, /truncated|corrupt|decompress/],
      [
        'corrupt control archive',
        Buffer.concat([good.subarray(0, 140), Buffer.alloc(good.length - 140, 7)]),
        400,
        /invalid Debian package/,
      ],
      [
        'missing Version',
        buildDeb({ name: 'x', version: '1', control: 'Package: noversion\nArchitecture: all\nDescription: d\n' }),
        400,
        /missing Version/,
      ],
      [
        'bad package name',
        buildDeb({ name: 'x', version: '1', control: 'Package: Bad_Name\nVersion: 1.0\nArchitecture: all\nDescription: d\n' }),
        400,
        /invalid package name/,
      ],
    ];
    for (const [label, body, status, message] of cases) {
      const res = await upload('alice', 'bad', 'main', body);
      const json = (await res.json()) as { message: string; url: string };
      expect({ label, status: res.status }).toEqual({ label, status });
      expect(json.message).toMatch(message);
      expect(json.url).toEqual(expect.any(String));
    }
    for (const [dist, comp] of [
      ['..', 'main'],
      ['bad', '.hidden'],
      ['a%2Fb', 'main'],
    ]) {
      const res = await fetch(url(`alice/debian/pool/${dist}/${comp}/upload`), {
        method: 'PUT',
        body: good,
        headers: { Authorization: `token ${write}` },
      });
      expect([400, 404]).toContain(res.status);
    }
    expect(await server.kernel.db('package_file').count({ n: '*' }).first()).toEqual(before);
    expect((await get('alice/debian/dists/bad/Release')).status).toBe(404);
  });

  test('a duplicate upload is 409; anonymous and read-only uploads are refused', async () => {
    const deb = buildDeb({ name: 'dup', version: '1.0', architecture: 'amd64' });
    expect((await upload('alice', 'dups', 'main', deb)).status).toBe(201);
    const again = await upload('alice', 'dups', 'main', deb);
    expect(again.status).toBe(409);
    // The same version differing only in epoch would take the same pool file name.
    expect((await upload('alice', 'dups', 'main', buildDeb({ name: 'dup', version: '2:1.0', architecture: 'amd64' }))).status).toBe(409);
    // Another component of the distribution is another place.
    expect((await upload('alice', 'dups', 'other', deb)).status).toBe(201);
    expect((await upload('alice', 'dups', 'main', buildDeb({ name: 'anon', version: '1', architecture: 'all' }), null)).status).toBe(401);
    const read = await server.token(alice, ['read:package']);
    expect((await upload('alice', 'dups', 'main', buildDeb({ name: 'ro', version: '1', architecture: 'all' }), read)).status).toBe(403);
    expect((await packagesOf('dups', 'main', 'amd64')).map((s) => s.Package)).toEqual(['dup']);
  });

  test('deletes leave the index at once; the last delete removes the distribution', async () => {
    const a = buildDeb({ name: 'gone-a', version: '1.0', architecture: 'amd64' });
    expect((await upload('alice', 'deletes', 'main', a)).status).toBe(201);
    expect((await upload('alice', 'deletes', 'main', buildDeb({ name: 'gone-b', version: '1.0', architecture: 'amd64' }))).status).toBe(
      201,
    );
    expect((await remove('deletes/main/gone-a/1.0/i386')).status).toBe(404);
    expect((await remove('deletes/main/gone-a/1.0/amd64')).status).toBe(204);
    expect((await get('alice/debian/pool/deletes/main/gone-a_1.0_amd64.deb')).status).toBe(404);
    expect((await packagesOf('deletes', 'main', 'amd64')).map((s) => s.Package)).toEqual(['gone-b']);
    const release = await text('alice/debian/dists/deletes/Release');
    const packages = await bytes('alice/debian/dists/deletes/main/binary-amd64/Packages');
    expect(releaseSha256(release).get('main/binary-amd64/Packages')?.sha256).toBe(sha256(packages));
    // Through the generic API too (the version goes with its last file).
    expect((await server.api('DELETE', '/packages/alice/debian/gone-b/1.0', { token: del })).status).toBe(204);
    expect((await get('alice/debian/dists/deletes/Release')).status).toBe(404);
    expect((await get('alice/debian/dists/deletes/InRelease')).status).toBe(404);
    expect((await get('alice/debian/dists/deletes/main/binary-amd64/Packages')).status).toBe(404);
  });

  test('concurrent uploads into one distribution all end up in a consistent index', async () => {
    const debs = Array.from({ length: 8 }, (_, i) =>
      buildDeb({ name: `conc-${i}`, version: '1.0', architecture: i % 3 === 0 ? 'all' : 'amd64' }),
    );
    // Readers during the uploads: each Release they get lists files that exist, by hash, with its sizes and hashes.
    const readDuring = async () => {
      const res = await get('alice/debian/dists/busy/Release');
      if (res.status === 404) return;
      for (const [p, entry] of releaseSha256(await res.text())) {
        const body = await bytes(`alice/debian/dists/busy/${p.slice(0, p.lastIndexOf('/'))}/by-hash/SHA256/${entry.sha256}`);
        expect({ p, sha256: sha256(body), size: body.length }).toEqual({ p, ...entry });
      }
    };
    const [results] = await Promise.all([
      Promise.all(debs.map((deb) => upload('alice', 'busy', 'main', deb))),
      Promise.all(Array.from({ length: 6 }, readDuring)),
    ]);
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const names = (await packagesOf('busy', 'main', 'amd64')).map((s) => s.Package).sort();
    expect(names).toEqual(debs.map((_, i) => `conc-${i}`).sort());
    const release = await text('alice/debian/dists/busy/Release');
    for (const [p, entry] of releaseSha256(release)) {
      const body = await bytes(`alice/debian/dists/busy/${p}`);
      expect({ p, sha256: sha256(body), size: body.length }).toEqual({ p, ...entry });
    }
  });

  test('private owners: anonymous readers get 404; the signing key is per owner', async () => {
    const carol = await server.user('carol', { visibility: 'private' });
    const token = await server.token(carol, ['write:package', 'read:package']);
    expect((await upload('carol', 'secret', 'main', buildDeb({ name: 'hidden', version: '1', architecture: 'all' }), token)).status).toBe(
      201,
    );
    expect((await get('carol/debian/dists/secret/InRelease')).status).toBe(404);
    expect((await get('carol/debian/repository.key')).status).toBe(404);
    const carolKey = await (await get('carol/debian/repository.key', { Authorization: `token ${token}` })).text();
    expect(carolKey).not.toBe(await text('alice/debian/repository.key'));
    const inRelease = await (await get('carol/debian/dists/secret/InRelease', { Authorization: `token ${token}` })).text();
    expect((await gpgv(carolKey, { InRelease: inRelease }, ['InRelease'])).code).toBe(0);
    expect((await gpgv(await text('alice/debian/repository.key'), { InRelease: inRelease }, ['InRelease'])).code).not.toBe(0);
    // Index files of a private owner are never for shared caches.
    const [[indexPath, entry]] = releaseSha256(inRelease);
    const byHash = `carol/debian/dists/secret/${indexPath.slice(0, indexPath.lastIndexOf('/'))}/by-hash/SHA256/${entry.sha256}`;
    expect((await get(byHash)).status).toBe(404);
    const withToken = await get(byHash, { Authorization: `token ${token}` });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('cache-control')).toBe('private, max-age=86400, immutable');
  });

  test('purging an owner removes its Debian rows', async () => {
    const dave = await server.user('dave');
    const token = await server.token(dave, ['write:package']);
    expect((await upload('dave', 'd', 'main', buildDeb({ name: 'daves', version: '1', architecture: 'all' }), token)).status).toBe(201);
    const admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
    expect((await server.api('DELETE', '/admin/users/dave?purge=true', { token: admin })).status).toBe(204);
    for (const table of ['debian_package_file', 'debian_release', 'debian_distribution', 'package_signing_keys']) {
      expect(await server.kernel.db(table).where('owner_id', dave.id)).toEqual([]);
    }
  });
});

describe('Debian registry served by two processes on one database', () => {
  test("each server serves the index of the other's publishes and deletes at once, with the same signed Release", async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-debian-shared-'));
    const shared = { plugins: { debian: { enabled: true } }, database: { URL: database.url }, server: { DATA_DIR: dataDir } };
    const servers: TestServer[] = [];
    try {
      servers.push(await startServer(shared));
      servers.push(await startServer(shared));
      const [first, second] = servers;
      const olga = await first.user('olga');
      const token = await first.token(olga, ['write:package', 'delete:package']);
      const at = (s: TestServer, p: string) => new URL(`api/packages/olga/debian/${p}`, s.url);
      const put = async (s: TestServer, name: string) => {
        const res = await fetch(at(s, 'pool/shared/main/upload'), {
          method: 'PUT',
          headers: { Authorization: `token ${token}` },
          body: buildDeb({ name, version: '1.0', architecture: 'amd64' }),
        });
        expect(res.status).toBe(201);
      };
      const read = async (s: TestServer, p: string) => {
        const res = await fetch(at(s, p));
        return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
      };
      const names = async (s: TestServer) =>
        parseStanzas((await read(s, 'dists/shared/main/binary-amd64/Packages')).body.toString()).map((x) => x.Package);

      await put(first, 'one');
      expect(await names(second)).toEqual(['one']);
      await put(first, 'two');
      // The second server read the index before: it must not serve that stale one.
      expect(await names(second)).toEqual(['one', 'two']);
      const inRelease = (await read(second, 'dists/shared/InRelease')).body.toString();
      expect((await read(first, 'dists/shared/InRelease')).body.toString()).toBe(inRelease);
      for (const [p, entry] of releaseSha256((await read(first, 'dists/shared/Release')).body.toString())) {
        const byHash = await read(second, `dists/shared/${p.slice(0, p.lastIndexOf('/'))}/by-hash/SHA256/${entry.sha256}`);
        expect({ p, status: byHash.status, sha256: sha256(byHash.body) }).toEqual({ p, status: 200, sha256: entry.sha256 });
      }
      const removed = await fetch(at(second, 'pool/shared/main/one/1.0/amd64'), {
        method: 'DELETE',
        headers: { Authorization: `token ${token}` },
      });
      expect(removed.status).toBe(204);
      expect(await names(first)).toEqual(['two']);
      expect(await names(second)).toEqual(['two']);
    } finally {
      for (const s of servers.reverse()) await s.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('Debian registry disabled', () => {
  test('a server without the plugin answers 404 and has no debian_* tables', async () => {
    const server = await startServer();
    try {
      await server.user('erin');
      expect((await fetch(new URL('api/packages/erin/debian/repository.key', server.url))).status).toBe(404);
      expect((await fetch(new URL('api/packages/erin/debian/dists/x/InRelease', server.url))).status).toBe(404);
      for (const table of ['debian_package_file', 'debian_index_file', 'debian_release', 'debian_distribution'])
        expect(await server.kernel.db.schema.hasTable(table)).toBe(false);
    } finally {
      await server.close();
    }
  });
});
