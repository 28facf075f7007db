import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

// An API DELETE and a git push that deletes a ref both need delete:repository; with
// security.WRITE_SCOPE_IMPLIES_DELETE a write:repository token does both (Gitea 1.20 has no delete level).
interface Setup {
  server: TestServer;
  sandbox: ReturnType<typeof gitSandbox>;
  work: string;
  writeToken: string;
  deleteToken: string;
  alice: { name: string; password: string };
}

async function setup(overrides: Record<string, unknown> = {}): Promise<Setup> {
  const server = await startServer(overrides);
  const alice = await server.user('alice');
  // Labels are in the issue category, branches and git in the repository category.
  const writeToken = await server.token(alice, ['write:repository', 'write:issue', 'read:user']);
  const deleteToken = await server.token(alice, ['delete:repository', 'delete:issue', 'read:user']);
  const created = await server.api('POST', '/user/repos', { token: deleteToken, body: { name: 'proj', auto_init: true } });
  expect(created.status).toBe(201);
  const sandbox = gitSandbox();
  const work = `${sandbox.dir}/work`;
  const clone = await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/proj.git', 'alice', writeToken), work]);
  expect(clone.stderr).toBe('');
  return { server, sandbox, work, writeToken, deleteToken, alice };
}

async function teardown(s: Setup | undefined): Promise<void> {
  s?.sandbox.cleanup();
  await s?.server.close();
}

/** Push a new branch and tag with the write token (creating refs needs write only). */
async function pushRefs(s: Setup, branch: string, tag: string): Promise<void> {
  expect((await s.sandbox.git(['tag', tag], s.work)).status).toBe(0);
  const push = await s.sandbox.git(['push', '-q', 'origin', `HEAD:refs/heads/${branch}`, tag], s.work);
  expect(push).toMatchObject({ status: 0 });
}

async function branchExists(s: Setup, branch: string): Promise<boolean> {
  return (await s.server.api('GET', `/repos/alice/proj/branches/${branch}`, { token: s.deleteToken })).status === 200;
}

async function label(s: Setup, name: string): Promise<number> {
  const res = await s.server.api('POST', '/repos/alice/proj/labels', { token: s.writeToken, body: { name, color: '#00aabb' } });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('default: deleting needs delete:repository', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup();
  });
  afterAll(() => teardown(s));

  test('API DELETE of a label and a branch: 403 with write, 204 with delete', async () => {
    const id = await label(s, 'bug');
    const refused = await s.server.api('DELETE', `/repos/alice/proj/labels/${id}`, { token: s.writeToken });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('delete:issue');
    expect((await s.server.api('DELETE', `/repos/alice/proj/labels/${id}`, { token: s.deleteToken })).status).toBe(204);

    const branch = await s.server.api('POST', '/repos/alice/proj/branches', { token: s.writeToken, body: { new_branch_name: 'api-b' } });
    expect(branch.status).toBe(201);
    expect((await s.server.api('DELETE', '/repos/alice/proj/branches/api-b', { token: s.writeToken })).status).toBe(403);
    expect(await branchExists(s, 'api-b')).toBe(true);
    expect((await s.server.api('DELETE', '/repos/alice/proj/branches/api-b', { token: s.deleteToken })).status).toBe(204);
    expect(await branchExists(s, 'api-b')).toBe(false);
  });

  test('git push deleting a branch or a tag with a write-only token is refused; the refs stay', async () => {
    await pushRefs(s, 'doomed', 'v1');
    const branch = await s.sandbox.git(['push', 'origin', ':doomed'], s.work);
    expect(branch.status).not.toBe(0);
    expect(branch.stderr).toContain('cannot delete refs/heads/doomed');
    expect(branch.stderr).toContain('delete:repository');
    expect(await branchExists(s, 'doomed')).toBe(true);
    const tag = await s.sandbox.git(['push', 'origin', ':refs/tags/v1'], s.work);
    expect(tag.status).not.toBe(0);
    expect(tag.stderr).toContain('cannot delete refs/tags/v1');
    expect((await s.server.api('GET', '/repos/alice/proj/tags/v1', { token: s.deleteToken })).status).toBe(200);

    // A push mixing a delete with an update is refused as a whole (git's pre-receive is atomic).
    expect((await s.sandbox.git(['commit', '-q', '--allow-empty', '-m', 'more'], s.work)).status).toBe(0);
    const mixed = await s.sandbox.git(['push', 'origin', 'HEAD:refs/heads/main', ':doomed'], s.work);
    expect(mixed.status).not.toBe(0);
    expect(await branchExists(s, 'doomed')).toBe(true);

    // The same deletes with a delete:repository token go through.
    const url = cloneUrl(s.server.url, 'alice/proj.git', 'alice', s.deleteToken);
    const ok = await s.sandbox.git(['push', '-q', url, ':doomed', ':refs/tags/v1'], s.work);
    expect(ok).toMatchObject({ status: 0 });
    expect(await branchExists(s, 'doomed')).toBe(false);
    expect((await s.server.api('GET', '/repos/alice/proj/tags/v1', { token: s.deleteToken })).status).toBe(404);
  });
});

describe('security.WRITE_SCOPE_IMPLIES_DELETE', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setup({ security: { WRITE_SCOPE_IMPLIES_DELETE: true } });
  });
  afterAll(() => teardown(s));

  test('a write:repository token deletes over the API and over git', async () => {
    const id = await label(s, 'bug');
    expect((await s.server.api('DELETE', `/repos/alice/proj/labels/${id}`, { token: s.writeToken })).status).toBe(204);
    await pushRefs(s, 'doomed', 'v1');
    expect((await s.server.api('DELETE', '/repos/alice/proj/branches/doomed', { token: s.writeToken })).status).toBe(204);
    const tag = await s.sandbox.git(['push', '-q', 'origin', ':refs/tags/v1'], s.work);
    expect(tag).toMatchObject({ status: 0 });
    expect((await s.server.api('GET', '/repos/alice/proj/tags/v1', { token: s.deleteToken })).status).toBe(404);
    await pushRefs(s, 'doomed2', 'v2');
    expect(await s.sandbox.git(['push', '-q', 'origin', ':doomed2'], s.work)).toMatchObject({ status: 0 });
    expect(await branchExists(s, 'doomed2')).toBe(false);
  });

  test('only the categories granted at write gain delete: write:repository does not grant delete:issue', async () => {
    const id = await label(s, 'kept');
    const repoOnly = await s.server.token(s.alice, ['write:repository', 'read:issue']);
    const refused = await s.server.api('DELETE', `/repos/alice/proj/labels/${id}`, { token: repoOnly });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('delete:issue');
  });
});
