import crypto from 'node:crypto';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { migrationsTable } from './helpers/kernel';
import { upgradeSandbox } from './helpers/upgrade-sandbox';

// Gitea's pre-1.20 scope names (older clients, imported databases) become category scopes that keep their access.
describe('creating tokens with pre-1.20 scope names', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  const admin = { name: ADMIN.name, password: ADMIN.password };

  beforeAll(async () => {
    server = await startServer();
    alice = await server.user('alice');
    const basic: [string, string] = [alice.name, alice.password];
    const created = await server.api('POST', '/user/repos', { basic, body: { name: 'proj', auto_init: true } });
    expect(created.status).toBe(201);
  });
  afterAll(() => server.close());

  const create = (user: { name: string; password: string }, scopes: string[]) =>
    server.api('POST', `/users/${user.name}/tokens`, {
      basic: [user.name, user.password],
      body: { name: `t-${Math.random().toString(36).slice(2)}`, scopes },
    });

  test.each([
    [['repo', 'read:org', 'user', 'notification'], 'write:notification,read:organization,delete:issue,delete:repository,delete:user'],
    [['public_repo'], 'public-only,delete:issue,delete:repository'],
    [['repo:status', 'read:repo_hook'], 'write:repository'],
    [['repo', 'write:repository', 'delete_repo', 'repo'], 'delete:issue,delete:repository'],
    [['admin:repo_hook,admin:org_hook'], 'delete:organization,delete:repository'],
    [['package', 'write:package'], 'delete:package'],
    [['read:package', 'write:gpg_key', 'read:public_key'], 'read:package,write:user'],
    [['admin:org', 'admin:public_key', 'admin:gpg_key', 'admin:application', 'admin:user_hook'], 'delete:organization,delete:user'],
    [['user:email', 'user:follow', 'read:user'], 'delete:user'],
    [['sudo', 'repo:status'], 'write:repository'],
    [['all', 'repo'], 'all'],
  ])('%j is stored as %s', async (scopes, expected) => {
    const res = await create(alice, scopes);
    expect(res.status).toBe(201);
    expect(res.body.scopes).toEqual(expected.split(','));
    const listed = await server.api('GET', `/users/alice/tokens`, { basic: [alice.name, alice.password] });
    expect(listed.body.find((t: { id: number }) => t.id === res.body.id).scopes).toEqual(expected.split(','));
  });

  test('sudo is the admin category for a site admin only', async () => {
    const adminToken = await create(admin, ['sudo']);
    expect(adminToken.body.scopes).toEqual(['delete:admin']);
    expect((await server.api('GET', '/admin/users', { token: adminToken.body.sha1 })).status).toBe(200);
    const refused = await create(alice, ['sudo']);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('site administrators');
    expect((await create(alice, ['repo', 'not-a-scope'])).status).toBe(400);
  });

  test('the converted scopes grant what the old names did: repo deletes branches and reads issues', async () => {
    const token = (await create(alice, ['repo'])).body.sha1;
    expect((await server.api('POST', '/repos/alice/proj/branches', { token, body: { new_branch_name: 'b' } })).status).toBe(201);
    expect((await server.api('DELETE', '/repos/alice/proj/branches/b', { token })).status).toBe(204);
    expect((await server.api('GET', '/repos/alice/proj/issues', { token })).status).toBe(200);
    expect((await server.api('GET', '/user', { token })).status).toBe(403);
    const readOrg = (await create(alice, ['read:org'])).body.sha1;
    expect((await server.api('GET', '/orgs', { token: readOrg })).status).toBe(200);
    expect((await server.api('POST', '/orgs', { token: readOrg, body: { username: 'guild' } })).status).toBe(403);
  });
});

describe('migration 0019_convert_legacy_token_scopes', () => {
  const sandbox = upgradeSandbox('legacy-scopes');
  const secrets = { repo: 'a'.repeat(40), sudoAdmin: 'b'.repeat(40), sudoUser: 'c'.repeat(40), junk: 'd'.repeat(40) };

  test('tokens stored with old scope names keep working after the upgrade', async () => {
    // What an older database holds: tokens with pre-1.20 scopes, and the conversion not yet run.
    let kernel = await sandbox.boot({});
    let url = await kernel.listen();
    const alice = await kernel.users.create({ name: 'alice', password: 'alice-password-1', email: 'alice@example.com' }, null);
    await sandbox.createRepo(url, 'proj');
    const admin = await kernel.users.byName(ADMIN.name);
    const now = Math.floor(Date.now() / 1000);
    const row = (uid: number, name: string, secret: string, scope: string) => ({
      uid,
      name,
      token_hash: crypto.createHash('sha256').update(secret).digest('hex'),
      token_last_eight: secret.slice(-8),
      scope,
      created_unix: now,
      updated_unix: now,
    });
    await kernel
      .db('access_tokens')
      .insert([
        row(alice.id, 'old-repo', secrets.repo, 'repo,read:org,user'),
        row(admin!.id, 'old-sudo', secrets.sudoAdmin, 'sudo,repo'),
        row(alice.id, 'old-sudo', secrets.sudoUser, 'sudo'),
        row(alice.id, 'odd', secrets.junk, 'bogus,read:repository'),
      ]);
    await kernel.db(migrationsTable(null)).where('name', '0019_convert_legacy_token_scopes').delete();
    await kernel.close();

    kernel = await sandbox.boot({});
    try {
      url = await kernel.listen();
      const scopes = Object.fromEntries(
        (await kernel.db('access_tokens').select('uid', 'name', 'scope')).map((r) => [`${r.uid}:${r.name}`, r.scope]),
      );
      expect(scopes).toMatchObject({
        [`${alice.id}:old-repo`]: 'read:organization,delete:issue,delete:repository,delete:user',
        [`${admin!.id}:old-sudo`]: 'delete:admin,delete:issue,delete:repository',
        [`${alice.id}:old-sudo`]: '',
        [`${alice.id}:odd`]: 'bogus,read:repository',
      });
      const call = (method: string, path: string, secret: string, body?: unknown) =>
        fetch(new URL(`api/v1${path}`, url), {
          method,
          headers: { Authorization: `token ${secret}`, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect((await call('GET', '/user', secrets.repo)).status).toBe(200);
      expect((await call('GET', '/repos/forge-admin/proj/issues', secrets.sudoAdmin)).status).toBe(200);
      expect((await call('GET', '/admin/users', secrets.sudoAdmin)).status).toBe(200);
      expect((await call('POST', '/repos/forge-admin/proj/branches', secrets.sudoAdmin, { new_branch_name: 'b' })).status).toBe(201);
      expect((await call('DELETE', '/repos/forge-admin/proj/branches/b', secrets.sudoAdmin)).status).toBe(204);
      expect((await call('GET', '/repos/forge-admin/proj', secrets.junk)).status).toBe(200);
      // A non-admin's sudo never granted anything: the token now grants nothing.
      expect((await call('GET', '/repos/forge-admin/proj', secrets.sudoUser)).status).toBe(403);
    } finally {
      await kernel.close();
    }
  });
});
