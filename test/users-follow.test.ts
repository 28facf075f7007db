import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * Gitea 1.20's follower operations: following and unfollowing (idempotent, oneself silently
 * nothing as Gitea's FollowUser), the 204/404 checks, both lists paged with X-Total-Count among
 * the profiles the caller may see, `followers_count` / `following_count` in the User JSON, the
 * token scopes, and the rows going with a deleted user. Runs on every database.
 */
let server: TestServer;
type U = { name: string; password: string; id: number };
let alice: U;
let bob: U;
let carol: U;
let hidden: U;

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('follow-alice');
  bob = await server.user('follow-bob');
  carol = await server.user('follow-carol');
  hidden = await server.user('follow-hidden');
  await server.api('PATCH', `/admin/users/${hidden.name}`, {
    basic: [ADMIN.name, ADMIN.password],
    body: { login_name: hidden.name, source_id: 0, visibility: 'private' },
  });
});
afterAll(async () => server?.close());

const basic = (user: { name: string; password: string }) => ({ basic: [user.name, user.password] as [string, string] });
const logins = (body: unknown) => (body as Array<{ login: string }>).map((u) => u.login);

test('follow, check, list with counts, unfollow', async () => {
  expect((await server.api('PUT', `/user/following/${bob.name}`, basic(alice))).status).toBe(204);
  expect((await server.api('PUT', `/user/following/${bob.name}`, basic(alice))).status).toBe(204); // idempotent
  expect((await server.api('PUT', `/user/following/${bob.name}`, basic(carol))).status).toBe(204);
  expect((await server.api('PUT', `/user/following/${carol.name}`, basic(alice))).status).toBe(204);

  expect((await server.api('GET', `/user/following/${bob.name}`, basic(alice))).status).toBe(204);
  const notFollowing = await server.api('GET', `/user/following/${alice.name}`, basic(bob));
  expect(notFollowing.status).toBe(404);
  expect(notFollowing.body).toMatchObject({ message: expect.any(String), url: expect.any(String) });
  expect((await server.api('GET', `/users/${carol.name}/following/${bob.name}`)).status).toBe(204);
  expect((await server.api('GET', `/users/${bob.name}/following/${carol.name}`)).status).toBe(404);
  expect((await server.api('GET', `/users/${bob.name}/following/nobody-here`)).status).toBe(404);

  const followers = await server.api('GET', `/users/${bob.name}/followers`);
  expect(followers.status).toBe(200);
  expect(logins(followers.body)).toEqual([alice.name, carol.name]);
  expect(followers.headers.get('x-total-count')).toBe('2');
  const page = await server.api('GET', `/users/${bob.name}/followers?limit=1&page=2`);
  expect(logins(page.body)).toEqual([carol.name]);
  expect(logins((await server.api('GET', '/user/following', basic(alice))).body)).toEqual([bob.name, carol.name]);
  expect(logins((await server.api('GET', '/user/followers', basic(bob))).body)).toEqual([alice.name, carol.name]);
  expect(logins((await server.api('GET', `/users/${alice.name}/following`)).body)).toEqual([bob.name, carol.name]);

  expect((await server.api('GET', `/users/${bob.name}`)).body).toMatchObject({ followers_count: 2, following_count: 0 });
  expect((await server.api('GET', '/user', basic(alice))).body).toMatchObject({ followers_count: 0, following_count: 2 });

  expect((await server.api('DELETE', `/user/following/${bob.name}`, basic(alice))).status).toBe(204);
  expect((await server.api('DELETE', `/user/following/${bob.name}`, basic(alice))).status).toBe(204); // idempotent
  expect((await server.api('GET', `/user/following/${bob.name}`, basic(alice))).status).toBe(404);
  expect((await server.api('GET', `/users/${bob.name}`)).body).toMatchObject({ followers_count: 1 });
});

test('following oneself is silently nothing, as in Gitea', async () => {
  expect((await server.api('PUT', `/user/following/${carol.name}`, basic(carol))).status).toBe(204);
  expect((await server.api('GET', `/user/following/${carol.name}`, basic(carol))).status).toBe(404);
  expect((await server.api('GET', '/user', basic(carol))).body).toMatchObject({ following_count: 1 });
});

test('a private user is 404 to those who may not see them, and left out of lists', async () => {
  expect((await server.api('PUT', `/user/following/${hidden.name}`, basic(alice))).status).toBe(404);
  expect((await server.api('GET', `/users/${hidden.name}/followers`)).status).toBe(404);
  expect((await server.api('PUT', `/user/following/${bob.name}`, basic(hidden))).status).toBe(204);
  const seen = await server.api('GET', `/users/${bob.name}/followers`);
  expect(logins(seen.body)).toEqual([carol.name]);
  expect(seen.headers.get('x-total-count')).toBe('1');
  const asAdmin = await server.api('GET', `/users/${bob.name}/followers`, { basic: [ADMIN.name, ADMIN.password] });
  expect(logins(asAdmin.body)).toEqual([carol.name, hidden.name]);
  expect((await server.api('GET', `/users/${bob.name}/following/${hidden.name}`)).status).toBe(404);
});

test('scopes: reading needs read:user, following write:user; no credential is 401', async () => {
  const reader = await server.token(alice, ['read:user']);
  expect((await server.api('GET', '/user/following', { token: reader })).status).toBe(200);
  expect((await server.api('PUT', `/user/following/${bob.name}`, { token: reader })).status).toBe(403);
  const writer = await server.token(alice, ['write:user']);
  expect((await server.api('PUT', `/user/following/${bob.name}`, { token: writer })).status).toBe(204);
  expect((await server.api('GET', '/user/followers')).status).toBe(401);
  expect((await server.api('PUT', `/user/following/${bob.name}`)).status).toBe(401);
});

test('a deleted user takes their follow rows and the others’ counts with them', async () => {
  const dave = await server.user('follow-dave');
  expect((await server.api('PUT', `/user/following/${dave.name}`, basic(carol))).status).toBe(204);
  expect((await server.api('PUT', `/user/following/${carol.name}`, basic(dave))).status).toBe(204);
  expect((await server.api('GET', `/users/${carol.name}`)).body).toMatchObject({ followers_count: 2, following_count: 2 });
  expect((await server.api('DELETE', `/admin/users/${dave.name}`, { basic: [ADMIN.name, ADMIN.password] })).status).toBe(204);
  const rows = await server.kernel.db('follow').where('user_id', dave.id).orWhere('follow_id', dave.id);
  expect(rows).toEqual([]);
  expect((await server.api('GET', `/users/${carol.name}`)).body).toMatchObject({ followers_count: 1, following_count: 1 });
});
