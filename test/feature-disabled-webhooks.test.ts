import { ADMIN, startServer, type TestServer } from './helpers/server';
import { webhookMigrations } from '../plugins/webhooks/src/migrations';
import { migrationNames, recordAsKernelMigrations, upgradeSandbox } from './helpers/upgrade-sandbox';

/**
 * The webhooks plugin switched off: no hook routes (404), no webhook tables, no taps (events
 * still flow, nobody queues deliveries), and the rest of the forge works. Then the upgrade: a
 * database whose webhook tables were created by the kernel of an earlier release (their migration
 * recorded in `knex_migrations`) starts with the plugin, keeps its hooks, and the migration's row
 * moves to `knex_migrations__webhooks`.
 */

const TABLES = ['webhook', 'hook_task'];

describe('webhooks disabled', () => {
  let off: TestServer;
  let on: TestServer;
  let token: string;
  let onToken: string;

  beforeAll(async () => {
    [off, on] = await Promise.all([startServer({ plugins: { webhooks: { enabled: false } } }), startServer()]);
    token = await off.token(ADMIN, ['all']);
    onToken = await on.token(ADMIN, ['all']);
    await off.api('POST', '/orgs', { token, body: { username: 'crew' } });
  });
  afterAll(async () => {
    await Promise.all([off?.close(), on?.close()]);
  });

  test('the hook routes of every level answer 404', async () => {
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    const hook = { type: 'gitea', config: { url: 'http://127.0.0.1:9/hook', content_type: 'json' } };
    for (const base of [`/repos/${ADMIN.name}/quiet/hooks`, '/orgs/crew/hooks', '/user/hooks', '/admin/hooks']) {
      expect((await off.api('GET', base, { token })).status).toBe(404);
      expect((await off.api('POST', base, { token, body: hook })).status).toBe(404);
      expect((await off.api('GET', `${base}/1`, { token })).status).toBe(404);
      expect((await off.api('GET', `${base}/1/deliveries`, { token })).status).toBe(404);
    }
    expect((await off.api('POST', `/repos/${ADMIN.name}/quiet/hooks/1/tests`, { token })).status).toBe(404);
    expect((await off.api('GET', `/repos/${ADMIN.name}/quiet/hooks/git`, { token })).status).toBe(404);
    expect(off.kernel.apiOperations.filter(({ owner }) => owner === 'webhooks')).toEqual([]);
    expect(on.kernel.apiOperations.filter(({ owner }) => owner === 'webhooks').length).toBeGreaterThan(0);
  });

  test('its tables do not exist', async () => {
    for (const table of TABLES) {
      expect(await off.kernel.db.schema.hasTable(table)).toBe(false);
      expect(await on.kernel.db.schema.hasTable(table)).toBe(true);
    }
    expect(await off.kernel.db.schema.hasTable('knex_migrations__webhooks')).toBe(false);
  });

  test('repository JSON keeps every field, and events that would have been delivered do not fail', async () => {
    const body = { name: 'same', auto_init: true, description: 'd' };
    const [a, b] = [await off.api('POST', '/user/repos', { token, body }), await on.api('POST', '/user/repos', { token: onToken, body })];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    for (const key of ['has_issues', 'has_pull_requests', 'has_wiki', 'has_releases', 'open_issues_count', 'release_counter']) {
      expect(a.body[key]).toEqual(b.body[key]);
    }
    // A push (through the contents API), an issue, a rename and a deletion all emit forge events.
    const content = Buffer.from('hi').toString('base64');
    const file = await off.api('POST', `/repos/${ADMIN.name}/same/contents/notes.txt`, { token, body: { content } });
    expect(file.status).toBe(201);
    expect((await off.api('POST', `/repos/${ADMIN.name}/same/issues`, { token, body: { title: 'still works' } })).status).toBe(201);
    expect((await off.api('PATCH', `/repos/${ADMIN.name}/same`, { token, body: { name: 'renamed' } })).status).toBe(200);
    expect((await off.api('GET', `/repos/${ADMIN.name}/renamed`, { token })).status).toBe(200);
    expect((await off.api('DELETE', `/repos/${ADMIN.name}/renamed`, { token })).status).toBe(204);
    const dora = await off.user('dora');
    expect((await off.api('DELETE', '/admin/users/dora', { token })).status).toBe(204);
    expect(dora.id).toBeGreaterThan(0);
  });
});

describe('upgrade from a release whose kernel owned the webhook tables', () => {
  const sandbox = upgradeSandbox('webhooks');
  const boot = (webhooks: boolean) => sandbox.boot({ webhooks });

  test('the plugin adopts the kernel-recorded migration and keeps the hooks', async () => {
    const names = webhookMigrations.map((m) => m.name);
    // The earlier release: the kernel ran the webhook migration and recorded it in its own table.
    const old = await boot(false);
    try {
      const db = old.db;
      await recordAsKernelMigrations(db, webhookMigrations);
      const now = Math.floor(Date.now() / 1000);
      await db('webhook').insert({
        repo_id: 0,
        owner_id: 0,
        is_system_webhook: true,
        type: 'gitea',
        url: 'http://127.0.0.1:9/kept',
        http_method: 'POST',
        content_type: 1,
        secret: '',
        events: JSON.stringify({ push_only: true, send_everything: false, choose_events: false, branch_filter: '', events: {} }),
        meta: '{}',
        is_active: false,
        header_authorization_encrypted: '',
        created_unix: now,
        updated_unix: now,
      });
    } finally {
      await old.close();
    }

    const kernel = await boot(true);
    try {
      const url = await kernel.listen();
      const res = await fetch(new URL('api/v1/admin/hooks', url), {
        headers: { Authorization: `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Array<{ config: { url: string } }>).map((h) => h.config.url)).toEqual(['http://127.0.0.1:9/kept']);
      const kernelRows = await migrationNames(kernel.db, null);
      for (const name of names) expect(kernelRows).not.toContain(name);
      expect(await migrationNames(kernel.db, 'webhooks')).toEqual(names);
    } finally {
      await kernel.close();
    }
  });
});
