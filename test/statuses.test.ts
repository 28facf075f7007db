import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let aliceToken: string;
let aliceRead: string;
let bobToken: string;
let sandbox: ReturnType<typeof gitSandbox>;
/** Commits of alice/ci: the initial one (main), one on feature/x, tagged v1. */
let first: string;
let feature: string;
let tree: string;

/** POST a status; `token` null posts anonymously. */
const post = (sha: string, body: Record<string, unknown>, token: string | null = aliceToken, repo = 'alice/ci') =>
  server.api('POST', `/repos/${repo}/statuses/${sha}`, { token: token ?? undefined, body });

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  aliceToken = await server.token(alice, ['write:repository', 'read:user']);
  aliceRead = await server.token(alice, ['read:repository']);
  bobToken = await server.token(bob, ['write:repository']);
  sandbox = gitSandbox();
  expect((await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'ci', auto_init: true } })).status).toBe(201);
  expect(
    (await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'secret', auto_init: true, private: true } })).status,
  ).toBe(201);
  const dir = path.join(sandbox.dir, 'ci');
  expect((await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/ci.git', 'alice', aliceToken), dir])).status).toBe(0);
  first = (await sandbox.git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  tree = (await sandbox.git(['rev-parse', 'HEAD^{tree}'], dir)).stdout.trim();
  await sandbox.git(['checkout', '-q', '-b', 'feature/x'], dir);
  fs.writeFileSync(path.join(dir, 'f.txt'), 'feature\n');
  await sandbox.git(['add', 'f.txt'], dir);
  expect((await sandbox.git(['commit', '-q', '-m', 'feature'], dir)).status).toBe(0);
  feature = (await sandbox.git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  await sandbox.git(['tag', 'v1'], dir);
  const push = await sandbox.git(['push', '-q', 'origin', 'feature/x', 'v1'], dir);
  expect(push.stderr).toBe('');
  expect(push.status).toBe(0);
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

describe('creating a commit status', () => {
  test('201 with Gitea CommitStatus JSON: index as id, state under "status", the creator', async () => {
    const res = await post(first, {
      state: 'pending',
      target_url: 'https://ci.example.com/1',
      description: 'building',
      context: 'ci/build',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: 1,
      status: 'pending',
      target_url: 'https://ci.example.com/1',
      description: 'building',
      url: `${server.url}api/v1/repos/alice/ci/statuses/${first}`,
      context: 'ci/build',
      creator: expect.objectContaining({ id: alice.id, login: 'alice' }),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    // Only state is required; the context defaults to "default"; ids count per commit.
    const minimal = await post(feature, { state: 'success' });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({ id: 1, status: 'success', context: 'default', target_url: '', description: '' });
    // An upper-case id names the same commit.
    const upper = await post(feature.toUpperCase(), { state: 'success', context: 'upper' });
    expect(upper.status).toBe(201);
    expect(upper.body).toMatchObject({ id: 2, url: `${server.url}api/v1/repos/alice/ci/statuses/${feature}` });
  });

  test('the sha must be the complete id of a commit of the repository', async () => {
    const short = await post(first.slice(0, 7), { state: 'success' });
    expect(short.status).toBe(422);
    expect(short.body.message).toMatch(/complete commit id/);
    expect((await post(first.slice(0, 39), { state: 'success' })).status).toBe(422);
    expect((await post('main', { state: 'success' })).status).toBe(422);
    expect((await post(`${first}0`, { state: 'success' })).status).toBe(422);
    const unknown = await post('f'.repeat(40), { state: 'success' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/commit does not exist/);
    const notCommit = await post(tree, { state: 'success' });
    expect(notCommit.status).toBe(422);
    expect(notCommit.body.message).toMatch(/tree, not a commit/);
    expect((await server.api('GET', `/repos/alice/ci/statuses/${first.slice(0, 10)}`, { token: aliceToken })).status).toBe(422);
    expect((await server.api('GET', `/repos/alice/ci/statuses/${'e'.repeat(40)}`, { token: aliceToken })).status).toBe(404);
  });

  test('a missing or unknown state is 422; over-long fields are 422', async () => {
    const bad = await post(first, { state: 'passed' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/state/);
    expect((await post(first, { description: 'no state' })).status).toBe(422);
    expect((await post(first, { state: 'success', context: 'c'.repeat(256) })).status).toBe(422);
    expect((await server.api('POST', `/repos/alice/ci/statuses/${first}`, { token: aliceToken })).status).toBe(422);
  });

  test('needs write access: read-only tokens 403, other users 403, anonymous 401, private repos 404', async () => {
    const readOnly = await post(first, { state: 'success' }, aliceRead);
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.message).toMatch(/write:repository/);
    expect((await post(first, { state: 'success' }, bobToken)).status).toBe(403);
    expect((await post(first, { state: 'success' }, null)).status).toBe(401);
    const secretHead = (
      await server.kernel
        .db('repo_branches')
        .join('repositories', 'repositories.id', 'repo_branches.repo_id')
        .where('repositories.lower_name', 'secret')
        .first('commit_id')
    ).commit_id;
    expect((await post(secretHead, { state: 'success' }, bobToken, 'alice/secret')).status).toBe(404);
    expect((await server.api('GET', `/repos/alice/secret/statuses/${secretHead}`)).status).toBe(404);
    expect((await post(secretHead, { state: 'success' }, aliceToken, 'alice/secret')).status).toBe(201);
    // Reading with a read-only token, or anonymously on a public repository, works.
    expect((await server.api('GET', `/repos/alice/ci/statuses/${first}`, { token: aliceRead })).status).toBe(200);
    expect((await server.api('GET', `/repos/alice/ci/statuses/${first}`)).status).toBe(200);
    expect((await server.api('GET', `/repos/alice/secret/statuses/${secretHead}`, { token: aliceRead })).status).toBe(200);
  });
});

describe('listing and combining', () => {
  let sha: string;
  beforeAll(async () => {
    // A commit of its own: a second repository with one commit.
    const res = await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'combo', auto_init: true } });
    expect(res.status).toBe(201);
    sha = (await server.kernel.db('repo_branches').where('repo_id', res.body.id).first('commit_id')).commit_id;
  });
  const combined = (ref: string, query = '') =>
    server.api('GET', `/repos/alice/combo/commits/${ref}/status${query}`, { token: aliceToken });
  const postCombo = (state: string, context: string) => post(sha, { state, context }, aliceToken, 'alice/combo');

  test('no statuses yet: an empty combined status for the resolved commit, state ""', async () => {
    const res = await combined('main');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: '', sha, total_count: 0, statuses: [], repository: { full_name: 'alice/combo' } });
    expect(res.headers.get('x-total-count')).toBe('0');
    const list = await server.api('GET', `/repos/alice/combo/statuses/${sha}`, { token: aliceToken });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });

  test('the latest status per context wins; the combined state is the worst of them', async () => {
    const steps: Array<[string, string, string]> = [
      // state, context, expected combined state afterwards
      ['pending', 'ci/build', 'pending'],
      ['success', 'ci/lint', 'pending'],
      ['success', 'ci/build', 'success'],
      ['warning', 'ci/docs', 'warning'],
      ['failure', 'ci/lint', 'failure'],
      ['error', 'CI/build', 'error'], // contexts are case-sensitive: a new context
      ['success', 'CI/build', 'failure'],
      ['success', 'ci/lint', 'warning'],
      ['success', 'ci/docs', 'success'],
    ];
    for (const [state, context, expected] of steps) {
      expect((await postCombo(state, context)).status).toBe(201);
      const res = await combined('main');
      expect({ after: `${state} ${context}`, state: res.body.state }).toEqual({ after: `${state} ${context}`, state: expected });
    }
    const res = await combined('main');
    expect(res.body.total_count).toBe(4);
    expect(res.body.url).toBe(`${server.url}api/v1/repos/alice/combo/commits/${sha}/status`);
    expect(res.body.commit_url).toBe(`${server.url}api/v1/repos/alice/combo/git/commits/${sha}`);
    // Newest first, one per context, each the latest of its context.
    expect(res.body.statuses.map((s: { context: string; status: string; id: number }) => [s.context, s.status, s.id])).toEqual([
      ['ci/docs', 'success', 9],
      ['ci/lint', 'success', 8],
      ['CI/build', 'success', 7],
      ['ci/build', 'success', 3],
    ]);
    // The same by full id, short id and HEAD.
    for (const ref of [sha, sha.slice(0, 8), 'HEAD'])
      expect((await combined(ref)).body).toMatchObject({ sha, state: 'success', total_count: 4 });
    // Paged: X-Total-Count counts contexts; the state still covers all of them.
    await postCombo('failure', 'ci/zzz');
    const paged = await combined('main', '?limit=2&page=2');
    expect(paged.body.statuses.map((s: { context: string }) => s.context)).toEqual(['ci/lint', 'CI/build']);
    expect(paged.body).toMatchObject({ state: 'failure', total_count: 5 });
    expect(paged.headers.get('x-total-count')).toBe('5');
    expect(paged.headers.get('link')).toContain('rel="next"');
  });

  test('all statuses of a commit: sorted, filtered by state, paged', async () => {
    const all = await server.api('GET', `/repos/alice/combo/statuses/${sha}?limit=50`, { token: aliceToken });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total-count')).toBe('10');
    expect(all.body.map((s: { id: number }) => s.id)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]); // newest first
    const byIndex = await server.api('GET', `/repos/alice/combo/statuses/${sha}?sort=leastindex&limit=3`, { token: aliceToken });
    expect(byIndex.body.map((s: { id: number }) => s.id)).toEqual([1, 2, 3]);
    expect(byIndex.headers.get('x-total-count')).toBe('10');
    const link = byIndex.headers.get('link')!;
    expect(link).toContain('page=2');
    expect(link).toContain('rel="next"');
    expect(link).toContain('rel="last"');
    const page2 = await server.api('GET', `/repos/alice/combo/statuses/${sha}?sort=leastindex&limit=3&page=2`, { token: aliceToken });
    expect(page2.body.map((s: { id: number }) => s.id)).toEqual([4, 5, 6]);
    expect(
      (await server.api('GET', `/repos/alice/combo/statuses/${sha}?sort=highestindex&limit=2`, { token: aliceToken })).body.map(
        (s: { id: number }) => s.id,
      ),
    ).toEqual([10, 9]);
    expect(
      (await server.api('GET', `/repos/alice/combo/statuses/${sha}?sort=oldest&limit=2`, { token: aliceToken })).body.map(
        (s: { id: number }) => s.id,
      ),
    ).toEqual([1, 2]);
    const failures = await server.api('GET', `/repos/alice/combo/statuses/${sha}?state=failure`, { token: aliceToken });
    expect(failures.body.map((s: { id: number; context: string }) => [s.id, s.context])).toEqual([
      [10, 'ci/zzz'],
      [5, 'ci/lint'],
    ]);
    expect(failures.headers.get('x-total-count')).toBe('2');
    expect((await server.api('GET', `/repos/alice/combo/statuses/${sha}?state=bogus`, { token: aliceToken })).status).toBe(422);
    expect((await server.api('GET', `/repos/alice/combo/statuses/${sha}?sort=bogus`, { token: aliceToken })).status).toBe(422);
    // /commits/{ref}/statuses lists the same rows.
    const byRef = await server.api('GET', '/repos/alice/combo/commits/main/statuses?sort=leastindex&limit=3', { token: aliceToken });
    expect(byRef.body.map((s: { id: number }) => s.id)).toEqual([1, 2, 3]);
    expect(byRef.headers.get('x-total-count')).toBe('10');
  });

  test('concurrent creation hands out distinct indexes', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_v, i) => postCombo('pending', `parallel/${i % 3}`)));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(results.map((r) => r.body.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_v, i) => 11 + i));
  });
});

describe('reading by ref', () => {
  test('branches with slashes, tags and ids resolve to their commit', async () => {
    expect((await post(feature, { state: 'failure', context: 'ci/build' })).status).toBe(201);
    for (const ref of ['feature/x', 'v1', feature, feature.slice(0, 12)]) {
      const res = await server.api('GET', `/repos/alice/ci/commits/${ref}/status`);
      expect({ ref, status: res.status, sha: res.body.sha }).toEqual({ ref, status: 200, sha: feature });
      expect(res.body.state).toBe('failure');
      const list = await server.api('GET', `/repos/alice/ci/commits/${ref}/statuses`);
      expect(list.status).toBe(200);
      expect(list.body.map((s: { context: string }) => s.context)).toEqual(['ci/build', 'upper', 'default']);
    }
    const main = await server.api('GET', '/repos/alice/ci/commits/main/status');
    expect(main.body).toMatchObject({ sha: first, state: 'pending', total_count: 1 });
  });

  test('unknown refs are 404, malformed ones 422', async () => {
    for (const ref of ['nope', 'feature/nope', 'v9', 'f'.repeat(40), 'abcdef0']) {
      const res = await server.api('GET', `/repos/alice/ci/commits/${ref}/status`);
      expect({ ref, status: res.status }).toEqual({ ref, status: 404 });
      expect(res.body.message).toMatch(/does not exist/);
      expect((await server.api('GET', `/repos/alice/ci/commits/${ref}/statuses`)).status).toBe(404);
    }
    expect((await server.api('GET', '/repos/alice/ci/commits/a..b/status')).status).toBe(422);
    expect((await server.api('GET', '/repos/alice/ci/commits/-x/statuses')).status).toBe(422);
    expect((await server.api('GET', '/repos/alice/nope/commits/main/status')).status).toBe(404);
  });

  test('the OpenAPI document lists the operations', async () => {
    const doc = (await server.api('GET', '//swagger.v1.json')).body;
    expect(doc.paths['/repos/{owner}/{repo}/statuses/{sha}'].post.operationId).toBe('repoCreateStatus');
    expect(doc.paths['/repos/{owner}/{repo}/statuses/{sha}'].get.operationId).toBe('repoListStatuses');
    expect(doc.paths['/repos/{owner}/{repo}/commits/{ref}/status'].get.operationId).toBe('repoGetCombinedStatusByRef');
    expect(doc.paths['/repos/{owner}/{repo}/commits/{ref}/statuses'].get.operationId).toBe('repoListStatusesByRef');
    expect(doc.paths['/repos/{owner}/{repo}/archive/{archive}'].get.operationId).toBe('repoGetArchive');
    expect(doc.definitions.CreateStatusOption.required).toEqual(['state']);
    for (const def of ['CommitStatus', 'CombinedStatus', 'CommitStatusState']) expect(doc.definitions[def]).toBeDefined();
  });
});
