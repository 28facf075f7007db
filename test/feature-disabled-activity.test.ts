import { ADMIN, startServer, type TestServer } from './helpers/server';
import { activityMigrations } from '../plugins/activity/src/migrations';
import { migrationNames, recordAsKernelMigrations, upgradeSandbox } from './helpers/upgrade-sandbox';

/**
 * The activity plugin switched off: no feed or notification routes (404), no `activities` or
 * `notification` table, no taps; repository JSON stays complete; watching and starring are the
 * core's and keep working (with their counts), as do issues, pull requests and deletion. Then the
 * upgrade: a database whose activity migrations the kernel recorded starts with the plugin, keeps
 * its feed, and the names move to `knex_migrations__activity`; `0015_notifications` stays the
 * kernel's (it creates the core's `watch` and `star` tables).
 */

describe('activity disabled', () => {
  let off: TestServer;
  let on: TestServer;
  let token: string;
  let onToken: string;

  beforeAll(async () => {
    [off, on] = await Promise.all([startServer({ plugins: { activity: { enabled: false } } }), startServer()]);
    token = await off.token(ADMIN, ['all']);
    onToken = await on.token(ADMIN, ['all']);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), on?.close()]);
  });

  test('the feed and notification routes answer 404', async () => {
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    const repo = `/repos/${ADMIN.name}/quiet`;
    for (const [method, apiPath] of [
      ['GET', `/users/${ADMIN.name}/activities/feeds`],
      ['GET', `${repo}/activities/feeds`],
      ['GET', '/notifications'],
      ['PUT', '/notifications'],
      ['GET', '/notifications/new'],
      ['GET', '/notifications/threads/1'],
      ['GET', `${repo}/notifications`],
    ]) {
      expect([method, apiPath, (await off.api(method, apiPath, { token })).status]).toEqual([method, apiPath, 404]);
    }
    expect(off.kernel.apiOperations.filter(({ owner }) => owner === 'activity')).toEqual([]);
    expect(on.kernel.apiOperations.filter(({ owner }) => owner === 'activity').length).toBeGreaterThan(0);
  });

  test("its tables do not exist; the core's watch and star tables do", async () => {
    for (const table of ['activities', 'notification', 'knex_migrations__activity']) {
      expect([table, await off.kernel.db.schema.hasTable(table)]).toEqual([table, false]);
      expect([table, await on.kernel.db.schema.hasTable(table)]).toEqual([table, true]);
    }
    for (const table of ['watch', 'star']) expect(await off.kernel.db.schema.hasTable(table)).toBe(true);
    expect((await off.kernel.db('knex_migrations').where('name', '0015_notifications')).length).toBe(1);
    const recorded = await migrationNames(on.kernel.db, 'activity');
    expect(recorded).toEqual(activityMigrations.map((m) => m.name));
  });

  test('repository JSON keeps every field; watching and starring still count', async () => {
    const body = { name: 'same', auto_init: true };
    const [a, b] = [await off.api('POST', '/user/repos', { token, body }), await on.api('POST', '/user/repos', { token: onToken, body })];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    const repo = `/repos/${ADMIN.name}/same`;
    // The creator watches the new repository: the core's tap, whether or not the feeds are on.
    expect((await off.api('GET', repo, { token })).body.watchers_count).toBe(1);
    expect((await on.api('GET', repo, { token: onToken })).body.watchers_count).toBe(1);
    expect((await off.api('PUT', `/user/starred/${ADMIN.name}/same`, { token })).status).toBe(204);
    expect((await off.api('GET', repo, { token })).body.stars_count).toBe(1);
    expect((await off.api('GET', `${repo}/stargazers`, { token })).body.map((u: { login: string }) => u.login)).toEqual([ADMIN.name]);
    expect((await off.api('GET', `${repo}/subscribers`, { token })).body.map((u: { login: string }) => u.login)).toEqual([ADMIN.name]);
    expect((await off.api('DELETE', `${repo}/subscription`, { token })).status).toBe(204);
    expect((await off.api('GET', repo, { token })).body.watchers_count).toBe(0);
  });

  test('the rest works: issues and comments, pushes, repository and user deletion', async () => {
    const repo = `/repos/${ADMIN.name}/rest`;
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'rest', auto_init: true } })).status).toBe(201);
    expect((await off.api('POST', `${repo}/issues`, { token, body: { title: 'noted', body: `@${ADMIN.name}` } })).status).toBe(201);
    expect((await off.api('POST', `${repo}/issues/1/comments`, { token, body: { body: 'a comment' } })).status).toBe(201);
    expect(
      (
        await off.api('POST', `${repo}/contents/fix.md`, {
          token,
          body: { content: Buffer.from('x').toString('base64'), message: 'fixes #1' },
        })
      ).status,
    ).toBe(201);
    expect((await off.api('GET', `${repo}/issues/1`, { token })).body.state).toBe('closed');
    expect((await off.api('DELETE', repo, { token })).status).toBe(204);
    const dora = await off.user('dora');
    const doraToken = await off.token(dora, ['all']);
    expect((await off.api('POST', '/user/repos', { token: doraToken, body: { name: 'hers', auto_init: true } })).status).toBe(201);
    expect((await off.api('DELETE', '/admin/users/dora?purge=true', { token })).status).toBe(204);
  });
});

describe('upgrade from a release whose kernel owned the activity tables', () => {
  const sandbox = upgradeSandbox('activity');
  const boot = (enabled: boolean) => sandbox.boot({ activity: enabled });
  const { auth } = sandbox;

  test('the plugin adopts the kernel-recorded migrations and keeps the feed', async () => {
    const old = await boot(false);
    try {
      const url = await old.listen();
      const repoId = await sandbox.createRepo(url, 'kept');
      const db = old.db;
      // The earlier release: the kernel ran the activity migrations and recorded them in its own table.
      await recordAsKernelMigrations(db, activityMigrations);
      await db('activities').insert({
        op_type: 1,
        act_user_id: 1,
        repo_id: repoId,
        content: '',
        is_private: false,
        created_unix: Math.floor(Date.now() / 1000),
      });
    } finally {
      await old.close();
    }

    for (let round = 0; round < 2; round++) {
      const kernel = await boot(true);
      try {
        const url = await kernel.listen();
        const res = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept/activities/feeds`, url), { headers: { Authorization: auth } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as Array<{ op_type: string }>).map((a) => a.op_type)).toEqual(['create_repo']);
        const kernelRows = await migrationNames(kernel.db, null);
        for (const m of activityMigrations) expect(kernelRows).not.toContain(m.name);
        expect(kernelRows).toContain('0015_notifications');
        expect(await migrationNames(kernel.db, 'activity')).toEqual(activityMigrations.map((m) => m.name));
      } finally {
        await kernel.close();
      }
    }
  });
});
