import { startServer, ADMIN, type TestServer } from './helpers/server';
import { WebClient, csrfToken, textOf } from './helpers/web';

/**
 * The web interface's sessions and forms over plain HTTP (what a browser does without JavaScript):
 * sign in and out, CSRF, session fixation, throttling, registration, HTML error pages, and the API
 * refusing the session cookie. Runs on every database (sessions and throttling are tables).
 */
describe('web sessions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ plugins: { web: { settings: { loginAttemptsPerAccount: 3 } } } });
  });
  afterAll(async () => server.close());

  test('anonymous visitors get the landing page and a sign-in form with a CSRF token', async () => {
    const web = new WebClient(server);
    const home = await web.get('/');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/text\/html/);
    expect(textOf(home.html)).toContain('Explore repositories');
    expect(home.headers.get('content-security-policy')).toContain("script-src 'self'");
    const login = await web.get('/user/login');
    expect(csrfToken(login.html)).toMatch(/^[\w-]{40,}$/);
    expect(web.cookies.has('hearth_csrf')).toBe(true);
  });

  test('signing in issues an HttpOnly SameSite=Lax session cookie and shows the dashboard; signing out ends the session', async () => {
    const alice = await server.user('web-alice');
    const web = new WebClient(server);
    const login = await web.get('/user/login');
    const res = await web.post('/user/login', { user_name: alice.name, password: alice.password }, { csrf: csrfToken(login.html) });
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('hearth_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i); // the test server is plain HTTP
    const dashboard = await web.get('/');
    expect(textOf(dashboard.html)).toContain('Your repositories');
    expect(textOf(dashboard.html)).toContain('Sign out');

    const stolen = web.cookies.get('hearth_session')!;
    const out = await web.post('/user/logout', {}, { csrfFrom: '/' });
    expect(out.status).toBe(303);
    expect(web.cookies.has('hearth_session')).toBe(false);
    // The old key no longer signs anybody in: the session is gone on the server, not just the cookie.
    const replay = new WebClient(server);
    replay.cookies.set('hearth_session', stolen);
    expect(textOf((await replay.get('/')).html)).toContain('Explore repositories');
  });

  test('a form without the CSRF token, or with another session’s token, is refused with 403', async () => {
    const bob = await server.user('web-bob');
    const web = new WebClient(server);
    await web.signIn(bob);
    const missing = await web.post('/user/logout', {}, { csrf: null });
    expect(missing.status).toBe(403);
    expect(textOf(missing.html)).toContain('not sent from this site');
    const other = new WebClient(server);
    await other.signIn(bob);
    const foreign = await web.post('/user/logout', {}, { csrf: csrfToken((await other.get('/')).html) });
    expect(foreign.status).toBe(403);
    expect(web.cookies.has('hearth_session')).toBe(true); // still signed in
    // The sign-in form itself is protected too (login CSRF).
    const anonymous = new WebClient(server);
    expect((await anonymous.post('/user/login', { user_name: bob.name, password: bob.password }, { csrf: 'forged' })).status).toBe(403);
  });

  test('a session key planted before sign-in is never the signed-in session (fixation)', async () => {
    const carol = await server.user('web-carol');
    const victim = new WebClient(server);
    victim.cookies.set('hearth_session', 'attacker-chosen-key');
    await victim.signIn(carol);
    expect(victim.cookies.get('hearth_session')).not.toBe('attacker-chosen-key');
    const attacker = new WebClient(server);
    attacker.cookies.set('hearth_session', 'attacker-chosen-key');
    expect(textOf((await attacker.get('/')).html)).not.toContain('Sign out');
  });

  test('the API refuses the session cookie: it is not a credential for /api/v1', async () => {
    const dave = await server.user('web-dave');
    const web = new WebClient(server);
    await web.signIn(dave);
    const res = await fetch(new URL('/api/v1/user', server.url), {
      headers: { Cookie: `hearth_session=${web.cookies.get('hearth_session')}` },
    });
    expect(res.status).toBe(401);
    const created = await fetch(new URL('/api/v1/user/repos', server.url), {
      method: 'POST',
      headers: { Cookie: `hearth_session=${web.cookies.get('hearth_session')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'via-cookie' }),
    });
    expect(created.status).toBe(401);
  });

  test('wrong passwords are throttled per account: past the limit even the right password waits (429)', async () => {
    const erin = await server.user('web-erin');
    const web = new WebClient(server);
    for (let i = 0; i < 3; i++) {
      const res = await web.post('/user/login', { user_name: erin.name, password: 'wrong' }, { csrfFrom: '/user/login' });
      expect(res.status).toBe(401);
      expect(textOf(res.html)).toContain('The user name or password is incorrect.');
    }
    const blocked = await web.post('/user/login', { user_name: erin.name, password: erin.password }, { csrfFrom: '/user/login' });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(textOf(blocked.html)).toContain('too many failed sign-ins');
    // Other accounts are not affected.
    await web.signIn(await server.user('web-frank'));
  });

  test('prohibited accounts cannot sign in, and a signed-in account that gets prohibited is signed out', async () => {
    const gina = await server.user('web-gina');
    const web = new WebClient(server);
    await web.signIn(gina);
    const patched = await server.api('PATCH', `/admin/users/${gina.name}`, {
      basic: [ADMIN.name, ADMIN.password],
      body: { login_name: gina.name, source_id: 0, prohibit_login: true },
    });
    expect(patched.status).toBe(200);
    expect(textOf((await web.get('/')).html)).not.toContain('Sign out');
    const again = await web.post('/user/login', { user_name: gina.name, password: gina.password }, { csrfFrom: '/user/login' });
    expect(again.status).toBe(403);
    expect(textOf(again.html)).toContain('prohibited');
  });

  test('registration creates an account and signs it in; bad input re-renders the form with the reason', async () => {
    const web = new WebClient(server);
    const mismatch = await web.post(
      '/user/sign_up',
      { user_name: 'newcomer', email: 'newcomer@example.com', password: 'a-long-password-1', retype: 'different' },
      { csrfFrom: '/user/sign_up' },
    );
    expect(mismatch.status).toBe(422);
    expect(textOf(mismatch.html)).toContain('The passwords do not match.');
    expect(mismatch.html).toContain('value="newcomer"');
    const taken = await web.post(
      '/user/sign_up',
      { user_name: ADMIN.name, email: 'other@example.com', password: 'a-long-password-1', retype: 'a-long-password-1' },
      { csrfFrom: '/user/sign_up' },
    );
    expect(taken.status).toBe(422);
    const ok = await web.post(
      '/user/sign_up',
      { user_name: 'newcomer', email: 'newcomer@example.com', password: 'a-long-password-1', retype: 'a-long-password-1' },
      { csrfFrom: '/user/sign_up' },
    );
    expect(ok.status).toBe(303);
    expect(textOf((await web.get('/')).html)).toContain('newcomer');
    const user = await server.api('GET', '/users/newcomer');
    expect(user.status).toBe(200);
  });

  test('browsers get HTML error pages, API clients JSON, for the same missing page', async () => {
    const web = new WebClient(server);
    const page = await web.get('/no-such-user-here');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(textOf(page.html)).toContain('Page not found');
    const json = await fetch(new URL('/no-such-user-here', server.url), { headers: { Accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(((await json.json()) as { message?: string }).message).toBeDefined();
    const api = await fetch(new URL('/api/v1/no/such/route', server.url), { headers: { Accept: 'text/html' } });
    expect(api.headers.get('content-type')).toMatch(/json/);
  });

  test('profiles and explore lists show only what the viewer may see', async () => {
    const owner = await server.user('web-owner');
    const token = await server.token(owner, ['write:repository', 'write:user']);
    await server.api('POST', '/user/repos', { token, body: { name: 'open-project' } });
    await server.api('POST', '/user/repos', { token, body: { name: 'secret-project', private: true } });
    const anonymous = new WebClient(server);
    const profile = textOf((await anonymous.get('/web-owner')).html);
    expect(profile).toContain('web-owner/open-project');
    expect(profile).not.toContain('secret-project');
    const explore = textOf((await anonymous.get('/explore/repos?q=project')).html);
    expect(explore).toContain('open-project');
    expect(explore).not.toContain('secret-project');
    const self = new WebClient(server);
    await self.signIn(owner);
    expect(textOf((await self.get('/web-owner')).html)).toContain('secret-project');
    expect(textOf((await self.get('/explore/repos?q=project')).html)).toContain('secret-project');
  });

  test('profile fields and repository descriptions holding markup are shown as text, never run', async () => {
    const mallory = await server.user('web-mallory');
    const token = await server.token(mallory, ['write:repository', 'write:user']);
    const payload = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const edited = await server.api('PATCH', `/admin/users/${mallory.name}`, {
      basic: [ADMIN.name, ADMIN.password],
      body: { login_name: mallory.name, source_id: 0, full_name: payload, description: payload },
    });
    expect(edited.status).toBe(200);
    await server.api('POST', '/user/repos', { token, body: { name: 'xss-project', description: payload } });
    const web = new WebClient(server);
    for (const path of ['/web-mallory', '/explore/repos?q=xss', '/explore/users?q=mallory']) {
      const { html } = await web.get(path);
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('<img src=x');
      if (path !== '/explore/users?q=mallory') expect(html).toContain('&lt;script>alert(1)&lt;/script>');
    }
  });

  test('downloads outside the API know the signed-in browser (raw files of a private repository); /api/v1 still does not', async () => {
    const owner = await server.user('web-downloader');
    const token = await server.token(owner, ['write:repository']);
    const made = await server.api('POST', '/user/repos', {
      token,
      body: { name: 'vault', private: true, auto_init: true, default_branch: 'main' },
    });
    expect(made.status).toBe(201);
    const raw = '/web-downloader/vault/raw/branch/main/README.md';
    const anonymous = new WebClient(server);
    expect((await anonymous.get(raw)).status).toBe(404);
    const web = new WebClient(server);
    await web.signIn(owner);
    const file = await web.get(raw);
    expect(file.status).toBe(200);
    expect(file.html).toContain('vault');
    const stranger = new WebClient(server);
    await stranger.signIn(await server.user('web-stranger'));
    expect((await stranger.get(raw)).status).toBe(404);
    const api = await fetch(new URL('/api/v1/repos/web-downloader/vault/raw/README.md', server.url), {
      headers: { Cookie: `hearth_session=${web.cookies.get('hearth_session')}` },
    });
    expect(api.status).toBe(404);

    // A release asset of the private repository, by its browser_download_url.
    const release = await server.api('POST', '/repos/web-downloader/vault/releases', {
      token,
      body: { tag_name: 'v1', target_commitish: 'main' },
    });
    expect(release.status).toBe(201);
    const form = new FormData();
    form.append('attachment', new Blob([Buffer.from('asset bytes')]), 'asset.txt');
    const uploaded = await fetch(
      new URL(`/api/v1/repos/web-downloader/vault/releases/${release.body.id}/assets?name=asset.txt`, server.url),
      {
        method: 'POST',
        headers: { Authorization: `token ${token}` },
        body: form,
      },
    );
    expect(uploaded.status).toBe(201);
    const download = new URL(((await uploaded.json()) as { browser_download_url: string }).browser_download_url).pathname;
    expect((await anonymous.get(download)).status).toBe(404);
    const asset = await web.get(download);
    expect([asset.status, asset.html]).toEqual([200, 'asset bytes']);
  });

  test('sign-in redirects only to paths on this site', async () => {
    const hank = await server.user('web-hank');
    const web = new WebClient(server);
    const local = await web.post(
      '/user/login',
      { user_name: hank.name, password: hank.password, redirect_to: '/explore/users' },
      { csrfFrom: '/user/login' },
    );
    expect(local.headers.get('location')).toBe('/explore/users');
    const other = new WebClient(server);
    const offsite = await other.post(
      '/user/login',
      { user_name: hank.name, password: hank.password, redirect_to: '//evil.example/' },
      { csrfFrom: '/user/login' },
    );
    expect(offsite.headers.get('location')).toBe('/');
  });
});

describe('web registration switched off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ service: { DISABLE_REGISTRATION: true } });
  });
  afterAll(async () => server.close());

  test('no Register link, and the form is refused', async () => {
    const web = new WebClient(server);
    expect(textOf((await web.get('/')).html)).not.toContain('Register');
    expect((await web.get('/user/sign_up')).status).toBe(403);
    const res = await web.post(
      '/user/sign_up',
      { user_name: 'sneaky', email: 'sneaky@example.com', password: 'a-long-password-1', retype: 'a-long-password-1' },
      { csrfFrom: '/user/login' },
    );
    expect(res.status).toBe(403);
    expect((await server.api('GET', '/users/sneaky')).status).toBe(404);
  });
});
