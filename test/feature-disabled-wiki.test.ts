import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { upgradeSandbox } from './helpers/upgrade-sandbox';

/**
 * The wiki plugin switched off: no wiki routes (404), `<repo>.wiki.git` is not served (it names
 * no repository), no taps (forks, renames, transfers and deletions go on without it), and the
 * repository JSON stays complete with has_wiki false. The wiki has no tables; its upgrade check:
 * a wiki written before the plugin was switched off is there again when it is back on.
 */

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('wiki disabled', () => {
  let off: TestServer;
  let on: TestServer;
  let token: string;
  let onToken: string;

  beforeAll(async () => {
    [off, on] = await Promise.all([startServer({ plugins: { wiki: { enabled: false } } }), startServer()]);
    token = await off.token(ADMIN, ['all']);
    onToken = await on.token(ADMIN, ['all']);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), on?.close()]);
  });

  test('the wiki routes answer 404, and so does its git repository', async () => {
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    const base = `/repos/${ADMIN.name}/quiet/wiki`;
    expect((await off.api('GET', `${base}/pages`, { token })).status).toBe(404);
    expect((await off.api('POST', `${base}/new`, { token, body: { title: 'Home', content_base64: b64('x') } })).status).toBe(404);
    expect((await off.api('GET', `${base}/page/Home`, { token })).status).toBe(404);
    expect((await off.api('GET', `${base}/revisions/Home`, { token })).status).toBe(404);
    expect(off.kernel.apiOperations.filter(({ owner }) => owner === 'wiki')).toEqual([]);
    expect(on.kernel.apiOperations.filter(({ owner }) => owner === 'wiki').length).toBeGreaterThan(0);
    const refs = (srv: TestServer, t: string) => {
      const url = new URL(`${ADMIN.name}/quiet.wiki.git/info/refs?service=git-receive-pack`, srv.url);
      return fetch(url, { headers: { Authorization: `token ${t}` } });
    };
    expect((await refs(off, token)).status).toBe(404);
    expect(fs.existsSync(path.join(off.dataDir, 'repositories', ADMIN.name, 'quiet.wiki.git'))).toBe(false);
    expect((await on.api('POST', '/user/repos', { token: onToken, body: { name: 'quiet', auto_init: true } })).status).toBe(201);
    expect((await refs(on, onToken)).status).toBe(200); // a push may start the wiki
  });

  test('repository JSON keeps every field, with has_wiki false', async () => {
    const body = { name: 'same', auto_init: true };
    const [a, b] = [await off.api('POST', '/user/repos', { token, body }), await on.api('POST', '/user/repos', { token: onToken, body })];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(Object.keys(a.body).sort()).toEqual(Object.keys(b.body).sort());
    expect(a.body.has_wiki).toBe(false);
    expect(b.body.has_wiki).toBe(true);
  });

  test('forks, renames, transfers and deletions work without it', async () => {
    const bob = await off.user('bob');
    const bobToken = await off.token(bob, ['all']);
    expect((await off.api('POST', '/user/repos', { token, body: { name: 'life', auto_init: true } })).status).toBe(201);
    expect((await off.api('POST', `/repos/${ADMIN.name}/life/forks`, { token: bobToken, body: {} })).status).toBe(202);
    expect((await off.api('PATCH', `/repos/${ADMIN.name}/life`, { token, body: { name: 'renamed' } })).status).toBe(200);
    expect((await off.api('POST', `/repos/${ADMIN.name}/renamed/transfer`, { token, body: { new_owner: 'bob' } })).status).toBe(202);
    // (A site admin's transfer happens at once.)
    expect((await off.api('GET', '/repos/bob/renamed', { token: bobToken })).status).toBe(200);
    expect((await off.api('DELETE', '/repos/bob/life', { token: bobToken })).status).toBe(204);
    expect((await off.api('GET', '/repos/bob/life', { token: bobToken })).status).toBe(404);
  });
});

describe('switching the wiki off and on again', () => {
  const sandbox = upgradeSandbox('wiki');
  const boot = (enabled: boolean) => sandbox.boot({ wiki: enabled });
  const { auth } = sandbox;
  const call = (url: string, method: string, apiPath: string, body?: unknown) =>
    fetch(new URL(`api/v1${apiPath}`, url), {
      method,
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  test('pages written before are served again; the plugin records no migrations', async () => {
    const steps: Array<[boolean, (url: string) => Promise<void>]> = [
      [
        true,
        async (url) => {
          expect((await call(url, 'POST', '/user/repos', { name: 'kept', auto_init: true })).status).toBe(201);
          const page = { title: 'Home', content_base64: b64('# Kept') };
          expect((await call(url, 'POST', `/repos/${ADMIN.name}/kept/wiki/new`, page)).status).toBe(201);
        },
      ],
      [
        false,
        async (url) => {
          expect((await call(url, 'GET', `/repos/${ADMIN.name}/kept/wiki/page/Home`)).status).toBe(404);
        },
      ],
      [
        true,
        async (url) => {
          const page = await call(url, 'GET', `/repos/${ADMIN.name}/kept/wiki/page/Home`);
          expect(page.status).toBe(200);
          expect(Buffer.from(((await page.json()) as { content_base64: string }).content_base64, 'base64').toString()).toBe('# Kept');
        },
      ],
    ];
    for (const [enabled, step] of steps) {
      const kernel = await boot(enabled);
      try {
        await step(await kernel.listen());
        expect(await kernel.db.schema.hasTable('knex_migrations__wiki')).toBe(false);
      } finally {
        await kernel.close();
      }
    }
  });
});
