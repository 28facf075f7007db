import { ADMIN, startServer, type TestServer } from './helpers/server';
import { releaseMigrations } from '../plugins/releases/src/migrations';
import { migrationNames, upgradeSandbox } from './helpers/upgrade-sandbox';

/**
 * The releases plugin switched off: no release routes (404), no `release` table, no taps; the
 * repository JSON stays complete (has_releases false, release_counter 0); attachments are the
 * core's and keep working for issues. With it on, `release_counter` counts published releases
 * (not drafts), as Gitea 1.20. Then the upgrade: a database whose `release` table the kernel's
 * `0008_releases` created (with the core's `attachment` table) starts with the plugin, keeps its
 * releases and their files, `0008_releases` stays the kernel's, and the plugin records its own.
 */

async function upload(srv: TestServer, apiPath: string, token: string, content: Buffer, filename: string) {
  const form = new FormData();
  form.append('attachment', new Blob([content], { type: 'text/plain' }), filename);
  const headers = { Authorization: `token ${token}` };
  const res = await fetch(new URL(`api/v1${apiPath}`, srv.url), { method: 'POST', headers, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('releases disabled', () => {
  let off: TestServer;
  let on: TestServer;
  let token: string;
  let onToken: string;

  beforeAll(async () => {
    [off, on] = await Promise.all([startServer({ plugins: { releases: { enabled: false } } }), startServer()]);
    token = await off.token(ADMIN, ['all']);
    onToken = await on.token(ADMIN, ['all']);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), on?.close()]);
  });

  test('the release routes answer 404', async () => {
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    const base = `/repos/${ADMIN.name}/quiet/releases`;
    expect((await off.api('GET', base, { token })).status).toBe(404);
    expect((await off.api('POST', base, { token, body: { tag_name: 'v1' } })).status).toBe(404);
    expect((await off.api('GET', `${base}/latest`, { token })).status).toBe(404);
    expect((await off.api('GET', `${base}/tags/v1`, { token })).status).toBe(404);
    expect((await off.api('GET', `${base}/1`, { token })).status).toBe(404);
    expect((await off.api('GET', `${base}/1/assets`, { token })).status).toBe(404);
    expect(off.kernel.apiOperations.filter(({ owner }) => owner === 'releases')).toEqual([]);
    expect(on.kernel.apiOperations.filter(({ owner }) => owner === 'releases').length).toBeGreaterThan(0);
  });

  test("its table does not exist; the core's attachment table does", async () => {
    expect(await off.kernel.db.schema.hasTable('release')).toBe(false);
    expect(await on.kernel.db.schema.hasTable('release')).toBe(true);
    expect(await off.kernel.db.schema.hasTable('attachment')).toBe(true);
    expect(await off.kernel.db.schema.hasTable('knex_migrations__releases')).toBe(false);
    const recorded = await migrationNames(on.kernel.db, 'releases');
    expect(recorded).toEqual(releaseMigrations.map((m) => m.name));
  });

  test('repository JSON keeps every field: has_releases off and release_counter 0, counted when on', async () => {
    const body = { name: 'same', auto_init: true };
    const [a, b] = [await off.api('POST', '/user/repos', { token, body }), await on.api('POST', '/user/repos', { token: onToken, body })];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    expect(a.body.has_releases).toBe(false);
    expect(b.body.has_releases).toBe(true);
    expect(a.body.release_counter).toBe(0);
    expect(b.body.release_counter).toBe(0);
    const releases = `/repos/${ADMIN.name}/same/releases`;
    expect((await on.api('POST', releases, { token: onToken, body: { tag_name: 'v1' } })).status).toBe(201);
    expect((await on.api('POST', releases, { token: onToken, body: { tag_name: 'v2-rc', prerelease: true } })).status).toBe(201);
    const draft = await on.api('POST', releases, { token: onToken, body: { tag_name: 'v3', draft: true } });
    expect(draft.status).toBe(201);
    // Gitea counts published releases: pre-releases yes, drafts no.
    expect((await on.api('GET', `/repos/${ADMIN.name}/same`, { token: onToken })).body.release_counter).toBe(2);
    const listed = await on.api('GET', `/users/${ADMIN.name}/repos`, { token: onToken });
    expect(listed.body.find((r: { name: string }) => r.name === 'same').release_counter).toBe(2);
    expect((await on.api('PATCH', `${releases}/${draft.body.id}`, { token: onToken, body: { draft: false } })).status).toBe(200);
    expect((await on.api('GET', `/repos/${ADMIN.name}/same`, { token: onToken })).body.release_counter).toBe(3);
    expect((await off.api('GET', `/repos/${ADMIN.name}/same`, { token })).body.release_counter).toBe(0);
  });

  test("the rest works: issue attachments (the core's), downloads, repository deletion", async () => {
    const repo = `/repos/${ADMIN.name}/files`;
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'files', auto_init: true } })).status).toBe(201);
    const issue = await off.api('POST', `${repo}/issues`, { token, body: { title: 'with a file' } });
    expect(issue.status).toBe(201);
    const up = await upload(off, `${repo}/issues/${issue.body.number}/assets`, token, Buffer.from('kept bytes'), 'notes.txt');
    expect(up.status).toBe(201);
    const download = await fetch(up.body.browser_download_url, { headers: { Authorization: `token ${token}` } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('kept bytes');
    expect((await off.api('DELETE', repo, { token })).status).toBe(204);
    expect(await off.kernel.db('attachment').where('uuid', up.body.uuid)).toEqual([]);
  });
});

describe('upgrade from a release whose kernel owned the release table', () => {
  const sandbox = upgradeSandbox('releases');
  const boot = (enabled: boolean) => sandbox.boot({ releases: enabled });
  const { auth } = sandbox;

  test('the plugin takes the existing release table over and keeps the releases and their files', async () => {
    // The earlier release: the kernel's 0008_releases created `release` with `attachment` (recorded in knex_migrations).
    const old = await boot(false);
    try {
      const url = await old.listen();
      const repoId = await sandbox.createRepo(url, 'kept');
      const db = old.db;
      expect((await db('knex_migrations').where('name', '0008_releases')).length).toBe(1);
      for (const m of releaseMigrations) await m.up(db);
      await db('release').insert({
        repo_id: repoId,
        publisher_id: 1,
        tag_name: 'v1.0',
        lower_tag_name: 'v1.0',
        target: 'main',
        title: 'One',
        note: 'first',
        is_draft: false,
        is_prerelease: false,
        created_unix: Math.floor(Date.now() / 1000),
      });
    } finally {
      await old.close();
    }

    for (let round = 0; round < 2; round++) {
      const kernel = await boot(true);
      try {
        const url = await kernel.listen();
        const res = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept/releases`, url), { headers: { Authorization: auth } });
        expect(res.status).toBe(200);
        const releases = (await res.json()) as Array<{ tag_name: string; name: string; body: string }>;
        expect(releases.map((r) => [r.tag_name, r.name, r.body])).toEqual([['v1.0', 'One', 'first']]);
        const repo = await fetch(new URL(`api/v1/repos/${ADMIN.name}/kept`, url), { headers: { Authorization: auth } });
        expect(((await repo.json()) as { release_counter: number }).release_counter).toBe(1);
        // 0008_releases stays the kernel's (it creates the core's attachment table); the plugin records its own.
        expect((await kernel.db('knex_migrations').where('name', '0008_releases')).length).toBe(1);
        const recorded = await migrationNames(kernel.db, 'releases');
        expect(recorded).toEqual(releaseMigrations.map((m) => m.name));
      } finally {
        await kernel.close();
      }
    }
  });
});
