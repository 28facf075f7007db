import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let aliceToken: string;
let bobToken: string;
let sandbox: ReturnType<typeof gitSandbox>;

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  aliceToken = await server.token(alice, ['delete:repository']); // delete implies write and read
  bobToken = await server.token(bob, ['write:repository']);
  sandbox = gitSandbox();
  await server.api('POST', '/user/repos', {
    token: aliceToken,
    body: { name: 'origin-repo', description: 'the original', auto_init: true, default_branch: 'trunk' },
  });
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

describe('forks', () => {
  test('a fork is a full copy, marked as a fork of its parent, with the same default branch', async () => {
    const res = await server.api('POST', '/repos/alice/origin-repo/forks', { token: bobToken, body: {} });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      full_name: 'bob/origin-repo',
      fork: true,
      default_branch: 'trunk',
      empty: false,
      description: 'the original',
    });
    expect(res.body.parent).toMatchObject({ full_name: 'alice/origin-repo' });
    const clone = await sandbox.git(['clone', '-q', cloneUrl(server.url, 'bob/origin-repo.git'), 'fork-clone']);
    expect(clone.status).toBe(0);
    expect(fs.readFileSync(path.join(sandbox.dir, 'fork-clone', 'README.md'), 'utf8')).toContain('# origin-repo');
    expect(
      (await sandbox.git(['config', '--get', 'remote.origin.url'], path.join(server.dataDir, 'repositories', 'bob', 'origin-repo.git')))
        .status,
    ).not.toBe(0);
    expect((await server.api('GET', '/repos/alice/origin-repo')).body.forks_count).toBe(1);
    const branches = await server.kernel.db('repo_branches').where('repo_id', res.body.id).select('name');
    expect(branches.map((b: { name: string }) => b.name)).toEqual(['trunk']);
  });

  test('the wiki is copied with the fork, and the copies then go their own ways', async () => {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'with-wiki', auto_init: true } });
    const page = await server.api('POST', '/repos/alice/with-wiki/wiki/new', {
      token: aliceToken,
      body: { title: 'Home', content_base64: Buffer.from('# Welcome').toString('base64') },
    });
    expect(page.status).toBe(201);
    expect((await server.api('POST', '/repos/alice/with-wiki/forks', { token: bobToken, body: {} })).status).toBe(202);
    const copied = await server.api('GET', '/repos/bob/with-wiki/wiki/page/Home');
    expect(copied.status).toBe(200);
    expect(Buffer.from(copied.body.content_base64, 'base64').toString()).toBe('# Welcome');
    expect(
      (
        await server.api('PATCH', '/repos/bob/with-wiki/wiki/page/Home', {
          token: bobToken,
          body: { content_base64: Buffer.from('# Mine').toString('base64') },
        })
      ).status,
    ).toBe(200);
    const original = await server.api('GET', '/repos/alice/with-wiki/wiki/page/Home');
    expect(Buffer.from(original.body.content_base64, 'base64').toString()).toBe('# Welcome');
    // A repository without a wiki forks without one.
    expect(fs.existsSync(path.join(server.dataDir, 'repositories', 'bob', 'origin-repo.wiki.git'))).toBe(false);
  });

  test('forking again is a dedicated 409 naming the existing fork, not a 500', async () => {
    const again = await server.api('POST', '/repos/alice/origin-repo/forks', { token: bobToken, body: { name: 'another-name' } });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('repository is already forked by bob: bob/origin-repo');
  });

  test('forking into its own owner, an unknown organization, or an invisible repository is refused', async () => {
    expect((await server.api('POST', '/repos/alice/origin-repo/forks', { token: aliceToken, body: {} })).status).toBe(409);
    expect(
      (await server.api('POST', '/repos/alice/origin-repo/forks', { token: bobToken, body: { organization: 'no-such-org' } })).status,
    ).toBe(422);
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'hidden', private: true, auto_init: true } });
    expect((await server.api('POST', '/repos/alice/hidden/forks', { token: bobToken, body: {} })).status).toBe(404);
    const readOnly = await server.token(bob, ['read:repository']);
    expect((await server.api('POST', '/repos/alice/origin-repo/forks', { token: readOnly, body: { name: 'x' } })).status).toBe(403);
  });

  test('forks list shows visible forks, paged', async () => {
    const res = await server.api('GET', '/repos/alice/origin-repo/forks');
    expect(res.body.map((r: { full_name: string }) => r.full_name)).toEqual(['bob/origin-repo']);
    expect(res.headers.get('x-total-count')).toBe('1');
  });

  test('the maximum repository count applies to forks only when ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT is false', async () => {
    for (const allow of [true, false]) {
      const limited = await startServer({ repository: { MAX_CREATION_LIMIT: 1, ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT: allow } });
      try {
        const owner = await limited.user('owner');
        const forker = await limited.user('forker');
        const ownerToken = await limited.token(owner, ['write:repository']);
        const forkerToken = await limited.token(forker, ['write:repository']);
        await limited.api('POST', '/user/repos', { token: ownerToken, body: { name: 'src', auto_init: true } });
        await limited.api('POST', '/user/repos', { token: forkerToken, body: { name: 'mine' } });
        const fork = await limited.api('POST', '/repos/owner/src/forks', { token: forkerToken, body: {} });
        expect({ allow, status: fork.status }).toEqual({ allow, status: allow ? 202 : 403 });
        expect((await limited.api('POST', '/user/repos', { token: forkerToken, body: { name: 'third' } })).status).toBe(403);
      } finally {
        await limited.close();
      }
    }
  });
});

describe('topics', () => {
  test('replace, add, list, delete; names are normalised and validated', async () => {
    expect(
      (await server.api('PUT', '/repos/alice/origin-repo/topics', { token: aliceToken, body: { topics: ['Go', 'cli', 'go'] } })).status,
    ).toBe(204);
    expect((await server.api('GET', '/repos/alice/origin-repo/topics')).body).toEqual({ topics: ['cli', 'go'] });
    expect((await server.api('PUT', '/repos/alice/origin-repo/topics/forge', { token: aliceToken })).status).toBe(204);
    expect((await server.api('DELETE', '/repos/alice/origin-repo/topics/cli', { token: aliceToken })).status).toBe(204);
    expect((await server.api('GET', '/repos/alice/origin-repo/topics')).body).toEqual({ topics: ['forge', 'go'] });
    const bad = await server.api('PUT', '/repos/alice/origin-repo/topics', {
      token: aliceToken,
      body: { topics: ['ok', 'not ok', '-dash', 'x'.repeat(36)] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.invalidTopics).toEqual(['not ok', '-dash', 'x'.repeat(36)]);
    const tooMany = await server.api('PUT', '/repos/alice/origin-repo/topics', {
      token: aliceToken,
      body: { topics: Array.from({ length: 26 }, (_, i) => `t${i}`) },
    });
    expect(tooMany.status).toBe(422);
    expect((await server.api('DELETE', '/repos/alice/origin-repo/topics/never', { token: aliceToken })).status).toBe(404);
    expect((await server.api('PUT', '/repos/alice/origin-repo/topics/x', { token: bobToken })).status).toBe(403);
  });

  test('search counts repositories the caller can see', async () => {
    await server.api('PUT', '/repos/alice/hidden/topics', { token: aliceToken, body: { topics: ['go', 'secret-topic'] } });
    await server.api('PUT', '/repos/bob/origin-repo/topics', { token: bobToken, body: { topics: ['go'] } });
    const anon = await server.api('GET', '/topics/search?q=go');
    expect(anon.body.topics.map((t: { topic_name: string; repo_count: number }) => [t.topic_name, t.repo_count])).toEqual([['go', 2]]);
    const owner = await server.api('GET', '/topics/search?q=e', { token: aliceToken });
    expect(owner.body.topics.map((t: { topic_name: string }) => t.topic_name)).toEqual(['forge', 'secret-topic']);
    expect((await server.api('GET', '/topics/search?q=secret')).body.topics).toEqual([]);
  });
});

describe('generating from a template repository', () => {
  beforeAll(async () => {
    await server.api('POST', '/user/repos', {
      token: aliceToken,
      body: { name: 'starter', auto_init: true, template: true, gitignores: 'Node' },
    });
    await server.api('PUT', '/repos/alice/starter/topics', { token: aliceToken, body: { topics: ['starter-kit'] } });
  });

  test('git content becomes one fresh commit of the same tree; topics are copied', async () => {
    const res = await server.api('POST', '/repos/alice/starter/generate', {
      token: bobToken,
      body: { owner: 'bob', name: 'my-app', git_content: true, topics: true, private: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ full_name: 'bob/my-app', private: true, empty: false, default_branch: 'main' });
    const url = cloneUrl(server.url, 'bob/my-app.git', 'bob', bobToken);
    expect((await sandbox.git(['clone', '-q', url, 'generated'])).status).toBe(0);
    const dir = path.join(sandbox.dir, 'generated');
    expect(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8')).toContain('# ---> Node');
    const log = (await sandbox.git(['log', '--format=%an|%s|%P'], dir)).stdout.trim().split('\n');
    expect(log).toEqual(['bob|Initial commit|']); // one commit, no parent: no shared history
    const templateTree = (await sandbox.git(['ls-remote', cloneUrl(server.url, 'alice/starter.git')])).stdout;
    expect(templateTree).toMatch(/refs\/heads\/main/);
    expect((await server.api('GET', '/repos/bob/my-app/topics', { token: bobToken })).body).toEqual({ topics: ['starter-kit'] });
    const refs = (
      await sandbox.git(['for-each-ref', '--format=%(refname)'], path.join(server.dataDir, 'repositories', 'bob', 'my-app.git'))
    ).stdout.trim();
    expect(refs).toBe('refs/heads/main');
  });

  test('not a template, nothing chosen, someone else as owner, or a taken name are refused', async () => {
    expect(
      (
        await server.api('POST', '/repos/alice/origin-repo/generate', {
          token: bobToken,
          body: { owner: 'bob', name: 'x', git_content: true },
        })
      ).status,
    ).toBe(404);
    expect((await server.api('POST', '/repos/alice/starter/generate', { token: bobToken, body: { owner: 'bob', name: 'x' } })).status).toBe(
      422,
    );
    expect(
      (
        await server.api('POST', '/repos/alice/starter/generate', {
          token: bobToken,
          body: { owner: 'alice', name: 'x', git_content: true },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await server.api('POST', '/repos/alice/starter/generate', {
          token: bobToken,
          body: { owner: 'bob', name: 'my-app', git_content: true },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await server.api('POST', '/repos/alice/starter/generate', {
          token: bobToken,
          body: { owner: 'nobody-x', name: 'x', git_content: true },
        })
      ).status,
    ).toBe(404);
  });
});
