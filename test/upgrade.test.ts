import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@hearth/testing';
import { Hearth, migrationsTable } from './helpers/kernel';
import { previousReleaseBuild, seedWithPreviousRelease, PREVIOUS_RELEASE } from './helpers/previous-release';

/**
 * An upgrade from the release before the plugin-model redesign, with its own code: that release
 * (every feature inside the kernel, all migrations recorded in the kernel's table) builds a
 * database and fills it through its API; this release then starts on the same database and data
 * directory. Nothing is lost, the moved features' migrations are not run again, and their rows now
 * belong to the plugins. Runs on SQLite, MariaDB and PostgreSQL.
 */
jest.setTimeout(300_000);

const ADMIN = { name: 'forge-admin', password: 'admin-password-1', email: 'admin@example.com' };
let database: TestDatabase;
let dataDir: string;
let seeded: any;
let kernel: Hearth;
let url: string;

const overrides = () => ({
  server: { HTTP_PORT: 0, HTTP_ADDR: '127.0.0.1', DATA_DIR: dataDir },
  database: { URL: database.url },
  log: { LEVEL: 'silent' },
  security: { SCRYPT_COST: 1024 },
  webhook: { ALLOWED_HOST_LIST: '*' },
});

const auth = `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}`;
async function call(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(`api/v1${p}`, url), {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  const release = await previousReleaseBuild();
  database = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-upgrade-'));
  seeded = await seedWithPreviousRelease(release, overrides());
  kernel = await Hearth.create({
    config: { env: {}, overrides: overrides() },
    env: { HEARTH_ADMIN_USERNAME: ADMIN.name, HEARTH_ADMIN_PASSWORD: ADMIN.password, HEARTH_ADMIN_EMAIL: ADMIN.email },
    logDestination: { write: () => undefined },
  });
  url = await kernel.listen();
});

afterAll(async () => {
  await kernel?.close();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test(`the previous release (${PREVIOUS_RELEASE.slice(0, 7)}) made a database this release serves unchanged`, async () => {
  const repo = await call('GET', '/repos/forge-admin/app');
  expect(repo.status).toBe(200);
  expect(repo.body).toMatchObject({
    id: seeded.repo.id,
    full_name: 'forge-admin/app',
    stars_count: 1,
    open_issues_count: 1,
    open_pr_counter: 1,
  });
  expect(repo.body.release_counter).toBe(1);

  const issue = await call('GET', `/repos/forge-admin/app/issues/${seeded.issue.number}`);
  expect(issue.body).toMatchObject({ id: seeded.issue.id, title: 'First', body: 'broken', state: 'open' });
  expect(issue.body.labels.map((l: any) => l.name)).toEqual(['bug']);
  expect(issue.body.milestone).toMatchObject({ id: seeded.milestone.id, title: 'v1' });
  const comments = await call('GET', `/repos/forge-admin/app/issues/${seeded.issue.number}/comments`);
  expect(comments.body.map((c: any) => [c.id, c.body])).toEqual([[seeded.comment.id, 'confirmed']]);

  const pull = await call('GET', `/repos/forge-admin/app/pulls/${seeded.pull.number}`);
  expect(pull.body).toMatchObject({ id: seeded.pull.id, title: 'Add the feature', state: 'open', mergeable: true });
  expect(pull.body.head.ref).toBe('feature');

  const release = await call('GET', `/repos/forge-admin/app/releases/${seeded.release.id}`);
  expect(release.body).toMatchObject({ tag_name: 'v1.0', name: 'One' });
  const hooks = await call('GET', '/repos/forge-admin/app/hooks');
  expect(hooks.body.map((h: any) => h.id)).toEqual([seeded.hook.id]);
  const page = await call('GET', '/repos/forge-admin/app/wiki/page/Home');
  expect(Buffer.from(page.body.content_base64, 'base64').toString()).toBe('# Welcome\n');
  const feeds = await call('GET', '/repos/forge-admin/app/activities/feeds');
  expect(feeds.body.length).toBe(seeded.feedCount);
});

test('new writes continue where the old ones stopped (numbers, merges)', async () => {
  const next = await call('POST', '/repos/forge-admin/app/issues', { title: 'After the upgrade' });
  expect(next.status).toBe(201);
  expect(next.body.number).toBe(seeded.pull.number + 1);
  const merge = await call('POST', `/repos/forge-admin/app/pulls/${seeded.pull.number}/merge`, { Do: 'merge' });
  expect(merge.status).toBe(200);
  expect((await call('GET', `/repos/forge-admin/app/pulls/${seeded.pull.number}`)).body.merged).toBe(true);
});

test("the moved features' migrations belong to their plugins and ran once", async () => {
  const names = async (owner: string | null) =>
    (await kernel.db(migrationsTable(owner)).select('name')).map((r: { name: string }) => r.name);
  const kernelNames = await names(null);
  expect(await names('issues')).toEqual(expect.arrayContaining(['0009_issues', '0010_interactions', '0011_org_labels']));
  expect(await names('pulls')).toEqual(expect.arrayContaining(['0012_pulls', '0012_reviews']));
  expect(await names('webhooks')).toContain('0014_webhooks');
  expect(await names('activity')).toContain('0005_activities');
  for (const moved of ['0009_issues', '0012_pulls', '0014_webhooks', '0005_activities', '0013_push_mirrors'])
    expect(kernelNames).not.toContain(moved);
  const batches = await kernel.db(migrationsTable('issues')).where('name', '0009_issues').count({ n: '*' });
  expect(Number(batches[0].n)).toBe(1);
});
