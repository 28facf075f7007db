import fs from 'node:fs';
import path from 'node:path';
import {
  ApiError,
  type RepositoryCreationPlan,
  type RepositoryDeletingEvent,
  type RepositoryRenamedEvent,
  type RepositoryTransferredEvent,
} from '@hearth/plugin-api';
import { startServer, type TestServer } from './helpers/server';

let server: TestServer;
let alice: { name: string; password: string; id: number };
let aliceToken: string;
const deleting: Array<{ name: string; hasTrx: boolean }> = [];
const renamed: RepositoryRenamedEvent[] = [];
const transferred: RepositoryTransferredEvent[] = [];
const plans: RepositoryCreationPlan[] = [];
/** Repositories the test tap refuses to let go. */
const protectedNames = new Set<string>();

const b64 = (s: string) => Buffer.from(s).toString('base64');
const repoDir = (owner: string, repo: string) => path.join(server.dataDir, 'repositories', owner, `${repo}.git`);
const wikiDir = (owner: string, repo: string) => path.join(server.dataDir, 'repositories', owner, `${repo}.wiki.git`);

async function upload(apiPath: string, content: Buffer, filename: string) {
  const form = new FormData();
  form.append('attachment', new Blob([content], { type: 'text/plain' }), filename);
  const res = await fetch(new URL(`api/v1${apiPath}`, server.url), {
    method: 'POST',
    headers: { Authorization: `token ${aliceToken}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  aliceToken = await server.token(alice, ['delete:repository', 'write:issue', 'write:user']);
  const hooks = server.kernel.hooks;
  hooks.repository.creating.tapPromise('repository-hooks-test', async (plan) => {
    plans.push(plan);
    return plan;
  });
  hooks.repository.deleting.tapPromise('repository-hooks-test', async (event: RepositoryDeletingEvent) => {
    // The transaction sees the row still there: the tap runs before it goes.
    const row = await event.trx('repositories').where('id', event.repositoryId).first('id');
    deleting.push({ name: event.name, hasTrx: !!row && typeof event.afterCommit === 'function' });
    if (protectedNames.has(event.name)) throw ApiError.unprocessable(`repository ${event.name} is protected`);
  });
  hooks.repository.renamed.tapPromise('repository-hooks-test', async (event) => void renamed.push(event));
  hooks.repository.transferred.tapPromise('repository-hooks-test', async (event) => void transferred.push(event));
});
afterAll(async () => {
  await server.close();
});

describe('repository.creating', () => {
  test("the issues feature resolves the plan's label template into labels; an unknown one is 422 and nothing is created", async () => {
    const res = await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'labelled', issue_labels: 'Default' } });
    expect(res.status).toBe(201);
    // The issues feature's tap ran first (kernel taps precede ours): the template is resolved into labels.
    const plan = plans.at(-1)!;
    expect(plan).toMatchObject({ ownerId: alice.id, ownerName: 'alice', name: 'labelled', forkId: 0 });
    expect(plan.labelTemplate).toBeUndefined();
    expect(plan.labels.length).toBeGreaterThan(0);
    expect(plan.labels[0].color).toMatch(/^#[0-9a-f]{6}$/);
    expect((await server.kernel.db('label').where('repo_id', res.body.id)).length).toBe(plan.labels.length);

    const bad = await server.api('POST', '/user/repos', {
      token: aliceToken,
      body: { name: 'unlabelled', issue_labels: 'no-such-template' },
    });
    expect(bad.status).toBe(422);
    expect(await server.kernel.db('repositories').where('lower_name', 'unlabelled').first()).toBeUndefined();
    expect(fs.existsSync(repoDir('alice', 'unlabelled'))).toBe(false);
  });
});

describe('repository.deleting', () => {
  test('a tap sees the transaction and can veto: the repository survives with a 4xx', async () => {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'keeper', auto_init: true } });
    protectedNames.add('keeper');
    const res = await server.api('DELETE', '/repos/alice/keeper', { token: aliceToken });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('protected');
    expect(deleting.at(-1)).toEqual({ name: 'keeper', hasTrx: true });
    expect((await server.api('GET', '/repos/alice/keeper', { token: aliceToken })).status).toBe(200);
    expect(fs.existsSync(repoDir('alice', 'keeper'))).toBe(true);
    protectedNames.delete('keeper');
    expect((await server.api('DELETE', '/repos/alice/keeper', { token: aliceToken })).status).toBe(204);
    expect((await server.api('GET', '/repos/alice/keeper', { token: aliceToken })).status).toBe(404);
  });

  test('deleting a repository removes its issues, pulls, releases with attachments and wiki', async () => {
    const repo = (
      await server.api('POST', '/user/repos', {
        token: aliceToken,
        body: { name: 'full', auto_init: true, default_branch: 'main', issue_labels: 'Default' },
      })
    ).body;
    const db = server.kernel.db;
    expect((await server.api('POST', '/repos/alice/full/issues', { token: aliceToken, body: { title: 'a bug' } })).status).toBe(201);
    const file = await server.api('POST', '/repos/alice/full/contents/feature.txt', {
      token: aliceToken,
      body: { content: b64('feature\n'), new_branch: 'feature' },
    });
    expect(file.status).toBe(201);
    const pull = await server.api('POST', '/repos/alice/full/pulls', {
      token: aliceToken,
      body: { head: 'feature', base: 'main', title: 'a feature' },
    });
    expect(pull.status).toBe(201);
    const rel = await server.api('POST', '/repos/alice/full/releases', { token: aliceToken, body: { tag_name: 'v1' } });
    expect(rel.status).toBe(201);
    const asset = await upload(
      `/repos/alice/full/releases/${rel.body.id}/assets`,
      Buffer.from('unique attachment bytes for the hooks test'),
      'notes.txt',
    );
    expect(asset.status).toBe(201);
    const sha = (await db('attachment').where('repo_id', repo.id).first('hash_sha256')).hash_sha256 as string;
    const page = await server.api('POST', '/repos/alice/full/wiki/new', {
      token: aliceToken,
      body: { title: 'Home', content_base64: b64('# Home') },
    });
    expect(page.status).toBe(201);
    expect(fs.existsSync(wikiDir('alice', 'full'))).toBe(true);
    const blobsRoot = path.join(server.dataDir, 'attachments', 'blobs');
    const blobCount = () =>
      fs.existsSync(blobsRoot)
        ? (fs.readdirSync(blobsRoot, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(blobsRoot, f)).isFile()).length
        : 0;
    expect(blobCount()).toBe(1);

    expect((await server.api('DELETE', '/repos/alice/full', { token: aliceToken })).status).toBe(204);
    expect(deleting.at(-1)).toEqual({ name: 'full', hasTrx: true });
    for (const table of ['issue', 'label', 'comment', 'release', 'attachment', 'repo_branches']) {
      expect([table, (await db(table).where('repo_id', repo.id)).length]).toEqual([table, 0]);
    }
    expect((await db('pull_request').where('base_repo_id', repo.id)).length).toBe(0);
    expect(await db('repositories').where('id', repo.id).first()).toBeUndefined();
    expect(fs.existsSync(repoDir('alice', 'full'))).toBe(false);
    expect(fs.existsSync(wikiDir('alice', 'full'))).toBe(false);
    expect(blobCount()).toBe(0);
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('repository.renamed and repository.transferred', () => {
  test('renaming fires repository.renamed and the wiki moves along', async () => {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'before', auto_init: true } });
    await server.api('POST', '/repos/alice/before/wiki/new', { token: aliceToken, body: { title: 'Home', content_base64: b64('# Here') } });
    const res = await server.api('PATCH', '/repos/alice/before', { token: aliceToken, body: { name: 'after' } });
    expect(res.status).toBe(200);
    expect(renamed.at(-1)).toMatchObject({ ownerName: 'alice', name: 'after', oldName: 'before', actor: { name: 'alice' } });
    expect(fs.existsSync(wikiDir('alice', 'before'))).toBe(false);
    expect(fs.existsSync(wikiDir('alice', 'after'))).toBe(true);
    expect((await server.api('GET', '/repos/alice/after/wiki/page/Home', { token: aliceToken })).status).toBe(200);
    // A capitalization-only rename moves nothing and fires nothing.
    const count = renamed.length;
    expect((await server.api('PATCH', '/repos/alice/after', { token: aliceToken, body: { name: 'After' } })).status).toBe(200);
    expect(renamed.length).toBe(count);
  });

  test('transferring fires repository.transferred and the wiki moves along', async () => {
    const adminToken = await server.token({ name: 'forge-admin', password: 'admin-password-1' }, [
      'write:repository',
      'write:organization',
    ]);
    const org = await server.api('POST', '/orgs', { token: adminToken, body: { username: 'hook-org' } });
    expect(org.status).toBe(201);
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'moving', auto_init: true } });
    await server.api('POST', '/repos/alice/moving/wiki/new', {
      token: aliceToken,
      body: { title: 'Home', content_base64: b64('# Moving') },
    });
    const res = await server.api('POST', '/repos/alice/moving/transfer', { token: adminToken, body: { new_owner: 'hook-org' } });
    expect(res.status).toBe(202);
    expect(transferred.at(-1)).toMatchObject({ ownerName: 'hook-org', oldOwnerName: 'alice', name: 'moving', oldOwnerId: alice.id });
    expect(fs.existsSync(wikiDir('alice', 'moving'))).toBe(false);
    expect(fs.existsSync(wikiDir('hook-org', 'moving'))).toBe(true);
  });
});
