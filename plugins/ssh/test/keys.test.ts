import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCommand, startServer, type TestServer } from '@hearth/testing';

/** Gitea's key API over HTTP: users' public keys and repositories' deploy keys. */
let server: TestServer;
let work: string;
const tokens: Record<string, string> = {};
const admin = { basic: ['forge-admin', 'admin-password-1'] as [string, string] };

async function keygen(name: string, type = 'ed25519', bits?: number): Promise<{ pub: string; fingerprint: string; privateKey: string }> {
  const file = path.join(work, name);
  const made = await runCommand('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', name, '-f', file]);
  if (made.code !== 0) throw new Error(`ssh-keygen failed (apt-get install -y openssh-client): ${made.stderr}`);
  const fingerprint = (await runCommand('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`])).stdout.split(' ')[1];
  return { pub: fs.readFileSync(`${file}.pub`, 'utf8').trim(), fingerprint, privateKey: fs.readFileSync(file, 'utf8') };
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-keys-'));
  server = await startServer();
  for (const name of ['alice', 'bob', 'carol']) {
    const user = await server.user(name);
    tokens[name] = await server.token(user, ['delete:user', 'delete:repository']);
  }
  tokens.aliceRead = await server.token({ name: 'alice', password: 'alice-password-1' }, ['read:user']);
  expect((await server.api('POST', '/user/repos', { token: tokens.alice, body: { name: 'garden' } })).status).toBe(201);
  expect((await server.api('POST', '/user/repos', { token: tokens.alice, body: { name: 'shed' } })).status).toBe(201);
  const collaborator = await server.api('PUT', '/repos/alice/garden/collaborators/carol', {
    token: tokens.alice,
    body: { permission: 'write' },
  });
  expect(collaborator.status).toBe(204);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('user keys', () => {
  test('added, listed (with a fingerprint filter), read and deleted in the Gitea shape', async () => {
    const key = await keygen('alice-laptop');
    const made = await server.api('POST', '/user/keys', { token: tokens.alice, body: { title: 'laptop', key: `${key.pub}\n` } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      title: 'laptop',
      key: key.pub.split(' ').slice(0, 2).join(' '),
      fingerprint: key.fingerprint,
      read_only: false,
      key_type: 'user',
      user: { login: 'alice' },
    });
    expect(made.body.url).toMatch(new RegExp(`/api/v1/user/keys/${made.body.id}$`));
    expect(made.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const listed = await server.api('GET', '/user/keys', { token: tokens.aliceRead });
    expect(listed.status).toBe(200);
    expect(listed.body.map((k: { id: number }) => k.id)).toEqual([made.body.id]);
    expect(listed.headers.get('x-total-count')).toBe('1');
    expect(
      (await server.api('GET', `/user/keys?fingerprint=${encodeURIComponent(key.fingerprint)}`, { token: tokens.alice })).body,
    ).toHaveLength(1);
    expect((await server.api('GET', '/user/keys?fingerprint=SHA256:nothing', { token: tokens.alice })).body).toHaveLength(0);
    expect((await server.api('GET', '/users/alice/keys')).body.map((k: { id: number }) => k.id)).toEqual([made.body.id]);
    expect((await server.api('GET', `/user/keys/${made.body.id}`, { token: tokens.alice })).body.fingerprint).toBe(key.fingerprint);

    expect((await server.api('GET', `/user/keys/${made.body.id}`, { token: tokens.bob })).status).toBe(404);
    expect((await server.api('DELETE', `/user/keys/${made.body.id}`, { token: tokens.bob })).status).toBe(403);
    expect((await server.api('DELETE', `/user/keys/${made.body.id}`, { token: tokens.aliceRead })).status).toBe(403);
    expect((await server.api('DELETE', `/user/keys/${made.body.id}`, { token: tokens.alice })).status).toBe(204);
    expect((await server.api('GET', `/user/keys/${made.body.id}`, { token: tokens.alice })).status).toBe(404);
  });

  test('invalid input is a 422 naming the problem: no title, garbage, a private key, a short RSA key, a used key', async () => {
    const key = await keygen('bob-desk');
    const post = (body: unknown) => server.api('POST', '/user/keys', { token: tokens.bob, body });
    expect((await post({ key: key.pub })).status).toBe(422);
    expect((await post({ title: '  ', key: key.pub })).body.message).toMatch(/title is required/);
    expect((await post({ title: 'x', key: 'ssh-ed25519 AAAAnotakey' })).body.message).toMatch(/not a valid OpenSSH public key/);
    expect((await post({ title: 'x', key: key.privateKey })).body.message).toMatch(/private key/);
    const weak = await keygen('weak', 'rsa', 1024);
    expect((await post({ title: 'x', key: weak.pub })).body.message).toMatch(/at least 2048 bits/);
    const rsa = await keygen('strong', 'rsa', 2048);
    expect((await post({ title: 'rsa', key: rsa.pub })).status).toBe(201);
    const ecdsa = await keygen('ecdsa', 'ecdsa');
    expect((await post({ title: 'ecdsa', key: ecdsa.pub })).body.key).toMatch(/^ecdsa-sha2-nistp256 /);
    expect((await post({ title: 'desk', key: key.pub })).status).toBe(201);
    expect((await post({ title: 'desk', key: (await keygen('bob-2')).pub })).body.message).toMatch(/already exists/);
    const reused = await server.api('POST', '/user/keys', { token: tokens.carol, body: { title: 'stolen', key: key.pub } });
    expect(reused.status).toBe(422);
    expect(reused.body.message).toMatch(/already in use/);
    const asDeployKey = await server.api('POST', '/repos/alice/garden/keys', { token: tokens.alice, body: { title: 'd', key: key.pub } });
    expect(asDeployKey.status).toBe(422);
  });

  test('site admins add and delete keys on behalf of a user; others may not', async () => {
    const key = await keygen('carol-admin-added');
    expect((await server.api('POST', '/admin/users/carol/keys', { token: tokens.bob, body: { title: 'x', key: key.pub } })).status).toBe(
      403,
    );
    const made = await server.api('POST', '/admin/users/carol/keys', { ...admin, body: { title: 'by admin', key: key.pub } });
    expect(made.status).toBe(201);
    expect(made.body.user.login).toBe('carol');
    expect((await server.api('POST', '/admin/users/nobody/keys', { ...admin, body: { title: 'x', key: key.pub } })).status).toBe(404);
    expect((await server.api('DELETE', `/admin/users/bob/keys/${made.body.id}`, admin)).status).toBe(404);
    expect((await server.api('DELETE', `/admin/users/carol/keys/${made.body.id}`, admin)).status).toBe(204);
  });

  test('deleting a user removes their keys, so the key can be registered again', async () => {
    const dave = await server.user('dave');
    const daveToken = await server.token(dave, ['write:user']);
    const key = await keygen('dave');
    expect((await server.api('POST', '/user/keys', { token: daveToken, body: { title: 'k', key: key.pub } })).status).toBe(201);
    expect((await server.api('DELETE', '/admin/users/dave', admin)).status).toBe(204);
    expect((await server.api('POST', '/user/keys', { token: tokens.carol, body: { title: 'reuse', key: key.pub } })).status).toBe(201);
  });
});

describe('deploy keys', () => {
  test('repository admins manage them; read_only defaults to true; writers and strangers may not', async () => {
    const key = await keygen('deploy-garden');
    const made = await server.api('POST', '/repos/alice/garden/keys', { token: tokens.alice, body: { title: 'ci', key: key.pub } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ id: made.body.key_id, title: 'ci', fingerprint: key.fingerprint, read_only: true });
    expect(made.body.repository.full_name).toBe('alice/garden');
    expect(made.body.url).toMatch(new RegExp(`/api/v1/repos/alice/garden/keys/${made.body.id}$`));

    const list = await server.api('GET', '/repos/alice/garden/keys', { token: tokens.alice });
    expect(list.body.map((k: { id: number }) => k.id)).toEqual([made.body.id]);
    expect((await server.api('GET', `/repos/alice/garden/keys?key_id=${made.body.id + 1000}`, { token: tokens.alice })).body).toEqual([]);
    expect(
      (await server.api('GET', `/repos/alice/garden/keys?fingerprint=${encodeURIComponent(key.fingerprint)}`, { token: tokens.alice }))
        .body,
    ).toHaveLength(1);
    expect((await server.api('GET', `/repos/alice/shed/keys/${made.body.id}`, { token: tokens.alice })).status).toBe(404);
    expect((await server.api('GET', '/repos/alice/garden/keys', { token: tokens.carol })).status).toBe(403);
    expect((await server.api('GET', '/repos/alice/garden/keys', { token: tokens.bob })).status).toBe(403);
    expect(
      (await server.api('POST', '/repos/alice/garden/keys', { token: tokens.alice, body: { title: 'bad', read_only: 'no' } })).status,
    ).toBe(422);
    expect((await server.api('DELETE', `/repos/alice/garden/keys/${made.body.id}`, { token: tokens.alice })).status).toBe(204);
    expect((await server.api('GET', `/repos/alice/garden/keys/${made.body.id}`, { token: tokens.alice })).status).toBe(404);
  });

  test('deleting a repository removes its deploy keys', async () => {
    const key = await keygen('deploy-shed');
    const made = await server.api('POST', '/repos/alice/shed/keys', {
      token: tokens.alice,
      body: { title: 'w', key: key.pub, read_only: false },
    });
    expect(made.body.read_only).toBe(false);
    const deleteToken = await server.token({ name: 'alice', password: 'alice-password-1' }, ['delete:repository']);
    expect((await server.api('DELETE', '/repos/alice/shed', { token: deleteToken })).status).toBe(204);
    expect((await server.api('POST', '/user/keys', { token: tokens.bob, body: { title: 'freed', key: key.pub } })).status).toBe(201);
  });
});
