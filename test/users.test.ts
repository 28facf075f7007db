import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';

const PROBE = path.join(__dirname, 'fixtures/plugins/probe');

let server: TestServer;
let adminToken: string;

beforeAll(async () => {
  server = await startServer({ plugins: { probe: { package: PROBE, settings: { protectedUsers: ['keeper'] } } } });
  adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
});
afterAll(() => server.close());

const events = async (hook: string) =>
  (await server.api('GET', '/probe/events')).body
    .filter((e: { hook: string }) => e.hook === hook)
    .map((e: { detail: string }) => JSON.parse(e.detail));

describe('POST /admin/users (adminCreateUser)', () => {
  test('creates a user with Gitea defaults and fires user.created', async () => {
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: {
        username: 'Dana',
        email: 'Dana@Example.com',
        password: 'dana-password',
        full_name: 'Dana D',
        login_name: 'dana-ldap',
        source_id: 3,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      login: 'Dana',
      full_name: 'Dana D',
      email: 'Dana@Example.com',
      is_admin: false,
      login_name: 'dana-ldap',
      visibility: 'public',
      active: true,
    });
    const row = await server.kernel.db('users').where('lower_name', 'dana').first();
    expect(Boolean(row.must_change_password)).toBe(true); // Gitea's default for admin-created users
    expect(await events('user.created')).toContainEqual({ name: 'Dana', actor: ADMIN.name });
    // The new user can sign in with the password.
    expect((await server.api('GET', '/user', { basic: ['dana', 'dana-password'] })).body.login).toBe('Dana');
  });

  test('created_at sets the creation time', async () => {
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: {
        username: 'old-timer',
        email: 'old@example.com',
        password: 'old-password',
        created_at: '2015-03-04T05:06:07Z',
        must_change_password: false,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.created).toBe('2015-03-04T05:06:07Z');
  });

  test.each([
    ['hearth-actions', 'reserved'],
    ['gitea-actions', 'reserved'],
    ['admin', 'reserved'],
    ['api', 'reserved'],
    ['someone.keys', 'pattern'],
    ['pic.png', 'pattern'],
    ['-dash', 'invalid'],
    ['double..dot', 'invalid'],
    ['trailing_', 'invalid'],
    ['spa ce', 'invalid'],
    ['x'.repeat(41), 'at most'],
  ])('refuses the name %j with 422', async (username, reason) => {
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username, email: `${Math.random()}@example.com`, password: 'long-enough-pw' },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(reason === 'at most' ? /40/ : new RegExp(reason));
  });

  test('duplicate names (any case) and emails are 422, not 500', async () => {
    await server.user('erin');
    const sameName = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 'ERIN', email: 'other@example.com', password: 'long-enough-pw' },
    });
    expect(sameName.status).toBe(422);
    expect(sameName.body.message).toMatch(/already exists/);
    const sameEmail = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 'erin2', email: 'ERIN@example.com', password: 'long-enough-pw' },
    });
    expect(sameEmail.status).toBe(422);
    expect(sameEmail.body.message).toMatch(/already in use/);
  });

  test('concurrent creation of one name: exactly one wins, the others get 422', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        server.api('POST', '/admin/users', {
          token: adminToken,
          body: { username: 'racer', email: `racer${i}@example.com`, password: 'long-enough-pw' },
        }),
      ),
    );
    expect(attempts.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422]);
  });

  test('schema violations name the field; a short password is a 400', async () => {
    const missing = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 'nomail', password: 'long-enough-pw' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain('body.email: is required');
    const badType = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 42, email: 'n@example.com', password: 'long-enough-pw' },
    });
    expect(badType.status).toBe(422);
    expect(badType.body.message).toContain('body.username = 42: must be string');
    const badDate = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 'when', email: 'w@example.com', password: 'long-enough-pw', created_at: 'yesterday' },
    });
    expect(badDate.status).toBe(422);
    expect(badDate.body.message).toContain('body.created_at');
    const short = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 'shorty', email: 's@example.com', password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/too short/);
  });

  test('non-admins cannot create users', async () => {
    const frank = await server.user('frank');
    const token = await server.token(frank, ['all']);
    expect(
      (await server.api('POST', '/admin/users', { token, body: { username: 'x1', email: 'x1@example.com', password: 'long-enough-pw' } }))
        .status,
    ).toBe(403);
  });
});

describe('PATCH /admin/users/{username}', () => {
  test('edits only the fields sent; email change moves the primary address', async () => {
    await server.user('gina');
    const res = await server.api('PATCH', '/admin/users/gina', {
      token: adminToken,
      body: { full_name: 'Gina G', location: 'Lyon', email: 'gina-new@example.com', max_repo_creation: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ full_name: 'Gina G', location: 'Lyon', email: 'gina-new@example.com', website: '' });
    const gina = await server.kernel.users.byName('gina');
    const emails = await server.kernel.users.emails(gina!.id);
    expect(emails.map((e) => [e.email, e.is_primary])).toEqual([
      ['gina@example.com', false],
      ['gina-new@example.com', true],
    ]);
    expect(gina!.max_repo_creation).toBe(5);
  });

  test('a new password works and the old one stops working', async () => {
    const hal = await server.user('hal');
    expect((await server.api('PATCH', '/admin/users/hal', { token: adminToken, body: { password: 'brand-new-password' } })).status).toBe(
      200,
    );
    expect((await server.api('GET', '/user', { basic: ['hal', hal.password] })).status).toBe(401);
    expect((await server.api('GET', '/user', { basic: ['hal', 'brand-new-password'] })).status).toBe(200);
  });

  test('the last site admin cannot be demoted; unknown users are 404; bad visibility is 422', async () => {
    const demote = await server.api('PATCH', `/admin/users/${ADMIN.name}`, { token: adminToken, body: { admin: false } });
    expect(demote.status).toBe(422);
    expect((await server.api('PATCH', '/admin/users/no-such-user', { token: adminToken, body: {} })).status).toBe(404);
    const vis = await server.api('PATCH', '/admin/users/hal', { token: adminToken, body: { visibility: 'secret' } });
    expect(vis.status).toBe(422);
    expect(vis.body.message).toContain('must be one of: "public", "limited", "private"');
  });

  test('email already used by someone else is 422', async () => {
    await server.user('ivan');
    const res = await server.api('PATCH', '/admin/users/ivan', { token: adminToken, body: { email: 'hal@example.com' } });
    expect(res.status).toBe(422);
  });
});

describe('POST /admin/users/{username}/rename', () => {
  test('a capitalization-only rename touches only the user record and fires no rename hook', async () => {
    await server.user('jo');
    const before = await server.kernel.db('users').where('lower_name', 'jo').first();
    const res = await server.api('POST', '/admin/users/jo/rename', { token: adminToken, body: { new_username: 'Jo' } });
    expect(res.status).toBe(204);
    const after = await server.kernel.db('users').where('lower_name', 'jo').first();
    expect(after.name).toBe('Jo');
    expect(after.id).toBe(before.id);
    expect((await events('user.renamed')).filter((e: { newName: string }) => e.newName === 'Jo')).toEqual([]);
    expect((await server.api('GET', '/users/JO', { token: adminToken })).body.login).toBe('Jo');
  });

  test('a real rename fires user.renamed; the old name is free afterwards', async () => {
    await server.user('kim');
    expect((await server.api('POST', '/admin/users/kim/rename', { token: adminToken, body: { new_username: 'kimberly' } })).status).toBe(
      204,
    );
    expect(await events('user.renamed')).toContainEqual({ oldName: 'kim', newName: 'kimberly' });
    expect((await server.api('GET', '/users/kim', { token: adminToken })).status).toBe(404);
    expect((await server.api('GET', '/users/kimberly', { token: adminToken })).status).toBe(200);
    expect((await server.api('GET', '/user', { basic: ['kimberly', 'kim-password-1'] })).status).toBe(200);
  });

  test('renaming onto a taken or reserved name is 422', async () => {
    await server.user('lee');
    await server.user('lou');
    expect((await server.api('POST', '/admin/users/lee/rename', { token: adminToken, body: { new_username: 'LOU' } })).status).toBe(422);
    expect(
      (await server.api('POST', '/admin/users/lee/rename', { token: adminToken, body: { new_username: 'hearth-actions' } })).status,
    ).toBe(422);
    expect((await server.api('POST', '/admin/users/lee/rename', { token: adminToken, body: {} })).status).toBe(422);
    expect((await server.api('POST', '/admin/users/ghost-xyz/rename', { token: adminToken, body: { new_username: 'abc' } })).status).toBe(
      404,
    );
  });
});

describe('DELETE /admin/users/{username}', () => {
  test('deletes the user, their tokens and emails; hooks see it', async () => {
    const mo = await server.user('mo');
    const token = await server.token(mo, ['read:user']);
    expect((await server.api('DELETE', '/admin/users/mo', { token: adminToken })).status).toBe(204);
    expect((await server.api('GET', '/user', { token })).status).toBe(401);
    expect(await server.kernel.db('user_emails').where('uid', mo.id)).toEqual([]);
    expect(await server.kernel.db('access_tokens').where('uid', mo.id)).toEqual([]);
    expect(await events('user.deleting')).toContainEqual({ name: 'mo', purge: false });
    expect(await events('user.deleted')).toContainEqual({ name: 'mo' });
  });

  test('a plugin can refuse deletion without purge; purge=true goes through', async () => {
    await server.user('keeper');
    const refused = await server.api('DELETE', '/admin/users/keeper', { token: adminToken });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/purge=true/);
    expect(await server.kernel.users.byName('keeper')).toBeDefined();
    const bad = await server.api('DELETE', '/admin/users/keeper?purge=maybe', { token: adminToken });
    expect(bad.status).toBe(422);
    expect((await server.api('DELETE', '/admin/users/keeper?purge=true', { token: adminToken })).status).toBe(204);
    expect(await server.kernel.users.byName('keeper')).toBeUndefined();
  });

  test('an admin cannot delete themself; unknown users are 404', async () => {
    expect((await server.api('DELETE', `/admin/users/${ADMIN.name}`, { token: adminToken })).status).toBe(422);
    expect((await server.api('DELETE', '/admin/users/nobody-at-all', { token: adminToken })).status).toBe(404);
  });
});

describe('GET /admin/users filters', () => {
  test('by login_name and source_id, paged with X-Total-Count', async () => {
    for (const [name, source] of [
      ['ldap-a', 7],
      ['ldap-b', 7],
      ['ldap-c', 8],
    ] as const) {
      await server.api('POST', '/admin/users', {
        token: adminToken,
        body: { username: name, email: `${name}@example.com`, password: 'long-enough-pw', source_id: source, login_name: `uid=${name}` },
      });
    }
    const bySource = await server.api('GET', '/admin/users?source_id=7', { token: adminToken });
    expect(bySource.body.map((u: { login: string }) => u.login)).toEqual(['ldap-a', 'ldap-b']);
    expect(bySource.headers.get('x-total-count')).toBe('2');
    const byLogin = await server.api('GET', '/admin/users?login_name=uid%3Dldap-c', { token: adminToken });
    expect(byLogin.body.map((u: { login: string }) => u.login)).toEqual(['ldap-c']);
    const both = await server.api('GET', '/admin/users?source_id=8&login_name=uid%3Dldap-a', { token: adminToken });
    expect(both.body).toEqual([]);
    expect((await server.api('GET', '/admin/users?source_id=abc', { token: adminToken })).status).toBe(422);
  });
});

describe('emails', () => {
  test('list, add (201), refuse duplicates (422) and delete (204, primary refused)', async () => {
    const nia = await server.user('nia');
    const basic: [string, string] = [nia.name, nia.password];
    const added = await server.api('POST', '/user/emails', {
      basic,
      body: { emails: ['nia.work@example.com', 'NIA.work@example.com', 'nia.home@example.com'] },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual(
      [
        { email: 'nia.work@example.com', verified: true, primary: false, user_id: nia.id, username: 'nia' },
        { email: 'nia.home@example.com', verified: true, primary: false, user_id: nia.id, username: 'nia' },
      ].map((e, i) => (i === 0 ? { ...e, email: 'NIA.work@example.com' } : e)),
    );
    const list = await server.api('GET', '/user/emails', { basic });
    expect(list.body.map((e: { email: string; primary: boolean }) => [e.email.toLowerCase(), e.primary])).toEqual([
      ['nia@example.com', true],
      ['nia.work@example.com', false],
      ['nia.home@example.com', false],
    ]);
    const taken = await server.api('POST', '/user/emails', { basic, body: { emails: [`${ADMIN.email}`] } });
    expect(taken.status).toBe(422);
    const invalid = await server.api('POST', '/user/emails', { basic, body: { emails: ['not-an-email'] } });
    expect(invalid.status).toBe(422);
    expect((await server.api('DELETE', '/user/emails', { basic, body: { emails: ['nia@example.com'] } })).status).toBe(400);
    expect((await server.api('DELETE', '/user/emails', { basic, body: { emails: ['nobody@example.com'] } })).status).toBe(404);
    expect((await server.api('DELETE', '/user/emails', { basic, body: { emails: ['nia.home@example.com'] } })).status).toBe(204);
    expect((await server.api('POST', '/user/emails', { basic, body: {} })).status).toBe(422);
  });

  test('admin lists and searches all emails', async () => {
    const all = await server.api('GET', '/admin/emails?limit=50', { token: adminToken });
    expect(all.status).toBe(200);
    expect(all.body).toContainEqual({ email: ADMIN.email, verified: true, primary: true, user_id: 1, username: ADMIN.name });
    const search = await server.api('GET', '/admin/emails/search?q=NIA.W', { token: adminToken });
    expect(search.body.map((e: { email: string }) => e.email)).toEqual(['NIA.work@example.com']);
    const literal = await server.api('GET', '/admin/emails/search?q=%25', { token: adminToken });
    expect(literal.body).toEqual([]);
  });
});

describe('GET /users/{username} and /users/search', () => {
  beforeAll(async () => {
    await server.user('pub-pat');
    await server.user('lim-lin', { visibility: 'limited' });
    await server.user('priv-pia', { visibility: 'private' });
  });

  test('anonymous callers see public users, with a placeholder email', async () => {
    const res = await server.api('GET', '/users/pub-pat');
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('pub-pat@noreply.localhost');
    expect(res.body.is_admin).toBe(false);
    expect(res.body.login_name).toBe('');
    expect((await server.api('GET', '/users/lim-lin')).status).toBe(404);
    expect((await server.api('GET', '/users/priv-pia')).status).toBe(404);
  });

  test('signed-in users see limited ones and real emails; private ones only themselves and admins', async () => {
    const pat = await server.user('pat-viewer');
    const token = await server.token(pat, ['read:user']);
    const lim = await server.api('GET', '/users/lim-lin', { token });
    expect(lim.status).toBe(200);
    expect(lim.body.email).toBe('lim-lin@example.com');
    expect((await server.api('GET', '/users/priv-pia', { token })).status).toBe(404);
    expect((await server.api('GET', '/users/priv-pia', { token: adminToken })).status).toBe(200);
    const self = await server.api('GET', '/users/priv-pia', { basic: ['priv-pia', 'priv-pia-password-1'] });
    expect(self.status).toBe(200);
    expect(self.body.active).toBe(true);
  });

  test('search filters by keyword and uid, honours visibility, and pages', async () => {
    const anon = await server.api('GET', '/users/search?q=-p');
    expect(anon.body.ok).toBe(true);
    expect(anon.body.data.map((u: { login: string }) => u.login)).toEqual(['pub-pat']);
    const admin = await server.api('GET', '/users/search?q=-p', { token: adminToken });
    expect(admin.body.data.map((u: { login: string }) => u.login).sort()).toEqual(['priv-pia', 'pub-pat']);
    const byId = await server.api('GET', '/users/search?uid=1', { token: adminToken });
    expect(byId.body.data.map((u: { login: string }) => u.login)).toEqual([ADMIN.name]);
    const page = await server.api('GET', '/users/search?limit=2&page=1', { token: adminToken });
    const total = Number(page.headers.get('x-total-count'));
    expect(total).toBeGreaterThan(2);
    expect(page.body.data).toHaveLength(2);
    expect(page.headers.get('link')).toContain('rel="next"');
    expect((await server.api('GET', '/users/search?q=_', { token: adminToken })).body.data.map((u: { login: string }) => u.login)).toEqual(
      [],
    );
  });
});
