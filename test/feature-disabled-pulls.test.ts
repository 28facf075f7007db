import { ADMIN, startServer, type TestServer } from './helpers/server';
import { pullMigrations } from '../plugins/pulls/src/migrations';
import { migrationNames, recordAsKernelMigrations, upgradeSandbox } from './helpers/upgrade-sandbox';

/**
 * The pull requests plugin switched off (issues stay on): no pull request, review or merge routes
 * (404), no `pull_request` or `review` table, no taps; repository JSON stays complete
 * (has_pull_requests false, open_pr_counter 0); issues, their timeline and the issue search work.
 * Then the upgrade: a database whose pull request migrations the kernel recorded starts with the
 * plugin, keeps its pull requests, and the names move to `knex_migrations__pulls`.
 */

describe('pull requests disabled', () => {
  let off: TestServer;
  let on: TestServer;
  let token: string;
  let onToken: string;

  beforeAll(async () => {
    [off, on] = await Promise.all([startServer({ plugins: { pulls: { enabled: false } } }), startServer()]);
    token = await off.token(ADMIN, ['all']);
    onToken = await on.token(ADMIN, ['all']);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), on?.close()]);
  });

  test('the pull request routes answer 404', async () => {
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    const repo = `/repos/${ADMIN.name}/quiet`;
    for (const [method, apiPath, body] of [
      ['GET', `${repo}/pulls`],
      ['POST', `${repo}/pulls`, { title: 'x', head: 'a', base: 'main' }],
      ['GET', `${repo}/pulls/1`],
      ['GET', `${repo}/pulls/1.diff`],
      ['GET', `${repo}/pulls/1/files`],
      ['POST', `${repo}/pulls/1/merge`, { Do: 'merge' }],
      ['GET', `${repo}/pulls/1/reviews`],
      ['GET', `${repo}/pulls/main/feature`],
      ['GET', `${repo}/reviewers`],
      ['GET', `${repo}/pulls/pinned`],
    ] as Array<[string, string, unknown?]>) {
      expect([method, apiPath, (await off.api(method, apiPath, { token, body })).status]).toEqual([method, apiPath, 404]);
    }
    expect(off.kernel.apiOperations.filter(({ owner }) => owner === 'pulls')).toEqual([]);
    expect(on.kernel.apiOperations.filter(({ owner }) => owner === 'pulls').length).toBeGreaterThan(0);
  });

  test("its tables do not exist; the issues' do", async () => {
    for (const table of ['pull_request', 'review', 'knex_migrations__pulls']) {
      expect([table, await off.kernel.db.schema.hasTable(table)]).toEqual([table, false]);
      expect([table, await on.kernel.db.schema.hasTable(table)]).toEqual([table, true]);
    }
    expect(await off.kernel.db.schema.hasTable('issue')).toBe(true);
    // The code-comment columns pull requests add to the issues' comments are theirs too.
    expect(await off.kernel.db.schema.hasColumn('comment', 'tree_path')).toBe(false);
    expect(await on.kernel.db.schema.hasColumn('comment', 'tree_path')).toBe(true);
  });

  test('repository JSON keeps every field: has_pull_requests off and open_pr_counter 0', async () => {
    const body = { name: 'same', auto_init: true };
    const [a, b] = [await off.api('POST', '/user/repos', { token, body }), await on.api('POST', '/user/repos', { token: onToken, body })];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    expect(a.body).toMatchObject({ has_issues: true, has_pull_requests: false, open_pr_counter: 0 });
    expect(b.body).toMatchObject({ has_issues: true, has_pull_requests: true, open_pr_counter: 0 });
  });

  test('the rest works: issues, comments, the timeline, the issue search, closing keywords, deletion', async () => {
    const repo = `/repos/${ADMIN.name}/rest`;
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'rest', auto_init: true } })).status).toBe(201);
    const issue = await off.api('POST', `${repo}/issues`, { token, body: { title: 'still here', body: 'mentions #1' } });
    expect(issue.status).toBe(201);
    expect(issue.body.pull_request).toBeNull();
    expect((await off.api('POST', `${repo}/issues/1/comments`, { token, body: { body: 'a comment' } })).status).toBe(201);
    const timeline = await off.api('GET', `${repo}/issues/1/timeline`, { token });
    expect(timeline.status).toBe(200);
    expect(timeline.body.map((e: { type: string }) => e.type)).toContain('comment');
    const search = await off.api('GET', '/repos/issues/search?review_requested=true', { token });
    expect(search.status).toBe(200);
    expect(search.body).toEqual([]);
    expect((await off.api('GET', '/repos/issues/search?q=still', { token })).body.map((i: { title: string }) => i.title)).toEqual([
      'still here',
    ]);
    const pushed = await off.api('POST', `${repo}/contents/fix.md`, {
      token,
      body: { content: Buffer.from('x').toString('base64'), message: 'fixes #1' },
    });
    expect(pushed.status).toBe(201);
    let state = '';
    for (let i = 0; i < 50 && state !== 'closed'; i++) {
      state = (await off.api('GET', `${repo}/issues/1`, { token })).body.state;
      if (state !== 'closed') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(state).toBe('closed');
    expect((await off.api('DELETE', repo, { token })).status).toBe(204);
    expect(await off.kernel.db('issue').where('name', 'still here')).toEqual([]);
  });
});

describe('upgrade from a release whose kernel owned the pull request tables', () => {
  const sandbox = upgradeSandbox('pulls');
  const boot = (enabled: boolean) => sandbox.boot({ pulls: enabled });
  const { auth } = sandbox;

  test('the plugin adopts the kernel-recorded migrations and keeps the pull requests', async () => {
    const old = await boot(false);
    try {
      const url = await old.listen();
      const repoId = await sandbox.createRepo(url, 'kept');
      const db = old.db;
      // The earlier release: the kernel ran the pull request migrations and recorded them in its own table.
      await recordAsKernelMigrations(db, pullMigrations);
      const now = Math.floor(Date.now() / 1000);
      await db('issue_index').insert({ repo_id: repoId, max_index: 1 });
      await db('issue').insert({
        repo_id: repoId,
        index: 1,
        poster_id: 1,
        name: 'kept pull',
        content: '',
        is_pull: true,
        created_unix: now,
        updated_unix: now,
      });
      const issue = await db('issue').where({ repo_id: repoId, index: 1 }).first('id');
      await db('pull_request').insert({
        issue_id: issue.id,
        index: 1,
        base_repo_id: repoId,
        head_repo_id: repoId,
        base_branch: 'main',
        head_branch: 'feature',
        conflicted_files: '[]',
      });
    } finally {
      await old.close();
    }

    for (let round = 0; round < 2; round++) {
      const kernel = await boot(true);
      try {
        const url = await kernel.listen();
        const res = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept/pulls?state=all`, url), { headers: { Authorization: auth } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as Array<{ title: string; number: number }>).map((p) => [p.number, p.title])).toEqual([
          [1, 'kept pull'],
        ]);
        const issue = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept/issues/1`, url), { headers: { Authorization: auth } });
        expect(((await issue.json()) as { pull_request: unknown }).pull_request).toEqual({ merged: false, merged_at: null });
        const kernelRows = await migrationNames(kernel.db, null);
        for (const m of pullMigrations) expect(kernelRows).not.toContain(m.name);
        expect(await migrationNames(kernel.db, 'pulls')).toEqual(pullMigrations.map((m) => m.name));
      } finally {
        await kernel.close();
      }
    }
  });
});
