import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * Gitea 1.20's `GET /users/{username}/heatmap` (userGetHeatmapData): the user's own actions of
 * the last year, from the activity plugin's rows, counted per 15-minute bucket, only in
 * repositories the caller may read, and empty for others when the user hides their activity.
 * Runs on every database.
 */
let server: TestServer;
type U = { name: string; password: string; id: number };
let hm: U;
let other: U;
const as = (u: { name: string; password: string }) => ({ basic: [u.name, u.password] as [string, string] });
type Cell = { timestamp: number; contributions: number };
const total = (cells: unknown) => (cells as Cell[]).reduce((n, c) => n + c.contributions, 0);

beforeAll(async () => {
  server = await startServer();
  hm = await server.user('heat-user');
  other = await server.user('heat-other');
  for (const [name, priv] of [
    ['warm', false],
    ['hidden', true],
  ] as const) {
    expect((await server.api('POST', '/user/repos', { ...as(hm), body: { name, private: priv } })).status).toBe(201);
    expect((await server.api('POST', `/repos/heat-user/${name}/issues`, { ...as(hm), body: { title: 'one' } })).status).toBe(201);
  }
  // Somebody else's action in the user's repository is not the user's contribution.
  expect((await server.api('POST', '/repos/heat-user/warm/issues', { ...as(other), body: { title: 'theirs' } })).status).toBe(201);
});
afterAll(async () => server?.close());

test('the user sees all their contributions of the last year in 15-minute buckets; others those in readable repositories', async () => {
  const repo = await server.kernel.db('repositories').where({ owner_id: hm.id, lower_name: 'warm' }).first('id');
  const now = Math.floor(Date.now() / 1000);
  // Two actions placed in one known bucket, one older than a year.
  const bucket = now - 86400 - ((now - 86400) % 900);
  const row = { op_type: 1, act_user_id: hm.id, repo_id: repo.id, ref_name: '', is_private: false, content: '' };
  await server.kernel.db('activities').insert([
    { ...row, created_unix: bucket + 10 },
    { ...row, created_unix: bucket + 899 },
    { ...row, created_unix: now - 400 * 86400 },
  ]);

  const own = await server.api('GET', '/users/heat-user/heatmap', as(hm));
  expect(own.status).toBe(200);
  const cells = own.body as Cell[];
  expect(cells.find((c) => c.timestamp === bucket)).toEqual({ timestamp: bucket, contributions: 2 });
  expect(cells.every((c) => c.timestamp % 900 === 0 && c.timestamp > now - 366 * 86400)).toBe(true);
  expect(cells.map((c) => c.timestamp)).toEqual([...cells.map((c) => c.timestamp)].sort((a, b) => a - b));
  const mine = total(own.body);
  // The anonymous caller does not see the private repository's actions (its creation and its issue).
  const anonymous = await server.api('GET', '/users/heat-user/heatmap');
  expect(anonymous.status).toBe(200);
  expect(total(anonymous.body)).toBe(mine - 2);
  expect(total((await server.api('GET', '/users/heat-user/heatmap', { basic: [ADMIN.name, ADMIN.password] })).body)).toBe(mine);
  expect(total((await server.api('GET', '/users/heat-other/heatmap')).body)).toBe(1);
  expect((await server.api('GET', '/users/nobody-at-all/heatmap')).status).toBe(404);
});

test('a user who keeps their activity private shows an empty heatmap to others, not to themself', async () => {
  expect((await server.api('PATCH', '/user/settings', { ...as(hm), body: { hide_activity: true } })).status).toBe(200);
  expect((await server.api('GET', '/users/heat-user/heatmap', as(other))).body).toEqual([]);
  expect(total((await server.api('GET', '/users/heat-user/heatmap', as(hm))).body)).toBeGreaterThan(0);
  expect(total((await server.api('GET', '/users/heat-user/heatmap', { basic: [ADMIN.name, ADMIN.password] })).body)).toBeGreaterThan(0);
});
