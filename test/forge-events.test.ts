import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

// Every event that produces a webhook goes through `webhook.emit`: a plugin tapping it sees pushes,
// ref creation and deletion, repositories, forks and packages as the webhooks feature does.

const PROBE = path.join(__dirname, 'fixtures/plugins/probe');

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let aliceToken: string;
let bobToken: string;
let sandbox: ReturnType<typeof gitSandbox>;

beforeAll(async () => {
  server = await startServer({ plugins: { probe: { package: PROBE } } });
  alice = await server.user('alice');
  bob = await server.user('bob');
  aliceToken = await server.token(alice, ['write:repository', 'write:package', 'read:user']);
  bobToken = await server.token(bob, ['write:repository', 'read:user']);
  sandbox = gitSandbox();
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

interface Seen {
  event: string;
  action?: string;
  repositoryId?: number;
  ref?: string;
  ref_type?: string;
  package?: string;
}

/** What the probe recorded of `webhook.emit`, in order. */
async function emitted(): Promise<Seen[]> {
  const all = (await server.api('GET', '/probe/events')).body as Array<{ hook: string; detail: string }>;
  return all.filter((e) => e.hook === 'webhook.emit').map((e) => JSON.parse(e.detail));
}

async function git(args: string[], cwd?: string) {
  const res = await sandbox.git(args, cwd);
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

describe('forge events through webhook.emit', () => {
  let repoId: number;
  let work: string;

  test('a repository created, then pushed to: repository, create and push events with their refs', async () => {
    const before = (await emitted()).length;
    const res = await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'events' } });
    expect(res.status).toBe(201);
    repoId = res.body.id;
    expect((await emitted()).slice(before)).toContainEqual({ event: 'repository', action: 'created', repositoryId: repoId });

    work = path.join(sandbox.dir, 'events');
    await git(['clone', cloneUrl(server.url, 'alice/events.git', alice.name, alice.password), 'events']);
    fs.writeFileSync(path.join(work, 'a.txt'), 'a\n');
    await git(['add', 'a.txt'], work);
    await git(['commit', '-q', '-m', 'first'], work);
    await git(['branch', 'feature'], work);
    await git(['tag', 'v1.0'], work);
    const mark = (await emitted()).length;
    await git(['push', 'origin', 'main', 'feature', 'v1.0'], work);

    const seen = (await emitted()).slice(mark);
    for (const ref of ['main', 'feature']) {
      expect(seen).toContainEqual({ event: 'create', repositoryId: repoId, ref, ref_type: 'branch' });
      expect(seen).toContainEqual({ event: 'push', repositoryId: repoId, ref: `refs/heads/${ref}` });
    }
    expect(seen).toContainEqual({ event: 'create', repositoryId: repoId, ref: 'v1.0', ref_type: 'tag' });
    expect(seen).toContainEqual({ event: 'push', repositoryId: repoId, ref: 'refs/tags/v1.0' });
    expect(seen.filter((e) => e.event === 'delete')).toEqual([]);
    // A ref's create comes before its push.
    const createAt = seen.findIndex((e) => e.event === 'create' && e.ref === 'feature');
    const pushAt = seen.findIndex((e) => e.event === 'push' && e.ref === 'refs/heads/feature');
    expect(createAt).toBeLessThan(pushAt);
  });

  test('deleting a branch by push: a delete event (and the push), no create', async () => {
    const mark = (await emitted()).length;
    await git(['push', 'origin', ':feature'], work);
    const seen = (await emitted()).slice(mark);
    expect(seen).toContainEqual({ event: 'delete', repositoryId: repoId, ref: 'feature', ref_type: 'branch' });
    expect(seen).toContainEqual({ event: 'push', repositoryId: repoId, ref: 'refs/heads/feature' });
    expect(seen.filter((e) => e.event === 'create')).toEqual([]);
  });

  test('a fork: repository (created) for the fork and fork to the parent', async () => {
    const mark = (await emitted()).length;
    const res = await server.api('POST', '/repos/alice/events/forks', { token: bobToken, body: {} });
    expect(res.status).toBe(202);
    const seen = (await emitted()).slice(mark);
    expect(seen).toContainEqual({ event: 'repository', action: 'created', repositoryId: res.body.id });
    expect(seen).toContainEqual({ event: 'fork', repositoryId: repoId });
  });

  test('a repository deleted: repository (deleted)', async () => {
    const res = await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'doomed' } });
    const mark = (await emitted()).length;
    const token = await server.token(alice, ['write:repository', 'delete:repository']);
    expect((await server.api('DELETE', '/repos/alice/doomed', { token })).status).toBe(204);
    expect((await emitted()).slice(mark)).toContainEqual({ event: 'repository', action: 'deleted', repositoryId: res.body.id });
  });

  test('a generic package upload and deletion: package events', async () => {
    const mark = (await emitted()).length;
    const put = await fetch(new URL('api/packages/alice/generic/tool/1.0.0/tool.bin', server.url), {
      method: 'PUT',
      headers: { Authorization: `token ${aliceToken}` },
      body: 'bytes',
    });
    expect(put.status).toBe(201);
    expect((await emitted()).slice(mark)).toContainEqual({ event: 'package', action: 'created', package: 'tool' });

    const mark2 = (await emitted()).length;
    const token = await server.token(alice, ['delete:package']);
    expect((await server.api('DELETE', '/packages/alice/generic/tool/1.0.0', { token })).status).toBe(204);
    expect((await emitted()).slice(mark2)).toContainEqual({ event: 'package', action: 'deleted', package: 'tool' });
  });
});
