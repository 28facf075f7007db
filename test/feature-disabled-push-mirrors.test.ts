import { ADMIN, startServer, type TestServer } from './helpers/server';
import { mirrorMigrations } from '../plugins/push-mirrors/src/migrations';
import { migrationNames, recordAsKernelMigrations, upgradeSandbox } from './helpers/upgrade-sandbox';

/**
 * The push-mirrors plugin switched off: no push mirror routes (404), no push_mirror table, no
 * taps (pushes and purges go on without it), and the rest of the forge works. Then the upgrade: a
 * database whose push_mirror table was created by the kernel of an earlier release (its migration
 * recorded in `knex_migrations`) starts with the plugin, keeps its mirrors, and the migration's row
 * moves to `knex_migrations__push_mirrors`.
 */

describe('push mirrors disabled', () => {
  let off: TestServer;
  let on: TestServer;
  let token: string;
  let onToken: string;

  beforeAll(async () => {
    [off, on] = await Promise.all([startServer({ plugins: { 'push-mirrors': { enabled: false } } }), startServer()]);
    token = await off.token(ADMIN, ['all']);
    onToken = await on.token(ADMIN, ['all']);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), on?.close()]);
  });

  test('the push mirror routes answer 404', async () => {
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    const base = `/repos/${ADMIN.name}/quiet/push_mirrors`;
    expect((await off.api('GET', base, { token })).status).toBe(404);
    expect((await off.api('POST', base, { token, body: { remote_address: 'http://127.0.0.1:9/x.git', interval: '0' } })).status).toBe(404);
    expect((await off.api('GET', `${base}/remote_mirror_x`, { token })).status).toBe(404);
    expect((await off.api('DELETE', `${base}/remote_mirror_x`, { token })).status).toBe(404);
    expect((await off.api('POST', `${base}-sync`, { token })).status).toBe(404);
    expect(off.kernel.apiOperations.filter(({ owner }) => owner === 'push-mirrors')).toEqual([]);
    expect(on.kernel.apiOperations.filter(({ owner }) => owner === 'push-mirrors').length).toBeGreaterThan(0);
  });

  test('its table does not exist', async () => {
    expect(await off.kernel.db.schema.hasTable('push_mirror')).toBe(false);
    expect(await on.kernel.db.schema.hasTable('push_mirror')).toBe(true);
    expect(await off.kernel.db.schema.hasTable('knex_migrations__push_mirrors')).toBe(false);
  });

  test('repository JSON keeps every field; pushes, deletions and purges work without it', async () => {
    const body = { name: 'same', auto_init: true, description: 'd' };
    const [a, b] = [await off.api('POST', '/user/repos', { token, body }), await on.api('POST', '/user/repos', { token: onToken, body })];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    for (const key of ['mirror', 'mirror_interval', 'has_issues', 'has_pull_requests', 'has_wiki', 'has_releases', 'open_issues_count']) {
      expect(a.body[key]).toEqual(b.body[key]);
    }
    const content = Buffer.from('hi').toString('base64');
    expect((await off.api('POST', `/repos/${ADMIN.name}/same/contents/notes.txt`, { token, body: { content } })).status).toBe(201);
    expect((await off.api('DELETE', `/repos/${ADMIN.name}/same`, { token })).status).toBe(204);
    // A purged user's repositories go without the plugin's user.deleting tap.
    const dora = await off.user('dora');
    const doraToken = await off.token(dora, ['all']);
    expect((await off.api('POST', '/user/repos', { token: doraToken, body: { name: 'mine', auto_init: true } })).status).toBe(201);
    expect((await off.api('DELETE', '/admin/users/dora?purge=true', { token })).status).toBe(204);
    expect((await off.api('GET', '/repos/dora/mine', { token })).status).toBe(404);
  });
});

describe('upgrade from a release whose kernel owned the push_mirror table', () => {
  const sandbox = upgradeSandbox('push-mirrors');
  const boot = (enabled: boolean) => sandbox.boot({ 'push-mirrors': enabled });

  test('the plugin adopts the kernel-recorded migration and keeps the mirrors', async () => {
    const names = mirrorMigrations.map((m) => m.name);
    // The earlier release: the kernel ran the push mirror migration and recorded it in its own table.
    const old = await boot(false);
    try {
      const url = await old.listen();
      const repoId = await sandbox.createRepo(url, 'kept');
      const db = old.db;
      await recordAsKernelMigrations(db, mirrorMigrations);
      await db('push_mirror').insert({
        repo_id: repoId,
        remote_name: 'remote_mirror_kept',
        remote_address: 'http://127.0.0.1:9/kept.git',
        credentials: null,
        sync_on_commit: false,
        interval_seconds: 0,
        next_update_unix: 0,
        sync_requested: 0,
        locked_until_unix: 0,
        last_update_unix: 0,
        last_error: '',
        created_unix: Math.floor(Date.now() / 1000),
      });
    } finally {
      await old.close();
    }

    const kernel = await boot(true);
    try {
      const url = await kernel.listen();
      const res = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept/push_mirrors`, url), {
        headers: { Authorization: `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}` },
      });
      expect(res.status).toBe(200);
      const mirrors = (await res.json()) as Array<{ remote_name: string; remote_address: string }>;
      expect(mirrors.map((m) => [m.remote_name, m.remote_address])).toEqual([['remote_mirror_kept', 'http://127.0.0.1:9/kept.git']]);
      const kernelRows = await migrationNames(kernel.db, null);
      for (const name of names) expect(kernelRows).not.toContain(name);
      expect(await migrationNames(kernel.db, 'push-mirrors')).toEqual(names);
    } finally {
      await kernel.close();
    }
  });
});
