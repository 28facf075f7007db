import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';

let server: TestServer;
let aliceToken: string;
let bobToken: string;
let adminToken: string;

beforeAll(async () => {
  server = await startServer();
  const alice = await server.user('alice');
  const bob = await server.user('bob');
  aliceToken = await server.token(alice, ['delete:repository']);
  bobToken = await server.token(bob, ['write:repository']);
  adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
  for (const name of ['gift', 'declined', 'by-admin', 'secret-gift']) {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name, auto_init: true, private: name === 'secret-gift' } });
  }
});
afterAll(() => server.close());

const dirOf = (owner: string, repo: string) => path.join(server.dataDir, 'repositories', owner, `${repo}.git`);

test('to another user: pending until the recipient accepts; then the repository and its files move', async () => {
  const started = await server.api('POST', '/repos/alice/gift/transfer', { token: aliceToken, body: { new_owner: 'bob' } });
  expect(started.status).toBe(202);
  expect(started.body.owner.login).toBe('alice');
  expect(started.body.repo_transfer).toMatchObject({ doer: { login: 'alice' }, recipient: { login: 'bob' }, teams: null });
  // Only the recipient answers.
  expect((await server.api('POST', '/repos/alice/gift/transfer/accept', { token: aliceToken })).status).toBe(403);
  const accepted = await server.api('POST', '/repos/alice/gift/transfer/accept', { token: bobToken });
  expect(accepted.status).toBe(202);
  expect(accepted.body).toMatchObject({ full_name: 'bob/gift', repo_transfer: null, permissions: { admin: true } });
  expect(fs.existsSync(dirOf('bob', 'gift'))).toBe(true);
  expect(fs.existsSync(dirOf('alice', 'gift'))).toBe(false);
  expect((await server.api('GET', '/repos/alice/gift', { token: aliceToken })).status).toBe(404);
});

test('the recipient can reject; nothing moves', async () => {
  await server.api('POST', '/repos/alice/declined/transfer', { token: aliceToken, body: { new_owner: 'bob' } });
  const rejected = await server.api('POST', '/repos/alice/declined/transfer/reject', { token: bobToken });
  expect(rejected.status).toBe(200);
  expect(rejected.body).toMatchObject({ full_name: 'alice/declined', repo_transfer: null });
  expect((await server.api('POST', '/repos/alice/declined/transfer/accept', { token: bobToken })).status).toBe(404);
});

test('a private repository can be accepted by its recipient, who could not see it before', async () => {
  await server.api('POST', '/repos/alice/secret-gift/transfer', { token: aliceToken, body: { new_owner: 'bob' } });
  expect((await server.api('GET', '/repos/alice/secret-gift', { token: bobToken })).status).toBe(404);
  const accepted = await server.api('POST', '/repos/alice/secret-gift/transfer/accept', { token: bobToken });
  expect(accepted.status).toBe(202);
  expect(accepted.body.full_name).toBe('bob/secret-gift');
});

test('a site admin transfers at once; clashes and bad targets are 4xx', async () => {
  const moved = await server.api('POST', '/repos/alice/by-admin/transfer', { token: adminToken, body: { new_owner: 'bob' } });
  expect(moved.status).toBe(202);
  expect(moved.body.full_name).toBe('bob/by-admin');
  await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'by-admin' } });
  expect((await server.api('POST', '/repos/alice/by-admin/transfer', { token: adminToken, body: { new_owner: 'bob' } })).status).toBe(422);
  expect(
    (await server.api('POST', '/repos/alice/by-admin/transfer', { token: aliceToken, body: { new_owner: 'nobody-here' } })).status,
  ).toBe(404);
  expect((await server.api('POST', '/repos/alice/by-admin/transfer', { token: aliceToken, body: { new_owner: 'alice' } })).status).toBe(
    422,
  );
  expect((await server.api('POST', '/repos/alice/by-admin/transfer', { token: bobToken, body: { new_owner: 'bob' } })).status).toBe(403);
  expect((await server.api('POST', '/repos/alice/by-admin/transfer', { token: aliceToken, body: {} })).status).toBe(422);
});
