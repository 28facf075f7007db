import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';

const PROBE = path.join(__dirname, 'fixtures/plugins/probe');
const CATEGORIES = ['activitypub', 'admin', 'misc', 'notification', 'organization', 'package', 'issue', 'repository', 'user'];
const LEVELS = ['read', 'write', 'delete'] as const;
const METHODS = [
  { method: 'GET', needs: 'read', ok: 200 },
  { method: 'POST', needs: 'write', ok: 201 },
  { method: 'DELETE', needs: 'delete', ok: 200 },
] as const;

let server: TestServer;
let alice: { name: string; password: string; id: number };
let admin: { name: string; password: string };

beforeAll(async () => {
  server = await startServer({ plugins: { probe: { package: PROBE } } });
  alice = await server.user('alice');
  admin = { name: ADMIN.name, password: ADMIN.password };
});
afterAll(() => server.close());

describe('scope matrix: category × level × method', () => {
  // One token per level:category for a site admin (so the admin category is grantable), used on every category's routes.
  const tokens = new Map<string, string>();
  beforeAll(async () => {
    for (const category of CATEGORIES) {
      for (const level of LEVELS) tokens.set(`${level}:${category}`, await server.token(admin, [`${level}:${category}`]));
    }
  });

  for (const granted of CATEGORIES) {
    test(`tokens scoped to ${granted}`, async () => {
      const rank = (l: string) => LEVELS.indexOf(l as (typeof LEVELS)[number]);
      for (const level of LEVELS) {
        const token = tokens.get(`${level}:${granted}`)!;
        for (const route of CATEGORIES) {
          for (const { method, needs, ok } of METHODS) {
            const res = await server.api(method, `/probe/scoped/${route}`, { token });
            const allowed = route === granted && rank(level) >= rank(needs);
            expect({ level, granted, route, method, status: res.status }).toEqual({
              level,
              granted,
              route,
              method,
              status: allowed ? ok : 403,
            });
            if (!allowed) expect(res.body.message).toContain(`${needs}:${route}`);
          }
        }
      }
    });
  }

  test('"all" passes every category and method; basic auth (no scoped token) too', async () => {
    const all = await server.token(admin, ['all']);
    for (const route of CATEGORIES) {
      for (const { method, ok } of METHODS) {
        expect((await server.api(method, `/probe/scoped/${route}`, { token: all })).status).toBe(ok);
        expect((await server.api(method, `/probe/scoped/${route}`, { basic: [admin.name, admin.password] })).status).toBe(ok);
      }
    }
  });

  test('without any credential the per-route check answers 401 with WWW-Authenticate', async () => {
    for (const route of CATEGORIES) {
      const res = await server.api('GET', `/probe/scoped/${route}`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(res.body).toEqual({ message: expect.any(String), url: expect.stringContaining('/api/swagger') });
    }
  });

  test('a route needing two categories needs both', async () => {
    const userOnly = await server.token(admin, ['read:user']);
    const both = await server.token(admin, ['read:user', 'read:organization']);
    expect((await server.api('GET', '/probe/scoped-two', { token: userOnly })).status).toBe(403);
    expect((await server.api('GET', '/probe/scoped-two', { token: both })).status).toBe(200);
  });

  test('public routes answer any token whatever its scope', async () => {
    const narrow = await server.token(alice, ['read:issue']);
    expect((await server.api('GET', '/version', { token: narrow })).status).toBe(200);
    expect((await server.api('GET', '/settings/api', { token: narrow })).status).toBe(200);
  });
});

describe('kernel routes enforce their section category', () => {
  test('GET /user needs read:user; a token without the user category gets 403', async () => {
    const repoOnly = await server.token(alice, ['write:repository']);
    const res = await server.api('GET', '/user', { token: repoOnly });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('token does not have at least one of required scope(s): [read:user]');
    const userRead = await server.token(alice, ['read:user']);
    const me = await server.api('GET', '/user', { token: userRead });
    expect(me.status).toBe(200);
    expect(me.body.login).toBe('alice');
  });

  test('adding an email needs write:user, deleting one needs delete:user', async () => {
    const read = await server.token(alice, ['read:user']);
    const write = await server.token(alice, ['write:user']);
    const del = await server.token(alice, ['delete:user']);
    expect((await server.api('POST', '/user/emails', { token: read, body: { emails: ['a2@example.com'] } })).status).toBe(403);
    expect((await server.api('POST', '/user/emails', { token: write, body: { emails: ['a2@example.com'] } })).status).toBe(201);
    expect((await server.api('DELETE', '/user/emails', { token: write, body: { emails: ['a2@example.com'] } })).status).toBe(403);
    expect((await server.api('DELETE', '/user/emails', { token: del, body: { emails: ['a2@example.com'] } })).status).toBe(204);
  });

  test('admin routes need a site admin as well as the admin category', async () => {
    const adminRead = await server.token(admin, ['read:admin']);
    const adminUserOnly = await server.token(admin, ['read:user']);
    expect((await server.api('GET', '/admin/users', { token: adminRead })).status).toBe(200);
    expect((await server.api('GET', '/admin/users', { token: adminUserOnly })).status).toBe(403);
    const aliceAll = await server.token(alice, ['all']);
    const res = await server.api('GET', '/admin/users', { token: aliceAll });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/site administrator/);
  });
});

describe('token transports and credentials', () => {
  test.each(['token', 'bearer', 'query', 'access_token'] as const)('a token sent as %s authenticates', async (via) => {
    const token = await server.token(alice, ['read:user']);
    const res = await server.api('GET', '/user', { token, tokenVia: via });
    expect(res.status).toBe(200);
    expect(res.body.login).toBe('alice');
  });

  test('a bare token in Authorization (as cargo sends it) authenticates', async () => {
    const token = await server.token(alice, ['read:user']);
    const res = await server.api('GET', '/user', { headers: { Authorization: token } });
    expect(res.body.login).toBe('alice');
    expect((await server.api('GET', '/user', { headers: { Authorization: 'f'.repeat(40) } })).status).toBe(401);
  });

  test('a token works as the basic-auth password (as git sends it) and keeps its scopes', async () => {
    const token = await server.token(alice, ['read:misc']);
    expect((await server.api('GET', '/user', { basic: ['alice', token] })).status).toBe(403);
    const userToken = await server.token(alice, ['read:user']);
    expect((await server.api('GET', '/user', { basic: ['alice', userToken] })).status).toBe(200);
    expect((await server.api('GET', '/user', { basic: [userToken, 'x-oauth-basic'] })).status).toBe(200);
  });

  test('bad credentials are 401, never anonymous', async () => {
    expect((await server.api('GET', '/version', { token: 'f'.repeat(40) })).status).toBe(401);
    expect((await server.api('GET', '/user', { basic: ['alice', 'wrong-password'] })).status).toBe(401);
    expect((await server.api('GET', '/user', { basic: ['nobody', 'whatever-pw'] })).status).toBe(401);
    const res = await server.api('GET', '/user', { headers: { Authorization: 'Basic !!!' } });
    expect(res.status).toBe(401);
  });

  test('session cookies and reverse-proxy headers are not credentials on /api/v1', async () => {
    const res = await server.api('GET', '/user', {
      headers: { Cookie: 'i_like_gitea=abc; _csrf=x', 'X-WEBAUTH-USER': 'alice', 'X-Forwarded-User': 'alice' },
    });
    expect(res.status).toBe(401);
  });

  test('a plugin auth scheme taps auth.authenticate and its scopes are enforced', async () => {
    const who = await server.api('GET', '/probe/whoami', { headers: { 'X-Probe-User': 'alice' } });
    expect(who.body).toEqual({ name: 'alice', method: 'probe', publicOnly: false });
    expect((await server.api('GET', '/user', { headers: { 'X-Probe-User': 'alice' } })).status).toBe(200);
    expect(
      (await server.api('POST', '/user/emails', { headers: { 'X-Probe-User': 'alice' }, body: { emails: ['p@example.com'] } })).status,
    ).toBe(403);
  });

  test('sudo lets a site admin act as another user, and nobody else', async () => {
    const adminToken = await server.token(admin, ['read:user']);
    const asAlice = await server.api('GET', '/user', { token: adminToken, headers: { Sudo: 'alice' } });
    expect(asAlice.status).toBe(200);
    expect(asAlice.body.login).toBe('alice');
    const aliceToken = await server.token(alice, ['read:user']);
    expect((await server.api('GET', '/user', { token: aliceToken, headers: { Sudo: ADMIN.name } })).status).toBe(403);
    expect((await server.api('GET', '/user', { token: adminToken, headers: { Sudo: 'ghost-user' } })).status).toBe(404);
  });

  test('prohibited and inactive accounts cannot authenticate', async () => {
    const bob = await server.user('bob');
    const token = await server.token(bob, ['read:user']);
    const adminAll = await server.token(admin, ['all']);
    expect((await server.api('PATCH', '/admin/users/bob', { token: adminAll, body: { prohibit_login: true } })).status).toBe(200);
    expect((await server.api('GET', '/user', { token })).status).toBe(403);
    expect((await server.api('GET', '/user', { basic: [bob.name, bob.password] })).status).toBe(403);
  });
});

describe('resolved tokens are cached, never stale', () => {
  test('a change to the user takes effect on the very next request of a token already in use', async () => {
    const dora = await server.user('dora');
    const token = await server.token(dora, ['read:user']);
    const adminAll = await server.token(admin, ['all']);
    expect((await server.api('GET', '/user', { token })).body.login).toBe('dora'); // now cached
    await server.api('POST', '/admin/users/dora/rename', { token: adminAll, body: { new_username: 'dorothea' } });
    expect((await server.api('GET', '/user', { token })).body.login).toBe('dorothea');
    await server.api('PATCH', '/admin/users/dorothea', { token: adminAll, body: { full_name: 'Dorothea D' } });
    expect((await server.api('GET', '/user', { token })).body.full_name).toBe('Dorothea D');
    await server.api('PATCH', '/admin/users/dorothea', { token: adminAll, body: { prohibit_login: true } });
    expect((await server.api('GET', '/user', { token })).status).toBe(403);
    await server.api('DELETE', '/admin/users/dorothea?purge=true', { token: adminAll });
    expect((await server.api('GET', '/user', { token })).status).toBe(401);
  });
});

describe('public-only tokens', () => {
  test('see public users only', async () => {
    await server.user('hidden-hank', { visibility: 'private' });
    await server.user('limited-lou', { visibility: 'limited' });
    const publicOnly = await server.token(alice, ['public-only', 'read:user']);
    const full = await server.token(alice, ['read:user']);
    expect((await server.api('GET', '/users/limited-lou', { token: publicOnly })).status).toBe(404);
    expect((await server.api('GET', '/users/limited-lou', { token: full })).status).toBe(200);
    expect((await server.api('GET', '/users/hidden-hank', { token: full })).status).toBe(404);
    const adminPublicOnly = await server.token(admin, ['public-only', 'read:user']);
    expect((await server.api('GET', '/users/hidden-hank', { token: adminPublicOnly })).status).toBe(404);
    const adminFull = await server.token(admin, ['read:user']);
    expect((await server.api('GET', '/users/hidden-hank', { token: adminFull })).status).toBe(200);
    const who = await server.api('GET', '/probe/whoami', { token: publicOnly });
    expect(who.body.publicOnly).toBe(true);
  });
});

describe('token management', () => {
  test('create returns the secret once, the normalized scopes, and stores only a hash', async () => {
    const res = await server.api('POST', '/users/alice/tokens', {
      basic: [alice.name, alice.password],
      body: { name: 'ci', scopes: ['read:repository', 'write:repository', 'read:user,read:user', 'public-only'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'ci',
      sha1: expect.stringMatching(/^[0-9a-f]{40}$/),
      token_last_eight: res.body.sha1.slice(-8),
      scopes: ['public-only', 'write:repository', 'read:user'],
    });
    const list = await server.api('GET', '/users/alice/tokens', { basic: [alice.name, alice.password] });
    const listed = list.body.find((t: { name: string }) => t.name === 'ci');
    expect(listed).toEqual({
      id: res.body.id,
      name: 'ci',
      sha1: '',
      token_last_eight: res.body.token_last_eight,
      scopes: ['public-only', 'write:repository', 'read:user'],
    });
    const rows = await server.kernel.db('access_tokens').where('name', 'ci').select('*');
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(res.body.sha1);
    expect(rows[0].scope).toBe('public-only,write:repository,read:user');
  });

  test('every category at delete level is stored as "all"', async () => {
    const res = await server.api('POST', '/users/forge-admin/tokens', {
      basic: [admin.name, admin.password],
      body: { name: 'everything', scopes: CATEGORIES.map((c) => `delete:${c}`) },
    });
    expect(res.body.scopes).toEqual(['all']);
  });

  test('no scope, an unknown scope, or an admin scope for a non-admin is a clear 400', async () => {
    const basic: [string, string] = [alice.name, alice.password];
    const none = await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'none' } });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/must have a scope/);
    const empty = await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'empty', scopes: [] } });
    expect(empty.status).toBe(400);
    const bad = await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'bad', scopes: ['repos'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('"repos"');
    const adminScope = await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'adm', scopes: ['read:admin'] } });
    expect(adminScope.status).toBe(400);
    expect(adminScope.body.message).toMatch(/site administrators/);
  });

  test('a duplicate name is a 400; names are per user', async () => {
    const basic: [string, string] = [alice.name, alice.password];
    expect((await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'dup', scopes: ['all'] } })).status).toBe(201);
    const again = await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'dup', scopes: ['all'] } });
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/has been used/);
    expect(
      (
        await server.api('POST', '/users/forge-admin/tokens', {
          basic: [admin.name, admin.password],
          body: { name: 'dup', scopes: ['all'] },
        })
      ).status,
    ).toBe(201);
  });

  test('managing tokens needs basic auth: a token cannot mint tokens', async () => {
    const all = await server.token(alice, ['all']);
    const res = await server.api('POST', '/users/alice/tokens', { token: all, body: { name: 'minted', scopes: ['all'] } });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/basic authentication/);
    expect((await server.api('GET', '/users/alice/tokens', { token: all })).status).toBe(401);
  });

  test("only the user or a site admin manages a user's tokens", async () => {
    await server.user('carol');
    expect((await server.api('GET', '/users/carol/tokens', { basic: [alice.name, alice.password] })).status).toBe(403);
    const byAdmin = await server.api('POST', '/users/carol/tokens', {
      basic: [admin.name, admin.password],
      body: { name: 'given', scopes: ['read:user'] },
    });
    expect(byAdmin.status).toBe(201);
    const asCarol = await server.api('GET', '/user', { token: byAdmin.body.sha1 });
    expect(asCarol.body.login).toBe('carol');
    expect((await server.api('GET', '/users/nobody-here/tokens', { basic: [admin.name, admin.password] })).status).toBe(404);
  });

  test('delete by id or by name; a deleted token stops working', async () => {
    const basic: [string, string] = [alice.name, alice.password];
    const one = await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'del-by-id', scopes: ['read:user'] } });
    const two = await server.api('POST', '/users/alice/tokens', { basic, body: { name: 'del-by-name', scopes: ['read:user'] } });
    expect((await server.api('DELETE', `/users/alice/tokens/${one.body.id}`, { basic })).status).toBe(204);
    expect((await server.api('DELETE', '/users/alice/tokens/del-by-name', { basic })).status).toBe(204);
    expect((await server.api('GET', '/user', { token: one.body.sha1 })).status).toBe(401);
    expect((await server.api('GET', '/user', { token: two.body.sha1 })).status).toBe(401);
    expect((await server.api('DELETE', '/users/alice/tokens/del-by-name', { basic })).status).toBe(404);
    expect((await server.api('DELETE', '/users/alice/tokens/99999', { basic })).status).toBe(404);
  });

  test('token lists are paged with X-Total-Count', async () => {
    const basic: [string, string] = [admin.name, admin.password];
    const all = await server.api('GET', '/users/forge-admin/tokens?limit=50', { basic });
    const page = await server.api('GET', '/users/forge-admin/tokens?limit=2&page=2', { basic });
    expect(page.body).toHaveLength(2);
    expect(Number(page.headers.get('x-total-count'))).toBe(all.body.length);
    expect(page.body.map((t: { id: number }) => t.id)).toEqual(all.body.slice(2, 4).map((t: { id: number }) => t.id));
  });
});

describe('password storage', () => {
  test('passwords are stored as scrypt hashes, never in clear', async () => {
    const row = await server.kernel.db('users').where('lower_name', 'alice').first('passwd');
    expect(row.passwd).toMatch(/^scrypt\$\d+\$8\$1\$/);
    expect(row.passwd).not.toContain(alice.password);
  });
});
