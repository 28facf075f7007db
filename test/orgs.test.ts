import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
// The module's exported clean-up helpers, from the built kernel (as the kernel will call them).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const orgStore = require('@hearth/core/dist/orgs/org-store') as typeof import('../core/kernel/src/orgs/org-store');

type U = { name: string; password: string; id: number };

let server: TestServer;
let sandbox: ReturnType<typeof gitSandbox>;
let adminToken: string;
let owner: U; // creator of the organizations: the Owners team
let reader: U;
let writer: U;
let adminCollab: U;
let readTeam: U;
let stranger: U;
const tokens: Record<string, string> = {};
const ALL_SCOPES = ['delete:repository', 'delete:organization', 'write:user', 'delete:issue'];

beforeAll(async () => {
  server = await startServer();
  sandbox = gitSandbox();
  adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, [...ALL_SCOPES, 'write:admin']);
  tokens.admin = adminToken;
  owner = await server.user('owner');
  reader = await server.user('reader');
  writer = await server.user('writer');
  adminCollab = await server.user('admincollab');
  readTeam = await server.user('readteam');
  stranger = await server.user('stranger');
  for (const u of [owner, reader, writer, adminCollab, readTeam, stranger]) tokens[u.name] = await server.token(u, ALL_SCOPES);
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

const as = (who: string | null) => (who ? tokens[who] : undefined);
const call = (method: string, p: string, who: string | null, body?: unknown) => server.api(method, p, { token: as(who), body });

describe('organizations', () => {
  test('POST /orgs creates an organization with an Owners team holding the creator', async () => {
    const res = await call('POST', '/orgs', 'owner', {
      username: 'acme',
      full_name: 'Acme Inc',
      description: 'we make things',
      website: 'https://acme.example',
      location: 'Earth',
      visibility: 'public',
      repo_admin_change_team_access: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'acme',
      full_name: 'Acme Inc',
      avatar_url: expect.stringContaining('avatars/'),
      description: 'we make things',
      website: 'https://acme.example',
      location: 'Earth',
      visibility: 'public',
      repo_admin_change_team_access: true,
      username: 'acme',
    });
    const teams = await call('GET', '/orgs/acme/teams', 'owner');
    expect(teams.status).toBe(200);
    expect(teams.body).toHaveLength(1);
    expect(teams.body[0]).toMatchObject({
      name: 'Owners',
      permission: 'owner',
      includes_all_repositories: true,
      can_create_org_repo: true,
      organization: { name: 'acme' },
    });
    const members = await call('GET', `/teams/${teams.body[0].id}/members`, 'owner');
    expect(members.body.map((m: { login: string }) => m.login)).toEqual(['owner']);
    expect((await call('GET', '/orgs/acme/members/owner', 'owner')).status).toBe(204);
  });

  test('names are checked like user names and share their namespace', async () => {
    expect((await call('POST', '/orgs', 'owner', { username: 'owner' })).status).toBe(422);
    expect((await call('POST', '/orgs', 'owner', { username: 'ACME' })).status).toBe(422);
    expect((await call('POST', '/orgs', 'owner', { username: 'bad name' })).status).toBe(422);
    expect((await call('POST', '/orgs', 'owner', {})).status).toBe(422);
    expect((await call('POST', '/orgs', null, { username: 'anon-org' })).status).toBe(401);
  });

  test('limited and private organizations; a non-member asking for a private org gets 404', async () => {
    expect((await call('POST', '/orgs', 'owner', { username: 'lim', visibility: 'limited' })).status).toBe(201);
    expect((await call('POST', '/orgs', 'owner', { username: 'secret', visibility: 'private' })).status).toBe(201);
    expect((await call('GET', '/orgs/lim', null)).status).toBe(404);
    expect((await call('GET', '/orgs/lim', 'stranger')).status).toBe(200);
    expect((await call('GET', '/orgs/secret', 'stranger')).status).toBe(404);
    expect((await call('GET', '/orgs/secret', 'owner')).status).toBe(200);
    expect((await call('GET', '/orgs/secret', 'admin')).status).toBe(200);
    const names = async (who: string | null) => (await call('GET', '/orgs', who)).body.map((o: { name: string }) => o.name).sort();
    expect(await names(null)).toEqual(['acme']);
    expect(await names('stranger')).toEqual(['acme', 'lim']);
    expect(await names('admin')).toEqual(['acme', 'lim', 'secret']);
    const adminList = await call('GET', '/admin/orgs', 'admin');
    expect(adminList.status).toBe(200);
    expect(adminList.headers.get('x-total-count')).toBe('3');
    expect((await call('GET', '/admin/orgs', 'owner')).status).toBe(403);
  });

  test('PATCH edits (owners only); site admins create orgs for users', async () => {
    expect((await call('PATCH', '/orgs/acme', 'stranger', { description: 'x' })).status).toBe(403);
    const res = await call('PATCH', '/orgs/acme', 'owner', { description: 'we make more things', repo_admin_change_team_access: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ description: 'we make more things', repo_admin_change_team_access: false, full_name: 'Acme Inc' });
    const made = await call('POST', '/admin/users/stranger/orgs', 'admin', { username: 'strangers-org' });
    expect(made.status).toBe(201);
    expect((await call('GET', '/orgs/strangers-org/members/stranger', 'stranger')).status).toBe(204);
    expect((await call('POST', '/admin/users/stranger/orgs', 'owner', { username: 'nope-org' })).status).toBe(403);
  });

  test('DELETE is refused while the org owns repositories, and works once it does not', async () => {
    expect((await call('POST', '/orgs/strangers-org/repos', 'admin', { name: 'thing' })).status).toBe(201);
    const refused = await call('DELETE', '/orgs/strangers-org', 'stranger');
    expect(refused.status).toBe(422);
    expect((await call('DELETE', '/repos/strangers-org/thing', 'stranger')).status).toBe(204);
    expect((await call('DELETE', '/orgs/strangers-org', 'owner')).status).toBe(403);
    expect((await call('DELETE', '/orgs/strangers-org', 'stranger')).status).toBe(204);
    expect((await call('GET', '/orgs/strangers-org', 'admin')).status).toBe(404);
  });
});

describe('the permission matrix', () => {
  let readersAcme: number;

  beforeAll(async () => {
    for (const [org, name, priv] of [
      ['acme', 'pub', false],
      ['acme', 'priv', true],
      ['lim', 'pub', false],
    ] as const) {
      const res = await call('POST', `/orgs/${org}/repos`, 'admin', { name, private: priv, auto_init: true });
      expect(res.status).toBe(201);
      for (const [who, permission] of [
        ['reader', 'read'],
        ['writer', 'write'],
        ['admincollab', 'admin'],
      ]) {
        expect((await call('PUT', `/repos/${org}/${name}/collaborators/${who}`, 'owner', { permission })).status).toBe(204);
      }
    }
    const team = await call('POST', '/orgs/acme/teams', 'owner', { name: 'readers', permission: 'read', description: 'read only' });
    expect(team.status).toBe(201);
    readersAcme = team.body.id;
    expect((await call('PUT', `/teams/${readersAcme}/members/readteam`, 'owner')).status).toBe(204);
    for (const repo of ['pub', 'priv']) expect((await call('PUT', `/teams/${readersAcme}/repos/acme/${repo}`, 'owner')).status).toBe(204);
    const limTeam = await call('POST', '/orgs/lim/teams', 'owner', {
      name: 'readers',
      permission: 'read',
      includes_all_repositories: true,
    });
    expect((await call('PUT', `/teams/${limTeam.body.id}/members/readteam`, 'owner')).status).toBe(204);
  });

  const who = [null, 'reader', 'writer', 'admincollab', 'owner', 'readteam', 'admin', 'stranger'] as const;
  // [GET repo, GET contents, push succeeds, PATCH repo]
  const expected: Record<string, Record<string, [number, number, boolean, number]>> = {
    'acme/pub': {
      anon: [200, 200, false, 401],
      reader: [200, 200, false, 403],
      writer: [200, 200, true, 403],
      admincollab: [200, 200, true, 200],
      owner: [200, 200, true, 200],
      readteam: [200, 200, false, 403],
      admin: [200, 200, true, 200],
      stranger: [200, 200, false, 403],
    },
    'acme/priv': {
      anon: [404, 404, false, 401],
      reader: [200, 200, false, 403],
      writer: [200, 200, true, 403],
      admincollab: [200, 200, true, 200],
      owner: [200, 200, true, 200],
      readteam: [200, 200, false, 403],
      admin: [200, 200, true, 200],
      stranger: [404, 404, false, 404],
    },
    'lim/pub': {
      anon: [404, 404, false, 401],
      reader: [200, 200, false, 403],
      writer: [200, 200, true, 403],
      admincollab: [200, 200, true, 200],
      owner: [200, 200, true, 200],
      readteam: [200, 200, false, 403],
      admin: [200, 200, true, 200],
      stranger: [200, 200, false, 403],
    },
  };

  for (const repo of Object.keys(expected)) {
    test(`API: ${repo}`, async () => {
      const got: Record<string, number[]> = {};
      const want: Record<string, number[]> = {};
      for (const w of who) {
        const key = w ?? 'anon';
        const e = expected[repo][key];
        want[key] = [e[0], e[1], e[3]];
        got[key] = [
          (await call('GET', `/repos/${repo}`, w)).status,
          (await call('GET', `/repos/${repo}/contents`, w)).status,
          (await call('PATCH', `/repos/${repo}`, w, { description: `edited by ${key}` })).status,
        ];
      }
      expect(got).toEqual(want);
    });

    test(`issues: ${repo}`, async () => {
      // Reading issues follows reading the repository; writing them (a label) needs write access.
      const got: Record<string, number[]> = {};
      const want: Record<string, number[]> = {};
      for (const w of who) {
        const key = w ?? 'anon';
        const [read, , push] = expected[repo][key];
        const write = read !== 200 ? (w ? 404 : 401) : push ? 201 : w ? 403 : 401;
        want[key] = [read, write];
        got[key] = [
          (await call('GET', `/repos/${repo}/issues`, w)).status,
          (await call('POST', `/repos/${repo}/labels`, w, { name: `by-${key}`, color: '#00aabb' })).status,
        ];
      }
      expect(got).toEqual(want);
    });

    test(`git push: ${repo}`, async () => {
      const dir = path.join(sandbox.dir, repo.replace('/', '-'));
      expect((await sandbox.git(['clone', cloneUrl(server.url, `${repo}.git`, ADMIN.name, adminToken), dir])).status).toBe(0);
      const got: Record<string, boolean> = {};
      const want: Record<string, boolean> = {};
      for (const w of who) {
        const key = w ?? 'anon';
        want[key] = expected[repo][key][2];
        fs.writeFileSync(path.join(dir, `${key}.txt`), key);
        await sandbox.git(['add', '.'], dir);
        await sandbox.git(['commit', '-q', '-m', `by ${key}`], dir);
        const url = w
          ? cloneUrl(server.url, `${repo}.git`, w === 'admin' ? ADMIN.name : w, tokens[w])
          : cloneUrl(server.url, `${repo}.git`);
        got[key] = (await sandbox.git(['push', url, `HEAD:refs/heads/by-${key}`], dir)).status === 0;
      }
      expect(got).toEqual(want);
      // and reading by git follows the same rule
      const anonFetch = await sandbox.git(['ls-remote', cloneUrl(server.url, `${repo}.git`)]);
      expect(anonFetch.status === 0).toBe(expected[repo].anon[0] === 200);
      const readFetch = await sandbox.git(['ls-remote', cloneUrl(server.url, `${repo}.git`, 'readteam', tokens.readteam)]);
      expect(readFetch.status).toBe(0);
    });
  }

  test('permissions in the Repository JSON and the collaborator permission endpoint', async () => {
    expect((await call('GET', '/repos/acme/priv', 'readteam')).body.permissions).toEqual({ admin: false, push: false, pull: true });
    expect((await call('GET', '/repos/acme/priv', 'writer')).body.permissions).toEqual({ admin: false, push: true, pull: true });
    expect((await call('GET', '/repos/acme/priv', 'owner')).body.permissions).toEqual({ admin: true, push: true, pull: true });
    const perm = async (caller: string, user: string) => call('GET', `/repos/acme/priv/collaborators/${user}/permission`, caller);
    expect((await perm('owner', 'writer')).body).toMatchObject({ permission: 'write', role_name: 'write', user: { login: 'writer' } });
    expect((await perm('owner', 'owner')).body.permission).toBe('owner');
    expect((await perm('owner', 'readteam')).body.permission).toBe('read');
    expect((await perm('owner', 'stranger')).body.permission).toBe('none');
    expect((await perm('reader', 'reader')).body.permission).toBe('read');
    expect((await perm('reader', 'writer')).status).toBe(403);
    expect((await perm('admincollab', 'writer')).status).toBe(200);
  });

  test('collaborator listing and management needs repo admin', async () => {
    const listed = await call('GET', '/repos/acme/priv/collaborators', 'reader');
    expect(listed.status).toBe(200);
    expect(listed.body.map((u: { login: string }) => u.login).sort()).toEqual(['admincollab', 'reader', 'writer']);
    expect(listed.headers.get('x-total-count')).toBe('3');
    expect((await call('GET', '/repos/acme/priv/collaborators/reader', 'reader')).status).toBe(204);
    expect((await call('GET', '/repos/acme/priv/collaborators/stranger', 'reader')).status).toBe(404);
    expect((await call('GET', '/repos/acme/priv/collaborators/nobody-at-all', 'reader')).status).toBe(422);
    expect((await call('PUT', '/repos/acme/priv/collaborators/stranger', 'writer', { permission: 'read' })).status).toBe(403);
    expect((await call('PUT', '/repos/acme/priv/collaborators/stranger', 'admincollab', { permission: 'owner' })).status).toBe(422);
    expect((await call('PUT', '/repos/acme/priv/collaborators/stranger', 'admincollab', { permission: 'read' })).status).toBe(204);
    expect((await call('GET', '/repos/acme/priv', 'stranger')).status).toBe(200);
    expect((await call('DELETE', '/repos/acme/priv/collaborators/stranger', 'admincollab')).status).toBe(204);
    expect((await call('GET', '/repos/acme/priv', 'stranger')).status).toBe(404);
  });

  test('a private org hides even public repositories from non-members; a public-only token sees public orgs only', async () => {
    expect((await call('POST', '/orgs/secret/repos', 'admin', { name: 'open' })).status).toBe(201);
    expect((await call('GET', '/repos/secret/open', null)).status).toBe(404);
    expect((await call('GET', '/repos/secret/open', 'stranger')).status).toBe(404);
    expect((await call('GET', '/repos/secret/open', 'owner')).status).toBe(200);
    const publicOnly = await server.token(owner, ['public-only', 'read:repository']);
    expect((await server.api('GET', '/repos/secret/open', { token: publicOnly })).status).toBe(404);
    expect((await server.api('GET', '/repos/lim/pub', { token: publicOnly })).status).toBe(404);
    expect((await server.api('GET', '/repos/acme/pub', { token: publicOnly })).status).toBe(200);
    expect((await server.api('GET', '/repos/acme/priv', { token: publicOnly })).status).toBe(404);
  });

  test('GET /repos/{owner}/{repo}/teams lists the teams with access', async () => {
    const res = await call('GET', '/repos/acme/priv/teams', 'reader');
    expect(res.status).toBe(200);
    expect(res.body.map((t: { name: string }) => t.name)).toEqual(['Owners', 'readers']);
    expect((await call('GET', '/repos/owner/none/teams', 'owner')).status).toBe(404);
  });
});

describe('teams', () => {
  test('the team lookup matches the spec: organization populated', async () => {
    const teams = await call('GET', '/orgs/acme/teams', 'owner');
    const readers = teams.body.find((t: { name: string }) => t.name === 'readers');
    const res = await call('GET', `/teams/${readers.id}`, 'readteam');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: readers.id,
      name: 'readers',
      description: 'read only',
      includes_all_repositories: false,
      permission: 'read',
      can_create_org_repo: false,
      units: expect.arrayContaining(['repo.code', 'repo.issues', 'repo.pulls']),
      units_map: expect.objectContaining({ 'repo.code': 'read' }),
      organization: {
        id: expect.any(Number),
        name: 'acme',
        full_name: 'Acme Inc',
        avatar_url: expect.any(String),
        description: 'we make more things',
        website: 'https://acme.example',
        location: 'Earth',
        visibility: 'public',
        repo_admin_change_team_access: false,
        username: 'acme',
      },
    });
    // other members of the org may not look at a team they are not in; outsiders get 404
    expect((await call('GET', `/teams/${readers.id}`, 'stranger')).status).toBe(404);
    expect((await call('GET', '/teams/999999', 'owner')).status).toBe(404);
    const mine = await call('GET', '/user/teams', 'readteam');
    expect(mine.body.map((t: { name: string; organization: { name: string } }) => `${t.organization.name}/${t.name}`).sort()).toEqual([
      'acme/readers',
      'lim/readers',
    ]);
  });

  test('search, edit and delete teams', async () => {
    const search = await call('GET', '/orgs/acme/teams/search?q=READ', 'readteam');
    expect(search.status).toBe(200);
    expect(search.body.ok).toBe(true);
    expect(search.body.data.map((t: { name: string }) => t.name)).toEqual(['readers']);
    expect((await call('GET', '/orgs/acme/teams/search?q=read', 'stranger')).status).toBe(403);
    const made = await call('POST', '/orgs/acme/teams', 'owner', {
      name: 'devs',
      permission: 'write',
      units_map: { 'repo.code': 'write', 'repo.issues': 'read' },
    });
    expect(made.status).toBe(201);
    // as in Gitea 1.20, below admin a units_map sets the overall permission to its lowest unit
    expect(made.body).toMatchObject({
      permission: 'read',
      units_map: { 'repo.code': 'write', 'repo.issues': 'read', 'repo.wiki': 'none' },
    });
    expect(made.body.units.sort()).toEqual(['repo.code', 'repo.issues']);
    expect((await call('POST', '/orgs/acme/teams', 'owner', { name: 'DEVS' })).status).toBe(422);
    expect((await call('POST', '/orgs/acme/teams', 'readteam', { name: 'mine' })).status).toBe(403);
    const edited = await call('PATCH', `/teams/${made.body.id}`, 'owner', {
      name: 'developers',
      description: 'they code',
      permission: 'admin',
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: 'developers',
      description: 'they code',
      permission: 'admin',
      units_map: { 'repo.wiki': 'admin' },
    });
    expect((await call('PATCH', `/teams/${made.body.id}`, 'owner', { name: 'readers' })).status).toBe(422);
    expect((await call('PUT', `/teams/${made.body.id}/members/stranger`, 'owner')).status).toBe(204);
    expect((await call('GET', '/orgs/acme/members/stranger', 'owner')).status).toBe(204);
    expect((await call('DELETE', `/teams/${made.body.id}`, 'owner')).status).toBe(204);
    expect((await call('GET', `/teams/${made.body.id}`, 'owner')).status).toBe(404);
    // deleting their only team ends their membership
    expect((await call('GET', '/orgs/acme/members/stranger', 'owner')).status).toBe(404);
  });

  test('the Owners team cannot be deleted, renamed, or left without members', async () => {
    const owners = (await call('GET', '/orgs/acme/teams', 'owner')).body.find((t: { name: string }) => t.name === 'Owners');
    expect((await call('DELETE', `/teams/${owners.id}`, 'owner')).status).toBe(422);
    expect((await call('PATCH', `/teams/${owners.id}`, 'owner', { name: 'Bosses' })).status).toBe(422);
    expect((await call('PATCH', `/teams/${owners.id}`, 'owner', { permission: 'read' })).status).toBe(422);
    expect((await call('PATCH', `/teams/${owners.id}`, 'owner', { description: 'the bosses' })).body).toMatchObject({
      name: 'Owners',
      description: 'the bosses',
      permission: 'owner',
    });
    expect((await call('DELETE', `/teams/${owners.id}/members/owner`, 'owner')).status).toBe(422);
    expect((await call('DELETE', '/orgs/acme/members/owner', 'owner')).status).toBe(422);
    // with a second owner the first may go
    expect((await call('PUT', `/teams/${owners.id}/members/writer`, 'owner')).status).toBe(204);
    expect((await call('DELETE', `/teams/${owners.id}/members/writer`, 'owner')).status).toBe(204);
    expect((await call('GET', '/orgs/acme/members/writer', 'owner')).status).toBe(404);
  });

  test('includes_all_repositories covers repositories created later', async () => {
    const team = await call('POST', '/orgs/acme/teams', 'owner', {
      name: 'everything',
      permission: 'write',
      includes_all_repositories: true,
    });
    expect(team.status).toBe(201);
    expect((await call('PUT', `/teams/${team.body.id}/members/stranger`, 'owner')).status).toBe(204);
    expect((await call('POST', '/orgs/acme/repos', 'admin', { name: 'later', private: true })).status).toBe(201);
    const listed = await call('GET', `/teams/${team.body.id}/repos`, 'stranger');
    expect(listed.status).toBe(200);
    expect(listed.body.map((r: { name: string }) => r.name)).toContain('later');
    expect((await call('GET', `/teams/${team.body.id}/repos/acme/later`, 'stranger')).status).toBe(200);
    expect((await call('GET', '/repos/acme/later', 'stranger')).body.permissions).toEqual({ admin: false, push: true, pull: true });
    // an explicit team only lists what was added, and removal takes access away
    const readers = (await call('GET', '/orgs/acme/teams', 'owner')).body.find((t: { name: string }) => t.name === 'readers');
    expect((await call('GET', `/teams/${readers.id}/repos`, 'readteam')).body.map((r: { name: string }) => r.name).sort()).toEqual([
      'priv',
      'pub',
    ]);
    expect((await call('DELETE', `/teams/${readers.id}/repos/acme/priv`, 'owner')).status).toBe(204);
    expect((await call('GET', '/repos/acme/priv', 'readteam')).status).toBe(404);
    expect((await call('PUT', `/teams/${readers.id}/repos/acme/priv`, 'owner')).status).toBe(204);
    expect((await call('PUT', `/teams/${readers.id}/repos/lim/pub`, 'owner')).status).toBe(422);
    expect((await call('DELETE', `/teams/${team.body.id}`, 'owner')).status).toBe(204);
    expect((await call('GET', '/repos/acme/later', 'stranger')).status).toBe(404);
  });
});

describe('members and user-organization routes', () => {
  test('public and concealed members', async () => {
    expect((await call('GET', '/orgs/acme/public_members', null)).body).toEqual([]);
    expect((await call('PUT', '/orgs/acme/public_members/readteam', 'owner')).status).toBe(403);
    expect((await call('PUT', '/orgs/acme/public_members/stranger', 'stranger')).status).toBe(404);
    expect((await call('PUT', '/orgs/acme/public_members/readteam', 'readteam')).status).toBe(204);
    expect((await call('GET', '/orgs/acme/public_members', null)).body.map((u: { login: string }) => u.login)).toEqual(['readteam']);
    expect((await call('GET', '/orgs/acme/public_members/readteam', null)).status).toBe(204);
    // non-members see the public members only
    expect((await call('GET', '/orgs/acme/members', 'stranger')).body.map((u: { login: string }) => u.login)).toEqual(['readteam']);
    expect((await call('GET', '/orgs/acme/members', 'owner')).body.map((u: { login: string }) => u.login).sort()).toEqual([
      'owner',
      'readteam',
    ]);
    expect((await call('GET', '/orgs/acme/members/owner', 'stranger')).status).toBe(404);
    expect((await call('DELETE', '/orgs/acme/public_members/readteam', 'readteam')).status).toBe(204);
    expect((await call('GET', '/orgs/acme/public_members/readteam', null)).status).toBe(404);
  });

  test('user organization lists and permissions', async () => {
    const mine = await call('GET', '/user/orgs', 'owner');
    expect(mine.status).toBe(200);
    expect(mine.body.map((o: { name: string }) => o.name).sort()).toEqual(['acme', 'lim', 'secret']);
    // others see public memberships in organizations they can see
    expect((await call('GET', '/users/readteam/orgs', 'stranger')).body).toEqual([]);
    expect((await call('PUT', '/orgs/lim/public_members/readteam', 'readteam')).status).toBe(204);
    expect((await call('GET', '/users/readteam/orgs', 'stranger')).body.map((o: { name: string }) => o.name)).toEqual(['lim']);
    expect((await call('GET', '/users/readteam/orgs', 'readteam')).body.map((o: { name: string }) => o.name).sort()).toEqual([
      'acme',
      'lim',
    ]);
    expect((await call('GET', '/users/readteam/orgs', null)).status).toBe(401);
    const perms = async (user: string, org: string, caller = 'stranger') =>
      await call('GET', `/users/${user}/orgs/${org}/permissions`, caller);
    expect((await perms('owner', 'acme')).body).toEqual({
      is_owner: true,
      is_admin: true,
      can_write: true,
      can_read: true,
      can_create_repository: true,
    });
    expect((await perms('readteam', 'acme')).body).toEqual({
      is_owner: false,
      is_admin: false,
      can_write: false,
      can_read: true,
      can_create_repository: false,
    });
    expect((await perms('stranger', 'acme')).body).toEqual({
      is_owner: false,
      is_admin: false,
      can_write: false,
      can_read: false,
      can_create_repository: false,
    });
    expect((await perms('owner', 'secret')).status).toBe(404);
    expect((await perms('owner', 'secret', 'owner')).status).toBe(200);
  });

  test('the user-organization routes need both the user and the organization scope', async () => {
    const userOnly = await server.token(owner, ['read:user']);
    const orgOnly = await server.token(owner, ['read:organization']);
    const both = await server.token(owner, ['read:user', 'read:organization']);
    for (const p of ['/user/orgs', '/users/owner/orgs', '/users/owner/orgs/acme/permissions']) {
      expect({ p, status: (await server.api('GET', p, { token: userOnly })).status }).toEqual({ p, status: 403 });
      expect({ p, status: (await server.api('GET', p, { token: orgOnly })).status }).toEqual({ p, status: 403 });
      expect({ p, status: (await server.api('GET', p, { token: both })).status }).toEqual({ p, status: 200 });
    }
    // the /orgs section needs the organization scope at the method's level
    const repoOnly = await server.token(owner, ['write:repository']);
    expect((await server.api('GET', '/orgs/acme', { token: repoOnly })).status).toBe(403);
    expect((await server.api('PATCH', '/orgs/acme', { token: orgOnly, body: { description: 'x' } })).status).toBe(403);
  });
});

describe('organization repositories and deleting members', () => {
  test('Owners and can_create_org_repo members create org repositories; others get 403', async () => {
    const t = await call('POST', '/orgs/acme/teams', 'owner', { name: 'makers', permission: 'write', can_create_org_repo: true });
    expect(t.status).toBe(201);
    expect((await call('PUT', `/teams/${t.body.id}/members/writer`, 'owner')).status).toBe(204);
    expect((await call('POST', '/orgs/acme/repos', 'owner', { name: 'by-owner' })).status).toBe(201);
    const byMaker = await call('POST', '/orgs/acme/repos', 'writer', { name: 'by-maker' });
    expect(byMaker.status).toBe(201);
    expect(byMaker.body.owner.login).toBe('acme');
    expect((await call('POST', '/orgs/acme/repos', 'reader', { name: 'by-reader' })).status).toBe(403);
    expect((await call('POST', '/orgs/acme/repos', 'stranger', { name: 'by-stranger' })).status).toBe(403);
  });

  test('repo_admin_change_team_access lets a repository admin (not an owner) change which teams reach it', async () => {
    for (const allowed of [true, false]) {
      const org = `tac-${allowed}`;
      expect((await call('POST', '/orgs', 'owner', { username: org, repo_admin_change_team_access: allowed })).status).toBe(201);
      expect((await call('POST', `/orgs/${org}/repos`, 'owner', { name: 'app' })).status).toBe(201);
      const admins = (await call('POST', `/orgs/${org}/teams`, 'owner', { name: 'app-admins', permission: 'admin' })).body;
      const viewers = (await call('POST', `/orgs/${org}/teams`, 'owner', { name: 'viewers', permission: 'read' })).body;
      await call('PUT', `/teams/${admins.id}/members/writer`, 'owner');
      await call('PUT', `/teams/${admins.id}/repos/${org}/app`, 'owner');
      const res = await call('PUT', `/teams/${viewers.id}/repos/${org}/app`, 'writer');
      expect({ allowed, status: res.status }).toEqual({ allowed, status: allowed ? 204 : 403 });
      // A member without admin on the repository never may.
      await call('PUT', `/teams/${viewers.id}/members/reader`, 'owner');
      expect((await call('DELETE', `/teams/${viewers.id}/repos/${org}/app`, 'reader')).status).toBe(403);
    }
  });

  test('deleting the last owner of an organization is refused; deleting a member removes their seats', async () => {
    const solo = await server.user('solo-owner');
    const soloToken = await server.token(solo, ALL_SCOPES);
    expect((await server.api('POST', '/orgs', { token: soloToken, body: { username: 'solo-org' } })).status).toBe(201);
    const adminAll = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
    const refused = await server.api('DELETE', '/admin/users/solo-owner?purge=true', { token: adminAll });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('last owner of organization solo-org');
    const member = await server.user('short-lived');
    const team = (await server.api('GET', '/orgs/solo-org/teams', { token: soloToken })).body[0];
    expect((await server.api('PUT', `/teams/${team.id}/members/short-lived`, { token: soloToken })).status).toBe(204);
    expect((await server.api('DELETE', '/admin/users/short-lived', { token: adminAll })).status).toBe(204);
    expect(await server.kernel.db('team_users').where('uid', member.id)).toEqual([]);
    expect(await server.kernel.db('org_users').where('uid', member.id)).toEqual([]);
  });
});

describe('clean-up helpers for the kernel', () => {
  test('removeRepoAccess and removeUserMemberships drop the rows they own', async () => {
    const db = server.kernel.db;
    const repo = await db('repositories').where({ owner_name: 'acme', lower_name: 'pub' }).first('id');
    expect(Number((await db('collaborations').where('repo_id', repo.id).count({ n: '*' }))[0].n)).toBeGreaterThan(0);
    await db.transaction((trx) => orgStore.removeRepoAccess(trx, repo.id));
    expect(Number((await db('collaborations').where('repo_id', repo.id).count({ n: '*' }))[0].n)).toBe(0);
    expect(Number((await db('team_repos').where('repo_id', repo.id).count({ n: '*' }))[0].n)).toBe(0);
    await db.transaction((trx) => orgStore.removeUserMemberships(trx, readTeam.id));
    expect((await call('GET', '/orgs/acme/members/readteam', 'owner')).status).toBe(404);
    expect((await call('GET', '/repos/acme/priv', 'readteam')).status).toBe(404);
    expect(await orgStore.canCreateOrgRepo(db, (await db('users').where('lower_name', 'acme').first('id')).id, owner.id)).toBe(true);
    expect(await orgStore.canCreateOrgRepo(db, (await db('users').where('lower_name', 'acme').first('id')).id, stranger.id)).toBe(false);
  });
});
