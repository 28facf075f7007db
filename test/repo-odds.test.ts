import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

/**
 * Gitea 1.20 repository operations served in issue 26: `GET /repos/{o}/{r}/assignees`, the
 * team ↔ repository operations from the repository's side, the deprecated `POST /org/{org}/repos`
 * the deprecated comment routes under an issue, and a commit as `git diff` / `git format-patch`
 * (compared with git itself on a clone). Runs on every database.
 */
let server: TestServer;
type U = { name: string; password: string; id: number };
const u: Record<string, U> = {};
const as = (name: string) => ({ basic: [u[name].name, u[name].password] as [string, string] });
const logins = (body: unknown) => (body as Array<{ login: string }>).map((x) => x.login);

beforeAll(async () => {
  server = await startServer();
  for (const name of ['ro-owner', 'ro-writer', 'ro-reader', 'ro-member', 'ro-viewer', 'ro-stranger']) u[name] = await server.user(name);
  expect((await server.api('POST', '/user/repos', { ...as('ro-owner'), body: { name: 'solo', auto_init: true } })).status).toBe(201);
  await server.api('PUT', '/repos/ro-owner/solo/collaborators/ro-writer', { ...as('ro-owner'), body: { permission: 'write' } });
  await server.api('PUT', '/repos/ro-owner/solo/collaborators/ro-reader', { ...as('ro-owner'), body: { permission: 'read' } });
  expect((await server.api('POST', '/orgs', { ...as('ro-owner'), body: { username: 'ro-org' } })).status).toBe(201);
  const team = await server.api('POST', '/orgs/ro-org/teams', {
    ...as('ro-owner'),
    body: { name: 'devs', permission: 'write', includes_all_repositories: false, units: ['repo.code', 'repo.issues'] },
  });
  expect(team.status).toBe(201);
  const viewers = await server.api('POST', '/orgs/ro-org/teams', {
    ...as('ro-owner'),
    body: { name: 'viewers', permission: 'read', includes_all_repositories: false, units: ['repo.code', 'repo.issues'] },
  });
  await server.api('PUT', `/teams/${(team.body as any).id}/members/ro-member`, as('ro-owner'));
  await server.api('PUT', `/teams/${(viewers.body as any).id}/members/ro-viewer`, as('ro-owner'));
});
afterAll(async () => server?.close());

test('the deprecated POST /org/{org}/repos creates a repository of the organization like /orgs/{org}/repos', async () => {
  const made = await server.api('POST', '/org/ro-org/repos', { ...as('ro-owner'), body: { name: 'shared', auto_init: true } });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ full_name: 'ro-org/shared', owner: { login: 'ro-org' } });
  expect((await server.api('POST', '/org/ro-org/repos', { ...as('ro-stranger'), body: { name: 'nope' } })).status).toBe(403);
  expect((await server.api('POST', '/org/ro-org/repos', { ...as('ro-owner'), body: { name: 'bad name!' } })).status).toBe(422);
  expect((await server.api('POST', '/org/ro-org/repos', { body: { name: 'anon' } })).status).toBe(401);
});

test('repository teams: check, add (422 twice), remove (422 when absent); 405 for a user repository', async () => {
  expect((await server.api('GET', '/repos/ro-org/shared/teams/devs', as('ro-owner'))).status).toBe(404);
  expect((await server.api('PUT', '/repos/ro-org/shared/teams/devs', as('ro-owner'))).status).toBe(204);
  const check = await server.api('GET', '/repos/ro-org/shared/teams/devs', as('ro-owner'));
  expect(check.status).toBe(200);
  expect(check.body).toMatchObject({ name: 'devs', permission: 'write' });
  expect((await server.api('PUT', '/repos/ro-org/shared/teams/devs', as('ro-owner'))).status).toBe(422);
  expect((await server.api('PUT', '/repos/ro-org/shared/teams/viewers', as('ro-owner'))).status).toBe(204);
  expect((await server.api('GET', '/repos/ro-org/shared/teams/Owners', as('ro-owner'))).status).toBe(200);
  expect((await server.api('DELETE', '/repos/ro-org/shared/teams/viewers', as('ro-owner'))).status).toBe(204);
  expect((await server.api('DELETE', '/repos/ro-org/shared/teams/viewers', as('ro-owner'))).status).toBe(422);
  expect((await server.api('GET', '/repos/ro-org/shared/teams/viewers', as('ro-owner'))).status).toBe(404);
  expect((await server.api('GET', '/repos/ro-org/shared/teams/nobody', as('ro-owner'))).status).toBe(404);
  expect((await server.api('PUT', '/repos/ro-org/shared/teams/devs', as('ro-member'))).status).toBe(403);
  expect((await server.api('GET', '/repos/ro-owner/solo/teams/devs', as('ro-owner'))).status).toBe(405);
  expect((await server.api('GET', '/repos/ro-org/shared/teams/devs')).status).toBe(401);
});

test('assignees: writers of issues or pull requests, by name, then a user owner', async () => {
  const solo = await server.api('GET', '/repos/ro-owner/solo/assignees', as('ro-reader'));
  expect(solo.status).toBe(200);
  expect(logins(solo.body)).toEqual(['ro-writer', 'ro-owner']);
  // The organization's: the Owners team and the write team; not the read team.
  const shared = await server.api('GET', '/repos/ro-org/shared/assignees', as('ro-owner'));
  expect(logins(shared.body)).toEqual(['ro-member', 'ro-owner']);
  expect((await server.api('GET', '/repos/ro-owner/solo/assignees')).status).toBe(401);
});

test('the deprecated comment routes under an issue edit and delete only that issue’s comments', async () => {
  for (const title of ['one', 'two']) await server.api('POST', '/repos/ro-owner/solo/issues', { ...as('ro-owner'), body: { title } });
  const c = await server.api('POST', '/repos/ro-owner/solo/issues/1/comments', { ...as('ro-writer'), body: { body: 'first words' } });
  const id = (c.body as { id: number }).id;
  expect(
    (await server.api('PATCH', `/repos/ro-owner/solo/issues/2/comments/${id}`, { ...as('ro-writer'), body: { body: 'x' } })).status,
  ).toBe(404);
  const edited = await server.api('PATCH', `/repos/ro-owner/solo/issues/1/comments/${id}`, {
    ...as('ro-writer'),
    body: { body: 'new words' },
  });
  expect(edited.status).toBe(200);
  expect(edited.body).toMatchObject({ id, body: 'new words' });
  expect(
    (await server.api('PATCH', `/repos/ro-owner/solo/issues/1/comments/${id}`, { ...as('ro-reader'), body: { body: 'y' } })).status,
  ).toBe(403);
  expect((await server.api('PATCH', `/repos/ro-owner/solo/issues/1/comments/${id}`, { ...as('ro-writer'), body: {} })).status).toBe(422);
  expect((await server.api('DELETE', `/repos/ro-owner/solo/issues/2/comments/${id}`, as('ro-owner'))).status).toBe(404);
  expect((await server.api('DELETE', `/repos/ro-owner/solo/issues/1/comments/${id}`, as('ro-owner'))).status).toBe(204);
  expect((await server.api('GET', `/repos/ro-owner/solo/issues/comments/${id}`, as('ro-owner'))).status).toBe(404);
});

test('a commit as diff or patch: what git itself prints; a ref with a dot is still the commit', async () => {
  const add = await server.api('POST', '/repos/ro-owner/solo/contents/notes.txt', {
    ...as('ro-owner'),
    body: { content: Buffer.from('line one\nline two\n').toString('base64'), message: 'Add notes' },
  });
  expect(add.status).toBe(201);
  const sha = (add.body as any).commit.sha as string;
  const sandbox = gitSandbox();
  expect(
    (await sandbox.git(['clone', '-q', cloneUrl(server.url, 'ro-owner/solo.git', 'ro-owner', u['ro-owner'].password), 'solo'])).status,
  ).toBe(0);
  const dir = path.join(sandbox.dir, 'solo');
  const git = async (args: string[]) => (await sandbox.git(args, dir)).stdout;

  const diff = await server.api('GET', `/repos/ro-owner/solo/git/commits/${sha}.diff`, as('ro-reader'));
  expect(diff.status).toBe(200);
  expect(diff.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(diff.text).toBe(await git(['diff', '-M', `${sha}^`, sha]));
  expect(diff.text).toContain('+line two');
  const patch = await server.api('GET', `/repos/ro-owner/solo/git/commits/${sha}.patch`, as('ro-reader'));
  expect(patch.text).toBe(await git(['format-patch', '--no-signature', '--stdout', `${sha}...${sha}^`]));
  expect(patch.text).toMatch(/^From [0-9a-f]{40} /);
  expect(patch.text).toContain('Subject: [PATCH] Add notes');
  // The root commit: `git show`.
  const root = (await git(['rev-list', '--max-parents=0', 'HEAD'])).trim();
  expect((await server.api('GET', `/repos/ro-owner/solo/git/commits/${root}.diff`, as('ro-reader'))).text).toBe(await git(['show', root]));

  expect(
    (await server.api('POST', '/repos/ro-owner/solo/tags', { ...as('ro-owner'), body: { tag_name: 'v1.0', target: sha } })).status,
  ).toBe(201);
  const dotted = await server.api('GET', '/repos/ro-owner/solo/git/commits/v1.0', as('ro-reader'));
  expect(dotted.status).toBe(200);
  expect(dotted.body).toMatchObject({ sha });
  expect((await server.api('GET', '/repos/ro-owner/solo/git/commits/nothing-here.diff', as('ro-reader'))).status).toBe(404);
  expect((await server.api('GET', `/repos/ro-owner/solo/git/commits/${sha}.diff`, as('ro-stranger'))).status).toBe(200);
});

test('POST /diffpatch applies git’s own diff as one commit of the caller; a stale patch is 422; protection holds', async () => {
  const sandbox = gitSandbox();
  expect(
    (await sandbox.git(['clone', '-q', cloneUrl(server.url, 'ro-owner/solo.git', 'ro-owner', u['ro-owner'].password), 'p'])).status,
  ).toBe(0);
  const dir = path.join(sandbox.dir, 'p');
  const fs = await import('node:fs');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'line one\nline 2\n');
  fs.writeFileSync(path.join(dir, 'added.txt'), 'brand new\n');
  expect((await sandbox.git(['add', '-A'], dir)).status).toBe(0);
  const patch = (await sandbox.git(['diff', '--cached'], dir)).stdout;

  const applied = await server.api('POST', '/repos/ro-owner/solo/diffpatch', {
    ...as('ro-writer'),
    body: { content: patch, message: 'Apply a patch' },
  });
  expect(applied.status).toBe(200);
  expect(applied.body).toMatchObject({ content: null, commit: { message: 'Apply a patch\n', author: { name: 'ro-writer' } } });
  const read = async (file: string) =>
    Buffer.from(
      ((await server.api('GET', `/repos/ro-owner/solo/contents/${file}`, as('ro-reader'))).body as any).content,
      'base64',
    ).toString();
  expect(await read('notes.txt')).toBe('line one\nline 2\n');
  expect(await read('added.txt')).toBe('brand new\n');

  // The same patch again no longer applies.
  const again = await server.api('POST', '/repos/ro-owner/solo/diffpatch', { ...as('ro-writer'), body: { content: patch } });
  expect(again.status).toBe(422);
  expect(again.body).toMatchObject({ message: expect.stringContaining('does not apply') });
  expect((await server.api('POST', '/repos/ro-owner/solo/diffpatch', { ...as('ro-writer'), body: {} })).status).toBe(422);
  expect((await server.api('POST', '/repos/ro-owner/solo/diffpatch', { ...as('ro-reader'), body: { content: patch } })).status).toBe(403);
  expect(
    (await server.api('POST', '/repos/ro-owner/solo/diffpatch', { ...as('ro-writer'), body: { content: patch, branch: 'nope' } })).status,
  ).toBe(404);

  // A protected branch that lets nobody push refuses the patch.
  const back = (await sandbox.git(['diff', '-R', '--cached'], dir)).stdout;
  expect(
    (await server.api('POST', '/repos/ro-owner/solo/branch_protections', { ...as('ro-owner'), body: { branch_name: 'main' } })).status,
  ).toBe(201);
  expect((await server.api('POST', '/repos/ro-owner/solo/diffpatch', { ...as('ro-writer'), body: { content: back } })).status).toBe(403);
});
