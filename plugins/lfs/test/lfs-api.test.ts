import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from '@hearth/testing';

const LFS = 'application/vnd.git-lfs+json';
const basic = (u: { name: string; password: string }) => `Basic ${Buffer.from(`${u.name}:${u.password}`).toString('base64')}`;
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const pointer = (oid: string, size: number) => `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${size}\n`;

/** Git LFS over plain HTTP: the batch API, basic transfer, locks, access and the media API. */
describe('lfs plugin: batch API, transfer and locks', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let bob: { name: string; password: string; id: number };
  let carol: { name: string; password: string; id: number };
  const content = crypto.randomBytes(300 * 1024);
  const oid = sha256(content);

  const lfs = (repo: string, p: string, init: RequestInit & { auth?: string } = {}) =>
    fetch(new URL(`${repo}.git/info/lfs/${p}`, server.url), {
      ...init,
      headers: { Accept: LFS, 'Content-Type': LFS, ...(init.auth ? { Authorization: init.auth } : {}), ...(init.headers ?? {}) },
    });
  const batch = async (repo: string, operation: string, objects: unknown[], auth?: string) => {
    const res = await lfs(repo, 'objects/batch', {
      method: 'POST',
      auth,
      body: JSON.stringify({ operation, transfers: ['basic'], objects }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const put = (repo: string, o: string, size: number, body: Buffer, auth?: string) =>
    lfs(repo, `objects/${o}/${size}`, { method: 'PUT', auth, body, headers: { 'Content-Type': 'application/octet-stream' } });

  beforeAll(async () => {
    server = await startServer();
    alice = await server.user('alice');
    bob = await server.user('bob');
    carol = await server.user('carol');
    for (const [name, priv] of [
      ['pub', false],
      ['secret', true],
    ] as const) {
      const r = await server.api('POST', '/user/repos', {
        basic: [alice.name, alice.password],
        body: { name, private: priv, auto_init: true },
      });
      expect(r.status).toBe(201);
    }
    const collab = await server.api('PUT', '/repos/alice/pub/collaborators/bob', {
      basic: [alice.name, alice.password],
      body: { permission: 'read' },
    });
    expect(collab.status).toBe(204);
    const writer = await server.api('PUT', '/repos/alice/pub/collaborators/carol', {
      basic: [alice.name, alice.password],
      body: { permission: 'write' },
    });
    expect(writer.status).toBe(204);
  });
  afterAll(() => server.close());

  it('asks anonymous uploaders for credentials and refuses read-only collaborators', async () => {
    const anonymous = await batch('alice/pub', 'upload', [{ oid, size: content.length }]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('lfs-authenticate')).toMatch(/^Basic /);
    expect((await put('alice/pub', oid, content.length, content)).status).toBe(401);
    const reader = await batch('alice/pub', 'upload', [{ oid, size: content.length }], basic(bob));
    expect(reader.status).toBe(403);
    expect((await put('alice/pub', oid, content.length, content, basic(bob))).status).toBe(403);
    // A token without write:repository may not upload either.
    const readToken = await server.token(alice, ['read:repository']);
    expect((await batch('alice/pub', 'upload', [{ oid, size: content.length }], `token ${readToken}`)).status).toBe(403);
  });

  it('uploads through batch, PUT and verify; refuses wrong bytes and sizes and keeps nothing of them', async () => {
    const res = await batch(
      'alice/pub',
      'upload',
      [
        { oid, size: content.length },
        { oid: '../../etc/passwd', size: 1 },
      ],
      basic(alice),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain(LFS);
    expect(res.body).toMatchObject({ transfer: 'basic', hash_algo: 'sha256' });
    const [object, invalid] = res.body.objects;
    expect(invalid.error.code).toBe(422);
    expect(object.actions.upload.href).toBe(`${server.url}alice/pub.git/info/lfs/objects/${oid}/${content.length}`);
    expect(object.actions.upload.header.Authorization).toBe(basic(alice));
    expect(object.actions.verify.href).toBe(`${server.url}alice/pub.git/info/lfs/verify`);

    // Wrong content for the oid, a short body, and an oid that is not a sha256: 422, nothing stored.
    const other = crypto.randomBytes(content.length);
    expect((await put('alice/pub', oid, content.length, other, basic(alice))).status).toBe(422);
    expect((await put('alice/pub', oid, content.length + 1, content, basic(alice))).status).toBe(422);
    expect((await put('alice/pub', '..%2F..%2Fx', 1, Buffer.from('x'), basic(alice))).status).toBe(422);
    const blobs = path.join(server.dataDir, 'lfs', 'blobs');
    const stored = () =>
      fs.existsSync(blobs) ? fs.readdirSync(blobs, { recursive: true }).filter((f) => path.basename(String(f)).length === 64) : [];
    expect(stored()).toEqual([]);
    expect(fs.readdirSync(path.join(server.dataDir, 'lfs', 'tmp'))).toEqual([]);
    const missing = await lfs('alice/pub', 'verify', {
      method: 'POST',
      auth: basic(alice),
      body: JSON.stringify({ oid, size: content.length }),
    });
    expect(missing.status).toBe(404);

    // The upload itself, by a writer with a token.
    const token = await server.token(carol, ['write:repository']);
    expect((await put('alice/pub', oid, content.length, content, `token ${token}`)).status).toBe(200);
    expect(stored().map((f) => path.basename(String(f)))).toEqual([oid]);
    const verify = await lfs('alice/pub', 'verify', {
      method: 'POST',
      auth: basic(alice),
      body: JSON.stringify({ oid, size: content.length }),
    });
    expect(verify.status).toBe(200);
    const wrongSize = await lfs('alice/pub', 'verify', { method: 'POST', auth: basic(alice), body: JSON.stringify({ oid, size: 5 }) });
    expect(wrongSize.status).toBe(422);
    // Known now: a second upload batch has nothing to transfer.
    const again = await batch('alice/pub', 'upload', [{ oid, size: content.length }], basic(alice));
    expect(again.body.objects[0].actions).toBeUndefined();
  });

  it('downloads with ranges, anonymously from a public repository, and answers 404 per object', async () => {
    const missingOid = sha256(Buffer.from('not stored'));
    const res = await batch('alice/pub', 'download', [
      { oid, size: content.length },
      { oid: missingOid, size: 10 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.objects[1].error.code).toBe(404);
    const href = res.body.objects[0].actions.download.href as string;
    expect(href).toBe(`${server.url}alice/pub.git/info/lfs/objects/${oid}`);
    const whole = await fetch(href);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(content.length));
    expect(Buffer.from(await whole.arrayBuffer()).equals(content)).toBe(true);
    const part = await fetch(href, { headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${content.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(content.subarray(100, 200))).toBe(true);
    expect((await fetch(href, { headers: { Range: `bytes=${content.length}-` } })).status).toBe(416);
    // Another repository does not hold the object just because the blob exists.
    expect((await lfs('alice/secret', `objects/${oid}`, { auth: basic(alice) })).status).toBe(404);
  });

  it('hides private repositories: 401 for anonymous callers, 404 for others', async () => {
    const anonymous = await batch('alice/secret', 'download', [{ oid, size: content.length }]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await batch('alice/secret', 'download', [{ oid, size: content.length }], basic(bob))).status).toBe(404);
    expect((await lfs('alice/secret', 'locks', { auth: basic(bob) })).status).toBe(404);
    expect((await batch('alice/secret', 'download', [{ oid, size: content.length }], basic(alice))).status).toBe(200);
    expect((await batch('alice/nothing', 'download', [], basic(alice))).status).toBe(404);
  });

  it('rejects malformed batch requests', async () => {
    const bad = await lfs('alice/pub', 'objects/batch', {
      method: 'POST',
      auth: basic(alice),
      body: '{"operation":"destroy","objects":[]}',
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).message).toContain('operation');
    const notJson = await lfs('alice/pub', 'objects/batch', { method: 'POST', auth: basic(alice), body: '{' });
    expect(notJson.status).toBe(400);
    const ssh = await lfs('alice/pub', 'objects/batch', {
      method: 'POST',
      auth: basic(alice),
      body: JSON.stringify({ operation: 'download', transfers: ['ssh'], objects: [] }),
    });
    expect(ssh.status).toBe(422);
  });

  it('locks: create, conflict, list with filters, verify ours and theirs, unlock with and without force', async () => {
    const create = (p: string, auth: string) => lfs('alice/pub', 'locks', { method: 'POST', auth, body: JSON.stringify({ path: p }) });
    expect((await create('a.bin', basic(bob))).status).toBe(403);
    const mine = await create('a.bin', basic(carol));
    expect(mine.status).toBe(201);
    const lock = ((await mine.json()) as any).lock;
    expect(lock).toMatchObject({ path: 'a.bin', owner: { name: 'carol' } });
    const clash = await create('./A.bin', basic(alice));
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as any).lock.id).toBe(lock.id);
    expect((await create('../escape', basic(alice))).status).toBe(422);
    expect((await create('b.bin', basic(alice))).status).toBe(201);

    const list = async (query: string, auth?: string) => (await (await lfs('alice/pub', `locks${query}`, { auth })).json()) as any;
    expect((await list('')).locks.map((l: any) => l.path)).toEqual(['a.bin', 'b.bin']);
    expect((await list('?path=b.bin')).locks.map((l: any) => l.path)).toEqual(['b.bin']);
    expect((await list(`?id=${lock.id}`)).locks.map((l: any) => l.path)).toEqual(['a.bin']);
    const page = await list('?limit=1');
    expect(page.locks).toHaveLength(1);
    expect((await list(`?cursor=${page.next_cursor}`)).locks.map((l: any) => l.path)).toEqual(['b.bin']);
    expect((await lfs('alice/pub', 'locks?limit=0')).status).toBe(422);

    const verify = await lfs('alice/pub', 'locks/verify', { method: 'POST', auth: basic(carol), body: '{}' });
    const sides = (await verify.json()) as any;
    expect(sides.ours.map((l: any) => l.path)).toEqual(['a.bin']);
    expect(sides.theirs.map((l: any) => l.path)).toEqual(['b.bin']);
    expect((await lfs('alice/pub', 'locks/verify', { method: 'POST', body: '{}' })).status).toBe(401);

    const unlock = (id: string, auth: string, force = false) =>
      lfs('alice/pub', `locks/${id}/unlock`, { method: 'POST', auth, body: JSON.stringify({ force }) });
    expect((await unlock(lock.id, basic(alice))).status).toBe(403); // not hers, no force
    expect((await unlock(lock.id, basic(carol), true)).status).toBe(403); // force needs the repository's admin
    const forced = await unlock(lock.id, basic(alice), true);
    expect(forced.status).toBe(200);
    expect(((await forced.json()) as any).lock.path).toBe('a.bin');
    expect((await unlock(lock.id, basic(alice))).status).toBe(404);
    expect((await list('')).locks.map((l: any) => l.path)).toEqual(['b.bin']);
  });

  it('serves a stored object for its pointer through the media API, counts it in size, and carries it into forks', async () => {
    const file = await server.api('POST', '/repos/alice/pub/contents/big.bin', {
      basic: [alice.name, alice.password],
      body: { content: Buffer.from(pointer(oid, content.length)).toString('base64'), message: 'add pointer' },
    });
    expect(file.status).toBe(201);
    const media = await fetch(new URL('api/v1/repos/alice/pub/media/big.bin', server.url));
    expect(media.status).toBe(200);
    expect(Buffer.from(await media.arrayBuffer()).equals(content)).toBe(true);
    const raw = await fetch(new URL('api/v1/repos/alice/pub/raw/big.bin', server.url));
    expect(await raw.text()).toBe(pointer(oid, content.length));
    const repo = await server.api('GET', '/repos/alice/pub');
    expect(repo.body.size).toBeGreaterThanOrEqual(300);

    const fork = await server.api('POST', '/repos/alice/pub/forks', { basic: [bob.name, bob.password], body: {} });
    expect(fork.status).toBe(202);
    const fromFork = await fetch(new URL(`bob/pub.git/info/lfs/objects/${oid}`, server.url));
    expect(fromFork.status).toBe(200);
    expect(Buffer.from(await fromFork.arrayBuffer()).equals(content)).toBe(true);

    // Deleting the source keeps the blob (the fork holds it); deleting the fork too removes it.
    const blob = path.join(server.dataDir, 'lfs', 'blobs', oid.slice(0, 2), oid.slice(2, 4), oid);
    expect((await server.api('DELETE', '/repos/alice/pub', { basic: [alice.name, alice.password] })).status).toBe(204);
    expect(fs.existsSync(blob)).toBe(true);
    expect((await server.api('DELETE', '/repos/bob/pub', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(204);
    expect(fs.existsSync(blob)).toBe(false);
  });
});

describe('lfs plugin disabled', () => {
  it('answers 404 at the LFS URLs and media serves the pointer file itself', async () => {
    const server = await startServer({ plugins: { lfs: { enabled: false } } });
    try {
      const auth: [string, string] = [ADMIN.name, ADMIN.password];
      expect((await server.api('POST', '/user/repos', { basic: auth, body: { name: 'plain', auto_init: true } })).status).toBe(201);
      const batch = await fetch(new URL(`${ADMIN.name}/plain.git/info/lfs/objects/batch`, server.url), {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from(auth.join(':')).toString('base64')}`, 'Content-Type': LFS },
        body: JSON.stringify({ operation: 'download', objects: [] }),
      });
      expect(batch.status).toBe(404);
      const text = pointer('a'.repeat(64), 3);
      const file = await server.api('POST', `/repos/${ADMIN.name}/plain/contents/x.bin`, {
        basic: auth,
        body: { content: Buffer.from(text).toString('base64') },
      });
      expect(file.status).toBe(201);
      expect(await (await fetch(new URL(`api/v1/repos/${ADMIN.name}/plain/media/x.bin`, server.url))).text()).toBe(text);
    } finally {
      await server.close();
    }
  });
});
