import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { createTestDatabase, type TestDatabase } from './helpers/database';
import { Hearth, deepMerge } from './helpers/kernel';
import { formatGoDuration, parseGoDuration } from '../plugins/push-mirrors/src/duration';
import { SecretBox } from '../core/kernel/src/security/secret-box';

// Two real servers: `source` (allowed to reach local networks, as a mirror to a neighbour needs)
// and `target` (default settings), which receives the mirrored pushes over smart HTTP.
let source: TestServer;
let target: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let aliceToken: string;
let bobToken: string;
let targetToken: string;
let sandbox: ReturnType<typeof gitSandbox>;

const admin = { name: ADMIN.name, password: ADMIN.password };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** refs/heads and refs/tags of a remote as "sha ref" lines, sorted. */
async function refsOf(url: string): Promise<string[]> {
  const res = await sandbox.git(['ls-remote', '--heads', '--tags', url]);
  if (res.status !== 0) throw new Error(`ls-remote failed: ${res.stderr}`);
  return res.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace('\t', ' '))
    .sort();
}

/** Wait until `check` holds (the worker runs in the background). */
async function eventually<T>(what: string, read: () => Promise<T>, check: (v: T) => boolean, ms = 30000): Promise<T> {
  const end = Date.now() + ms;
  let last: T = await read();
  while (!check(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
    await sleep(200);
    last = await read();
  }
  return last;
}

const sourceUrl = (repo: string) => cloneUrl(source.url, `alice/${repo}.git`, alice.name, aliceToken);
const targetUrl = (repo: string) => cloneUrl(target.url, `${ADMIN.name}/${repo}.git`);
const targetAuthUrl = (repo: string) => cloneUrl(target.url, `${ADMIN.name}/${repo}.git`, ADMIN.name, targetToken);

async function targetRepo(name: string): Promise<void> {
  expect((await target.api('POST', '/user/repos', { token: targetToken, body: { name, private: true } })).status).toBe(201);
}

async function addMirror(repo: string, body: Record<string, unknown>, token = aliceToken, server = source) {
  return server.api('POST', `/repos/alice/${repo}/push_mirrors`, { token, body });
}

/** A work tree with branches main and feature, a lightweight tag v1 and an annotated tag v2. */
async function seedWorkTree(name: string): Promise<string> {
  const work = path.join(sandbox.dir, name);
  expect((await sandbox.git(['init', work])).status).toBe(0);
  fs.writeFileSync(path.join(work, 'README.md'), `# ${name}\n`);
  await sandbox.git(['add', '.'], work);
  expect((await sandbox.git(['commit', '-m', 'first'], work)).status).toBe(0);
  await sandbox.git(['tag', 'v1'], work);
  await sandbox.git(['checkout', '-b', 'feature'], work);
  fs.writeFileSync(path.join(work, 'feature.txt'), 'feature\n');
  await sandbox.git(['add', '.'], work);
  await sandbox.git(['commit', '-m', 'feature'], work);
  await sandbox.git(['tag', '-a', 'v2', '-m', 'release two'], work);
  await sandbox.git(['checkout', 'main'], work);
  return work;
}

beforeAll(async () => {
  source = await startServer({ migrations: { ALLOW_LOCALNETWORKS: true } });
  target = await startServer();
  alice = await source.user('alice');
  bob = await source.user('bob');
  aliceToken = await source.token(alice, ['write:repository', 'delete:repository']);
  bobToken = await source.token(bob, ['write:repository', 'delete:repository']);
  // Mirroring deletes branches on the target too: a Hearth target needs delete:repository for that.
  targetToken = await target.token(admin, ['delete:repository']);
  for (const name of ['code', 'manual', 'broken', 'perm', 'doomed']) {
    expect((await source.api('POST', '/user/repos', { token: aliceToken, body: { name } })).status).toBe(201);
  }
  expect((await source.api('POST', '/user/repos', { token: aliceToken, body: { name: 'hidden', private: true } })).status).toBe(201);
  expect(
    (await source.api('PUT', '/repos/alice/perm/collaborators/bob', { token: aliceToken, body: { permission: 'write' } })).status,
  ).toBe(204);
  sandbox = gitSandbox();
});

afterAll(async () => {
  sandbox?.cleanup();
  await source?.close();
  await target?.close();
});

describe('adding, listing and removing push mirrors', () => {
  test('create answers the mirror without credentials; list, get and delete by remote name', async () => {
    const res = await addMirror('perm', {
      remote_address: 'http://someone:url-secret@127.0.0.1:9/x/y.git',
      remote_username: 'mirror-bot',
      remote_password: 'p4ss-w0rd-secret',
      interval: '1h30m',
      sync_on_commit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      repo_name: 'perm',
      remote_address: 'http://127.0.0.1:9/x/y.git',
      interval: '1h30m0s',
      sync_on_commit: true,
      last_error: '',
      last_update: '',
    });
    expect(res.body.remote_name).toMatch(/^remote_mirror_[A-Za-z0-9]{10}$/);
    expect(Date.parse(res.body.created)).toBeGreaterThan(Date.now() - 60000);
    expect(res.text).not.toContain('secret');

    const defaults = await addMirror('perm', { remote_address: 'http://127.0.0.1:9/z.git' });
    expect(defaults.status).toBe(200);
    expect(defaults.body).toMatchObject({ interval: '8h0m0s', sync_on_commit: false });
    const off = await addMirror('perm', { remote_address: 'http://127.0.0.1:9/w.git', interval: '0' });
    expect(off.body.interval).toBe('0s');

    const list = await source.api('GET', '/repos/alice/perm/push_mirrors?limit=2', { token: aliceToken });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('3');
    expect(list.body.map((m: any) => m.remote_name)).toEqual([res.body.remote_name, defaults.body.remote_name]);

    const one = await source.api('GET', `/repos/alice/perm/push_mirrors/${res.body.remote_name}`, { token: aliceToken });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);

    // Credentials are sealed in the database: neither the password nor the URL's user info is readable there.
    const row = await source.kernel.db('push_mirror').where({ remote_name: res.body.remote_name }).first();
    expect(row.remote_address).toBe('http://127.0.0.1:9/x/y.git');
    expect(String(row.credentials)).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    expect(JSON.stringify(row)).not.toContain('p4ss-w0rd-secret');
    expect(JSON.stringify(row)).not.toContain('mirror-bot');
    expect(JSON.stringify(row)).not.toContain(Buffer.from('p4ss-w0rd-secret').toString('base64'));
    expect((await source.kernel.db('push_mirror').where({ remote_name: off.body.remote_name }).first()).credentials).toBeNull();
    // The key was generated once and kept in the data directory.
    expect(fs.readFileSync(path.join(source.dataDir, 'secret_key'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);

    for (const m of [res.body, defaults.body, off.body]) {
      expect((await source.api('DELETE', `/repos/alice/perm/push_mirrors/${m.remote_name}`, { token: aliceToken })).status).toBe(204);
    }
    expect((await source.api('DELETE', `/repos/alice/perm/push_mirrors/${res.body.remote_name}`, { token: aliceToken })).status).toBe(404);
    expect((await source.api('GET', `/repos/alice/perm/push_mirrors/${res.body.remote_name}`, { token: aliceToken })).status).toBe(404);
    expect((await source.api('GET', '/repos/alice/perm/push_mirrors', { token: aliceToken })).body).toEqual([]);
  });

  test('bad intervals are 400 (Go durations, at least 10m or 0)', async () => {
    for (const interval of ['5m', 'soon', '-1h', '10']) {
      const res = await addMirror('perm', { remote_address: 'http://127.0.0.1:9/x.git', interval });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('interval');
    }
    expect((await addMirror('perm', { interval: '1h' })).status).toBe(422); // remote_address is required
  });

  test('file://, local paths and other schemes are refused on every server; loopback needs ALLOW_LOCALNETWORKS', async () => {
    const repoDir = path.join(source.dataDir, 'repositories', 'alice', 'code.git');
    for (const remote_address of [
      `file://${repoDir}`,
      repoDir,
      '../code.git',
      'ext::sh -c touch% /tmp/pwned',
      `git://127.0.0.1/x.git`,
      'ssh://git@127.0.0.1/x.git',
      'git@127.0.0.1:x.git',
    ]) {
      const res = await addMirror('perm', { remote_address, interval: '0' });
      expect(res.status).toBe(422);
      expect(typeof res.body.message).toBe('string');
    }
    // The target server keeps the default (ALLOW_LOCALNETWORKS false): a loopback remote is refused.
    const carol = await target.user('carol');
    const carolToken = await target.token(carol, ['write:repository']);
    expect((await target.api('POST', '/user/repos', { token: carolToken, body: { name: 'src' } })).status).toBe(201);
    for (const remote_address of [targetUrl('anything'), 'http://localhost:1/x.git', 'http://10.1.2.3/x.git', 'http://[::1]:1/x.git']) {
      const refused = await target.api('POST', '/repos/carol/src/push_mirrors', {
        token: carolToken,
        body: { remote_address, interval: '0' },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.message).toMatch(/ALLOW_LOCALNETWORKS/);
    }
    expect((await source.api('GET', '/repos/alice/perm/push_mirrors', { token: aliceToken })).body).toEqual([]);
  });

  test('only repository admins: a writer gets 403, a stranger 404 on a private repository, anonymous 401', async () => {
    expect((await source.api('GET', '/repos/alice/perm/push_mirrors', { token: bobToken })).status).toBe(403);
    expect((await addMirror('perm', { remote_address: 'http://127.0.0.1:9/x.git' }, bobToken)).status).toBe(403);
    expect((await source.api('POST', '/repos/alice/perm/push_mirrors-sync', { token: bobToken })).status).toBe(403);
    expect((await source.api('GET', '/repos/alice/hidden/push_mirrors', { token: bobToken })).status).toBe(404);
    expect((await source.api('GET', '/repos/alice/perm/push_mirrors')).status).toBe(401);
    const readOnly = await source.token(alice, ['read:repository']);
    expect((await addMirror('perm', { remote_address: 'http://127.0.0.1:9/x.git' }, readOnly)).status).toBe(403);
    expect((await source.api('GET', '/repos/alice/perm/push_mirrors', { token: readOnly })).status).toBe(200);
    // The site admin may.
    const adminToken = await source.token(admin, ['write:repository']);
    expect((await source.api('GET', '/repos/alice/perm/push_mirrors', { token: adminToken })).status).toBe(200);
  });
});

describe('mirroring to a second Hearth', () => {
  test('sync_on_commit: a push to the source reaches the target with every branch and tag', async () => {
    await targetRepo('code-mirror');
    const res = await addMirror('code', {
      remote_address: targetUrl('code-mirror'),
      remote_username: ADMIN.name,
      remote_password: targetToken,
      sync_on_commit: true,
      interval: '0',
    });
    expect(res.status).toBe(200);
    expect(res.body.remote_address).toBe(targetUrl('code-mirror'));

    const work = await seedWorkTree('code');
    const pushed = await sandbox.git(['push', sourceUrl('code'), '--all'], work);
    expect(pushed.status).toBe(0);
    expect((await sandbox.git(['push', sourceUrl('code'), '--tags'], work)).status).toBe(0);

    const expected = await refsOf(sourceUrl('code'));
    expect(expected.map((l) => l.split(' ')[1]).sort()).toEqual([
      'refs/heads/feature',
      'refs/heads/main',
      'refs/tags/v1',
      'refs/tags/v2',
      'refs/tags/v2^{}',
    ]);
    await eventually(
      'the target to match the source',
      () => refsOf(targetAuthUrl('code-mirror')),
      (refs) => refs.join() === expected.join(),
    );

    const mirror = await eventually(
      'last_update',
      async () => (await source.api('GET', `/repos/alice/code/push_mirrors/${res.body.remote_name}`, { token: aliceToken })).body,
      (m: any) => m.last_update !== '',
    );
    expect(mirror.last_error).toBe('');

    // A deleted branch goes from the mirror too (--mirror prunes).
    expect((await sandbox.git(['push', sourceUrl('code'), '--delete', 'feature'], work)).status).toBe(0);
    await eventually(
      'the branch deletion to be mirrored',
      () => refsOf(targetAuthUrl('code-mirror')),
      (refs) => !refs.some((l) => l.endsWith('refs/heads/feature')),
    );
  });

  test('a manual push_mirrors-sync pushes a mirror without sync_on_commit', async () => {
    await targetRepo('manual-mirror');
    const res = await addMirror('manual', { remote_address: targetAuthUrl('manual-mirror'), interval: '0' });
    expect(res.status).toBe(200);
    expect(res.body.remote_address).toBe(targetUrl('manual-mirror')); // credentials from the URL, not shown
    const work = await seedWorkTree('manual');
    expect((await sandbox.git(['push', sourceUrl('manual'), '--all'], work)).status).toBe(0);
    expect((await sandbox.git(['push', sourceUrl('manual'), '--tags'], work)).status).toBe(0);
    expect(await refsOf(targetAuthUrl('manual-mirror'))).toEqual([]);

    const sync = await source.api('POST', '/repos/alice/manual/push_mirrors-sync', { token: aliceToken });
    expect(sync.status).toBe(200);
    const expected = await refsOf(sourceUrl('manual'));
    expect(expected).toHaveLength(5);
    await eventually(
      'the manual sync',
      () => refsOf(targetAuthUrl('manual-mirror')),
      (refs) => refs.join() === expected.join(),
    );
    const row = await source.kernel.db('push_mirror').where({ remote_name: res.body.remote_name }).first();
    expect(JSON.stringify(row)).not.toContain(targetToken);

    // The mirror goes with a renamed repository and keeps working.
    expect((await source.api('PATCH', '/repos/alice/manual', { token: aliceToken, body: { name: 'manual-renamed' } })).status).toBe(200);
    const moved = await source.api('GET', `/repos/alice/manual-renamed/push_mirrors/${res.body.remote_name}`, { token: aliceToken });
    expect(moved.status).toBe(200);
    expect(moved.body.repo_name).toBe('manual-renamed');
    fs.writeFileSync(path.join(work, 'more.txt'), 'more\n');
    await sandbox.git(['add', '.'], work);
    await sandbox.git(['commit', '-m', 'more'], work);
    expect((await sandbox.git(['push', sourceUrl('manual-renamed'), 'main'], work)).status).toBe(0);
    expect((await source.api('POST', '/repos/alice/manual-renamed/push_mirrors-sync', { token: aliceToken })).status).toBe(200);
    const head = (await sandbox.git(['rev-parse', 'HEAD'], work)).stdout.trim();
    await eventually(
      'the sync after the rename',
      () => refsOf(targetAuthUrl('manual-mirror')),
      (refs) => refs.includes(`${head} refs/heads/main`),
    );
  });

  test('an unreachable or refusing mirror records last_error and the server stays healthy', async () => {
    const work = await seedWorkTree('broken');
    expect((await sandbox.git(['push', sourceUrl('broken'), '--all'], work)).status).toBe(0);
    const closed = await addMirror('broken', { remote_address: 'http://127.0.0.1:1/nowhere.git', interval: '0' });
    // Wrong credentials: the target refuses the push.
    await targetRepo('broken-mirror');
    const denied = await addMirror('broken', {
      remote_address: targetUrl('broken-mirror'),
      remote_username: ADMIN.name,
      remote_password: 'not-the-password',
      interval: '0',
    });
    expect((await source.api('POST', '/repos/alice/broken/push_mirrors-sync', { token: aliceToken })).status).toBe(200);
    for (const m of [closed.body, denied.body]) {
      const after = await eventually(
        'last_error',
        async () => (await source.api('GET', `/repos/alice/broken/push_mirrors/${m.remote_name}`, { token: aliceToken })).body,
        (x: any) => x.last_error !== '',
      );
      expect(after.last_error).toMatch(/git push \(mirror\) failed/);
      expect(after.last_error).not.toContain('not-the-password');
      expect(after.last_update).not.toBe('');
    }
    expect(await refsOf(targetAuthUrl('broken-mirror'))).toEqual([]);
    expect((await source.api('GET', '//api/healthz')).status).toBe(200);
    // The allow-list is checked again before each push: once local networks are refused, the sync fails with that reason.
    source.kernel.config.migrations.ALLOW_LOCALNETWORKS = false;
    try {
      await source.kernel.db('push_mirror').where({ remote_name: closed.body.remote_name }).update({ last_error: '' });
      expect((await source.api('POST', '/repos/alice/broken/push_mirrors-sync', { token: aliceToken })).status).toBe(200);
      const refused = await eventually(
        'the refusal',
        async () => (await source.api('GET', `/repos/alice/broken/push_mirrors/${closed.body.remote_name}`, { token: aliceToken })).body,
        (x: any) => x.last_error !== '',
      );
      expect(refused.last_error).toMatch(/ALLOW_LOCALNETWORKS/);
    } finally {
      source.kernel.config.migrations.ALLOW_LOCALNETWORKS = true;
    }
  });

  test("a deleted repository's mirrors go with it", async () => {
    const res = await addMirror('doomed', { remote_address: 'http://127.0.0.1:9/x.git', interval: '0' });
    expect(res.status).toBe(200);
    const repo = await source.kernel.db('repositories').where({ lower_name: 'doomed' }).first();
    expect(await source.kernel.db('push_mirror').where({ repo_id: repo.id })).toHaveLength(1);
    expect((await source.api('DELETE', '/repos/alice/doomed', { token: aliceToken })).status).toBe(204);
    expect(await source.kernel.db('push_mirror').where({ repo_id: repo.id })).toHaveLength(0);

    // A purged owner's repositories take their mirrors along; without purge nothing is removed.
    const dave = await source.user('dave');
    const daveToken = await source.token(dave, ['write:repository']);
    expect((await source.api('POST', '/user/repos', { token: daveToken, body: { name: 'kept' } })).status).toBe(201);
    expect(
      (
        await source.api('POST', '/repos/dave/kept/push_mirrors', {
          token: daveToken,
          body: { remote_address: 'http://127.0.0.1:9/x.git', interval: '0' },
        })
      ).status,
    ).toBe(200);
    const kept = await source.kernel.db('repositories').where({ owner_id: dave.id }).first();
    expect((await source.api('DELETE', '/admin/users/dave', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(422);
    expect(await source.kernel.db('push_mirror').where({ repo_id: kept.id })).toHaveLength(1);
    expect((await source.api('DELETE', '/admin/users/dave?purge=true', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(204);
    expect(await source.kernel.db('push_mirror').where({ repo_id: kept.id })).toHaveLength(0);
  });
});

describe('restart', () => {
  let dataDir: string;
  let database: TestDatabase;
  let kernel: Hearth | null = null;
  const start = async (listen: boolean): Promise<{ kernel: Hearth; url: string }> => {
    const k = await Hearth.create({
      config: {
        env: {},
        overrides: deepMerge(
          {
            server: { HTTP_PORT: 0, HTTP_ADDR: '127.0.0.1', DATA_DIR: dataDir },
            database: { URL: database.url },
            log: { LEVEL: process.env.HEARTH_TEST_LOG_LEVEL ?? 'silent' },
            security: { SCRYPT_COST: 1024 },
          },
          { migrations: { ALLOW_LOCALNETWORKS: true } },
        ),
      },
      env: { HEARTH_ADMIN_USERNAME: ADMIN.name, HEARTH_ADMIN_PASSWORD: ADMIN.password, HEARTH_ADMIN_EMAIL: ADMIN.email },
    });
    kernel = k;
    return { kernel: k, url: listen ? await k.listen() : '' };
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mirror-restart-'));
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await kernel?.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a sync pending when the server stopped, and an interval that ran out meanwhile, are served after the restart', async () => {
    const first = await start(true);
    const call = async (url: string, method: string, p: string, body?: unknown) => {
      const res = await fetch(new URL(`api/v1${p}`, url), {
        method,
        headers: {
          Authorization: `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}`,
          'Content-Type': 'application/json',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };
    expect((await call(first.url, 'POST', '/user/repos', { name: 'persist' })).status).toBe(201);
    await targetRepo('persist-mirror');
    const added = await call(first.url, 'POST', `/repos/${ADMIN.name}/persist/push_mirrors`, {
      remote_address: targetUrl('persist-mirror'),
      remote_username: ADMIN.name,
      remote_password: targetToken,
      interval: '0',
    });
    expect(added.status).toBe(200);
    await targetRepo('persist-periodic');
    const periodic = await call(first.url, 'POST', `/repos/${ADMIN.name}/persist/push_mirrors`, {
      remote_address: targetUrl('persist-periodic'),
      remote_username: ADMIN.name,
      remote_password: targetToken,
      interval: '10m',
    });
    expect(periodic.status).toBe(200);
    const work = await seedWorkTree('persist');
    const pushUrl = cloneUrl(first.url, `${ADMIN.name}/persist.git`, ADMIN.name, ADMIN.password);
    expect((await sandbox.git(['push', pushUrl, '--all'], work)).status).toBe(0);
    expect((await sandbox.git(['push', pushUrl, '--tags'], work)).status).toBe(0);
    const expected = await refsOf(pushUrl);
    await first.kernel.close();
    kernel = null;

    // Between the runs the queue (the push_mirror table) holds a request nobody has served yet,
    // as a sync or commit request left behind by a stopped server does.
    const second = await start(false);
    await second.kernel.db('push_mirror').where({ remote_name: added.body.remote_name }).update({ sync_requested: 1 });
    // …and a periodic mirror whose interval ran out while the server was down.
    const periodicRow = await second.kernel.db('push_mirror').where({ remote_name: periodic.body.remote_name }).first();
    expect(Number(periodicRow.interval_seconds)).toBe(600);
    await second.kernel
      .db('push_mirror')
      .where({ remote_name: periodic.body.remote_name })
      .update({ next_update_unix: Math.floor(Date.now() / 1000) - 1 });
    expect(await refsOf(targetAuthUrl('persist-mirror'))).toEqual([]);
    expect(await refsOf(targetAuthUrl('persist-periodic'))).toEqual([]);
    await second.kernel.listen();
    await eventually(
      'the pending sync after the restart',
      () => refsOf(targetAuthUrl('persist-mirror')),
      (refs) => refs.join() === expected.join(),
    );
    const row = await eventually(
      'the finished row',
      () => second.kernel.db('push_mirror').where({ remote_name: added.body.remote_name }).first(),
      (r: any) => Number(r.sync_requested) === 0 && Number(r.last_update_unix) > 0,
    );
    expect(row.last_error).toBe('');
    expect(Number(row.locked_until_unix)).toBe(0);
    await eventually(
      'the periodic sync after the restart',
      () => refsOf(targetAuthUrl('persist-periodic')),
      (refs) => refs.join() === expected.join(),
    );
    const next = await eventually(
      'the next periodic sync to be scheduled',
      () => second.kernel.db('push_mirror').where({ remote_name: periodic.body.remote_name }).first(),
      (r: any) => Number(r.last_update_unix) > 0,
    );
    expect(Number(next.next_update_unix) - Number(next.last_update_unix)).toBe(600);
    expect(Number(next.sync_requested)).toBe(0);
  });
});

describe('building blocks', () => {
  test('Go durations as Gitea reads and writes intervals', () => {
    expect(parseGoDuration('8h0m0s')).toBe(8 * 3600);
    expect(parseGoDuration('1h30m')).toBe(5400);
    expect(parseGoDuration('1.5h')).toBe(5400);
    expect(parseGoDuration('600s')).toBe(600);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('0s')).toBe(0);
    for (const bad of ['', '10', 'h', '1d', '-1h', '1h 2m', 'abc']) expect(parseGoDuration(bad)).toBeNull();
    expect([0, 45, 600, 5400, 8 * 3600].map(formatGoDuration)).toEqual(['0s', '45s', '10m0s', '1h30m0s', '8h0m0s']);
  });

  test('sealed secrets: random nonce, bound to their context and key, tampering detected', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-secret-'));
    try {
      const config = { security: { SECRET_KEY: '' }, server: { DATA_DIR: dir } } as any;
      const box = new SecretBox(config, 'test');
      const a = box.seal('hunter2', 'row:1');
      expect(a).not.toBe(box.seal('hunter2', 'row:1'));
      expect(a).not.toContain('hunter2');
      expect(box.open(a, 'row:1')).toBe('hunter2');
      expect(() => box.open(a, 'row:2')).toThrow(/cannot be decrypted/);
      const raw = Buffer.from(a.slice(3), 'base64');
      raw[raw.length - 1] ^= 1;
      expect(() => box.open(`v1:${raw.toString('base64')}`, 'row:1')).toThrow(/cannot be decrypted/);
      // The generated key is kept: a second box over the same data directory opens it; another key does not.
      expect(new SecretBox(config, 'test').open(a, 'row:1')).toBe('hunter2');
      expect(() => new SecretBox({ ...config, security: { SECRET_KEY: 'configured' } }, 'test').open(a, 'row:1')).toThrow(
        /cannot be decrypted/,
      );
      expect((fs.statSync(path.join(dir, 'secret_key')).mode & 0o777).toString(8)).toBe('600');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
