import { ADMIN, startServer, type TestServer } from './helpers/server';
import { ConfigError } from './helpers/kernel';
import issuesPlugin from '../plugins/issues/src/index';
import pullsPlugin from '../plugins/pulls/src/index';
import { migrationNames, recordAsKernelMigrations, upgradeSandbox } from './helpers/upgrade-sandbox';

/**
 * The issues plugin switched off — with the pull requests plugin, which requires its service: no
 * issue, label, milestone or pull request routes (404), none of their tables, no taps; repository
 * JSON stays complete (has_issues and has_pull_requests false, open_issues_count and
 * open_pr_counter 0); the rest of the forge works (feeds, stars, releases, deletion). Issues off
 * with pulls on stops the start with a ConfigError naming what to enable. Then the upgrade: a
 * database whose issue and pull request migrations the kernel recorded starts with the plugins,
 * keeps its issues, and the names move to the plugins' migration tables.
 */

const ISSUE_TABLES = [
  'issue',
  'comment',
  'label',
  'issue_label',
  'milestone',
  'issue_index',
  'issue_assignees',
  'issue_watch',
  'issue_dependency',
  'reaction',
  'issue_mention',
];
const PULL_TABLES = ['pull_request', 'review'];
const names = (list: { name: string }[]) => list.map((m) => m.name);

describe('issues (and pull requests) disabled', () => {
  let off: TestServer;
  let on: TestServer;
  let token: string;
  let onToken: string;

  beforeAll(async () => {
    [off, on] = await Promise.all([startServer({ plugins: { issues: { enabled: false }, pulls: { enabled: false } } }), startServer()]);
    token = await off.token(ADMIN, ['all']);
    onToken = await on.token(ADMIN, ['all']);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), on?.close()]);
  });

  test('issues off while pull requests are on: the start stops with a ConfigError naming what to enable', async () => {
    const err = await startServer({ plugins: { issues: { enabled: false } } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /plugins\.pulls: requires the service "issues\.issues", which no enabled plugin provides; enable .*plugins\.issues/,
    );
  });

  test('the issue, label, milestone and pull request routes answer 404', async () => {
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    const repo = `/repos/${ADMIN.name}/quiet`;
    for (const [method, apiPath, body] of [
      ['GET', `${repo}/issues`],
      ['POST', `${repo}/issues`, { title: 'x' }],
      ['GET', `${repo}/issues/1`],
      ['GET', `${repo}/issues/1/comments`],
      ['GET', `${repo}/issues/comments`],
      ['GET', `${repo}/issues/1/timeline`],
      ['GET', `${repo}/issues/pinned`],
      ['GET', `${repo}/labels`],
      ['GET', `${repo}/milestones`],
      ['GET', `${repo}/new_pin_allowed`],
      ['GET', `${repo}/interchange/milestones`],
      ['GET', '/repos/issues/search'],
      ['GET', '/label/templates'],
      ['GET', `/orgs/${ADMIN.name}/labels`],
      ['GET', `${repo}/pulls`],
      ['POST', `${repo}/pulls`, { title: 'x', head: 'a', base: 'main' }],
      ['GET', `${repo}/pulls/1`],
      ['GET', `${repo}/pulls/pinned`],
      ['GET', `${repo}/pulls/1/reviews`],
      ['GET', `${repo}/reviewers`],
    ] as Array<[string, string, unknown?]>) {
      expect([method, apiPath, (await off.api(method, apiPath, { token, body })).status]).toEqual([method, apiPath, 404]);
    }
    for (const plugin of ['issues', 'pulls']) {
      expect(off.kernel.apiOperations.filter(({ owner }) => owner === plugin)).toEqual([]);
      expect(on.kernel.apiOperations.filter(({ owner }) => owner === plugin).length).toBeGreaterThan(0);
    }
  });

  test('their tables do not exist', async () => {
    for (const table of [...ISSUE_TABLES, ...PULL_TABLES, 'knex_migrations__issues', 'knex_migrations__pulls']) {
      expect([table, await off.kernel.db.schema.hasTable(table)]).toEqual([table, false]);
      expect([table, await on.kernel.db.schema.hasTable(table)]).toEqual([table, true]);
    }
    // The core's tables that issues and pull requests once created stay the core's.
    expect(await off.kernel.db.schema.hasColumn('attachment', 'issue_id')).toBe(true);
    expect(await off.kernel.db.schema.hasTable('protected_branch')).toBe(true);
    expect(await migrationNames(on.kernel.db, 'issues')).toEqual(names(issuesPlugin.migrations ?? []));
    expect(await migrationNames(on.kernel.db, 'pulls')).toEqual(names(pullsPlugin.migrations ?? []));
  });

  test('repository JSON keeps every field: the units off, the counts 0', async () => {
    const body = { name: 'same', auto_init: true };
    const [a, b] = [await off.api('POST', '/user/repos', { token, body }), await on.api('POST', '/user/repos', { token: onToken, body })];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    expect(a.body).toMatchObject({ has_issues: false, has_pull_requests: false, open_issues_count: 0, open_pr_counter: 0 });
    expect(b.body).toMatchObject({ has_issues: true, has_pull_requests: true });
    expect((await on.api('POST', `/repos/${ADMIN.name}/same/issues`, { token: onToken, body: { title: 'one' } })).status).toBe(201);
    expect((await on.api('GET', `/repos/${ADMIN.name}/same`, { token: onToken })).body.open_issues_count).toBe(1);
    const listed = await off.api('GET', `/users/${ADMIN.name}/repos`, { token });
    expect(listed.body.find((r: { name: string }) => r.name === 'same')).toMatchObject({ open_issues_count: 0, open_pr_counter: 0 });
    // A label template asked for at creation is not the kernel's to resolve: nothing resolves it.
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'templated', issue_labels: 'Default' } })).status).toBe(201);
  });

  test('the rest works: pushes and feeds, stars and watches, branch protection, deletion', async () => {
    const repo = `/repos/${ADMIN.name}/rest`;
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'rest', auto_init: true } })).status).toBe(201);
    const file = await off.api('POST', `${repo}/contents/notes.md`, {
      token,
      body: { content: Buffer.from('closes #1\n').toString('base64'), message: 'fixes #1' },
    });
    expect(file.status).toBe(201);
    const feed = await off.api('GET', `${repo}/activities/feeds`, { token });
    expect(feed.status).toBe(200);
    expect(feed.body.map((a: { op_type: string }) => a.op_type)).toEqual(expect.arrayContaining(['create_repo', 'commit_repo']));
    expect((await off.api('PUT', `/user/starred/${ADMIN.name}/rest`, { token })).status).toBe(204);
    expect((await off.api('GET', `${repo}/subscription`, { token })).status).toBe(200);
    expect((await off.api('POST', `${repo}/branch_protections`, { token, body: { rule_name: 'main' } })).status).toBe(201);
    expect((await off.api('GET', '/notifications', { token })).body).toEqual([]);
    expect((await off.api('DELETE', repo, { token })).status).toBe(204);
    const dora = await off.user('dora');
    expect((await off.api('DELETE', '/admin/users/dora', { token })).status).toBe(204);
    expect(dora.id).toBeGreaterThan(0);
  });
});

describe('upgrade from a release whose kernel owned the issue and pull request tables', () => {
  const sandbox = upgradeSandbox('issues');
  const boot = (enabled: boolean) => sandbox.boot({ issues: enabled, pulls: enabled });
  const { auth } = sandbox;

  test('the plugins adopt the kernel-recorded migrations and keep the issues', async () => {
    const migrations = [...(issuesPlugin.migrations ?? []), ...(pullsPlugin.migrations ?? [])];
    // The earlier release: the kernel ran the issue and pull request migrations and recorded them in its own table.
    const old = await boot(false);
    try {
      const url = await old.listen();
      const repoId = await sandbox.createRepo(url, 'kept');
      const db = old.db;
      await recordAsKernelMigrations(db, migrations);
      const now = Math.floor(Date.now() / 1000);
      await db('issue_index').insert({ repo_id: repoId, max_index: 1 });
      await db('issue').insert({
        repo_id: repoId,
        index: 1,
        poster_id: 1,
        name: 'kept issue',
        content: 'from before',
        created_unix: now,
        updated_unix: now,
      });
      await db('label').insert({ repo_id: repoId, name: 'bug', color: '#ee0701', created_unix: now, updated_unix: now });
    } finally {
      await old.close();
    }

    for (let round = 0; round < 2; round++) {
      const kernel = await boot(true);
      try {
        const url = await kernel.listen();
        const res = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept/issues/1`, url), { headers: { Authorization: auth } });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ number: 1, title: 'kept issue', body: 'from before', state: 'open' });
        const labels = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept/labels`, url), { headers: { Authorization: auth } });
        expect(((await labels.json()) as Array<{ name: string }>).map((l) => l.name)).toEqual(['bug']);
        const repo = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept`, url), { headers: { Authorization: auth } });
        expect(((await repo.json()) as { open_issues_count: number }).open_issues_count).toBe(1);
        const kernelRows = await migrationNames(kernel.db, null);
        for (const m of migrations) expect(kernelRows).not.toContain(m.name);
        expect(await migrationNames(kernel.db, 'issues')).toEqual(names(issuesPlugin.migrations ?? []));
        expect(await migrationNames(kernel.db, 'pulls')).toEqual(names(pullsPlugin.migrations ?? []));
      } finally {
        await kernel.close();
      }
    }
  });
});
