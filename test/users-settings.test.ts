import { startServer, type TestServer } from './helpers/server';

/**
 * Gitea 1.20's `GET /user/settings` (getUserSettings) and `PATCH /user/settings`
 * (updateUserSettings): the caller's own settings, read with `read:user`, changed with
 * `write:user`, checked like Gitea (a website is an http(s) URL or empty, lengths, no unknown
 * fields). `hide_email` is what decides whether other users see the address. Runs on every database.
 */
let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('settings-api-alice');
  bob = await server.user('settings-api-bob');
});
afterAll(async () => server?.close());

const basic = (user: { name: string; password: string }): [string, string] => [user.name, user.password];

test('a new user has empty settings with the email shown', async () => {
  const res = await server.api('GET', '/user/settings', { basic: basic(bob) });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    full_name: '',
    website: '',
    description: '',
    location: '',
    language: '',
    theme: '',
    diff_view_style: '',
    hide_email: false,
    hide_activity: false,
  });
});

test('PATCH changes what it names, keeps the rest, answers the settings and touches updated_unix; GET reads them back', async () => {
  await server.kernel.db('users').where('id', alice.id).update({ updated_unix: 1000 });
  const token = await server.token(alice, ['write:user']);
  const changes = {
    full_name: 'Alice Liddell',
    website: 'https://alice.example.com/blog',
    description: 'Down the rabbit hole',
    location: 'Wonderland',
    language: 'en-US',
    theme: 'gitea-dark',
    diff_view_style: 'unified',
    hide_email: true,
    hide_activity: true,
  };
  const patched = await server.api('PATCH', '/user/settings', { token, body: changes });
  expect(patched.status).toBe(200);
  expect(patched.body).toEqual(changes);
  const row = await server.kernel.db('users').where('id', alice.id).first();
  expect(Number(row.updated_unix)).toBeGreaterThan(1000);

  // Only what is named changes; an empty website is allowed.
  const partial = await server.api('PATCH', '/user/settings', { token, body: { location: '', website: '', hide_activity: false } });
  expect(partial.status).toBe(200);
  expect(partial.body).toEqual({ ...changes, location: '', website: '', hide_activity: false });
  const read = await server.api('GET', '/user/settings', { token });
  expect(read.status).toBe(200);
  expect(read.body).toEqual(partial.body);

  // The same token sees the change in its own profile at once (no stale cached row).
  const me = await server.api('GET', '/user', { token });
  expect(me.body).toMatchObject({ full_name: 'Alice Liddell', description: 'Down the rabbit hole', location: '', language: 'en-US' });
});

test('scopes: read:user reads but cannot change; write:user changes; other categories do neither', async () => {
  const reader = await server.token(bob, ['read:user']);
  expect((await server.api('GET', '/user/settings', { token: reader })).status).toBe(200);
  const refused = await server.api('PATCH', '/user/settings', { token: reader, body: { full_name: 'Sneaky' } });
  expect(refused.status).toBe(403);
  expect(refused.body.message).toContain('write:user');

  const other = await server.token(bob, ['write:repository']);
  expect((await server.api('GET', '/user/settings', { token: other })).status).toBe(403);
  expect((await server.api('PATCH', '/user/settings', { token: other, body: { full_name: 'Sneaky' } })).status).toBe(403);
  expect((await server.api('GET', '/user/settings', { basic: basic(bob) })).body.full_name).toBe('');
});

test('anonymous callers get 401', async () => {
  expect((await server.api('GET', '/user/settings')).status).toBe(401);
  expect((await server.api('PATCH', '/user/settings', { body: { full_name: 'Nobody' } })).status).toBe(401);
});

test.each([
  ['a website without a scheme', { website: 'example.com' }, 'website'],
  ['a website of another scheme', { website: 'javascript:alert(1)' }, 'website'],
  ['a website without a host', { website: 'https://' }, 'website'],
  ['a website with spaces', { website: 'https://example.com/a b' }, 'website'],
  ['a full name over 100 characters', { full_name: 'x'.repeat(101) }, 'full_name'],
  ['a location over 50 characters', { location: 'x'.repeat(51) }, 'location'],
  ['a description over 255 characters', { description: 'x'.repeat(256) }, 'description'],
  ['an unknown field', { email: 'other@example.com' }, 'email'],
  ['a flag that is not a boolean', { hide_email: 'yes' }, 'hide_email'],
])('%s is refused with 422 and nothing changes', async (_what, body, field) => {
  const before = (await server.api('GET', '/user/settings', { basic: basic(bob) })).body;
  const res = await server.api('PATCH', '/user/settings', { basic: basic(bob), body: { full_name: 'Changed', ...body } });
  expect(res.status).toBe(422);
  expect(res.body.message).toContain(field);
  expect((await server.api('GET', '/user/settings', { basic: basic(bob) })).body).toEqual(before);
});

test('hide_email decides whether another user sees the address in GET /users/{name}', async () => {
  const carol = await server.user('settings-api-carol');
  const viewer = await server.token(bob, ['read:user']);
  const profile = async () => (await server.api('GET', `/users/${carol.name}`, { token: viewer })).body;
  expect((await profile()).email).toBe(`${carol.name}@example.com`);

  expect((await server.api('PATCH', '/user/settings', { basic: basic(carol), body: { hide_email: true } })).status).toBe(200);
  expect((await profile()).email).toBe(`${carol.name}@noreply.localhost`);
  // The user themself still sees it.
  expect((await server.api('GET', `/users/${carol.name}`, { basic: basic(carol) })).body.email).toBe(`${carol.name}@example.com`);

  expect((await server.api('PATCH', '/user/settings', { basic: basic(carol), body: { hide_email: false } })).status).toBe(200);
  expect((await profile()).email).toBe(`${carol.name}@example.com`);
});

test('the operations are in the served OpenAPI document with their schemas', async () => {
  const doc = (await server.api('GET', '//swagger.v1.json')).body;
  expect(doc.paths['/user/settings'].get.operationId).toBe('getUserSettings');
  expect(doc.paths['/user/settings'].patch.operationId).toBe('updateUserSettings');
  expect(Object.keys(doc.definitions.UserSettingsOptions.properties).sort()).toEqual(
    ['description', 'diff_view_style', 'full_name', 'hide_activity', 'hide_email', 'language', 'location', 'theme', 'website'].sort(),
  );
  expect(doc.definitions.UserSettings.properties.hide_email.type).toBe('boolean');
});
