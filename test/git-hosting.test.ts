import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

const PROBE = path.join(__dirname, 'fixtures/plugins/probe');

let server: TestServer;
let alice: { name: string; password: string; id: number };
let aliceToken: string;
let sandbox: ReturnType<typeof gitSandbox>;

beforeAll(async () => {
  server = await startServer({ plugins: { probe: { package: PROBE } } });
  alice = await server.user('alice');
  aliceToken = await server.token(alice, ['write:repository', 'read:user', 'delete:repository']);
  sandbox = gitSandbox();
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

const events = async (hook: string) =>
  (await server.api('GET', '/probe/events')).body
    .filter((e: { hook: string }) => e.hook === hook)
    .map((e: { detail: string }) => JSON.parse(e.detail));

const createRepo = (body: Record<string, unknown>, token = aliceToken) => server.api('POST', '/user/repos', { token, body });

/** Clone into a fresh folder of the sandbox and return its path. */
async function clone(url: string, folder: string, extra: string[] = []) {
  const res = await sandbox.git(['clone', ...extra, url, folder]);
  return { ...res, dir: path.join(sandbox.dir, folder) };
}

async function commitFile(dir: string, file: string, content: string, message = `edit ${file}`) {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), content);
  expect((await sandbox.git(['add', file], dir)).status).toBe(0);
  expect((await sandbox.git(['commit', '-q', '-m', message], dir)).status).toBe(0);
}

describe('creating repositories', () => {
  test('an empty repository: Gitea JSON, bare directory on disk, repository.created', async () => {
    const res = await createRepo({ name: 'Empty-One', description: 'nothing yet' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Empty-One',
      full_name: 'alice/Empty-One',
      description: 'nothing yet',
      empty: true,
      private: false,
      fork: false,
      default_branch: 'main',
      clone_url: `${server.url}alice/Empty-One.git`,
      html_url: `${server.url}alice/Empty-One`,
      permissions: { admin: true, push: true, pull: true },
      owner: { login: 'alice' },
      has_code: true,
      has_issues: true,
      has_pull_requests: true,
      has_releases: true,
      has_wiki: true,
      has_projects: true,
      has_packages: true,
      has_actions: true,
      default_allow_maintainer_edit: false,
      allow_merge_commits: true,
      default_merge_style: 'merge',
    });
    expect(fs.existsSync(path.join(server.dataDir, 'repositories', 'alice', 'empty-one.git', 'HEAD'))).toBe(true);
    expect(await events('repository.created')).toContainEqual({ repo: 'alice/Empty-One' });
  });

  test('auto_init with readme, gitignores and license makes a first commit git can clone', async () => {
    const res = await createRepo({
      name: 'inited',
      description: 'Hello there',
      auto_init: true,
      readme: 'Default',
      gitignores: 'Go,Node',
      license: 'MIT',
      default_branch: 'trunk',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ empty: false, default_branch: 'trunk' });
    const cloned = await clone(cloneUrl(server.url, 'alice/inited.git'), 'inited');
    expect(cloned.status).toBe(0);
    expect(fs.readFileSync(path.join(cloned.dir, 'README.md'), 'utf8')).toBe('# inited\n\nHello there\n');
    const ignore = fs.readFileSync(path.join(cloned.dir, '.gitignore'), 'utf8');
    expect(ignore).toContain('# ---> Go');
    expect(ignore).toContain('# ---> Node');
    expect(fs.readFileSync(path.join(cloned.dir, 'LICENSE'), 'utf8')).toContain('Permission is hereby granted');
    expect((await sandbox.git(['rev-parse', '--abbrev-ref', 'HEAD'], cloned.dir)).stdout.trim()).toBe('trunk');
    expect((await sandbox.git(['log', '--format=%an <%ae>|%s'], cloned.dir)).stdout.trim()).toBe(
      'alice <alice@example.com>|Initial commit',
    );
  });

  test('unknown templates are 400 and leave nothing behind', async () => {
    for (const body of [{ readme: 'Fancy' }, { license: 'Not-A-License' }, { gitignores: 'Go,NoSuchLanguage' }]) {
      const res = await createRepo({ name: 'tmpl', auto_init: true, ...body });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/does not exist|unknown|not exist/i);
    }
    expect((await server.api('GET', '/repos/alice/tmpl', { token: aliceToken })).status).toBe(404);
    expect(fs.existsSync(path.join(server.dataDir, 'repositories', 'alice', 'tmpl.git'))).toBe(false);
  });

  test('a taken name (any case) is 409; so is a directory on disk without a record', async () => {
    expect((await createRepo({ name: 'taken' })).status).toBe(201);
    const again = await createRepo({ name: 'TAKEN' });
    expect(again.status).toBe(409);
    fs.mkdirSync(path.join(server.dataDir, 'repositories', 'alice', 'orphan.git'), { recursive: true });
    const orphan = await createRepo({ name: 'orphan' });
    expect(orphan.status).toBe(409);
    expect(orphan.body.message).toMatch(/on disk/);
  });

  test('invalid names are 422; a missing name is 422 naming the field', async () => {
    for (const name of ['bad name', 'x.git', '..', 'a/b', 'wiki.wiki', '-', 'ü']) {
      expect({ name, status: (await createRepo({ name })).status }).toEqual({ name, status: 422 });
    }
    const missing = await createRepo({});
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain('body.name: is required');
  });

  test('MAX_CREATION_LIMIT refuses creation beyond the limit', async () => {
    const limited = await startServer({ repository: { MAX_CREATION_LIMIT: 1 } });
    try {
      const bob = await limited.user('bob');
      const token = await limited.token(bob, ['write:repository']);
      expect((await limited.api('POST', '/user/repos', { token, body: { name: 'one' } })).status).toBe(201);
      const second = await limited.api('POST', '/user/repos', { token, body: { name: 'two' } });
      expect(second.status).toBe(403);
      expect(second.body.message).toMatch(/maximum limit of repositories/);
    } finally {
      await limited.close();
    }
  });

  test('creating needs write:repository; admins create for others', async () => {
    const readOnly = await server.token(alice, ['read:repository']);
    expect((await createRepo({ name: 'nope' }, readOnly)).status).toBe(403);
    const adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['write:admin', 'write:repository']);
    const res = await server.api('POST', '/admin/users/alice/repos', { token: adminToken, body: { name: 'made-by-admin', private: true } });
    expect(res.status).toBe(201);
    expect(res.body.owner.login).toBe('alice');
    expect(res.body.private).toBe(true);
  });
});

describe('smart HTTP with the git client', () => {
  test('clone an empty repository, push to it; branches and default branch are recorded; push.received fires', async () => {
    await createRepo({ name: 'pushed' });
    const url = cloneUrl(server.url, 'alice/pushed.git', 'alice', aliceToken);
    const cloned = await clone(url, 'pushed');
    expect(cloned.status).toBe(0);
    expect(cloned.stderr).toMatch(/empty repository/);
    await sandbox.git(['checkout', '-q', '-b', 'develop'], cloned.dir);
    await commitFile(cloned.dir, 'a.txt', 'one\n');
    const push = await sandbox.git(['push', 'origin', 'develop'], cloned.dir);
    expect(push.status).toBe(0);
    const head = (await sandbox.git(['rev-parse', 'HEAD'], cloned.dir)).stdout.trim();
    const repo = (await server.api('GET', '/repos/alice/pushed', { token: aliceToken })).body;
    expect(repo.empty).toBe(false);
    expect(repo.default_branch).toBe('develop'); // the configured default (main) was not pushed
    const rows = await server.kernel.db('repo_branches').where('repo_id', repo.id).select('name', 'commit_id');
    expect(rows).toEqual([{ name: 'develop', commit_id: head }]);
    expect(await events('push.received')).toContainEqual({
      repo: 'alice/pushed',
      pusher: 'alice',
      updates: [{ ref: 'refs/heads/develop', oldId: '0'.repeat(40), newId: head }],
    });
    // A second branch; the default stays.
    await sandbox.git(['checkout', '-q', '-b', 'main'], cloned.dir);
    await commitFile(cloned.dir, 'b.txt', 'two\n');
    expect((await sandbox.git(['push', 'origin', 'main'], cloned.dir)).status).toBe(0);
    expect((await server.api('GET', '/repos/alice/pushed', { token: aliceToken })).body.default_branch).toBe('develop');
  });

  test('pushes and creation appear in the activity data (Gitea action rows with the pushed commits)', async () => {
    const repo = (await server.api('GET', '/repos/alice/pushed', { token: aliceToken })).body;
    const rows = await server.kernel
      .db('activities')
      .where('repo_id', repo.id)
      .orderBy('id')
      .select('op_type', 'ref_name', 'content', 'act_user_id');
    expect(rows.map((r: { op_type: number; ref_name: string }) => [r.op_type, r.ref_name])).toEqual([
      [1, ''],
      [5, 'refs/heads/develop'],
      [5, 'refs/heads/main'],
    ]);
    const develop = JSON.parse(rows[1].content);
    expect(develop).toMatchObject({
      Len: 1,
      HeadCommit: { Message: 'edit a.txt', AuthorName: 'Tester', AuthorEmail: 'tester@example.com' },
    });
    expect(develop.Commits).toHaveLength(1);
    expect(rows[1].act_user_id).toBe(alice.id);
  });

  test('fetch over protocol v0 and v2, with and without .git', async () => {
    for (const [version, suffix] of [
      ['0', '.git'],
      ['2', ''],
      ['2', '.git'],
      ['0', ''],
    ]) {
      const res = await sandbox.git([
        '-c',
        `protocol.version=${version}`,
        'clone',
        '-q',
        cloneUrl(server.url, `alice/pushed${suffix}`),
        `v${version}${suffix}`,
      ]);
      expect({ version, suffix, status: res.status, stderr: res.stderr }).toEqual({ version, suffix, status: 0, stderr: '' });
    }
    const trace = await sandbox.git(['-c', 'protocol.version=2', 'ls-remote', cloneUrl(server.url, 'alice/pushed.git')]);
    expect(trace.stdout).toMatch(/refs\/heads\/develop/);
  });

  test('deleting the default branch is refused with a message git shows; other branches can go', async () => {
    const work = path.join(sandbox.dir, 'pushed');
    const refused = await sandbox.git(['push', 'origin', ':develop'], work);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('refusing to delete the default branch develop');
    expect((await sandbox.git(['push', 'origin', ':main'], work)).status).toBe(0);
    const repo = (await server.api('GET', '/repos/alice/pushed', { token: aliceToken })).body;
    expect((await server.kernel.db('repo_branches').where('repo_id', repo.id).select('name')).map((r: { name: string }) => r.name)).toEqual(
      ['develop'],
    );
  });

  test("refreshHooks (run by `hearth migrate`) restores every repository's server hooks", async () => {
    const hook = path.join(server.dataDir, 'repositories', 'alice', 'pushed.git', 'hooks', 'pre-receive');
    fs.writeFileSync(hook, '#!/bin/sh\nexit 0\n');
    expect(await server.kernel.repos.refreshHooks()).toBeGreaterThan(0);
    expect(fs.readFileSync(hook, 'utf8')).toContain('refusing to delete the default branch');
  });

  test('refs reserved for the server (pull requests) cannot be pushed', async () => {
    const work = path.join(sandbox.dir, 'pushed');
    const res = await sandbox.git(['push', 'origin', 'HEAD:refs/pull/1/head'], work);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('refs/pull/1/head is reserved for the server');
    expect((await sandbox.git(['ls-remote', 'origin', 'refs/pull/*'], work)).stdout).toBe('');
  });

  test('concurrent pushes to one repository lose no ref', async () => {
    await createRepo({ name: 'busy', auto_init: true });
    const url = cloneUrl(server.url, 'alice/busy.git', 'alice', aliceToken);
    const dirs: string[] = [];
    for (const i of [0, 1, 2, 3]) {
      const c = await clone(url, `busy-${i}`);
      await sandbox.git(['checkout', '-q', '-b', `feature-${i}`], c.dir);
      await commitFile(c.dir, `f${i}.txt`, `${i}\n`);
      dirs.push(c.dir);
    }
    const pushes = await Promise.all(dirs.map((dir, i) => sandbox.git(['push', 'origin', `feature-${i}`], dir)));
    expect(pushes.map((p) => p.status)).toEqual([0, 0, 0, 0]);
    const repo = (await server.api('GET', '/repos/alice/busy', { token: aliceToken })).body;
    const names = (await server.kernel.db('repo_branches').where('repo_id', repo.id).orderBy('name').select('name')).map(
      (r: { name: string }) => r.name,
    );
    expect(names).toEqual(['feature-0', 'feature-1', 'feature-2', 'feature-3', 'main']);
    const remote = (await sandbox.git(['ls-remote', '--heads', url])).stdout;
    for (const n of names) expect(remote).toContain(`refs/heads/${n}`);
  });

  test('a gzip-encoded upload-pack request is understood', async () => {
    const head = (await sandbox.git(['ls-remote', cloneUrl(server.url, 'alice/busy.git'), 'refs/heads/main'])).stdout.split('\t')[0];
    const pkt = (s: string) => (s.length + 4).toString(16).padStart(4, '0') + s;
    const request = pkt(`want ${head} ofs-delta\n`) + '0000' + pkt('done\n');
    const res = await fetch(`${server.url}alice/busy.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' },
      body: zlib.gzipSync(request),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(Buffer.from(await res.arrayBuffer()).includes(Buffer.from('PACK'))).toBe(true);
  });

  test('private repositories: anonymous gets 401 with a Basic challenge; others get 404; the owner clones', async () => {
    await createRepo({ name: 'secret', private: true, auto_init: true });
    const anon = await fetch(`${server.url}alice/secret.git/info/refs?service=git-upload-pack`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Basic/);
    // The same answer for a repository that does not exist: nothing is revealed.
    expect((await fetch(`${server.url}alice/no-such-repo.git/info/refs?service=git-upload-pack`)).status).toBe(401);
    const carol = await server.user('carol');
    const carolToken = await server.token(carol, ['read:repository']);
    const other = await fetch(`${server.url}alice/secret.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `token ${carolToken}` },
    });
    expect(other.status).toBe(404);
    const anonClone = await sandbox.git(['clone', cloneUrl(server.url, 'alice/secret.git'), 'secret-anon']);
    expect(anonClone.status).not.toBe(0);
    expect((await clone(cloneUrl(server.url, 'alice/secret.git', 'alice', aliceToken), 'secret-owner')).status).toBe(0);
    expect((await clone(cloneUrl(server.url, 'alice/secret.git', 'alice', alice.password), 'secret-password')).status).toBe(0);
  });

  test('pushing needs credentials, write permission and write:repository', async () => {
    const work = path.join(sandbox.dir, 'busy-0');
    await commitFile(work, 'late.txt', 'late\n');
    const anonymous = await sandbox.git(['push', cloneUrl(server.url, 'alice/busy.git'), 'HEAD:refs/heads/anon'], work);
    expect(anonymous.status).not.toBe(0);
    expect((await fetch(`${server.url}alice/busy.git/info/refs?service=git-receive-pack`)).status).toBe(401);
    const readOnly = await server.token(alice, ['read:repository']);
    const denied = await fetch(`${server.url}alice/busy.git/info/refs?service=git-receive-pack`, {
      headers: { Authorization: `token ${readOnly}` },
    });
    expect(denied.status).toBe(403);
    const noRepoScope = await server.token(alice, ['read:user']);
    expect(
      (await fetch(`${server.url}alice/busy.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `token ${noRepoScope}` } }))
        .status,
    ).toBe(403);
    const dave = await server.user('dave');
    const daveToken = await server.token(dave, ['write:repository']);
    expect(
      (await sandbox.git(['push', cloneUrl(server.url, 'alice/busy.git', 'dave', daveToken), 'HEAD:refs/heads/dave'], work)).status,
    ).not.toBe(0);
    const wrong = await sandbox.git(['push', cloneUrl(server.url, 'alice/busy.git', 'alice', 'wrong-password'), 'HEAD:refs/heads/x'], work);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toMatch(/Authentication failed|401/);
  });

  test('switching the code unit off closes git transport too', async () => {
    await createRepo({ name: 'codeless', auto_init: true });
    expect((await sandbox.git(['ls-remote', cloneUrl(server.url, 'alice/codeless.git')])).status).toBe(0);
    await server.api('PATCH', '/repos/alice/codeless', { token: aliceToken, body: { has_code: false } });
    // Anonymous callers get the same challenge as for a private or missing repository; signed-in ones a 404.
    expect((await fetch(`${server.url}alice/codeless.git/info/refs?service=git-upload-pack`)).status).toBe(401);
    const res = await fetch(`${server.url}alice/codeless.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `token ${aliceToken}` },
    });
    expect(res.status).toBe(404);
    expect((await sandbox.git(['ls-remote', cloneUrl(server.url, 'alice/codeless.git')])).status).not.toBe(0);
  });

  test('dumb HTTP and wrong content types are refused clearly', async () => {
    expect((await fetch(`${server.url}alice/busy.git/info/refs`)).status).toBe(403);
    const res = await fetch(`${server.url}alice/busy.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '0000',
    });
    expect(res.status).toBe(415);
  });
});

describe('repository API', () => {
  test('GET by owner/name and by id; private ones are hidden from others', async () => {
    const repo = (await server.api('GET', '/repos/alice/busy', { token: aliceToken })).body;
    expect((await server.api('GET', `/repositories/${repo.id}`)).body.full_name).toBe('alice/busy');
    const secret = (await server.api('GET', '/repos/alice/secret', { token: aliceToken })).body;
    expect((await server.api('GET', '/repos/alice/secret')).status).toBe(404);
    expect((await server.api('GET', `/repositories/${secret.id}`)).status).toBe(404);
    const publicOnly = await server.token(alice, ['public-only', 'read:repository']);
    expect((await server.api('GET', '/repos/alice/secret', { token: publicOnly })).status).toBe(404);
    expect((await server.api('GET', '/repos/alice/busy', { token: publicOnly })).body.permissions).toEqual({
      admin: false,
      push: false,
      pull: true,
    });
  });

  test('PATCH edits fields and units; at least one unit stays enabled; non-admins get 403', async () => {
    const res = await server.api('PATCH', '/repos/alice/busy', {
      token: aliceToken,
      body: {
        description: 'busy bee',
        website: 'https://example.com',
        has_actions: false,
        has_packages: false,
        has_releases: false,
        default_allow_maintainer_edit: true,
        default_merge_style: 'squash',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      description: 'busy bee',
      website: 'https://example.com',
      has_actions: false,
      has_packages: false,
      has_releases: false,
      has_code: true,
      default_allow_maintainer_edit: true,
      default_merge_style: 'squash',
    });
    const allOff = Object.fromEntries(
      ['has_code', 'has_issues', 'has_pull_requests', 'has_releases', 'has_wiki', 'has_projects', 'has_packages', 'has_actions'].map(
        (k) => [k, false],
      ),
    );
    const refused = await server.api('PATCH', '/repos/alice/busy', { token: aliceToken, body: allOff });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/at least one unit/);
    const onlyWiki = await server.api('PATCH', '/repos/alice/busy', { token: aliceToken, body: { ...allOff, has_wiki: true } });
    expect(onlyWiki.body.has_wiki).toBe(true);
    expect(onlyWiki.body.has_code).toBe(false);
    expect((await server.api('PATCH', '/repos/alice/busy', { token: aliceToken, body: { has_code: true } })).body.has_code).toBe(true);
    const carolToken = await server.token({ name: 'carol', password: 'carol-password-1' }, ['write:repository']);
    expect((await server.api('PATCH', '/repos/alice/busy', { token: carolToken, body: { description: 'mine now' } })).status).toBe(403);
    expect((await server.api('PATCH', '/repos/alice/busy', { token: aliceToken, body: { default_merge_style: 'octopus' } })).status).toBe(
      422,
    );
  });

  test('changing the default branch needs an existing branch; rename keeps git working at the new path', async () => {
    expect((await server.api('PATCH', '/repos/alice/busy', { token: aliceToken, body: { default_branch: 'nope' } })).status).toBe(404);
    const changed = await server.api('PATCH', '/repos/alice/busy', { token: aliceToken, body: { default_branch: 'feature-1' } });
    expect(changed.body.default_branch).toBe('feature-1');
    const renamed = await server.api('PATCH', '/repos/alice/busy', { token: aliceToken, body: { name: 'Bees' } });
    expect(renamed.body.full_name).toBe('alice/Bees');
    const remote = await sandbox.git(['ls-remote', '--symref', cloneUrl(server.url, 'alice/bees.git'), 'HEAD']);
    expect(remote.stdout).toContain('ref: refs/heads/feature-1\tHEAD');
    expect((await server.api('GET', '/repos/alice/busy', { token: aliceToken })).status).toBe(404);
    const clash = await server.api('PATCH', '/repos/alice/Bees', { token: aliceToken, body: { name: 'inited' } });
    expect(clash.status).toBe(422);
  });

  test('search, /user/repos and /users/{username}/repos honour visibility and page', async () => {
    const anon = await server.api('GET', '/repos/search?q=secret');
    expect(anon.body).toEqual({ ok: true, data: [] });
    const own = await server.api('GET', '/repos/search?q=secret', { token: aliceToken });
    expect(own.body.data.map((r: { full_name: string }) => r.full_name)).toEqual(['alice/secret']);
    const mine = await server.api('GET', '/user/repos?limit=2', { token: aliceToken });
    expect(mine.body).toHaveLength(2);
    expect(Number(mine.headers.get('x-total-count'))).toBeGreaterThan(5);
    const theirs = await server.api('GET', '/users/alice/repos?limit=50');
    expect(theirs.body.every((r: { private: boolean }) => !r.private)).toBe(true);
    const sorted = await server.api('GET', '/repos/search?sort=alpha&order=desc&limit=50', { token: aliceToken });
    const names = sorted.body.data.map((r: { name: string }) => r.name.toLowerCase());
    expect(names).toEqual([...names].sort().reverse());
  });

  test('DELETE removes the record and the directory; repository.deleted fires', async () => {
    await createRepo({ name: 'doomed', auto_init: true });
    const dir = path.join(server.dataDir, 'repositories', 'alice', 'doomed.git');
    expect(fs.existsSync(dir)).toBe(true);
    expect((await server.api('DELETE', '/repos/alice/doomed', { token: aliceToken })).status).toBe(204);
    expect(fs.existsSync(dir)).toBe(false);
    expect((await server.api('GET', '/repos/alice/doomed', { token: aliceToken })).status).toBe(404);
    expect(await events('repository.deleted')).toContainEqual({ repo: 'alice/doomed' });
  });
});

describe('owners change', () => {
  test('renaming a user moves their repositories; git follows the new name', async () => {
    const erin = await server.user('erin');
    const token = await server.token(erin, ['write:repository']);
    await server.api('POST', '/user/repos', { token, body: { name: 'notes', auto_init: true } });
    const adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
    expect((await server.api('POST', '/admin/users/erin/rename', { token: adminToken, body: { new_username: 'erina' } })).status).toBe(204);
    expect((await server.api('GET', '/repos/erina/notes', { token })).body.full_name).toBe('erina/notes');
    expect((await sandbox.git(['ls-remote', cloneUrl(server.url, 'erina/notes.git')])).status).toBe(0);
    expect(fs.existsSync(path.join(server.dataDir, 'repositories', 'erin'))).toBe(false);
  });

  test('deleting a user who owns repositories needs purge, which removes them', async () => {
    const adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
    const refused = await server.api('DELETE', '/admin/users/erina', { token: adminToken });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/owns 1 repositories/);
    expect((await server.api('DELETE', '/admin/users/erina?purge=true', { token: adminToken })).status).toBe(204);
    expect(fs.existsSync(path.join(server.dataDir, 'repositories', 'erina'))).toBe(false);
    expect(await server.kernel.db('repositories').where('owner_name', 'erina')).toEqual([]);
  });
});
