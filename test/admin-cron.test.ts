import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '@hearth/testing';
import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * Gitea 1.20's `GET /admin/cron` and `POST /admin/cron/{task}`: the server's periodic jobs — the
 * kernel's leftover sweep and the tasks plugins add with `ctx.cron` (webhook deliveries, push
 * mirrors) — in Gitea's Cron JSON, and a task run at once: an aged upload leftover disappears.
 * Runs on every database.
 */
let server: TestServer;
const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };

beforeAll(async () => {
  server = await startServer({ maintenance: { LEFTOVER_SWEEP_INTERVAL: 3600 } });
});
afterAll(async () => server?.close());

test('the task list: name, schedule, next, prev, exec_times', async () => {
  const res = await server.api('GET', '/admin/cron', admin);
  expect(res.status).toBe(200);
  const tasks = res.body as Array<Record<string, unknown>>;
  expect(tasks.map((t) => t.name)).toEqual(expect.arrayContaining(['cleanup_leftovers', 'deliver_webhooks', 'update_mirrors']));
  const sweep = tasks.find((t) => t.name === 'cleanup_leftovers')!;
  expect(sweep).toMatchObject({ schedule: '@every 1h0m0s', prev: '0001-01-01T00:00:00Z', exec_times: 0 });
  expect(Date.parse(String(sweep.next))).toBeGreaterThan(Date.now() + 3500 * 1000);
  expect(res.headers.get('x-total-count')).toBe(String(tasks.length));
});

test('running a task: 204 at once, the run happens, and is counted', async () => {
  const leftover = path.join(server.kernel.config.server.DATA_DIR, 'attachments', 'tmp', 'upload-left-behind');
  fs.mkdirSync(path.dirname(leftover), { recursive: true });
  fs.writeFileSync(leftover, 'partial upload');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
  fs.utimesSync(leftover, twoHoursAgo, twoHoursAgo);
  expect((await server.api('POST', '/admin/cron/cleanup_leftovers', admin)).status).toBe(204);
  await waitFor('the sweep', () => !fs.existsSync(leftover), 10000);
  const sweep = ((await server.api('GET', '/admin/cron', admin)).body as any[]).find((t) => t.name === 'cleanup_leftovers');
  expect(sweep.exec_times).toBe(1);
  expect(Date.parse(sweep.prev)).toBeGreaterThan(Date.now() - 60000);
  expect((await server.api('POST', '/admin/cron/deliver_webhooks', admin)).status).toBe(204);
});

test('an unknown task is 404; only site admins', async () => {
  expect((await server.api('POST', '/admin/cron/no_such_task', admin)).status).toBe(404);
  const user = await server.user('cron-user');
  expect((await server.api('GET', '/admin/cron', { basic: [user.name, user.password] })).status).toBe(403);
  expect((await server.api('POST', '/admin/cron/cleanup_leftovers', { basic: [user.name, user.password] })).status).toBe(403);
  expect((await server.api('GET', '/admin/cron')).status).toBe(401);
});
