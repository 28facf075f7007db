/**
 * Access to issues through the access module: the cross-repository issue search filters with
 * readableRepoIds (owner visibility, restricted users), issue routes need the issues unit (a team's
 * units_map narrows it), and organization labels follow the organization's visibility.
 */
import { ADMIN, startServer, type TestServer } from './helpers/server';

let server: TestServer;
const tokens: Record<string, string> = {};
const SCOPES = ['write:repository', 'write:issue', 'write:organization', 'write:user'];

async function call(method: string, path: string, who: string | null, body?: unknown) {
  return server.api(method, path, who ? { token: tokens[who], body } : { body });
}

async function must(method: string, path: string, who: string, body?: unknown) {
  const reply = await call(method, path, who, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.body;
}

let orgLabelId: number;

beforeAll(async () => {
  server = await startServer();
  tokens.admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, [...SCOPES, 'write:admin']);
  for (const name of ['boss', 'member', 'stranger', 'restricted', 'coder', 'triager'])
    tokens[name] = await server.token(await server.user(name), SCOPES);
  tokens.hermit = await server.token(await server.user('hermit', { visibility: 'private' }), SCOPES);
  await must('PATCH', '/admin/users/restricted', 'admin', { restricted: true, login_name: 'restricted', source_id: 0 });

  // A private organization with a public and a private repository.
  await must('POST', '/orgs', 'boss', { username: 'hidden', visibility: 'private' });
  for (const [name, priv] of [
    ['pubrepo', false],
    ['secret', true],
  ] as const)
    await must('POST', '/orgs/hidden/repos', 'boss', { name, private: priv });
  await must('POST', '/repos/hidden/pubrepo/issues', 'boss', { title: 'needle in a private organization' });
  await must('POST', '/repos/hidden/secret/issues', 'boss', { title: 'secret issue' });
  const team = async (body: Record<string, unknown>, member: string, repos: string[]) => {
    const t = await must('POST', '/orgs/hidden/teams', 'boss', body);
    await must('PUT', `/teams/${t.id}/members/${member}`, 'boss');
    for (const r of repos) await must('PUT', `/teams/${t.id}/repos/hidden/${r}`, 'boss');
  };
  await team({ name: 'everyone', permission: 'read', includes_all_repositories: true, units: ['repo.code', 'repo.issues'] }, 'member', []);
  await team({ name: 'coders', units_map: { 'repo.code': 'read' } }, 'coder', ['secret']);
  await team({ name: 'triagers', units_map: { 'repo.issues': 'read' } }, 'triager', ['secret']);
  orgLabelId = (await must('POST', '/orgs/hidden/labels', 'boss', { name: 'org-wide', color: '#00aabb' })).id;

  // A public repository of a private user, and one of a public user.
  await must('POST', '/user/repos', 'hermit', { name: 'pubrepo', private: false });
  await must('POST', '/repos/hermit/pubrepo/issues', 'hermit', { title: 'needle of a private user' });
  await must('POST', '/user/repos', 'boss', { name: 'open', private: false });
  await must('POST', '/repos/boss/open/issues', 'boss', { title: 'needle in the open' });
});

afterAll(async () => {
  await server.close();
});

describe('GET /repos/issues/search', () => {
  const found = async (who: string | null): Promise<string[]> => {
    const reply = await call('GET', '/repos/issues/search?q=needle&limit=50', who);
    expect(reply.status).toBe(200);
    return (reply.body as { repository: { full_name: string } }[]).map((i) => i.repository.full_name).sort();
  };

  test("anonymous callers and strangers see neither a private organization's nor a private user's public repositories", async () => {
    expect(await found(null)).toEqual(['boss/open']);
    expect(await found('stranger')).toEqual(['boss/open']);
    expect((await call('GET', '/repos/issues/search?q=needle&owner=hidden', 'stranger')).body).toEqual([]);
  });

  test('a restricted user sees no public repository of others', async () => {
    expect(await found('restricted')).toEqual([]);
  });

  test('an organization member sees its public repository; a site admin sees all', async () => {
    expect(await found('member')).toEqual(['boss/open', 'hidden/pubrepo']);
    expect(await found('admin')).toEqual(['boss/open', 'hermit/pubrepo', 'hidden/pubrepo']);
  });
});

describe('the issues unit of a team', () => {
  test('a team granting only code: 404 on the issues of a private repository', async () => {
    expect((await call('GET', '/repos/hidden/secret', 'coder')).status).toBe(200);
    expect((await call('GET', '/repos/hidden/secret/issues', 'coder')).status).toBe(404);
    expect((await call('GET', '/repos/hidden/secret/issues/1', 'coder')).status).toBe(404);
    expect((await call('POST', '/repos/hidden/secret/issues', 'coder', { title: 'nope' })).status).toBe(404);
  });

  test("a team granting read on issues: reads, may open an issue (as Gitea), but may not change others' or manage labels", async () => {
    expect((await call('GET', '/repos/hidden/secret/issues', 'triager')).status).toBe(200);
    expect((await call('GET', '/repos/hidden/secret/issues/1', 'triager')).status).toBe(200);
    expect((await call('PATCH', '/repos/hidden/secret/issues/1', 'triager', { state: 'closed' })).status).toBe(403);
    expect((await call('POST', '/repos/hidden/secret/labels', 'triager', { name: 'nope', color: '#ffffff' })).status).toBe(403);
    expect((await call('POST', '/repos/hidden/secret/milestones', 'triager', { title: 'nope' })).status).toBe(403);
    expect((await call('DELETE', '/repos/hidden/secret/issues/1', 'triager')).status).toBe(403);
    expect((await call('POST', '/repos/hidden/secret/issues', 'triager', { title: 'a reader may open issues' })).status).toBe(201);
  });
});

describe('organization labels', () => {
  test('of a private organization: 404 to strangers and anonymous callers, readable by members, changed by owners only', async () => {
    for (const who of [null, 'stranger', 'restricted']) {
      expect((await call('GET', '/orgs/hidden/labels', who)).status).toBe(404);
      expect((await call('GET', `/orgs/hidden/labels/${orgLabelId}`, who)).status).toBe(404);
    }
    expect((await call('PATCH', `/orgs/hidden/labels/${orgLabelId}`, 'stranger', { name: 'x' })).status).toBe(404);
    expect((await call('GET', '/orgs/hidden/labels', 'member')).body.map((l: { name: string }) => l.name)).toEqual(['org-wide']);
    expect((await call('GET', `/orgs/hidden/labels/${orgLabelId}`, 'member')).status).toBe(200);
    expect((await call('PATCH', `/orgs/hidden/labels/${orgLabelId}`, 'member', { name: 'x' })).status).toBe(403);
    expect((await call('PATCH', `/orgs/hidden/labels/${orgLabelId}`, 'boss', { description: 'everywhere' })).status).toBe(200);
  });
});
