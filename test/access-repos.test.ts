import { ADMIN, startServer, type CallOptions, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

/**
 * Repository access through every door: the API, lists, the git transport, archives and raw
 * files. Owner visibility (private and limited organizations, private users), restricted users, a
 * team that grants one unit only (no laundering of code through fork, template, archive, raw or
 * clone), and forks of private repositories that must stay private.
 */

let server: TestServer;
let sandbox: ReturnType<typeof gitSandbox>;
const passwords: Record<string, string> = { [ADMIN.name]: ADMIN.password };
let defaultBranch = '';

const as = (who: string | null, options: CallOptions = {}): CallOptions => (who ? { ...options, basic: [who, passwords[who]] } : options);

async function must(method: string, path: string, who: string, body?: unknown): Promise<any> {
  const res = await server.api(method, path, as(who, { body }));
  if (res.status >= 300) throw new Error(`${method} ${path} as ${who}: ${res.status} ${res.text}`);
  return res.body;
}

const status = async (method: string, path: string, who: string | null, body?: unknown) =>
  (await server.api(method, path, as(who, { body }))).status;

/** Full names that /repos/search?q= lists for the caller. */
async function searched(q: string, who: string | null): Promise<string[]> {
  const res = await server.api('GET', `/repos/search?q=${encodeURIComponent(q)}&limit=50`, as(who));
  expect(res.status).toBe(200);
  return res.body.data.map((r: { full_name: string }) => r.full_name);
}

/** Whether `git clone` of owner/repo succeeds for the caller (a real git client over HTTP). */
let clones = 0;
async function canClone(repoPath: string, who: string | null): Promise<boolean> {
  const url = who ? cloneUrl(server.url, `${repoPath}.git`, who, passwords[who]) : cloneUrl(server.url, `${repoPath}.git`);
  return (await sandbox.git(['clone', '--quiet', url, `clone-${++clones}`])).status === 0;
}

beforeAll(async () => {
  server = await startServer();
  sandbox = gitSandbox();
  for (const name of ['boss', 'member', 'stranger', 'collab', 'partial', 'fresh', 'restr'])
    passwords[name] = (await server.user(name)).password;
  passwords.loner = (await server.user('loner', { visibility: 'private' })).password;
  await must('PATCH', '/admin/users/restr', ADMIN.name, { restricted: true, login_name: 'restr', source_id: 0 });

  // A private and a limited organization, each with a public repository.
  for (const [org, visibility] of [
    ['ar-hidden', 'private'],
    ['ar-limited', 'limited'],
  ]) {
    await must('POST', '/orgs', 'boss', { username: org, visibility });
    defaultBranch = (await must('POST', `/orgs/${org}/repos`, 'boss', { name: `${org}-pub`, auto_init: true })).default_branch;
  }
  const members = await must('POST', '/orgs/ar-hidden/teams', 'boss', {
    name: 'members',
    permission: 'read',
    includes_all_repositories: true,
    units: ['repo.code'],
  });
  await must('PUT', `/teams/${members.id}/members/member`, 'boss');

  // A public organization's private template repository, and a team that may read its issues only.
  await must('POST', '/orgs', 'boss', { username: 'ar-units' });
  await must('POST', '/orgs/ar-units/repos', 'boss', { name: 'secret', private: true, template: true, auto_init: true });
  const issuesOnly = await must('POST', '/orgs/ar-units/teams', 'boss', {
    name: 'issues-only',
    includes_all_repositories: false,
    units_map: { 'repo.issues': 'read' },
  });
  await must('PUT', `/teams/${issuesOnly.id}/members/partial`, 'boss');
  await must('PUT', `/teams/${issuesOnly.id}/repos/ar-units/secret`, 'boss');

  // A private user's public repository with a read collaborator.
  await must('POST', '/user/repos', 'loner', { name: 'loner-pub', auto_init: true });
  await must('PUT', '/repos/loner/loner-pub/collaborators/collab', 'loner', { permission: 'read' });

  // For the restricted user: someone else's public repository, a private one they collaborate on, and their own.
  await must('POST', '/user/repos', 'fresh', { name: 'restr-probe-open', auto_init: true });
  await must('POST', '/user/repos', 'fresh', { name: 'restr-probe-shared', private: true, auto_init: true });
  await must('PUT', '/repos/fresh/restr-probe-shared/collaborators/restr', 'fresh', { permission: 'read' });
  await must('POST', '/user/repos', 'restr', { name: 'restr-probe-own' });
});

afterAll(async () => {
  sandbox?.cleanup();
  await server?.close();
});

describe('owner visibility', () => {
  const repo = 'ar-hidden/ar-hidden-pub';

  test('a public repository of a private organization is invisible to anonymous callers and strangers', async () => {
    for (const who of [null, 'stranger']) {
      expect(await status('GET', `/repos/${repo}`, who)).toBe(404);
      expect(await searched('ar-hidden-pub', who)).toEqual([]);
      expect(await status('GET', '/users/ar-hidden/repos', who)).toBe(404);
      expect(await status('GET', `/repos/${repo}/archive/${defaultBranch}.tar.gz`, who)).toBe(404);
      expect(await status('GET', `/repos/${repo}/raw/README.md`, who)).toBe(404);
      expect(await status('GET', `//${repo}/raw/branch/${defaultBranch}/README.md`, who)).toBe(404);
      expect(await canClone(repo, who)).toBe(false);
    }
    const { id } = await must('GET', `/repos/${repo}`, 'member');
    for (const who of [null, 'stranger']) {
      const byId = await server.api('GET', `/repositories/${id}`, as(who));
      expect(byId.status).toBe(404);
      expect(byId.text).not.toContain('ar-hidden'); // the answer names the id only
    }
    expect(await status('GET', `/repositories/${id}`, 'member')).toBe(200);
  });

  test("…and visible to the organization's members", async () => {
    expect(await status('GET', `/repos/${repo}`, 'member')).toBe(200);
    expect(await searched('ar-hidden-pub', 'member')).toEqual([repo]);
    expect((await must('GET', '/users/ar-hidden/repos', 'member')).map((r: { full_name: string }) => r.full_name)).toEqual([repo]);
    expect(await status('GET', `/repos/${repo}/archive/${defaultBranch}.tar.gz`, 'member')).toBe(200);
    expect(await canClone(repo, 'member')).toBe(true);
  });

  test("a limited organization's public repository: signed-in callers only", async () => {
    const limited = 'ar-limited/ar-limited-pub';
    expect(await status('GET', `/repos/${limited}`, null)).toBe(404);
    expect(await searched('ar-limited-pub', null)).toEqual([]);
    expect(await canClone(limited, null)).toBe(false);
    expect(await status('GET', `/repos/${limited}`, 'stranger')).toBe(200);
    expect(await searched('ar-limited-pub', 'stranger')).toEqual([limited]);
    expect(await canClone(limited, 'stranger')).toBe(true);
  });

  test("a private user's public repository: collaborators and site admins only", async () => {
    const mine = 'loner/loner-pub';
    expect(await status('GET', `/repos/${mine}`, 'stranger')).toBe(404);
    expect(await searched('loner-pub', 'stranger')).toEqual([]);
    expect(await status('GET', `/repos/${mine}`, 'collab')).toBe(200);
    expect(await searched('loner-pub', 'collab')).toEqual([mine]);
    expect(await status('GET', `/repos/${mine}`, ADMIN.name)).toBe(200);
    expect(await canClone(mine, 'collab')).toBe(true);
  });
});

describe('restricted users', () => {
  test('see no public repository of others, only their own and their collaborations', async () => {
    expect(await status('GET', '/repos/fresh/restr-probe-open', 'restr')).toBe(404);
    expect(await status('GET', '/repos/fresh/restr-probe-open', 'stranger')).toBe(200);
    expect(await status('GET', '/repos/fresh/restr-probe-shared', 'restr')).toBe(200);
    expect(await status('GET', '/repos/restr/restr-probe-own', 'restr')).toBe(200);
    expect((await searched('restr-probe', 'restr')).sort()).toEqual(['fresh/restr-probe-shared', 'restr/restr-probe-own']);
  });
});

describe('a team granting the issues unit only', () => {
  const secret = 'ar-units/secret';

  test('sees the repository and its issues', async () => {
    expect(await status('GET', `/repos/${secret}`, 'partial')).toBe(200);
    expect(await status('GET', `/repos/${secret}/issues`, 'partial')).toBe(200);
  });

  test('cannot reach the code through any door', async () => {
    expect(await status('POST', `/repos/${secret}/forks`, 'partial', {})).toBe(404);
    expect(await status('POST', `/repos/${secret}/generate`, 'partial', { owner: 'partial', name: 'laundered', git_content: true })).toBe(
      404,
    );
    expect(await status('GET', `/repos/${secret}/archive/${defaultBranch}.zip`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/raw/README.md`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/media/README.md`, 'partial')).toBe(404);
    expect(await status('GET', `//${secret}/raw/branch/${defaultBranch}/README.md`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/contents/README.md`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/branches`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/tags`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/commits`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/compare/${defaultBranch}...${defaultBranch}`, 'partial')).toBe(404);
    expect(await status('GET', `/repos/${secret}/git/notes/${defaultBranch}`, 'partial')).toBe(404);
    expect(await canClone(secret, 'partial')).toBe(false);
    expect(await status('GET', '/repos/partial/laundered', 'partial')).toBe(404);
  });

  test("the organization's owner still forks and generates from it", async () => {
    expect(await status('POST', `/repos/${secret}/generate`, 'boss', { owner: 'boss', name: 'generated', git_content: true })).toBe(201);
    expect(await status('POST', `/repos/${secret}/forks`, 'boss', {})).toBe(202);
  });
});

describe('forks of private repositories', () => {
  test('are created private and cannot be made public while the source exists', async () => {
    await must('POST', '/user/repos', 'fresh', { name: 'psrc', private: true, auto_init: true });
    await must('PUT', '/repos/fresh/psrc/collaborators/stranger', 'fresh', { permission: 'read' });
    const fork = await must('POST', '/repos/fresh/psrc/forks', 'stranger', {});
    expect(fork.private).toBe(true);
    const res = await server.api('PATCH', '/repos/stranger/psrc', as('stranger', { body: { private: false } }));
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/a fork of a private repository cannot be made public/);
    expect((await must('GET', '/repos/stranger/psrc', 'stranger')).private).toBe(true);
    // Other changes still go through.
    expect((await must('PATCH', '/repos/stranger/psrc', 'stranger', { private: true, description: 'mine' })).description).toBe('mine');

    await must('DELETE', '/repos/fresh/psrc', 'fresh');
    expect((await must('PATCH', '/repos/stranger/psrc', 'stranger', { private: false })).private).toBe(false);
  });
});
