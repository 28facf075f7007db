import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';

const PACKAGE_PROBE = path.join(__dirname, 'fixtures/plugins/package-probe');
const events = (): any[] => ((globalThis as any).__hearthPackageEvents ??= []);

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');
const hash = (algo: string, data: Buffer) => crypto.createHash(algo).update(data).digest('hex');

function blobPath(server: TestServer, sha: string): string {
  return path.join(server.dataDir, 'packages', 'blobs', sha.slice(0, 2), sha.slice(2, 4), sha);
}

function countBlobs(server: TestServer): number {
  const root = path.join(server.dataDir, 'packages', 'blobs');
  if (!fs.existsSync(root)) return 0;
  return fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

interface Auth {
  token?: string;
  basic?: [string, string];
}

function authHeaders(auth: Auth = {}): Record<string, string> {
  if (auth.token) return { Authorization: `token ${auth.token}` };
  if (auth.basic) return { Authorization: `Basic ${Buffer.from(auth.basic.join(':')).toString('base64')}` };
  return {};
}

/** A request under /api/packages; `body` a Buffer (Content-Length) or a stream of chunks (chunked). */
async function pkg(server: TestServer, method: string, p: string, auth: Auth = {}, body?: Buffer | (() => AsyncGenerator<Buffer>)) {
  const init: RequestInit & { duplex?: 'half' } = { method, headers: authHeaders(auth) };
  if (Buffer.isBuffer(body)) init.body = body;
  else if (body) {
    const gen = body();
    init.body = new ReadableStream({
      async pull(controller) {
        const { value, done } = await gen.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value));
      },
    });
    init.duplex = 'half';
  }
  return fetch(new URL(`api/packages/${p}`, server.url), init);
}

describe('generic package registry', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let bob: { name: string; password: string; id: number };
  let write: string;
  let read: string;
  let del: string;

  beforeAll(async () => {
    events().length = 0;
    server = await startServer({ plugins: { 'package-probe': { package: PACKAGE_PROBE } } });
    alice = await server.user('alice');
    bob = await server.user('bob');
    write = await server.token(alice, ['write:package']);
    read = await server.token(alice, ['read:package']);
    del = await server.token(alice, ['delete:package']);
  });
  afterAll(() => server.close());

  test('concurrent uploads into one new package and version all land (no lost row, no 500)', async () => {
    const files = Array.from({ length: 8 }, (_, i) => Buffer.from(`file ${i}\n`));
    const results = await Promise.all(files.map((f, i) => pkg(server, 'PUT', `alice/generic/racy/1.0.0/f${i}.txt`, { token: write }, f)));
    expect(results.map((r) => r.status)).toEqual(files.map(() => 201));
    const listed = await server.api('GET', '/packages/alice/generic/racy/1.0.0/files', { token: read });
    expect(listed.body.map((f: { name: string }) => f.name).sort()).toEqual(files.map((_, i) => `f${i}.txt`));
    // The same identical bytes uploaded concurrently under different names share one blob row.
    const same = Buffer.from('identical bytes');
    const again = await Promise.all(
      [0, 1, 2, 3].map((i) => pkg(server, 'PUT', `alice/generic/racy/2.0.0/s${i}.txt`, { token: write }, same)),
    );
    expect(again.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(await server.kernel.db('package_blob').where('hash_sha256', sha256(same)).count({ n: '*' })).toEqual([{ n: expect.anything() }]);
    expect(Number((await server.kernel.db('package_blob').where('hash_sha256', sha256(same)).count({ n: '*' }))[0].n)).toBe(1);
  });

  test('streams a few MB up and down with matching hashes, listed by /api/v1', async () => {
    const chunk = crypto.randomBytes(256 * 1024);
    const chunks = 20; // 5 MiB
    const whole = Buffer.concat(Array.from({ length: chunks }, () => chunk));
    const put = await pkg(server, 'PUT', 'alice/generic/tool/1.0.0/tool.bin', { token: write }, async function* () {
      for (let i = 0; i < chunks; i++) yield chunk;
    });
    expect(put.status).toBe(201);

    const get = await pkg(server, 'GET', 'alice/generic/tool/1.0.0/tool.bin');
    expect(get.status).toBe(200);
    const downloaded = Buffer.from(await get.arrayBuffer());
    expect(downloaded.length).toBe(whole.length);
    expect(sha256(downloaded)).toBe(sha256(whole));
    expect(get.headers.get('content-length')).toBe(String(whole.length));
    expect(get.headers.get('etag')).toBe(`"${sha256(whole)}"`);
    expect(get.headers.get('x-checksum-sha256')).toBe(sha256(whole));
    expect(get.headers.get('content-disposition')).toContain('filename="tool.bin"');
    expect(fs.existsSync(blobPath(server, sha256(whole)))).toBe(true);

    const head = await pkg(server, 'HEAD', 'alice/generic/tool/1.0.0/tool.bin');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(whole.length));

    const cached = await fetch(new URL('api/packages/alice/generic/tool/1.0.0/tool.bin', server.url), {
      headers: { 'If-None-Match': `"${sha256(whole)}"` },
    });
    expect(cached.status).toBe(304);

    const small = Buffer.from('hello generic\n');
    expect((await pkg(server, 'PUT', 'alice/generic/tool/1.0.0/README.txt', { token: write }, small)).status).toBe(201);

    const files = await server.api('GET', '/packages/alice/generic/tool/1.0.0/files');
    expect(files.status).toBe(200);
    expect(files.body).toEqual([
      {
        id: expect.any(Number),
        Size: whole.length,
        name: 'tool.bin',
        md5: hash('md5', whole),
        sha1: hash('sha1', whole),
        sha256: sha256(whole),
        sha512: hash('sha512', whole),
      },
      {
        id: expect.any(Number),
        Size: small.length,
        name: 'README.txt',
        md5: hash('md5', small),
        sha1: hash('sha1', small),
        sha256: sha256(small),
        sha512: hash('sha512', small),
      },
    ]);

    const one = await server.api('GET', '/packages/alice/generic/tool/1.0.0');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      type: 'generic',
      name: 'tool',
      version: '1.0.0',
      repository: null,
      owner: { login: 'alice' },
      creator: { login: 'alice' },
    });
    expect(one.body.html_url).toBe(`${server.url}alice/-/packages/generic/tool/1.0.0`);
    expect(one.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const list = await server.api('GET', '/packages/alice?type=generic&q=too');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect(list.body.map((p: any) => `${p.name}@${p.version}`)).toEqual(['tool@1.0.0']);
    expect((await server.api('GET', '/packages/alice?type=cargo')).body).toEqual([]);
    expect((await server.api('GET', '/packages/alice?q=nothing')).body).toEqual([]);
  });

  test('package.published fires once per new version, after it is stored', async () => {
    const mine = events().filter((e) => e.name === 'tool');
    expect(mine).toEqual([
      { ownerName: 'alice', type: 'generic', name: 'tool', version: '1.0.0', packageVersionId: expect.any(Number), actor: 'alice' },
    ]);
    const stored = await server.api('GET', '/packages/alice/generic/tool/1.0.0');
    expect(stored.body.id).toBe(mine[0].packageVersionId);
  });

  test('re-uploading an existing file is a 409 and changes nothing', async () => {
    const body = Buffer.from('first');
    expect((await pkg(server, 'PUT', 'alice/generic/dup/1/a.txt', { token: write }, body)).status).toBe(201);
    const again = await pkg(server, 'PUT', 'alice/generic/dup/1/A.TXT', { token: write }, Buffer.from('second'));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ message: expect.stringContaining('already exists') });
    expect(await (await pkg(server, 'GET', 'alice/generic/dup/1/a.txt')).text()).toBe('first');
  });

  test('bad names, versions and file names are 400', async () => {
    for (const p of [
      'alice/generic/.hidden/1/f',
      'alice/generic/ok/..bad/f',
      'alice/generic/ok/1/a%2Fb',
      'alice/generic/ok/1/%2E%2E%2Fx',
      'alice/generic/ba%20d/1/f',
      'alice/generic/ok/-1/f',
    ]) {
      const res = await pkg(server, 'PUT', p, { token: write }, Buffer.from('x'));
      expect([p, res.status]).toEqual([p, 400]);
    }
    // fetch normalizes '..' away; a raw request keeps it.
    const raw = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        new URL(server.url),
        {
          method: 'PUT',
          path: '/api/packages/alice/generic/ok/1/..',
          headers: { ...authHeaders({ token: write }), 'Content-Length': '1' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('x');
    });
    expect(raw).toBe(400);
  });

  test('unknown owners, versions and files are 404 JSON', async () => {
    for (const p of [
      'nobody/generic/tool/1.0.0/tool.bin',
      'alice/generic/tool/9.9.9/tool.bin',
      'alice/generic/tool/1.0.0/missing.bin',
      'alice/generic/nope/1/x',
    ]) {
      const res = await pkg(server, 'GET', p);
      expect([p, res.status]).toEqual([p, 404]);
      expect(res.headers.get('content-type')).toContain('application/json');
    }
    expect((await server.api('GET', '/packages/nobody')).status).toBe(404);
    expect((await server.api('GET', '/packages/alice/generic/tool/9.9.9')).status).toBe(404);
    expect((await server.api('GET', '/packages/alice/generic/tool/9.9.9/files')).status).toBe(404);
  });

  test('authentication, token scopes and owner permission', async () => {
    const body = Buffer.from('auth');
    const anon = await pkg(server, 'PUT', 'alice/generic/auth/1/f', {}, body);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toContain('Basic');
    const readOnly = await pkg(server, 'PUT', 'alice/generic/auth/1/f', { token: read }, body);
    expect(readOnly.status).toBe(403);
    expect(await readOnly.json()).toMatchObject({ message: expect.stringContaining('write:package') });
    const other = await pkg(server, 'PUT', 'alice/generic/auth/1/f', { basic: [bob.name, bob.password] }, body);
    expect(other.status).toBe(403);
    const admin = await pkg(server, 'PUT', 'alice/generic/auth/1/f', { basic: [ADMIN.name, ADMIN.password] }, body);
    expect(admin.status).toBe(201);
    expect((await pkg(server, 'PUT', 'alice/generic/auth/1/g', { basic: [alice.name, alice.password] }, body)).status).toBe(201);

    // Reads: anonymous on a public owner; a read token; a token of another category is refused.
    expect((await pkg(server, 'GET', 'alice/generic/auth/1/f')).status).toBe(200);
    expect((await pkg(server, 'GET', 'alice/generic/auth/1/f', { token: read })).status).toBe(200);
    const userToken = await server.token(alice, ['read:user']);
    expect((await pkg(server, 'GET', 'alice/generic/auth/1/f', { token: userToken })).status).toBe(403);
    expect((await pkg(server, 'GET', 'alice/generic/auth/1/f', { token: 'not-a-token' })).status).toBe(401);

    // Deletes need delete:package.
    expect((await pkg(server, 'DELETE', 'alice/generic/auth/1/f', { token: write })).status).toBe(403);
    expect((await pkg(server, 'DELETE', 'alice/generic/auth/1/f', {})).status).toBe(401);
    expect((await pkg(server, 'DELETE', 'alice/generic/auth/1/f', { token: del })).status).toBe(204);
    expect((await pkg(server, 'GET', 'alice/generic/auth/1/f')).status).toBe(404);
    expect((await pkg(server, 'GET', 'alice/generic/auth/1/g')).status).toBe(200);
    // /api/v1 deletes follow the same rules.
    expect((await server.api('DELETE', '/packages/alice/generic/auth/1', { token: write })).status).toBe(403);
    expect((await server.api('DELETE', '/packages/alice/generic/auth/1')).status).toBe(401);
    expect((await server.api('DELETE', '/packages/alice/generic/auth/1', { basic: [bob.name, bob.password] })).status).toBe(403);
    expect((await server.api('DELETE', '/packages/alice/generic/auth/1', { token: del })).status).toBe(204);
    expect((await pkg(server, 'GET', 'alice/generic/auth/1/g')).status).toBe(404);
  });

  test("a private owner's packages are invisible to others", async () => {
    const carol = await server.user('carol', { visibility: 'private' });
    expect(
      (await pkg(server, 'PUT', 'carol/generic/secret/1/s.txt', { basic: [carol.name, carol.password] }, Buffer.from('s'))).status,
    ).toBe(201);
    expect((await pkg(server, 'GET', 'carol/generic/secret/1/s.txt')).status).toBe(404);
    expect((await pkg(server, 'GET', 'carol/generic/secret/1/s.txt', { basic: [bob.name, bob.password] })).status).toBe(404);
    expect((await server.api('GET', '/packages/carol')).status).toBe(404);
    expect((await pkg(server, 'GET', 'carol/generic/secret/1/s.txt', { basic: [carol.name, carol.password] })).status).toBe(200);
    expect((await pkg(server, 'GET', 'carol/generic/secret/1/s.txt', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(200);
    const publicOnly = await server.token(carol, ['public-only', 'read:package']);
    expect((await pkg(server, 'GET', 'carol/generic/secret/1/s.txt', { token: publicOnly })).status).toBe(404);
    const listed = await server.api('GET', '/packages/carol', { basic: [carol.name, carol.password] });
    expect(listed.body.map((p: any) => p.name)).toEqual(['secret']);
  });

  test('blobs are shared by identical files and removed with their last reference', async () => {
    const body = crypto.randomBytes(4096);
    const sha = sha256(body);
    expect((await pkg(server, 'PUT', 'alice/generic/dedupe/1/a.bin', { token: write }, body)).status).toBe(201);
    expect((await pkg(server, 'PUT', 'alice/generic/dedupe/2/b.bin', { token: write }, body)).status).toBe(201);
    expect(fs.existsSync(blobPath(server, sha))).toBe(true);
    expect((await pkg(server, 'DELETE', 'alice/generic/dedupe/1/a.bin', { token: del })).status).toBe(204);
    expect(fs.existsSync(blobPath(server, sha))).toBe(true);
    // The version went with its last file.
    expect((await server.api('GET', '/packages/alice/generic/dedupe/1')).status).toBe(404);
    expect((await pkg(server, 'DELETE', 'alice/generic/dedupe/2', { token: del })).status).toBe(204);
    expect(fs.existsSync(blobPath(server, sha))).toBe(false);
    expect((await pkg(server, 'DELETE', 'alice/generic/dedupe/2', { token: del })).status).toBe(404);
    const rows = await server.kernel.db('package_blob').where({ hash_sha256: sha });
    expect(rows).toEqual([]);
  });
});

describe('the service as another format sees it', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ plugins: { 'package-probe': { package: PACKAGE_PROBE } } });
    await server.user('dave');
  });
  afterAll(() => server.close());

  test('semver-compatible versions list in semver order; replacing a file keeps one blob', async () => {
    const auth = { basic: ['dave', 'dave-password-1'] as [string, string] };
    for (const v of ['1.10.0', '1.2.0', '1.9.0-beta.1', '1.9.0']) {
      const res = await pkg(server, 'PUT', `dave/probe-semver/lib/${v}`, auth, Buffer.from(`v${v}`));
      expect(res.status).toBe(201);
      expect(((await res.json()) as any).metadata).toEqual({ via: 'probe' });
    }
    const replaced = await pkg(server, 'PUT', 'dave/probe-semver/lib/1.2.0', auth, Buffer.from('replacement!'));
    expect(replaced.status).toBe(200);
    const listed: any = await (await pkg(server, 'GET', 'dave/probe-semver/lib')).json();
    expect(listed.map((v: any) => v.version)).toEqual(['1.2.0', '1.9.0-beta.1', '1.9.0', '1.10.0']);
    expect(listed[0].size).toBe('replacement!'.length);
    // openFile on a lead file counts a download of its version (seen by the next listing).
    const again: any = await (await pkg(server, 'GET', 'dave/probe-semver/lib')).json();
    expect(again.every((v: any) => v.downloads === 1)).toBe(true);
    expect(countBlobs(server)).toBe(4);
    expect(await server.kernel.db('package_blob')).toHaveLength(4);
  });
});

describe('package quotas', () => {
  let server: TestServer;
  let owner: { name: string; password: string; id: number };

  beforeAll(async () => {
    server = await startServer({ packages: { LIMIT_TOTAL_OWNER_SIZE: 1000, LIMIT_TOTAL_OWNER_COUNT: 2 } });
    owner = await server.user('quota');
  });
  afterAll(() => server.close());

  test('an upload over the size quota is refused before it is stored', async () => {
    const auth = { basic: [owner.name, owner.password] as [string, string] };
    const res = await pkg(server, 'PUT', 'quota/generic/big/1/big.bin', auth, crypto.randomBytes(2000));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('LIMIT_TOTAL_OWNER_SIZE') });
    expect(countBlobs(server)).toBe(0);
    expect(await server.kernel.db('package')).toEqual([]);

    // Without Content-Length the stream is cut at the quota: refused, nothing kept.
    const streamed = await pkg(server, 'PUT', 'quota/generic/big/1/big.bin', auth, async function* () {
      for (let i = 0; i < 4; i++) yield crypto.randomBytes(600);
    }).then(
      (r) => r.status,
      () => 'connection closed',
    );
    expect([413, 'connection closed']).toContain(streamed);
    expect(countBlobs(server)).toBe(0);
    expect(await server.kernel.db('package_blob')).toEqual([]);
    const tmp = path.join(server.dataDir, 'packages', 'tmp');
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([]);
  });

  test('the version count quota refuses a new version with 422', async () => {
    const auth = { basic: [owner.name, owner.password] as [string, string] };
    expect((await pkg(server, 'PUT', 'quota/generic/p/1/f', auth, Buffer.from('1'))).status).toBe(201);
    expect((await pkg(server, 'PUT', 'quota/generic/p/2/f', auth, Buffer.from('2'))).status).toBe(201);
    // Another file of an existing version is fine; a third version is not.
    expect((await pkg(server, 'PUT', 'quota/generic/p/2/g', auth, Buffer.from('3'))).status).toBe(201);
    const third = await pkg(server, 'PUT', 'quota/generic/p/3/f', auth, Buffer.from('4'));
    expect(third.status).toBe(422);
    expect(await third.json()).toMatchObject({ message: expect.stringContaining('LIMIT_TOTAL_OWNER_COUNT') });
    expect((await server.api('GET', '/packages/quota/generic/p/3')).status).toBe(404);
  });
});

describe('packages.ENABLED false', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ packages: { ENABLED: false } });
  });
  afterAll(() => server.close());

  test('serves neither the registries nor /api/v1/packages', async () => {
    expect((await pkg(server, 'GET', `${ADMIN.name}/generic/x/1/f`)).status).toBe(404);
    expect((await server.api('GET', `/packages/${ADMIN.name}`)).status).toBe(404);
  });
});

describe('a disabled generic plugin', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ plugins: { generic: { enabled: false } } });
  });
  afterAll(() => server.close());

  test('registers no routes: its paths are 404 JSON', async () => {
    const put = await pkg(server, 'PUT', `${ADMIN.name}/generic/x/1/f`, { basic: [ADMIN.name, ADMIN.password] }, Buffer.from('x'));
    expect(put.status).toBe(404);
    expect(put.headers.get('content-type')).toContain('application/json');
    const get = await pkg(server, 'GET', `${ADMIN.name}/generic/x/1/f`);
    expect(get.status).toBe(404);
    expect(await get.json()).toMatchObject({ message: expect.stringContaining('not found') });
    expect(countBlobs(server)).toBe(0);
  });
});

describe('package owners go with their packages', () => {
  test('deleting a user who owns packages needs purge, which removes the packages and their blobs', async () => {
    const server = await startServer();
    try {
      const owner = await server.user('pkg-owner');
      const token = await server.token(owner, ['write:package']);
      const body = Buffer.from('owned by pkg-owner');
      expect((await pkg(server, 'PUT', 'pkg-owner/generic/thing/1.0.0/thing.txt', { token }, body)).status).toBe(201);
      const sha = crypto.createHash('sha256').update(body).digest('hex');
      expect(fs.existsSync(blobPath(server, sha))).toBe(true);
      const adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
      const refused = await server.api('DELETE', '/admin/users/pkg-owner', { token: adminToken });
      expect(refused.status).toBe(422);
      expect(refused.body.message).toMatch(/owns 1 packages/);
      expect((await server.api('DELETE', '/admin/users/pkg-owner?purge=true', { token: adminToken })).status).toBe(204);
      expect(await server.kernel.db('package').where('owner_id', owner.id)).toEqual([]);
      expect(fs.existsSync(blobPath(server, sha))).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe('organization packages', () => {
  let server: TestServer;
  const tokens: Record<string, string> = {};
  const file = Buffer.from('org artifact\n');

  beforeAll(async () => {
    server = await startServer();
    for (const name of ['owner', 'builder', 'viewer', 'outsider']) {
      tokens[name] = await server.token(await server.user(name), ['write:organization', 'write:package', 'read:user']);
    }
    const org = (name: string, visibility: string) =>
      server.api('POST', '/orgs', { token: tokens.owner, body: { username: name, visibility } });
    expect((await org('acme', 'public')).status).toBe(201);
    expect((await org('hidden-corp', 'private')).status).toBe(201);
    for (const orgName of ['acme', 'hidden-corp']) {
      const team = async (name: string, unitMode: string, member: string) => {
        const res = await server.api('POST', `/orgs/${orgName}/teams`, {
          token: tokens.owner,
          body: { name, permission: 'read', units_map: { 'repo.code': 'read', 'repo.packages': unitMode } },
        });
        expect(res.status).toBe(201);
        expect((await server.api('PUT', `/teams/${res.body.id}/members/${member}`, { token: tokens.owner })).status).toBe(204);
      };
      await team('builders', 'write', 'builder');
      await team('viewers', 'read', 'viewer');
    }
  });
  afterAll(() => server.close());

  test('members of a team with write on the packages unit publish; read-only members and outsiders cannot', async () => {
    expect((await pkg(server, 'PUT', 'acme/generic/tool/1.0.0/a.txt', { token: tokens.builder }, file)).status).toBe(201);
    expect((await pkg(server, 'PUT', 'acme/generic/tool/1.0.0/b.txt', { token: tokens.owner }, file)).status).toBe(201);
    expect((await pkg(server, 'PUT', 'acme/generic/tool/1.0.0/c.txt', { token: tokens.viewer }, file)).status).toBe(403);
    expect((await pkg(server, 'PUT', 'acme/generic/tool/1.0.0/d.txt', { token: tokens.outsider }, file)).status).toBe(403);
    // A public organization's packages are readable by anyone.
    expect((await pkg(server, 'GET', 'acme/generic/tool/1.0.0/a.txt')).status).toBe(200);
    expect((await server.api('GET', '/packages/acme?type=generic')).body).toHaveLength(1);
  });

  test("a private organization's packages are visible to its members only", async () => {
    expect((await pkg(server, 'PUT', 'hidden-corp/generic/secret/1.0.0/s.txt', { token: tokens.builder }, file)).status).toBe(201);
    expect((await pkg(server, 'GET', 'hidden-corp/generic/secret/1.0.0/s.txt', { token: tokens.viewer })).status).toBe(200);
    expect((await pkg(server, 'GET', 'hidden-corp/generic/secret/1.0.0/s.txt', { token: tokens.outsider })).status).toBe(404);
    // Anonymous callers see no such owner (formats whose clients need a challenge answer 401 instead).
    expect((await pkg(server, 'GET', 'hidden-corp/generic/secret/1.0.0/s.txt')).status).toBe(404);
    expect((await server.api('GET', '/packages/hidden-corp', { token: tokens.outsider })).status).toBe(404);
    expect((await server.api('GET', '/packages/hidden-corp', { token: tokens.viewer })).body).toHaveLength(1);
  });
});
