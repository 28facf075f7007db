import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { waitFor } from './helpers/wait';

// Gitea 1.20 repeats `login` as `username` on every User object; clients key users by it.
let server: TestServer;
let alice: { name: string; password: string; id: number };
let token: string;
let hookBodies: string[];
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  hookBodies = [];
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hookBodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  server = await startServer({ webhook: { ALLOWED_HOST_LIST: 'loopback', POLL_INTERVAL: 0.1 } });
  alice = await server.user('alice');
  token = await server.token(alice, ['all']);
  expect((await server.api('POST', '/user/repos', { token, body: { name: 'proj', auto_init: true } })).status).toBe(201);
  expect((await server.api('POST', '/orgs', { token, body: { username: 'guild' } })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Every object in `value` that looks like a User (has `login` and `avatar_url`). */
function usersIn(value: unknown, found: Array<Record<string, unknown>> = []): Array<Record<string, unknown>> {
  if (Array.isArray(value)) for (const item of value) usersIn(item, found);
  else if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if (typeof obj.login === 'string' && 'avatar_url' in obj) found.push(obj);
    for (const child of Object.values(obj)) usersIn(child, found);
  }
  return found;
}

function expectUsernames(value: unknown, atLeast: number): void {
  const users = usersIn(value);
  expect(users.length).toBeGreaterThanOrEqual(atLeast);
  for (const user of users) expect({ login: user.login, username: user.username }).toEqual({ login: user.login, username: user.login });
}

test('username equals login on users from /user, searches, repositories, issues and teams', async () => {
  const me = await server.api('GET', '/user', { token });
  expect(me.body).toMatchObject({ login: 'alice', username: 'alice' });
  expectUsernames((await server.api('GET', '/users/search?q=ali', { token })).body.data, 1);
  const search = await server.api('GET', '/repos/search?q=proj', { token });
  expect(search.body.data[0].owner).toMatchObject({ login: 'alice', username: 'alice' });
  expectUsernames(search.body.data, 1);
  expectUsernames((await server.api('GET', '/users/alice', { basic: [ADMIN.name, ADMIN.password] })).body, 1);

  const issue = await server.api('POST', '/repos/alice/proj/issues', { token, body: { title: 'hello', assignees: ['alice'] } });
  expect(issue.status).toBe(201);
  expect(issue.body.user).toMatchObject({ login: 'alice', username: 'alice' });
  expectUsernames(issue.body, 2);
  expectUsernames((await server.api('GET', '/repos/alice/proj/issues', { token })).body, 2);

  const teams = await server.api('GET', '/orgs/guild/teams', { token });
  const members = await server.api('GET', `/teams/${teams.body[0].id}/members`, { token });
  expect(members.body).toEqual([expect.objectContaining({ login: 'alice', username: 'alice' })]);
});

test("a webhook payload's sender and repository owner carry username", async () => {
  const hook = await server.api('POST', '/repos/alice/proj/hooks', {
    token,
    body: { type: 'gitea', active: true, events: ['push'], config: { url: receiverUrl, content_type: 'json' } },
  });
  expect(hook.status).toBe(201);
  expect((await server.api('POST', `/repos/alice/proj/hooks/${hook.body.id}/tests`, { token })).status).toBe(204);
  const body = JSON.parse(await waitFor('test delivery', () => hookBodies[0]));
  expect(body.sender).toMatchObject({ login: 'alice', username: 'alice' });
  expect(body.repository.owner).toMatchObject({ login: 'alice', username: 'alice' });
  expectUsernames(body, 2);
});

test('the served OpenAPI User schema documents username', async () => {
  const doc = await server.api('GET', '//swagger.v1.json');
  const schemas = doc.body.definitions ?? doc.body.components?.schemas;
  expect(schemas.User.properties.username).toMatchObject({ type: 'string' });
});
