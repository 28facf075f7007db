import { startServer, type TestServer } from './helpers/server';

/**
 * Gitea 1.20 repository operations served in issue 26: `GET /repos/{o}/{r}/assignees`, the
 * team ↔ repository operations from the repository's side, the deprecated `POST /org/{org}/repos`
 * and the deprecated comment routes under an issue. Runs on every database.
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
