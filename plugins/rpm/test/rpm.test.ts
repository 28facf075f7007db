import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createTestDatabase, startServer, type TestServer } from '@hearth/testing';
import { buildRpm, gpgVerify, requireTool } from './helpers';

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

describe('rpm registry', () => {
  let server: TestServer;
  let work: string;
  let alice: { name: string; password: string; id: number };
  let write: string;
  let read: string;
  let hello: Buffer;

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const req = (method: string, p: string, token?: string, body?: Buffer, headers: Record<string, string> = {}) =>
    fetch(url(p), { method, headers: { ...(token ? { Authorization: `token ${token}` } : {}), ...headers }, body, redirect: 'manual' });
  const upload = (p: string, body: Buffer, token = write) => req('PUT', `alice/rpm/${p}`, token, body);
  const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

  /** repomd.xml and the data files it names, checked against their checksums and sizes. */
  async function metadata(group: string): Promise<{ repomd: string; primary: string; filelists: string; other: string }> {
    const base = `alice/rpm/${group ? `${group}/` : ''}repodata`;
    const repomdRes = await req('GET', `${base}/repomd.xml`);
    expect(repomdRes.status).toBe(200);
    const repomd = await repomdRes.text();
    const out: Record<string, string> = { repomd };
    for (const type of ['primary', 'filelists', 'other']) {
      const block = new RegExp(`<data type="${type}">([\\s\\S]*?)</data>`).exec(repomd)?.[1] ?? '';
      const href = /<location href="repodata\/([^"]+)"/.exec(block)?.[1] ?? '';
      const res = await req('GET', `${base}/${href}`);
      expect([type, res.status]).toEqual([type, 200]);
      const gz = await bytes(res);
      const open = zlib.gunzipSync(gz);
      expect(block).toContain(`<checksum type="sha256">${sha256(gz)}</checksum>`);
      expect(block).toContain(`<open-checksum type="sha256">${sha256(open)}</open-checksum>`);
      expect(block).toContain(`<size>${gz.length}</size>`);
      expect(block).toContain(`<open-size>${open.length}</open-size>`);
      out[type] = open.toString('utf8');
    }
    return out as { repomd: string; primary: string; filelists: string; other: string };
  }

  beforeAll(async () => {
    await requireTool('rpmbuild', 'rpm');
    await requireTool('gpg', 'gnupg');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-rpm-'));
    server = await startServer({ plugins: { rpm: { enabled: true } } });
    alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
    read = await server.token(alice, ['read:package']);
    const relations = { requires: ['bash >= 4.0', 'coreutils'], provides: ['greeting = 1.0'] };
    hello = await buildRpm(work, { name: 'hello', version: '1.0', release: '1', ...relations });
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('upload, signed metadata naming the package, download, duplicate 409', async () => {
    expect((await upload('upload', hello)).status).toBe(201);
    const dup = await upload('upload', hello);
    expect(dup.status).toBe(409);
    expect(((await dup.json()) as { message: string }).message).toMatch(/already exists/);

    const { repomd, primary, filelists, other } = await metadata('');
    expect(primary).toContain('packages="1"');
    expect(primary).toContain('<name>hello</name><arch>noarch</arch><version epoch="0" ver="1.0" rel="1"/>');
    expect(primary).toContain('<rpm:entry name="bash" flags="GE" epoch="0" ver="4.0"/>');
    expect(primary).toContain('<rpm:entry name="coreutils"/>');
    expect(primary).toContain('<rpm:entry name="greeting" flags="EQ" epoch="0" ver="1.0"/>');
    expect(primary).not.toContain('rpmlib(');
    expect(primary).toContain('<file>/usr/bin/hello</file>');
    expect(filelists).toContain('xmlns="http://linux.duke.edu/metadata/filelists"');
    expect(filelists).toContain('<file>/usr/share/hello/README</file>');
    expect(filelists).toContain('<file type="dir">/usr/share/hello</file>');
    expect(other).toContain('author="Tester &lt;tester@example.com&gt; - 1.0-1"');
    expect(other).toContain('- Build hello &amp; friends &lt;1.0&gt;');

    // The signature over repomd.xml verifies with the served key, and only over these bytes.
    const key = await (await req('GET', 'alice/rpm/repository.key')).text();
    expect(key).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    const asc = await bytes(await req('GET', 'alice/rpm/repodata/repomd.xml.asc'));
    expect((await gpgVerify(work, key, Buffer.from(repomd), asc)).code).toBe(0);
    expect((await gpgVerify(work, key, Buffer.from(repomd.replace('primary', 'primarz')), asc)).code).not.toBe(0);

    // The stored package is the upload re-signed: same header and payload, a new signature header.
    const href = /<location href="([^"]+)"/.exec(primary)![1];
    expect(href).toBe('package/hello/1.0-1/noarch/hello-1.0-1.noarch.rpm');
    const pkgid = /<checksum type="sha256" pkgid="YES">([0-9a-f]{64})</.exec(primary)![1];
    const dl = await req('GET', `alice/rpm/${href}`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('application/x-rpm');
    const stored = await bytes(dl);
    expect(sha256(stored)).toBe(pkgid);
    const [start, end] = /<rpm:header-range start="(\d+)" end="(\d+)"/.exec(primary)!.slice(1).map(Number);
    const originalStart = hello.length - (stored.length - start);
    expect(stored.subarray(start).equals(hello.subarray(originalStart))).toBe(true);
    expect(stored.subarray(start, start + 4).toString('hex')).toBe('8eade801');
    expect(end).toBeGreaterThan(start);
    expect((await req('GET', 'alice/rpm/package/hello/1.0-1/noarch')).status).toBe(200);
    expect((await req('HEAD', 'alice/rpm/package/hello/1.0-1/noarch')).headers.get('content-length')).toBe(String(stored.length));
    expect((await req('GET', 'alice/rpm/package/hello/1.0-1/x86_64')).status).toBe(404);
    expect((await req('GET', 'alice/rpm/package/hello/1.0-1/noarch/other.rpm')).status).toBe(404);
    // Plain names (as Gitea serves them) answer the current files too.
    expect((await req('GET', 'alice/rpm/repodata/primary.xml.gz')).status).toBe(200);
  });

  test('bad uploads are 400 with a message and store nothing', async () => {
    const headerAt = 96 + 16 + hello.readUInt32BE(96 + 8) * 16 + hello.readUInt32BE(96 + 12);
    const mainStart = headerAt + ((8 - (headerAt % 8)) % 8);
    const tampered = Buffer.from(hello);
    tampered[hello.indexOf('built by the Hearth RPM tests')] ^= 0x20;
    const badEntry = Buffer.from(hello);
    badEntry.writeUInt32BE(0x7fffffff, mainStart + 16 + 8);
    const cases: [string, Buffer, RegExp][] = [
      ['not an rpm', Buffer.from('just some text, not a package at all'.repeat(10)), /bad lead magic/],
      ['truncated lead', hello.subarray(0, 50), /ends inside the lead/],
      ['truncated header', hello.subarray(0, mainStart + 100), /ends inside the header/],
      ['tampered header', tampered, /digest does not match/],
      ['entry outside the header', badEntry, /invalid RPM package/],
    ];
    for (const [what, body, message] of cases) {
      const res = await upload('badgroup/upload', body);
      expect([what, res.status]).toEqual([what, 400]);
      expect([what, ((await res.json()) as { message: string }).message]).toEqual([what, expect.stringMatching(message)]);
    }
    expect((await upload('badgroup/upload', Buffer.alloc(0))).status).toBe(400);
    expect((await upload('bad..group/upload', hello)).status).toBe(400);
    expect((await upload('a%2Fb/upload', hello)).status).toBe(400);
    expect((await upload('repodata/upload', hello)).status).toBe(400);
    const { primary } = await metadata('badgroup');
    expect(primary).toContain('packages="0"');
    expect((await server.api('GET', '/packages/alice?type=rpm')).body.map((p: { name: string }) => p.name)).toEqual(['hello']);
  });

  test('groups are separate repositories with their own .repo file; delete leaves the index at once', async () => {
    const v2 = await buildRpm(work, { name: 'hello', version: '2.0', release: '3', epoch: 2 });
    const tool = await buildRpm(work, { name: 'tool', version: '0.5', release: '1', arch: 'x86_64' });
    expect((await upload('el9/stable/upload', v2)).status).toBe(201);
    expect((await upload('el9/stable/upload', tool)).status).toBe(201);
    const { primary } = await metadata('el9/stable');
    expect(primary).toContain('packages="2"');
    expect(primary).toContain('<version epoch="2" ver="2.0" rel="3"/>');
    expect(primary).toContain('<location href="package/hello/2%3A2.0-3/noarch/hello-2.0-3.noarch.rpm"/>');
    expect(primary).toContain('<name>tool</name><arch>x86_64</arch>');
    expect((await metadata('')).primary).not.toContain('2.0');

    const repo = await (await req('GET', 'alice/rpm/el9/stable.repo')).text();
    expect(repo).toBe(
      [
        '[alice-el9-stable]',
        `name=alice el9/stable (Hearth)`,
        `baseurl=${server.url}api/packages/alice/rpm/el9/stable`,
        'enabled=1',
        'gpgcheck=1',
        'repo_gpgcheck=1',
        `gpgkey=${server.url}api/packages/alice/rpm/repository.key`,
        '',
      ].join('\n'),
    );
    // Gitea's root repository config URL, served in place behind the package guard.
    const rootRepo = await req('GET', 'alice/rpm.repo');
    expect(rootRepo.status).toBe(200);
    const rootText = await rootRepo.text();
    expect(rootText).toContain(`baseurl=${server.url}api/packages/alice/rpm\n`);
    expect(rootText).toBe(await (await req('GET', 'alice/rpm/.repo')).text());
    expect((await req('GET', 'alice/rpm.repo/more')).status).toBe(404);
    expect((await req('GET', 'nobody-here/rpm.repo')).status).toBe(404);

    expect((await req('DELETE', 'alice/rpm/el9/stable/package/tool/0.5-1/x86_64', read)).status).toBe(403);
    expect((await req('DELETE', 'alice/rpm/el9/stable/package/tool/0.5-1/x86_64', write)).status).toBe(403);
    const del = await server.token(alice, ['delete:package']);
    expect((await req('DELETE', 'alice/rpm/el9/stable/package/tool/0.5-1/x86_64', del)).status).toBe(204);
    expect((await req('DELETE', 'alice/rpm/el9/stable/package/tool/0.5-1/x86_64', del)).status).toBe(404);
    const after = await metadata('el9/stable');
    expect(after.primary).toContain('packages="1"');
    expect(after.primary).not.toContain('<name>tool</name>');
    expect((await req('GET', 'alice/rpm/el9/stable/package/tool/0.5-1/x86_64')).status).toBe(404);

    // A version deleted through the generic package API leaves the repository too.
    expect((await server.api('DELETE', '/packages/alice/rpm/hello/2:2.0-3', { token: del })).status).toBe(204);
    expect((await metadata('el9/stable')).primary).toContain('packages="0"');
  });

  test('concurrent uploads to one repository all end up in the index', async () => {
    const rpms = await Promise.all(Array.from({ length: 6 }, (_, i) => buildRpm(work, { name: `par${i}`, version: '1', release: '1' })));
    const statuses = await Promise.all(rpms.map((body) => upload('parallel/upload', body).then((r) => r.status)));
    expect(statuses).toEqual(Array(6).fill(201));
    const { primary, filelists, other } = await metadata('parallel');
    expect(primary).toContain('packages="6"');
    for (let i = 0; i < 6; i++) {
      expect(primary).toContain(`<name>par${i}</name>`);
      expect(filelists).toContain(`name="par${i}"`);
      expect(other).toContain(`name="par${i}"`);
    }
  });

  test('permissions: anonymous and read-only callers cannot upload; private owners are invisible', async () => {
    expect((await upload('upload', hello, '')).status).toBe(401);
    expect((await upload('perm/upload', hello, read)).status).toBe(403);
    const bob = await server.user('bob', { visibility: 'private' });
    const bobWrite = await server.token(bob, ['write:package']);
    const pkg = await buildRpm(work, { name: 'secret', version: '1', release: '1' });
    expect((await req('PUT', 'bob/rpm/upload', bobWrite, pkg)).status).toBe(201);
    expect((await req('GET', 'bob/rpm/repodata/repomd.xml')).status).toBe(404);
    expect((await req('GET', 'bob/rpm/repository.key')).status).toBe(404);
    expect((await req('GET', 'bob/rpm/repodata/repomd.xml', bobWrite)).status).toBe(200);
    expect((await req('GET', 'bob/rpm.repo')).status).toBe(404);
    const bobRepo = await req('GET', 'bob/rpm.repo', bobWrite);
    expect(bobRepo.status).toBe(200);
    expect(await bobRepo.text()).toContain(`baseurl=${server.url}api/packages/bob/rpm\n`);
    expect((await req('PUT', 'bob/rpm/upload', write, pkg)).status).toBe(404);
  });
});

test("two processes on one database: each serves the other's publishes and deletes at once", async () => {
  await requireTool('rpmbuild', 'rpm');
  const database = await createTestDatabase();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-rpm-shared-'));
  const shared = { plugins: { rpm: { enabled: true } }, database: { URL: database.url }, server: { DATA_DIR: work } };
  const servers: TestServer[] = [];
  try {
    servers.push(await startServer(shared));
    servers.push(await startServer(shared));
    const [first, second] = servers;
    const olga = await first.user('olga');
    const token = await first.token(olga, ['write:package', 'delete:package']);
    const at = (s: TestServer, p: string) => new URL(`api/packages/olga/rpm/${p}`, s.url);
    const put = async (s: TestServer, name: string) => {
      const body = await buildRpm(work, { name });
      const res = await fetch(at(s, 'el9/upload'), { method: 'PUT', headers: { Authorization: `token ${token}` }, body });
      expect(res.status).toBe(201);
    };
    /** The package names in the primary.xml.gz that the server's repomd.xml names, read from that server. */
    const names = async (s: TestServer) => {
      const repomd = await (await fetch(at(s, 'el9/repodata/repomd.xml'))).text();
      const href = /<data type="primary">[\s\S]*?<location href="repodata\/([^"]+)"/.exec(repomd)![1];
      const primary = await fetch(at(s, `el9/repodata/${href}`));
      expect(primary.status).toBe(200);
      return [
        ...zlib
          .gunzipSync(Buffer.from(await primary.arrayBuffer()))
          .toString()
          .matchAll(/<name>([^<]+)<\/name>/g),
      ].map((m) => m[1]);
    };

    await put(first, 'one');
    expect(await names(second)).toEqual(['one']);
    await put(first, 'two');
    // The second server built the metadata before: it must not serve that stale one.
    expect(await names(second)).toEqual(['one', 'two']);
    const removed = await fetch(at(second, 'el9/package/one/1.0-1/noarch'), {
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

test('a server without the rpm plugin has no rpm routes and no rpm tables', async () => {
  const server = await startServer({ plugins: { rpm: { enabled: false } } });
  try {
    expect((await fetch(new URL('api/packages/forge-admin/rpm/repodata/repomd.xml', server.url))).status).toBe(404);
    expect((await fetch(new URL('api/packages/forge-admin/rpm/repository.key', server.url))).status).toBe(404);
    expect(await server.kernel.db.schema.hasTable('rpm_file')).toBe(false);
  } finally {
    await server.close();
  }
});
