import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * Gitea 1.20's stopwatches and tracked times: who may track (writers, the poster, assignees), the
 * stopwatch's 201/204/409 answers and the one-at-a-time rule, tracked times added, listed (with
 * the user filter's rights, since/before, paging), reset and deleted (soft), the timeline entries
 * each writes, and the answers with repository.ENABLE_TIME_TRACKING off. Runs on every database.
 */
let server: TestServer;
type U = { name: string; password: string; id: number };
let owner: U;
let poster: U;
let stranger: U;
const REPO = 'tt-owner/tracked';

beforeAll(async () => {
  server = await startServer();
  owner = await server.user('tt-owner');
  poster = await server.user('tt-poster');
  stranger = await server.user('tt-stranger');
  await server.api('POST', '/user/repos', { ...as(owner), body: { name: 'tracked', auto_init: true } });
  await server.api('POST', `/repos/${REPO}/issues`, { ...as(owner), body: { title: 'first' } }); // #1, the owner's
  await server.api('POST', `/repos/${REPO}/issues`, { ...as(poster), body: { title: 'second' } }); // #2, the poster's
  await server.api('POST', `/repos/${REPO}/issues`, { ...as(owner), body: { title: 'third' } }); // #3
});
afterAll(async () => server?.close());

function as(user: { name: string; password: string }) {
  return { basic: [user.name, user.password] as [string, string] };
}
const timelineTypes = async (index: number) =>
  ((await server.api('GET', `/repos/${REPO}/issues/${index}/timeline`, as(owner))).body as Array<{ type: string; body: string }>).filter(
    (c) => /tracking|time_manual/.test(c.type),
  );

test('the stopwatch: start 201, again 409, stop 201 books the time, cancel 204; starting elsewhere finishes the running one', async () => {
  expect((await server.api('POST', `/repos/${REPO}/issues/1/stopwatch/stop`, as(owner))).status).toBe(409);
  const start = await server.api('POST', `/repos/${REPO}/issues/1/stopwatch/start`, as(owner));
  expect(start.status).toBe(201);
  expect((await server.api('POST', `/repos/${REPO}/issues/1/stopwatch/start`, as(owner))).status).toBe(409);
  const watches = await server.api('GET', '/user/stopwatches', as(owner));
  expect(watches.status).toBe(200);
  expect(watches.body).toEqual([
    {
      created: expect.stringMatching(/^\d{4}-/),
      seconds: expect.any(Number),
      duration: expect.any(String),
      issue_index: 1,
      issue_title: 'first',
      repo_owner_name: 'tt-owner',
      repo_name: 'tracked',
    },
  ]);
  // Starting on #3 finishes #1's stopwatch (a tracked time of #1).
  expect((await server.api('POST', `/repos/${REPO}/issues/3/stopwatch/start`, as(owner))).status).toBe(201);
  expect(((await server.api('GET', '/user/stopwatches', as(owner))).body as any[]).map((w) => w.issue_index)).toEqual([3]);
  expect((await server.api('DELETE', `/repos/${REPO}/issues/3/stopwatch/delete`, as(owner))).status).toBe(204);
  expect((await server.api('DELETE', `/repos/${REPO}/issues/3/stopwatch/delete`, as(owner))).status).toBe(409);
  expect((await server.api('POST', `/repos/${REPO}/issues/1/stopwatch/start`, as(owner))).status).toBe(201);
  expect((await server.api('POST', `/repos/${REPO}/issues/1/stopwatch/stop`, as(owner))).status).toBe(201);
  expect((await server.api('GET', '/user/stopwatches', as(owner))).body).toEqual([]);

  const times = await server.api('GET', `/repos/${REPO}/issues/1/times`, as(owner));
  expect(times.status).toBe(200);
  expect((times.body as any[]).length).toBe(2);
  expect((times.body as any[])[0]).toMatchObject({
    user_name: 'tt-owner',
    user_id: owner.id,
    time: expect.any(Number),
    issue: { number: 1 },
  });
  expect((await timelineTypes(1)).map((c) => c.type)).toEqual(['start_tracking', 'stop_tracking', 'start_tracking', 'stop_tracking']);
  expect((await timelineTypes(3)).map((c) => c.type)).toEqual(['start_tracking', 'cancel_tracking']);
  // The poster may track time on their issue but, not writing to issues, not use the stopwatch (as Gitea).
  expect((await server.api('POST', `/repos/${REPO}/issues/2/stopwatch/start`, as(poster))).status).toBe(403);
  expect((await server.api('POST', `/repos/${REPO}/issues/1/stopwatch/start`, as(stranger))).status).toBe(403);
  expect((await server.api('POST', `/repos/${REPO}/issues/99/stopwatch/start`, as(owner))).status).toBe(404);
});

test('tracked times: add, list with the user filter’s rights, since/before and paging, reset, delete', async () => {
  const added = await server.api('POST', `/repos/${REPO}/issues/2/times`, { ...as(poster), body: { time: 3720 } });
  expect(added.status).toBe(200);
  expect(added.body).toMatchObject({
    id: expect.any(Number),
    time: 3720,
    user_name: 'tt-poster',
    issue_id: expect.any(Number),
    issue: { number: 2 },
  });
  // A stranger may not.
  expect((await server.api('POST', `/repos/${REPO}/issues/2/times`, { ...as(stranger), body: { time: 60 } })).status).toBe(403);
  expect((await server.api('POST', `/repos/${REPO}/issues/2/times`, { ...as(poster), body: { time: 0 } })).status).toBe(422);
  expect((await server.api('POST', `/repos/${REPO}/issues/2/times`, { ...as(poster), body: { time: 'x' } })).status).toBe(422);
  // The repository admin books time for somebody else, in the past.
  const forPoster = await server.api('POST', `/repos/${REPO}/issues/2/times`, {
    ...as(owner),
    body: { time: 90000, user_name: 'tt-poster', created: '2020-01-02T03:04:05Z' },
  });
  expect(forPoster.body).toMatchObject({ user_name: 'tt-poster', created: '2020-01-02T03:04:05Z' });
  // The poster booking "for the owner" books for themself (only admins may name another user).
  const own = await server.api('POST', `/repos/${REPO}/issues/2/times`, { ...as(poster), body: { time: 30, user_name: 'tt-owner' } });
  expect(own.body).toMatchObject({ user_name: 'tt-poster' });
  expect((await timelineTypes(2)).map((c) => c.body)).toEqual(['1 hour 2 minutes', '1 day 1 hour', '30 seconds']);

  // Lists: a non-writer sees their own times and may not name somebody else.
  const mine = await server.api('GET', `/repos/${REPO}/times`, as(poster));
  expect((mine.body as any[]).every((t) => t.user_name === 'tt-poster')).toBe(true);
  expect((await server.api('GET', `/repos/${REPO}/times?user=tt-owner`, as(poster))).status).toBe(403);
  const all = await server.api('GET', `/repos/${REPO}/times`, as(owner));
  expect((all.body as any[]).length).toBe(5);
  expect(all.headers.get('x-total-count')).toBe('5');
  expect(((await server.api('GET', `/repos/${REPO}/times?user=tt-poster`, as(owner))).body as any[]).length).toBe(3);
  expect(
    ((await server.api('GET', `/repos/${REPO}/times?before=2021-01-01T00:00:00Z`, as(owner))).body as any[]).map((t) => t.time),
  ).toEqual([90000]);
  expect(((await server.api('GET', `/repos/${REPO}/times?since=2021-01-01T00:00:00Z`, as(owner))).body as any[]).length).toBe(4);
  expect((await server.api('GET', `/repos/${REPO}/times?since=yesterday`, as(owner))).status).toBe(422);
  const page = await server.api('GET', `/repos/${REPO}/times?limit=2&page=2`, as(owner));
  expect((page.body as any[]).length).toBe(2);
  expect(((await server.api('GET', `/repos/${REPO}/times/tt-poster`, as(owner))).body as any[]).length).toBe(3);
  expect((await server.api('GET', `/repos/${REPO}/times/tt-owner`, as(poster))).status).toBe(403);
  expect(((await server.api('GET', '/user/times', as(poster))).body as any[]).map((t) => t.time)).toEqual([3720, 90000, 30]);

  // Delete one: only its user or a site admin; then the poster resets the rest of theirs.
  const id = (added.body as { id: number }).id;
  expect((await server.api('DELETE', `/repos/${REPO}/issues/2/times/${id}`, as(owner))).status).toBe(403);
  expect((await server.api('DELETE', `/repos/${REPO}/issues/2/times/${id}`, as(poster))).status).toBe(204);
  expect((await server.api('DELETE', `/repos/${REPO}/issues/2/times/${id}`, as(poster))).status).toBe(404);
  expect((await server.api('DELETE', `/repos/${REPO}/issues/1/times/${id}`, as(owner))).status).toBe(404);
  expect((await server.api('DELETE', `/repos/${REPO}/issues/2/times`, as(poster))).status).toBe(204);
  expect((await server.api('DELETE', `/repos/${REPO}/issues/2/times`, as(poster))).status).toBe(404);
  expect((await server.api('GET', '/user/times', as(poster))).body).toEqual([]);
  expect((await timelineTypes(2)).slice(3).map((c) => c.body)).toEqual(['- 1 hour 2 minutes', '- 1 day 1 hour']);
});

test('scopes and credentials', async () => {
  expect((await server.api('GET', '/user/times')).status).toBe(401);
  expect((await server.api('GET', `/repos/${REPO}/times`)).status).toBe(401);
  const reader = await server.token(owner, ['read:issue', 'read:user']);
  expect((await server.api('GET', `/repos/${REPO}/times`, { token: reader })).status).toBe(200);
  expect((await server.api('GET', '/user/stopwatches', { token: reader })).status).toBe(200);
  expect((await server.api('POST', `/repos/${REPO}/issues/1/times`, { token: reader, body: { time: 5 } })).status).toBe(403);
});

test('with time tracking disabled: the issue list 404, other time operations 400, the stopwatch 403', async () => {
  const config = server.kernel.config.repository;
  config.ENABLE_TIME_TRACKING = false;
  try {
    expect((await server.api('GET', `/repos/${REPO}/issues/1/times`, as(owner))).status).toBe(404);
    expect((await server.api('GET', `/repos/${REPO}/times`, as(owner))).status).toBe(400);
    expect((await server.api('GET', `/repos/${REPO}/times/tt-owner`, as(owner))).status).toBe(400);
    const add = await server.api('POST', `/repos/${REPO}/issues/1/times`, { ...as(owner), body: { time: 5 } });
    expect(add.status).toBe(400);
    expect(add.body).toMatchObject({ message: 'time tracking disabled' });
    expect((await server.api('POST', `/repos/${REPO}/issues/1/stopwatch/start`, as(owner))).status).toBe(403);
    const repo = await server.api('GET', `/repos/${REPO}`, { basic: [ADMIN.name, ADMIN.password] });
    expect(repo.body).toMatchObject({ internal_tracker: { enable_time_tracker: false } });
  } finally {
    config.ENABLE_TIME_TRACKING = true;
  }
});
