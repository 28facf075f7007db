import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

let server: TestServer;
let sandbox: ReturnType<typeof gitSandbox>;
const tokens: Record<string, string> = {};
const users: Record<string, { name: string; password: string; id: number }> = {};
const SCOPES = ['delete:repository', 'delete:issue', 'write:user', 'write:organization', 'write:notification'];

const call = (method: string, p: string, who: string | null, body?: unknown) =>
  server.api(method, p, { token: who ? tokens[who] : undefined, body });
const ops = (body: { op_type: string }[]) => body.map((a) => a.op_type);

/** Push one commit with `message` to owner/repo as `who` through git smart HTTP. */
async function pushCommit(who: string, repo: string, message: string): Promise<void> {
  const folder = `${repo.replace('/', '-')}-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const url = cloneUrl(server.url, `${repo}.git`, who, users[who].password);
  expect((await sandbox.git(['clone', '-q', url, folder])).status).toBe(0);
  const dir = path.join(sandbox.dir, folder);
  fs.writeFileSync(path.join(dir, `${folder}.txt`), `${message}\n`);
  expect((await sandbox.git(['add', '.'], dir)).status).toBe(0);
  expect((await sandbox.git(['commit', '-q', '-m', message], dir)).status).toBe(0);
  const pushed = await sandbox.git(['push', '-q', 'origin', 'HEAD:main'], dir);
  expect(pushed.stderr).not.toMatch(/error|rejected/);
  expect(pushed.status).toBe(0);
}

beforeAll(async () => {
  server = await startServer();
  sandbox = gitSandbox();
  tokens.admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, SCOPES);
  for (const name of ['alice', 'bob', 'carol']) {
    users[name] = await server.user(name);
    tokens[name] = await server.token(users[name], SCOPES);
  }
  for (const [name, priv] of [
    ['proj', false],
    ['secret', true],
  ] as const) {
    expect((await call('POST', '/user/repos', 'alice', { name, private: priv, auto_init: true, default_branch: 'main' })).status).toBe(201);
  }
  await pushCommit('alice', 'alice/proj', 'feed commit one');
  await pushCommit('alice', 'alice/secret', 'secret commit');
  const issue = await call('POST', '/repos/alice/proj/issues', 'alice', { title: 'First issue', body: 'hello' });
  expect(issue.status).toBe(201);
  expect((await call('POST', '/repos/alice/proj/issues/1/comments', 'carol', { body: 'a comment from carol' })).status).toBe(201);
  expect((await call('PATCH', '/repos/alice/proj/issues/1', 'alice', { state: 'closed' })).status).toBe(201);
  expect((await call('PATCH', '/repos/alice/proj/issues/1', 'alice', { state: 'open' })).status).toBe(201);
  expect((await call('POST', '/repos/alice/secret/issues', 'alice', { title: 'Hidden issue' })).status).toBe(201);
  expect((await call('POST', '/repos/alice/proj/releases', 'alice', { tag_name: 'v1.0', name: 'One' })).status).toBe(201);
  // An organization with a repository and a second team that only covers another repository.
  expect((await call('POST', '/orgs', 'alice', { username: 'acme', visibility: 'public' })).status).toBe(201);
  expect((await call('POST', '/orgs/acme/repos', 'alice', { name: 'tool', auto_init: true, default_branch: 'main' })).status).toBe(201);
  expect(
    (await call('POST', '/orgs/acme/repos', 'alice', { name: 'vault', private: true, auto_init: true, default_branch: 'main' })).status,
  ).toBe(201);
  await pushCommit('alice', 'acme/tool', 'org commit');
  expect((await call('POST', '/repos/acme/tool/issues', 'alice', { title: 'Org issue' })).status).toBe(201);
});
afterAll(async () => {
  sandbox?.cleanup();
  await server?.close();
});

describe('repository feeds', () => {
  test('show creation, pushes with their commits, issue, comment, close/reopen and release actions, newest first', async () => {
    const res = await call('GET', '/repos/alice/proj/activities/feeds', 'alice');
    expect(res.status).toBe(200);
    const types = ops(res.body);
    expect(types).toEqual(
      expect.arrayContaining([
        'create_repo',
        'commit_repo',
        'create_issue',
        'comment_issue',
        'close_issue',
        'reopen_issue',
        'publish_release',
      ]),
    );
    expect(Number(res.headers.get('x-total-count'))).toBe(res.body.length);
    // Newest first.
    const times = res.body.map((a: { created: string; id: number }) => [Date.parse(a.created), a.id]);
    for (let i = 1; i < times.length; i++)
      expect(times[i - 1][0] > times[i][0] || (times[i - 1][0] === times[i][0] && times[i - 1][1] > times[i][1])).toBe(true);

    const push = res.body.find(
      (a: { op_type: string; content: string }) => a.op_type === 'commit_repo' && a.content.includes('feed commit one'),
    );
    expect(push).toBeDefined();
    expect(push.ref_name).toBe('refs/heads/main');
    const content = JSON.parse(push.content);
    expect(content.Commits[0]).toMatchObject({ Message: 'feed commit one', AuthorName: 'Tester' });
    expect(content.Len).toBe(1);
    expect(push.act_user).toMatchObject({ login: 'alice' });
    expect(push.repo).toMatchObject({ full_name: 'alice/proj' });
    expect(push.user_id).toBe(users.alice.id);

    const created = res.body.find((a: { op_type: string }) => a.op_type === 'create_issue');
    expect(created).toMatchObject({ content: '1|First issue', act_user_id: users.alice.id, repo_id: push.repo_id, is_private: false });
    const comment = res.body.find((a: { op_type: string }) => a.op_type === 'comment_issue');
    expect(comment.content).toBe('1|a comment from carol');
    expect(comment.act_user).toMatchObject({ login: 'carol' });
    expect(comment.comment_id).toBeGreaterThan(0);
    expect(comment.comment).toMatchObject({ id: comment.comment_id, body: 'a comment from carol' });
    expect(res.body.find((a: { op_type: string }) => a.op_type === 'close_issue').content).toBe('1|');
    expect(res.body.find((a: { op_type: string }) => a.op_type === 'publish_release')).toMatchObject({ ref_name: 'v1.0', content: 'One' });
    // The release created its tag: a tag push row with Gitea's op type (push_tag = 9).
    expect(res.body.find((a: { op_type: string }) => a.op_type === 'push_tag')).toMatchObject({ ref_name: 'refs/tags/v1.0' });
    expect(await server.kernel.db('activities').where({ repo_id: push.repo_id, ref_name: 'refs/tags/v1.0' }).first('op_type')).toEqual({
      op_type: 9,
    });
  });

  test('pages with X-Total-Count and filters by date', async () => {
    const all = await call('GET', '/repos/alice/proj/activities/feeds', null);
    const total = Number(all.headers.get('x-total-count'));
    expect(total).toBeGreaterThanOrEqual(7);
    const page = await call('GET', '/repos/alice/proj/activities/feeds?limit=2&page=2', null);
    expect(page.body.map((a: { id: number }) => a.id)).toEqual(all.body.slice(2, 4).map((a: { id: number }) => a.id));
    expect(Number(page.headers.get('x-total-count'))).toBe(total);
    const today = new Date().toISOString().slice(0, 10);
    expect((await call('GET', `/repos/alice/proj/activities/feeds?date=${today}`, null)).body.length).toBe(all.body.length);
    const old = await call('GET', '/repos/alice/proj/activities/feeds?date=2001-01-01', null);
    expect(old.body).toEqual([]);
    expect(old.headers.get('x-total-count')).toBe('0');
    expect((await call('GET', '/repos/alice/proj/activities/feeds?date=yesterday', null)).status).toBe(422);
  });

  test("a private repository's feed is a 404 to a stranger and anonymous callers", async () => {
    expect((await call('GET', '/repos/alice/secret/activities/feeds', 'alice')).body.length).toBeGreaterThan(0);
    expect((await call('GET', '/repos/alice/secret/activities/feeds', 'bob')).status).toBe(404);
    expect((await call('GET', '/repos/alice/secret/activities/feeds', null)).status).toBe(404);
  });
});

describe('user feeds', () => {
  test("the user's own feed includes private repositories; a stranger's view of it does not", async () => {
    const own = await call('GET', '/users/alice/activities/feeds?limit=50', 'alice');
    expect(own.status).toBe(200);
    const ownRepos = new Set(own.body.map((a: { repo: { full_name: string } }) => a.repo.full_name));
    expect(ownRepos).toEqual(new Set(['alice/proj', 'alice/secret', 'acme/tool', 'acme/vault']));
    expect(own.body.every((a: { user_id: number }) => a.user_id === users.alice.id)).toBe(true);
    const seen = await call('GET', '/users/alice/activities/feeds?limit=50', 'bob');
    const seenRepos = new Set(seen.body.map((a: { repo: { full_name: string } }) => a.repo.full_name));
    expect(seenRepos).toEqual(new Set(['alice/proj', 'acme/tool']));
    expect(seen.body.some((a: { is_private: boolean }) => a.is_private)).toBe(false);
    const anon = await call('GET', '/users/alice/activities/feeds?limit=50', null);
    expect(new Set(anon.body.map((a: { repo: { full_name: string } }) => a.repo.full_name))).toEqual(new Set(['alice/proj', 'acme/tool']));
    const admin = await call('GET', '/users/alice/activities/feeds?limit=50', 'admin');
    expect(Number(admin.headers.get('x-total-count'))).toBe(Number(own.headers.get('x-total-count')));
  });

  test('only-performed-by keeps the actions of the user; otherwise watched repositories show too', async () => {
    // carol commented on alice/proj: performed by carol.
    const carolOnly = await call('GET', '/users/carol/activities/feeds?only-performed-by=true', 'carol');
    expect(ops(carolOnly.body)).toEqual(['comment_issue']);
    // bob did nothing and watches nothing yet.
    expect((await call('GET', '/users/bob/activities/feeds', 'bob')).body).toEqual([]);
    expect((await call('PUT', '/repos/alice/proj/subscription', 'bob')).status).toBe(200);
    const watching = await call('GET', '/users/bob/activities/feeds', 'bob');
    expect(new Set(watching.body.map((a: { repo: { full_name: string } }) => a.repo.full_name))).toEqual(new Set(['alice/proj']));
    expect((await call('GET', '/users/bob/activities/feeds?only-performed-by=true', 'bob')).body).toEqual([]);
    expect((await call('DELETE', '/repos/alice/proj/subscription', 'bob')).status).toBe(204);
    expect((await call('GET', '/users/bob/activities/feeds', 'bob')).body).toEqual([]);
  });

  test('an unknown user is a 404', async () => {
    expect((await call('GET', '/users/nobody-here/activities/feeds', 'alice')).status).toBe(404);
  });
});

describe('organization and team feeds', () => {
  test("the organization's feed shows its repositories' activity; private ones only to members", async () => {
    const member = await call('GET', '/orgs/acme/activities/feeds?limit=50', 'alice');
    expect(member.status).toBe(200);
    expect(new Set(member.body.map((a: { repo: { full_name: string } }) => a.repo.full_name))).toEqual(
      new Set(['acme/tool', 'acme/vault']),
    );
    expect(ops(member.body)).toEqual(expect.arrayContaining(['create_repo', 'commit_repo', 'create_issue']));
    const push = member.body.find(
      (a: { op_type: string; content: string }) => a.op_type === 'commit_repo' && a.content.includes('org commit'),
    );
    expect(JSON.parse(push.content).Commits[0].Message).toBe('org commit');
    const acme = (await call('GET', '/orgs/acme', 'alice')).body;
    expect(member.body.every((a: { user_id: number }) => a.user_id === acme.id)).toBe(true);
    const outsider = await call('GET', '/orgs/acme/activities/feeds?limit=50', 'bob');
    expect(new Set(outsider.body.map((a: { repo: { full_name: string } }) => a.repo.full_name))).toEqual(new Set(['acme/tool']));
    expect((await call('GET', '/orgs/no-such-org/activities/feeds', 'alice')).status).toBe(404);
  });

  test("a team's feed covers the team's repositories, for its members", async () => {
    const teams = (await call('GET', '/orgs/acme/teams', 'alice')).body as { id: number; name: string }[];
    const owners = teams.find((t) => t.name === 'Owners')!;
    const all = await call('GET', `/teams/${owners.id}/activities/feeds?limit=50`, 'alice');
    expect(all.status).toBe(200);
    expect(new Set(all.body.map((a: { repo: { full_name: string } }) => a.repo.full_name))).toEqual(new Set(['acme/tool', 'acme/vault']));
    // A team listing only acme/vault, with carol in it.
    const team = await call('POST', '/orgs/acme/teams', 'alice', {
      name: 'vaulters',
      permission: 'read',
      units: ['repo.code', 'repo.issues'],
      includes_all_repositories: false,
    });
    expect(team.status).toBe(201);
    expect((await call('PUT', `/teams/${team.body.id}/repos/acme/vault`, 'alice')).status).toBe(204);
    expect((await call('PUT', `/teams/${team.body.id}/members/carol`, 'alice')).status).toBe(204);
    const carol = await call('GET', `/teams/${team.body.id}/activities/feeds`, 'carol');
    expect(carol.status).toBe(200);
    expect(new Set(carol.body.map((a: { repo: { full_name: string } }) => a.repo.full_name))).toEqual(new Set(['acme/vault']));
    // carol is now a member and can read acme/vault through her team; bob is no member at all.
    expect((await call('GET', `/teams/${owners.id}/activities/feeds`, 'carol')).status).toBe(403);
    expect((await call('GET', `/teams/${team.body.id}/activities/feeds`, 'bob')).status).toBe(404);
  });
});

describe('hidden activity (hide_activity)', () => {
  test('a user who hides their activity is left out of every feed, except for themselves and site admins', async () => {
    const commentOps = async (who: string | null, p: string) =>
      ((await call('GET', p, who)).body as Array<{ op_type: string; act_user: { login: string } }>)
        .filter((a) => a.act_user.login === 'carol')
        .map((a) => a.op_type);
    expect(await commentOps(null, '/repos/alice/proj/activities/feeds')).toContain('comment_issue');
    expect((await call('PATCH', '/user/settings', 'carol', { hide_activity: true })).status).toBe(200);
    try {
      for (const who of [null, 'bob', 'alice']) {
        expect(await commentOps(who, '/repos/alice/proj/activities/feeds')).toEqual([]);
        expect(await commentOps(who, '/users/alice/activities/feeds')).toEqual([]);
        expect(await commentOps(who, '/users/carol/activities/feeds')).toEqual([]);
      }
      expect(await commentOps('carol', '/repos/alice/proj/activities/feeds')).toContain('comment_issue');
      expect(await commentOps('admin', '/repos/alice/proj/activities/feeds')).toContain('comment_issue');
      // Others' activity is unaffected.
      expect(ops((await call('GET', '/repos/alice/proj/activities/feeds', 'bob')).body)).toContain('create_issue');
    } finally {
      expect((await call('PATCH', '/user/settings', 'carol', { hide_activity: false })).status).toBe(200);
    }
    expect(await commentOps(null, '/repos/alice/proj/activities/feeds')).toContain('comment_issue');
  });
});
