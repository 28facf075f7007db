import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createTestDatabase, startServer, type TestServer } from '@hearth/testing';
import { buildApk, gzipMembers, requireTool, type BuiltApk } from './helpers';

/** The tar entries of an uncompressed tar stream, by name. */
function tarEntries(tar: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar
      .subarray(at, at + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (!name) break;
    const size = parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString('latin1')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    out.set(name, tar.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

/** APKINDEX records as maps of one-letter keys. */
function parseIndex(body: Buffer): Map<string, Record<string, string>> {
  const [, index] = gzipMembers(body);
  const text = tarEntries(zlib.gunzipSync(index)).get('APKINDEX')!.toString('utf8');
  const records = new Map<string, Record<string, string>>();
  for (const block of text.split('\n\n').filter((b) => b.trim())) {
    const record = Object.fromEntries(block.split('\n').map((l) => [l[0], l.slice(2)]));
    records.set(`${record.P}-${record.V}.${record.A}`, record);
  }
  return records;
}

describe('alpine registry', () => {
  let server: TestServer;
  let work: string;
  let write: string;
  let read: string;
  let del: string;
  let hello: BuiltApk;
  let common: BuiltApk;

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const req = (method: string, p: string, token?: string, body?: Buffer) =>
    fetch(url(p), { method, headers: token ? { Authorization: `token ${token}` } : {}, body });
  const upload = (p: string, body: Buffer, token = write) => req('PUT', `alice/alpine/${p}`, token, body);
  const index = async (p: string) => {
    const res = await req('GET', `alice/alpine/${p}/APKINDEX.tar.gz`);
    expect(res.status).toBe(200);
    return parseIndex(Buffer.from(await res.arrayBuffer()));
  };

  beforeAll(async () => {
    await requireTool('tar', ['--version'], 'tar');
    await requireTool('openssl', ['version'], 'openssl');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-apk-'));
    server = await startServer({ plugins: { alpine: { enabled: true } } });
    const alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
    read = await server.token(alice, ['read:package']);
    del = await server.token(alice, ['delete:package']);
    hello = await buildApk(work, { name: 'hello', depends: ['so:libc.musl-x86_64.so.1', 'busybox'], provides: ['cmd:hello=1.0.0-r0'] });
    common = await buildApk(work, { name: 'hello-doc', arch: 'noarch' });
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('upload; the index names the package with its checksum; download; duplicate 409', async () => {
    expect((await upload('v3.19/main', hello.file)).status).toBe(201);
    expect((await upload('v3.19/main', common.file)).status).toBe(201);
    const dup = await upload('v3.19/main', hello.file);
    expect(dup.status).toBe(409);

    const records = await index('v3.19/main/x86_64');
    expect([...records.keys()].sort()).toEqual(['hello-1.0.0-r0.x86_64', 'hello-doc-1.0.0-r0.noarch']);
    expect(records.get('hello-1.0.0-r0.x86_64')).toEqual({
      C: `Q1${crypto.createHash('sha1').update(hello.control).digest('base64')}`,
      P: 'hello',
      V: '1.0.0-r0',
      A: 'x86_64',
      S: String(hello.file.length),
      I: String(hello.installedSize),
      T: 'The hello test package',
      U: 'https://example.com/hello',
      L: 'MIT',
      o: 'hello',
      m: 'Tester <tester@example.com>',
      t: '1700000000',
      c: '0123456789abcdef0123456789abcdef01234567',
      D: 'so:libc.musl-x86_64.so.1 busybox',
      p: 'cmd:hello=1.0.0-r0',
    });

    const dl = await req('GET', 'alice/alpine/v3.19/main/x86_64/hello-1.0.0-r0.apk');
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(hello.file)).toBe(true);
    // apk asks for noarch packages under the arch it indexes.
    const doc = await req('GET', 'alice/alpine/v3.19/main/x86_64/hello-doc-1.0.0-r0.apk');
    expect(Buffer.from(await doc.arrayBuffer()).equals(common.file)).toBe(true);
    expect((await req('GET', 'alice/alpine/v3.19/main/aarch64/hello-1.0.0-r0.apk')).status).toBe(404);
    expect((await req('HEAD', 'alice/alpine/v3.19/main/x86_64/APKINDEX.tar.gz')).status).toBe(200);
  });

  test('noarch packages appear in every arch index; a repository with only noarch packages serves them', async () => {
    expect([...(await index('v3.19/main/aarch64')).keys()]).toEqual(['hello-doc-1.0.0-r0.noarch']);
    const only = await buildApk(work, { name: 'docs-only', arch: 'noarch' });
    expect((await upload('edge/docs', only.file)).status).toBe(201);
    expect([...(await index('edge/docs/x86_64')).keys()]).toEqual(['docs-only-1.0.0-r0.noarch']);
    expect([...(await index('edge/docs/riscv64')).keys()]).toEqual(['docs-only-1.0.0-r0.noarch']);
    expect((await req('GET', 'alice/alpine/edge/nothing/x86_64/APKINDEX.tar.gz')).status).toBe(404);
  });

  test('bad uploads are 400 with a message and store nothing', async () => {
    const noPkginfo = zlib.gzipSync(Buffer.alloc(1024));
    const badName = await buildApk(work, { name: 'bad', version: '1.0;rm' });
    const badHash = await buildApk(work, { name: 'badhash', badDatahash: true });
    const cases: [string, Buffer, RegExp][] = [
      ['not gzip', Buffer.from('plain text, not a package'), /not gzip-compressed/],
      ['truncated', hello.file.subarray(0, hello.control.length - 20), /truncated|corrupt/],
      ['no PKGINFO', Buffer.concat([noPkginfo, noPkginfo]), /no \.PKGINFO/],
      ['control only', hello.control, /no data segment/],
      ['bad version', badName.file, /invalid pkgver/],
      ['data does not match datahash', badHash.file, /datahash/],
    ];
    for (const [what, body, message] of cases) {
      const res = await upload('v3.19/bad', body);
      expect([what, res.status]).toEqual([what, 400]);
      expect([what, ((await res.json()) as { message: string }).message]).toEqual([what, expect.stringMatching(message)]);
    }
    expect((await upload('v3..19/bad', hello.file)).status).toBe(400);
    expect((await req('GET', 'alice/alpine/v3.19/bad/x86_64/APKINDEX.tar.gz')).status).toBe(404);
    const names = (await server.api('GET', '/packages/alice?type=alpine')).body.map((p: { name: string }) => p.name);
    expect(names).not.toContain('bad');
    expect(names).not.toContain('badhash');
  });

  test('delete leaves the index at once, also through the generic package API', async () => {
    const gone = await buildApk(work, { name: 'gone' });
    expect((await upload('v3.19/main', gone.file)).status).toBe(201);
    expect((await index('v3.19/main/x86_64')).has('gone-1.0.0-r0.x86_64')).toBe(true);
    expect((await req('DELETE', 'alice/alpine/v3.19/main/x86_64/gone-1.0.0-r0.apk', read)).status).toBe(403);
    expect((await req('DELETE', 'alice/alpine/v3.19/main/x86_64/gone-1.0.0-r0.apk', del)).status).toBe(204);
    expect((await index('v3.19/main/x86_64')).has('gone-1.0.0-r0.x86_64')).toBe(false);
    expect((await req('GET', 'alice/alpine/v3.19/main/x86_64/gone-1.0.0-r0.apk')).status).toBe(404);

    expect((await upload('v3.19/main', gone.file)).status).toBe(201);
    expect((await server.api('DELETE', '/packages/alice/alpine/gone/1.0.0-r0', { token: del })).status).toBe(204);
    expect((await index('v3.19/main/x86_64')).has('gone-1.0.0-r0.x86_64')).toBe(false);
  });

  test('concurrent uploads to one repository all end up in the index', async () => {
    const apks = await Promise.all(Array.from({ length: 6 }, (_, i) => buildApk(work, { name: `par${i}` })));
    const statuses = await Promise.all(apks.map((a) => upload('v3.19/parallel', a.file).then((r) => r.status)));
    expect(statuses).toEqual(Array(6).fill(201));
    expect([...(await index('v3.19/parallel/x86_64')).keys()].sort()).toEqual(apks.map((_, i) => `par${i}-1.0.0-r0.x86_64`).sort());
  });

  test('permissions: anonymous and read-only callers cannot upload; private owners are invisible', async () => {
    expect((await upload('v3.19/main', hello.file, '')).status).toBe(401);
    expect((await upload('v3.19/other', hello.file, read)).status).toBe(403);
    const bob = await server.user('bob', { visibility: 'private' });
    const bobWrite = await server.token(bob, ['write:package']);
    expect((await req('PUT', 'bob/alpine/v3.19/main', bobWrite, hello.file)).status).toBe(201);
    expect((await req('GET', 'bob/alpine/v3.19/main/x86_64/APKINDEX.tar.gz')).status).toBe(404);
    expect((await req('GET', 'bob/alpine/key')).status).toBe(404);
    expect((await req('GET', 'bob/alpine/v3.19/main/x86_64/APKINDEX.tar.gz', bobWrite)).status).toBe(200);
  });
});

test("two processes on one database: each serves the other's publishes and deletes at once, with the same bytes", async () => {
  const database = await createTestDatabase();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-apk-shared-'));
  const shared = { plugins: { alpine: { enabled: true } }, database: { URL: database.url }, server: { DATA_DIR: work } };
  const servers: TestServer[] = [];
  try {
    servers.push(await startServer(shared));
    servers.push(await startServer(shared));
    const [first, second] = servers;
    const olga = await first.user('olga');
    const token = await first.token(olga, ['write:package', 'delete:package']);
    const at = (s: TestServer, p: string) => new URL(`api/packages/olga/alpine/${p}`, s.url);
    const put = async (s: TestServer, name: string) => {
      const apk = await buildApk(work, { name });
      const res = await fetch(at(s, 'edge/main'), { method: 'PUT', headers: { Authorization: `token ${token}` }, body: apk.file });
      expect(res.status).toBe(201);
    };
    const served = async (s: TestServer) => {
      const res = await fetch(at(s, 'edge/main/x86_64/APKINDEX.tar.gz'));
      expect(res.status).toBe(200);
      return { etag: res.headers.get('etag'), body: Buffer.from(await res.arrayBuffer()) };
    };
    const names = async (s: TestServer) => [...parseIndex((await served(s)).body).values()].map((r) => r.P);

    await put(first, 'one');
    expect(await names(second)).toEqual(['one']);
    await put(first, 'two');
    // The second server built the index before: it must not serve that stale one.
    expect(await names(second)).toEqual(['one', 'two']);
    const [a, b] = [await served(first), await served(second)];
    expect(a.body.equals(b.body)).toBe(true);
    expect(a.etag).toBe(b.etag);
    const removed = await fetch(at(second, 'edge/main/x86_64/one-1.0.0-r0.apk'), {
      method: 'DELETE',
      headers: { Authorization: `token ${token}` },
    });
    expect(removed.status).toBe(204);
    expect(await names(first)).toEqual(['two']);
  } finally {
    for (const s of servers.reverse()) await s.close();
    await database.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('a server without the alpine plugin has no alpine routes and no alpine tables', async () => {
  const server = await startServer({ plugins: { alpine: { enabled: false } } });
  try {
    expect((await fetch(new URL('api/packages/forge-admin/alpine/key', server.url))).status).toBe(404);
    expect((await fetch(new URL('api/packages/forge-admin/alpine/v3.19/main/x86_64/APKINDEX.tar.gz', server.url))).status).toBe(404);
    expect(await server.kernel.db.schema.hasTable('alpine_file')).toBe(false);
  } finally {
    await server.close();
  }
});
