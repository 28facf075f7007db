import { ADMIN, type TestServer } from './helpers/server';
import { WebClient, csrfToken, textOf, webServer, signedIn } from './helpers/web';

/**
 * The web interface's sessions and forms over plain HTTP (what a browser does without JavaScript):
 * sign in and out, CSRF, session fixation, throttling, registration, HTML error pages, and the API
 * refusing the session cookie. Runs on every database (sessions and throttling are tables). The
 * signed-in user's settings share the sessions' server (distinct users; throttling counts only
 * failed sign-ins of its own accounts).
 */
const suite = webServer({ plugins: { web: { settings: { loginAttemptsPerAccount: 3 } } } });
describe('web sessions', () => {
  let server: TestServer;
  beforeAll(() => {
    server = suite.server;
  });

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
  const registrationOff = webServer({ service: { DISABLE_REGISTRATION: true } });
  let server: TestServer;
  beforeAll(() => {
    server = registrationOff.server;
  });

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

/**
 * The signed-in user's settings and notifications pages over plain HTTP (what a browser does
 * without JavaScript): sign-in redirects for anonymous visitors, CSRF on every form, email
 * addresses, access tokens (scope warning, shown once, nobody else may delete them), the
 * notifications inbox, and the profile form (saved through the API, its refusals shown with the
 * values kept, markup in the values shown as text). Runs on every database.
 */
describe('your settings', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let bob: { name: string; password: string; id: number };
  const PAYLOAD = '<script>alert(1)</script><img src=x onerror=alert(2)>';

  beforeAll(async () => {
    server = suite.server;
    alice = await server.user('settings-alice');
    bob = await server.user('settings-bob');
  });

  /** The user's tokens as the API lists them (basic auth with the password). */
  async function tokenNames(user: { name: string; password: string }): Promise<string[]> {
    const res = await server.api('GET', `/users/${user.name}/tokens`, { basic: [user.name, user.password] });
    expect(res.status).toBe(200);
    return (res.body as Array<{ name: string }>).map((t) => t.name);
  }

  /** The secret a token creation page shows (the read-only field holding it). */
  function shownSecret(html: string): string {
    const match = /id="new-token"[^>]*value="([0-9a-f]{40})"|value="([0-9a-f]{40})"[^>]*id="new-token"/.exec(html);
    if (!match) throw new Error('no new token on the page');
    return match[1] ?? match[2];
  }

  describe('sign-in and CSRF', () => {
    test('anonymous visitors are sent to sign in, coming back to the page they asked for', async () => {
      const web = new WebClient(server);
      for (const path of ['/user/settings', '/user/settings/account', '/user/settings/applications', '/notifications?q=read']) {
        const res = await web.get(path);
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe(`/user/login?redirect_to=${encodeURIComponent(path)}`);
      }
      // A form sent without a session (but with the anonymous CSRF token) changes nothing either.
      const post = await web.post('/user/settings/applications', { name: 'sneaky', scope: 'read:user' }, { csrfFrom: '/user/login' });
      expect(post.status).toBe(303);
      expect(post.headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);
      const profile = await web.post('/user/settings', { full_name: 'Anonymous' }, { csrfFrom: '/user/login' });
      expect(profile.headers.get('location')).toBe('/user/login?redirect_to=%2Fuser%2Fsettings');
      const purge = await web.post('/notifications/purge', {}, { csrfFrom: '/user/login' });
      expect(purge.headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);
    });

    test('every form is refused without the page’s CSRF token, or with another session’s', async () => {
      const web = await signedIn(server, alice);
      const other = csrfToken((await (await signedIn(server, alice)).get('/user/settings/applications')).html);
      const forms: Array<[string, Record<string, string>]> = [
        ['/user/settings', { full_name: 'Forged' }],
        ['/user/settings/applications', { name: 'forged', scope: 'read:user' }],
        ['/user/settings/applications/delete', { id: '1' }],
        ['/user/settings/account/email', { email: 'forged@example.com' }],
        ['/user/settings/account/email/delete', { email: `${alice.name}@example.com` }],
        ['/notifications/status', { notification_id: '1', status: 'read' }],
        ['/notifications/purge', {}],
      ];
      for (const [path, fields] of forms) {
        for (const csrf of [null, other]) {
          const res = await web.post(path, fields, { csrf });
          expect(res.status).toBe(403);
          expect(textOf(res.html)).toContain('not sent from this site');
        }
      }
      expect(await tokenNames(alice)).not.toContain('forged');
      expect((await server.api('GET', '/user/settings', { basic: [alice.name, alice.password] })).body.full_name).toBe('');
      const emails = await server.api('GET', '/user/emails', { basic: [alice.name, alice.password] });
      expect(emails.body.map((e: { email: string }) => e.email)).toEqual([`${alice.name}@example.com`]);
    });
  });

  describe('profile and account', () => {
    test('the profile form shows the saved settings; markup in them is text, never run', async () => {
      const mallory = await server.user('settings-mallory');
      const edited = await server.api('PATCH', '/user/settings', {
        basic: [mallory.name, mallory.password],
        // (a location is at most 50 characters)
        body: { full_name: PAYLOAD, location: '"><img src=x onerror=alert(3)>', description: `</textarea>${PAYLOAD}`, hide_email: true },
      });
      expect(edited.status).toBe(200);
      const web = await signedIn(server, mallory);
      const page = await web.get('/user/settings');
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('<script>alert');
      expect(page.html).not.toContain('<img src=x');
      // Every "<" of a value is escaped, inside attributes and the textarea alike (a ">" alone opens nothing).
      expect(page.html).toContain(
        'id="full_name" name="full_name" type="text" value="&lt;script>alert(1)&lt;/script>&lt;img src=x onerror=alert(2)>"',
      );
      expect(page.html).toContain('id="location" name="location" type="text" value="&quot;>&lt;img src=x onerror=alert(3)>"');
      expect(page.html).toMatch(
        /<textarea id="description"[^>]*>&lt;\/textarea>&lt;script>alert\(1\)&lt;\/script>&lt;img [^<]*<\/textarea>/,
      );
      expect(textOf(page.html)).toContain(`</textarea>${PAYLOAD}`);
      expect(page.html).toMatch(/<input type="checkbox" id="hide_email" name="hide_email" value="on" checked/);
      expect(page.html).toMatch(/<input type="checkbox" id="hide_activity" name="hide_activity" value="on"\/?>/);
      expect(textOf(page.html)).toContain('settings-mallory@example.com');
      expect(page.html).toMatch(/<a href="\/user\/settings" aria-current="page">Profile<\/a>/);
    });

    test('editing the profile: saved through the API, a notice, the new values in the form and in the API', async () => {
      const dave = await server.user('settings-dave');
      const web = await signedIn(server, dave);
      const fields = {
        full_name: '  Dave Bowman ',
        website: 'https://dave.example.com/',
        location: 'Jupiter',
        description: 'Open the pod bay doors.\nPlease.',
        hide_email: 'on',
      };
      const saved = await web.post('/user/settings', fields, { csrfFrom: '/user/settings' });
      expect(saved.status).toBe(303);
      expect(saved.headers.get('location')).toBe('/user/settings?done=updated');
      const page = await web.get('/user/settings?done=updated');
      expect(textOf(page.html)).toContain('Your profile was updated.');
      expect(page.html).toContain('value="Dave Bowman"');
      expect(page.html).toContain('value="https://dave.example.com/"');
      expect(page.html).toMatch(/id="hide_email" name="hide_email" value="on" checked/);

      const settings = await server.api('GET', '/user/settings', { basic: [dave.name, dave.password] });
      expect(settings.body).toMatchObject({
        full_name: 'Dave Bowman',
        website: 'https://dave.example.com/',
        location: 'Jupiter',
        description: 'Open the pod bay doors.\nPlease.',
        hide_email: true,
        hide_activity: false,
      });
      // Hidden from other users now.
      const seen = await server.api('GET', `/users/${dave.name}`, { basic: [bob.name, bob.password] });
      expect(seen.body.email).toBe(`${dave.name}@noreply.localhost`);

      // An unchecked box is sent as nothing: the setting goes off.
      const { hide_email: _dropped, ...unchecked } = fields;
      const cleared = await web.post('/user/settings', { ...unchecked, hide_activity: 'on' }, { csrfFrom: '/user/settings' });
      expect(cleared.status).toBe(303);
      const after = await server.api('GET', '/user/settings', { basic: [dave.name, dave.password] });
      expect(after.body).toMatchObject({ hide_email: false, hide_activity: true });
    });

    test('a website that is not a URL: the API’s message, the values kept, nothing saved', async () => {
      const erin = await server.user('settings-erin');
      const web = await signedIn(server, erin);
      const refused = await web.post(
        '/user/settings',
        {
          full_name: 'Erin Kept',
          website: 'javascript:alert(1)//<b>x</b>',
          location: 'Somewhere',
          description: 'Still here',
          hide_activity: 'on',
        },
        { csrfFrom: '/user/settings' },
      );
      expect(refused.status).toBe(422);
      expect(textOf(refused.html)).toContain('website must be an http or https URL, or empty');
      expect(refused.html).not.toContain('<b>x</b>');
      expect(refused.html).toContain('value="Erin Kept"');
      expect(refused.html).toContain('value="javascript:alert(1)//&lt;b>x&lt;/b>"');
      expect(refused.html).toContain('value="Somewhere"');
      expect(refused.html).toMatch(/<textarea id="description" name="description"[^>]*>Still here<\/textarea>/);
      expect(refused.html).toMatch(/id="hide_activity" name="hide_activity" value="on" checked/);
      expect(textOf(refused.html)).not.toContain('Your profile was updated.');

      const tooLong = await web.post('/user/settings', { full_name: 'x'.repeat(101) }, { csrfFrom: '/user/settings' });
      expect(tooLong.status).toBe(422);
      expect(textOf(tooLong.html)).toContain('full_name');

      const settings = await server.api('GET', '/user/settings', { basic: [erin.name, erin.password] });
      expect(settings.body).toMatchObject({ full_name: '', website: '', location: '', description: '', hide_activity: false });
    });

    test('email addresses: add one, see the API’s refusal with the value kept, delete it; the primary stays', async () => {
      const web = await signedIn(server, bob);
      const added = await web.post(
        '/user/settings/account/email',
        { email: 'bob-second@example.com' },
        { csrfFrom: '/user/settings/account' },
      );
      expect(added.status).toBe(303);
      expect(added.headers.get('location')).toBe('/user/settings/account?done=added');
      const page = textOf((await web.get('/user/settings/account?done=added')).html);
      expect(page).toContain('The email address was added.');
      expect(page).toContain('bob-second@example.com');

      const taken = await web.post(
        '/user/settings/account/email',
        { email: `${alice.name}@example.com` },
        { csrfFrom: '/user/settings/account' },
      );
      expect(taken.status).toBe(422);
      expect(textOf(taken.html)).toContain('e-mail already in use');
      expect(taken.html).toContain(`value="${alice.name}@example.com"`);

      const primary = await web.post(
        '/user/settings/account/email/delete',
        { email: `${bob.name}@example.com` },
        { csrfFrom: '/user/settings/account' },
      );
      expect(primary.status).toBe(400);
      expect(textOf(primary.html)).toContain('the primary email address cannot be deleted');

      const deleted = await web.post(
        '/user/settings/account/email/delete',
        { email: 'bob-second@example.com' },
        { csrfFrom: '/user/settings/account' },
      );
      expect(deleted.status).toBe(303);
      expect(textOf((await web.get('/user/settings/account')).html)).not.toContain('bob-second@example.com');
    });
  });

  describe('access tokens', () => {
    test('a token without any scope is refused with the warning; with a scope it is shown once and works', async () => {
      const web = await signedIn(server, alice);
      const form = await web.get('/user/settings/applications');
      expect(form.status).toBe(200);
      expect(textOf(form.html)).toContain('Select at least one scope');
      // The nine categories of Gitea 1.20, each with its levels; admin only for site administrators.
      for (const category of ['activitypub', 'admin', 'issue', 'misc', 'notification', 'organization', 'package', 'repository', 'user']) {
        expect(form.html).toContain(`<label for="scope-${category}">`);
      }
      expect(form.html).toMatch(/<select id="scope-admin" name="scope" disabled/);

      const none = await web.post('/user/settings/applications', { name: 'no-scope' }, { csrfFrom: '/user/settings/applications' });
      expect(none.status).toBe(400);
      expect(textOf(none.html)).toContain('Select at least one scope');
      expect(textOf(none.html)).toContain('access token must have a scope');
      expect(none.html).toContain('value="no-scope"'); // the name is kept
      expect(await tokenNames(alice)).not.toContain('no-scope');

      const made = await web.post(
        '/user/settings/applications',
        { name: 'laptop', scope: ['', 'read:user', '', 'write:repository'] },
        { csrfFrom: '/user/settings/applications' },
      );
      expect(made.status).toBe(201);
      expect(made.headers.get('location')).toBeNull();
      expect(textOf(made.html)).toContain('it will not be shown again');
      const secret = shownSecret(made.html);
      const me = await server.api('GET', '/user', { token: secret });
      expect(me.status).toBe(200);
      expect(me.body.login).toBe(alice.name);
      expect(textOf(made.html)).toMatch(/laptop …[0-9a-f]{8} write:repository read:user/);

      // Shown once: the list shows its last eight characters only.
      const later = await web.get('/user/settings/applications');
      expect(later.html).not.toContain(secret);
      expect(textOf(later.html)).toContain(`…${secret.slice(-8)}`);
    });

    test('a token name holding markup is text', async () => {
      const web = await signedIn(server, alice);
      const made = await web.post(
        '/user/settings/applications',
        { name: PAYLOAD, scope: 'read:misc' },
        { csrfFrom: '/user/settings/applications' },
      );
      expect(made.status).toBe(201);
      const page = await web.get('/user/settings/applications');
      expect(page.html).not.toContain('<script>alert');
      expect(page.html).not.toContain('<img src=x');
      expect(textOf(page.html)).toContain(PAYLOAD);
    });

    test('another user cannot delete your token; you can', async () => {
      const secret = await server.token(alice, ['read:user'], 'kept-from-bob');
      const tokens = await server.api('GET', `/users/${alice.name}/tokens`, { basic: [alice.name, alice.password] });
      const id = String((tokens.body as Array<{ id: number; name: string }>).find((t) => t.name === 'kept-from-bob')!.id);

      const other = await signedIn(server, bob);
      const refused = await other.post('/user/settings/applications/delete', { id }, { csrfFrom: '/user/settings/applications' });
      expect(refused.status).toBe(404);
      expect(textOf(refused.html)).toContain('access token does not exist');
      expect((await server.api('GET', '/user', { token: secret })).status).toBe(200);

      const web = await signedIn(server, alice);
      const deleted = await web.post('/user/settings/applications/delete', { id }, { csrfFrom: '/user/settings/applications' });
      expect(deleted.status).toBe(303);
      expect(deleted.headers.get('location')).toBe('/user/settings/applications?done=deleted');
      expect(textOf((await web.get('/user/settings/applications?done=deleted')).html)).toContain('The access token was deleted.');
      expect((await server.api('GET', '/user', { token: secret })).status).toBe(401);
    });

    test('the API’s rule is unchanged for API clients: a token cannot manage tokens', async () => {
      const secret = await server.token(alice, ['write:user'], 'api-client');
      const res = await server.api('POST', `/users/${alice.name}/tokens`, {
        token: secret,
        body: { name: 'minted', scopes: ['read:user'] },
      });
      expect(res.status).toBe(401);
    });
  });

  describe('notifications', () => {
    let carol: { name: string; password: string; id: number };
    beforeAll(async () => {
      carol = await server.user('settings-carol');
      const basic: [string, string] = [carol.name, carol.password];
      expect((await server.api('POST', '/user/repos', { basic, body: { name: 'inbox', auto_init: true } })).status).toBe(201);
      for (const title of ['First question', PAYLOAD]) {
        const issue = await server.api('POST', `/repos/${carol.name}/inbox/issues`, { basic: [bob.name, bob.password], body: { title } });
        expect(issue.status).toBe(201);
      }
    });

    test('unread threads link to their subjects; mark read, pin, unpin, mark unread and mark all read move them between tabs', async () => {
      const web = await signedIn(server, carol);
      const inbox = await web.get('/notifications');
      expect(inbox.status).toBe(200);
      expect(inbox.html).not.toContain('<script>alert');
      expect(inbox.html).not.toContain('<img src=x');
      const text = textOf(inbox.html);
      expect(text).toContain('2 Unread');
      expect(text).toContain('0 Read');
      expect(text).toContain('First question');
      expect(inbox.html).toContain(`href="/${carol.name}/inbox/issues/1"`);
      expect(inbox.html).toContain(`href="/${carol.name}/inbox"`);

      const threads = await server.api('GET', '/notifications', { basic: [carol.name, carol.password] });
      const first = (threads.body as Array<{ id: number; subject: { title: string } }>).find((t) => t.subject.title === 'First question')!;
      const mark = (status: string, q = 'unread') =>
        web.post('/notifications/status', { notification_id: String(first.id), status, q }, { csrfFrom: '/notifications' });

      const read = await mark('read');
      expect(read.status).toBe(303);
      expect(read.headers.get('location')).toBe('/notifications?q=unread');
      expect(textOf((await web.get('/notifications?q=read')).html)).toContain('First question');
      expect(textOf((await web.get('/notifications')).html)).toContain('1 Unread');

      await mark('pinned', 'read');
      const pinned = textOf((await web.get('/notifications?q=pinned')).html);
      expect(pinned).toContain('1 Pinned');
      expect(pinned).toContain('First question');
      await mark('read', 'pinned'); // unpin
      await mark('unread', 'read');
      expect(textOf((await web.get('/notifications')).html)).toContain('2 Unread');

      const purge = await web.post('/notifications/purge', {}, { csrfFrom: '/notifications' });
      expect(purge.status).toBe(303);
      const after = textOf((await web.get('/notifications')).html);
      expect(after).toContain('0 Unread');
      expect(after).toContain('2 Read');
      expect(after).toContain('No unread notifications.');
    });

    test('another user cannot change your notification threads', async () => {
      const all = await server.api('GET', '/notifications?all=true', { basic: [carol.name, carol.password] });
      const id = String((all.body as Array<{ id: number }>)[0].id);
      const other = await signedIn(server, alice);
      const res = await other.post('/notifications/status', { notification_id: id, status: 'pinned' }, { csrfFrom: '/notifications' });
      expect(res.status).toBe(403);
      const pinned = await server.api('GET', '/notifications?status-types=pinned', { basic: [carol.name, carol.password] });
      expect(pinned.body).toEqual([]);
    });
  });

  describe('password change', () => {
    test('the current password is required; a change keeps this session and signs the other browsers out', async () => {
      const dora = await server.user('settings-dora');
      const here = await signedIn(server, dora);
      const elsewhere = await signedIn(server, dora);
      const page = textOf((await here.get('/user/settings/account')).html);
      expect(page).toContain('Current password');
      expect(page).toContain('At least 8 characters');

      const wrong = await here.post(
        '/user/settings/account/password',
        { old_password: 'not-the-password', password: 'a-new-secret-1', retype: 'a-new-secret-1' },
        { csrfFrom: '/user/settings/account' },
      );
      expect(wrong.status).toBe(403);
      expect(textOf(wrong.html)).toContain('the current password is wrong');
      const short = await here.post(
        '/user/settings/account/password',
        { old_password: dora.password, password: 'short', retype: 'short' },
        { csrfFrom: '/user/settings/account' },
      );
      expect(short.status).toBe(400);
      expect(textOf(short.html)).toContain('password is too short: at least 8 characters');
      const differ = await here.post(
        '/user/settings/account/password',
        { old_password: dora.password, password: 'a-new-secret-1', retype: 'a-new-secret-2' },
        { csrfFrom: '/user/settings/account' },
      );
      expect(differ.status).toBe(400);
      // Nothing changed so far: the old password still works, the other browser is still signed in.
      expect((await server.api('GET', '/user', { basic: [dora.name, dora.password] })).status).toBe(200);
      expect(textOf((await elsewhere.get('/')).html)).toContain('Sign out');

      const done = await here.post(
        '/user/settings/account/password',
        { old_password: dora.password, password: 'a-new-secret-1', retype: 'a-new-secret-1' },
        { csrfFrom: '/user/settings/account' },
      );
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe('/user/settings/account?done=password');
      expect(textOf((await here.get('/user/settings/account?done=password')).html)).toContain('Your password was changed.');
      expect(textOf((await elsewhere.get('/')).html)).not.toContain('Sign out');
      expect((await server.api('GET', '/user', { basic: [dora.name, dora.password] })).status).toBe(401);
      expect((await server.api('GET', '/user', { basic: [dora.name, 'a-new-secret-1'] })).status).toBe(200);
      await signedIn(server, { name: dora.name, password: 'a-new-secret-1' });
    });

    test('an account of an external source has no password to change: the page says so and the form is refused', async () => {
      const erin = await server.user('settings-ext');
      const web = await signedIn(server, erin);
      // What an identity plugin's account looks like: a login source and no local password hash.
      await server.kernel.db('users').where({ id: erin.id }).update({ login_source: 4242, passwd: '' });
      const page = textOf((await web.get('/user/settings/account')).html);
      expect(page).toContain('there is no password here to change');
      expect(page).not.toContain('Current password');
      const res = await web.post(
        '/user/settings/account/password',
        { old_password: erin.password, password: 'a-new-secret-1', retype: 'a-new-secret-1' },
        { csrfFrom: '/user/settings/account' },
      );
      expect(res.status).toBe(422);
    });
  });
});
