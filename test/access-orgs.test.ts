import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * Who may see organizations, their repositories, members and teams, and users' profiles (Gitea
 * 1.20's HasOrgOrUserVisible and IsUserVisibleToViewer): invisible targets answer 404, visible
 * ones without the role asked 403.
 *
 * - hidden (private org): boss owns it, insider is in its team "crew";
 * - lim (limited org): owned by boss;
 * - open (public org): repositories pub and priv; team "devs" (dev) covers priv, team "readers"
 *   (reader, pia) covers nothing; pia is a private user;
 * - ritas-org: owned by rita, a restricted user.
 */

let server: TestServer;
const tokens: Record<string, string> = {};
const teams: Record<string, number> = {};

const call = (method: string, path: string, who: string | null, body?: unknown) =>
  server.api(method, path, { token: who ? tokens[who] : undefined, body });
const must = async (method: string, path: string, who: string, body?: unknown) => {
  const res = await call(method, path, who, body);
  if (res.status >= 300) throw new Error(`${method} ${path} as ${who}: ${res.status} ${res.text}`);
  return res.body;
};
const status = async (method: string, path: string, who: string | null) => (await call(method, path, who)).status;
const names = (items: Array<{ name?: string; login?: string }>) => items.map((i) => i.name ?? i.login).sort();

beforeAll(async () => {
  server = await startServer();
  tokens.admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
  for (const name of ['boss', 'insider', 'dev', 'reader', 'stranger', 'rita'])
    tokens[name] = await server.token(await server.user(name), ['all']);
  tokens.pia = await server.token(await server.user('pia', { visibility: 'private' }), ['all']);
  await must('PATCH', '/admin/users/rita', 'admin', { restricted: true });

  await must('POST', '/orgs', 'boss', { username: 'hidden', visibility: 'private' });
  await must('POST', '/orgs', 'boss', { username: 'lim', visibility: 'limited' });
  await must('POST', '/orgs', 'boss', { username: 'open' });
  await must('POST', '/admin/users/rita/orgs', 'admin', { username: 'ritas-org' });
  await must('POST', '/orgs/hidden/repos', 'boss', { name: 'inside' });
  for (const [name, isPrivate] of [
    ['pub', false],
    ['priv', true],
  ] as const)
    await must('POST', '/orgs/open/repos', 'boss', { name, private: isPrivate });

  const team = async (org: string, name: string, members: string[], repos: string[]) => {
    teams[name] = (await must('POST', `/orgs/${org}/teams`, 'boss', { name, permission: 'read' })).id;
    for (const m of members) await must('PUT', `/teams/${teams[name]}/members/${m}`, 'boss');
    for (const r of repos) await must('PUT', `/teams/${teams[name]}/repos/${org}/${r}`, 'boss');
  };
  await team('hidden', 'crew', ['insider'], ['inside']);
  await team('open', 'devs', ['dev'], ['priv']);
  await team('open', 'readers', ['reader', 'pia'], []);
});
afterAll(() => server.close());

describe('a private organization', () => {
  const paths = ['/orgs/hidden', '/orgs/hidden/repos', '/orgs/hidden/members', '/orgs/hidden/teams'];

  test('is a 404 to strangers and anonymous callers, on every route', async () => {
    for (const path of paths) {
      expect({ path, status: await status('GET', path, 'stranger') }).toEqual({ path, status: 404 });
      expect({ path, status: await status('GET', path, null) }).toEqual({ path, status: anonymousStatus(path) });
    }
    expect((await call('GET', '/orgs', 'stranger')).body.map((o: { name: string }) => o.name)).not.toContain('hidden');
  });

  test('is visible to its members', async () => {
    for (const path of paths) expect({ path, status: await status('GET', path, 'insider') }).toEqual({ path, status: 200 });
    expect(names((await call('GET', '/orgs/hidden/repos', 'insider')).body)).toEqual(['inside']);
    expect(names((await call('GET', '/orgs/hidden/members', 'insider')).body)).toEqual(['boss', 'insider']);
    expect(names((await call('GET', '/orgs', 'insider')).body)).toContain('hidden');
  });
});

/** Listing teams needs a credential: anonymous callers are told so (401) before the organization is looked up. */
const anonymousStatus = (path: string) => (path.endsWith('/teams') ? 401 : 404);

describe('a limited organization', () => {
  test('is a 404 to anonymous callers and visible to anyone signed in', async () => {
    expect(await status('GET', '/orgs/lim', null)).toBe(404);
    expect(await status('GET', '/orgs/lim/repos', null)).toBe(404);
    expect(await status('GET', '/orgs/lim', 'stranger')).toBe(200);
    expect(await status('GET', '/orgs/lim/repos', 'stranger')).toBe(200);
  });
});

describe("a public organization's repositories", () => {
  test('hide its private repositories from members of no team covering them', async () => {
    expect(names((await call('GET', '/orgs/open/repos', null)).body)).toEqual(['pub']);
    expect(names((await call('GET', '/orgs/open/repos', 'stranger')).body)).toEqual(['pub']);
    expect(names((await call('GET', '/orgs/open/repos', 'reader')).body)).toEqual(['pub']);
    expect(names((await call('GET', '/orgs/open/repos', 'dev')).body)).toEqual(['priv', 'pub']);
    expect(names((await call('GET', '/orgs/open/repos', 'boss')).body)).toEqual(['priv', 'pub']);
    const page = await call('GET', '/orgs/open/repos', 'reader');
    expect(page.headers.get('x-total-count')).toBe('1');
  });
});

describe('a restricted user', () => {
  test('sees only the organizations they belong to', async () => {
    expect(await status('GET', '/orgs/open', 'rita')).toBe(404);
    expect(await status('GET', '/orgs/lim', 'rita')).toBe(404);
    expect(await status('GET', '/orgs/ritas-org', 'rita')).toBe(200);
    expect(names((await call('GET', '/orgs', 'rita')).body)).toEqual(['ritas-org']);
    expect(names((await call('GET', '/user/orgs', 'rita')).body)).toEqual(['ritas-org']);
  });

  test('sees only public users', async () => {
    expect(await status('GET', '/users/boss', 'rita')).toBe(200);
    expect(await status('GET', '/users/pia', 'rita')).toBe(404);
    expect(names((await call('GET', '/users/search?q=pia', 'rita')).body.data)).toEqual([]);
  });
});

describe('teams', () => {
  test("another organization's team is a 404; a team of one's own organization one is not in is a 403", async () => {
    expect(await status('GET', `/teams/${teams.crew}`, 'dev')).toBe(404);
    expect(await status('GET', `/teams/${teams.crew}/members`, 'dev')).toBe(404);
    expect(await status('GET', `/teams/${teams.devs}`, 'reader')).toBe(403);
    expect(await status('GET', `/teams/${teams.devs}/repos`, 'reader')).toBe(403);
    expect(await status('GET', `/teams/${teams.devs}`, 'dev')).toBe(200);
    expect(await status('GET', `/teams/${teams.devs}`, 'boss')).toBe(200);
  });

  test('only owners change a team', async () => {
    expect(await status('PUT', `/teams/${teams.devs}/members/stranger`, 'dev')).toBe(403);
    expect(await status('PUT', `/teams/${teams.crew}/members/stranger`, 'dev')).toBe(404);
  });
});

describe("a private user's profile", () => {
  test('is a 404 to strangers and visible to users sharing an organization and to site admins', async () => {
    expect(await status('GET', '/users/pia', null)).toBe(404);
    expect(await status('GET', '/users/pia', 'stranger')).toBe(404);
    expect(await status('GET', '/users/pia', 'dev')).toBe(200);
    expect(await status('GET', '/users/pia', 'admin')).toBe(200);
    expect(await status('GET', '/users/pia', 'pia')).toBe(200);
    expect(await status('GET', '/users/pia/orgs', 'stranger')).toBe(404);
    expect(await status('GET', '/users/pia/orgs', 'dev')).toBe(200);
  });

  test('is listed by user search for the same callers only', async () => {
    const found = async (who: string | null) => names((await call('GET', '/users/search?q=pia', who)).body.data);
    expect(await found(null)).toEqual([]);
    expect(await found('stranger')).toEqual([]);
    expect(await found('dev')).toEqual(['pia']);
    expect(await found('admin')).toEqual(['pia']);
  });
});
