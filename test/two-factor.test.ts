import fs from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { startServer, ADMIN, type TestServer } from './helpers/server';
import { WebClient, csrfToken, textOf } from './helpers/web';
import { cloneUrl, gitSandbox } from './helpers/git';

/**
 * Two-factor authentication (plugin two-factor) over HTTP as a browser without JavaScript uses it,
 * with codes computed from the secret the enrolment page shows, by the same TOTP library an
 * authenticator app implements: enrolment, the sign-in step, replay, the recovery code, throttling,
 * `X-Gitea-OTP` with basic auth on the API and git, disabling, CSRF, and account deletion.
 * Runs on every database (the factor is a table).
 */

const STEP_MS = 30_000;

/** The code an authenticator app shows `offsetSteps` periods from now. */
function codeAt(secret: string, offsetSteps = 0): string {
  const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
  return totp.generate({ timestamp: Date.now() + offsetSteps * STEP_MS });
}

/** A 6-digit code that is none of the codes valid now (the window is one step either side). */
function wrongCode(secret: string): string {
  const valid = new Set([-1, 0, 1].map((o) => codeAt(secret, o)));
  let n = Number(codeAt(secret));
  do n = (n + 1) % 1_000_000;
  while (valid.has(String(n).padStart(6, '0')));
  return String(n).padStart(6, '0');
}

const secretOf = (html: string) => /id="two-factor-secret">([A-Z2-7]+)</.exec(html)![1];
const scratchOf = (html: string) => /id="two-factor-scratch">([A-Z2-7]+)</.exec(html)![1];

describe('two-factor authentication', () => {
  let server: TestServer;
  let sandbox: ReturnType<typeof gitSandbox>;

  /** Sign `user` in and enrol them; answers the secret and the recovery code. The confirming code is the previous step's. */
  async function enrol(web: WebClient, user: { name: string; password: string }): Promise<{ secret: string; scratch: string }> {
    if (!web.cookies.has('hearth_session')) await web.signIn(user);
    const page = await web.get('/user/settings/security/two_factor/enroll');
    expect(page.status).toBe(200);
    const secret = secretOf(page.html);
    const done = await web.post(
      '/user/settings/security/two_factor/enroll',
      { passcode: codeAt(secret, -1) },
      { csrf: csrfToken(page.html) },
    );
    expect(done.status).toBe(200);
    return { secret, scratch: scratchOf(done.html) };
  }

  /** Password sign-in of an enrolled user: the second step is asked, no session yet. */
  async function passwordStep(user: { name: string; password: string }): Promise<WebClient> {
    const web = new WebClient(server);
    const res = await web.post('/user/login', { user_name: user.name, password: user.password }, { csrfFrom: '/user/login' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/user/two_factor');
    expect(web.cookies.has('hearth_session')).toBe(false);
    return web;
  }

  beforeAll(async () => {
    server = await startServer({ plugins: { web: { settings: { loginAttemptsPerAccount: 3 } } } });
    sandbox = gitSandbox();
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  test('enrolment: the settings tab shows the state; a wrong confirming code is refused, a right one activates it', async () => {
    const alice = await server.user('tf-alice');
    const web = new WebClient(server);
    await web.signIn(alice);
    const settings = await web.get('/user/settings');
    expect(settings.html).toContain('href="/user/settings/security"');
    const security = await web.get('/user/settings/security');
    expect(textOf(security.html)).toContain('Two-factor authentication is not enrolled.');

    const page = await web.get('/user/settings/security/two_factor/enroll');
    const secret = secretOf(page.html);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = /id="two-factor-uri">([^<]+)</.exec(page.html)![1].replace(/&amp;/g, '&');
    expect(uri).toMatch(new RegExp(`^otpauth://totp/.*tf-alice\\?.*secret=${secret}`));
    expect(uri).toContain('algorithm=SHA1&digits=6&period=30');
    // The QR code is an image the strict CSP allows (img-src data:), an SVG without script or style.
    const qr = Buffer.from(/id="two-factor-qr" src="data:image\/svg\+xml;base64,([^"]+)"/.exec(page.html)![1], 'base64').toString();
    expect(qr).toMatch(/^<svg /);
    expect(qr).not.toMatch(/<script|style=|<style/);
    // The same secret until confirmed: reloading does not change what the app was given.
    expect(secretOf((await web.get('/user/settings/security/two_factor/enroll')).html)).toBe(secret);

    const wrong = await web.post(
      '/user/settings/security/two_factor/enroll',
      { passcode: wrongCode(secret) },
      { csrf: csrfToken(page.html) },
    );
    expect(wrong.status).toBe(422);
    expect(textOf(wrong.html)).toContain('The code is not correct');
    expect(textOf((await web.get('/user/settings/security')).html)).toContain('not enrolled');
    // Still signs in without a second step.
    await passwordless(alice, true);

    const right = await web.post('/user/settings/security/two_factor/enroll', { passcode: codeAt(secret) }, { csrf: csrfToken(page.html) });
    expect(right.status).toBe(200);
    expect(scratchOf(right.html)).toMatch(/^[A-Z2-7]{16}$/);
    expect(textOf((await web.get('/user/settings/security')).html)).toContain('Two-factor authentication is enabled.');
    // The stored secret is sealed, the recovery code hashed.
    const row = await server.kernel.db('two_factor').where({ user_id: alice.id }).first();
    expect(row.secret).not.toContain(secret);
    expect(row.scratch_hash).toMatch(/^[0-9a-f]{64}$/);
    // A site admin sees it on the user's admin page.
    const admin = new WebClient(server);
    await admin.signIn(ADMIN);
    expect(textOf((await admin.get(`/admin/users/${alice.id}`)).html)).toContain('two-factor authentication on');
  });

  /** Whether the password form alone signs `user` in. */
  async function passwordless(user: { name: string; password: string }, expected: boolean) {
    const web = new WebClient(server);
    const res = await web.post('/user/login', { user_name: user.name, password: user.password }, { csrfFrom: '/user/login' });
    expect(res.status).toBe(303);
    expect(web.cookies.has('hearth_session')).toBe(expected);
  }

  test('sign-in asks the code: a wrong one is refused, the right one signs in with a fresh session, it cannot be replayed', async () => {
    const bob = await server.user('tf-bob');
    const { secret } = await enrol(new WebClient(server), bob);
    const web = await passwordStep(bob);
    const step = await web.get('/user/two_factor');
    expect(step.status).toBe(200);
    expect(step.html).toContain('href="/user/two_factor/scratch"');
    // Nothing of the account is reachable yet.
    expect((await web.get('/user/settings')).headers.get('location')).toMatch(/^\/user\/login\?/);

    const wrong = await web.post('/user/two_factor', { passcode: wrongCode(secret) }, { csrf: csrfToken(step.html) });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.html)).toContain('The code is not correct.');
    expect(web.cookies.has('hearth_session')).toBe(false);

    const code = codeAt(secret);
    const right = await web.post('/user/two_factor', { passcode: code }, { csrf: csrfToken(step.html) });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/');
    expect(web.cookies.has('hearth_session')).toBe(true);
    expect(web.cookies.has('hearth_pending_sign_in')).toBe(false);
    expect(textOf((await web.get('/')).html)).toContain('Sign out');

    // Somebody who saw the code and the password cannot use them again.
    const thief = await passwordStep(bob);
    const again = await thief.post('/user/two_factor', { passcode: code }, { csrfFrom: '/user/two_factor' });
    expect(again.status).toBe(401);
    expect(thief.cookies.has('hearth_session')).toBe(false);
  });

  test('the second step without a pending sign-in, or with a forged one, goes back to the sign-in form', async () => {
    const web = new WebClient(server);
    expect((await web.get('/user/two_factor')).headers.get('location')).toBe('/user/login');
    web.cookies.set('hearth_pending_sign_in', 'forged.value');
    const res = await web.post('/user/two_factor', { passcode: '123456' }, { csrfFrom: '/user/login' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/user/login');
  });

  test('the recovery code signs in once, then is gone; a new one can be made', async () => {
    const carol = await server.user('tf-carol');
    const settings = new WebClient(server);
    const { scratch } = await enrol(settings, carol);
    const web = await passwordStep(carol);
    const page = await web.get('/user/two_factor/scratch');
    const ok = await web.post('/user/two_factor/scratch', { token: scratch }, { csrf: csrfToken(page.html) });
    expect(ok.status).toBe(303);
    expect(web.cookies.has('hearth_session')).toBe(true);

    const second = await passwordStep(carol);
    const gone = await second.post('/user/two_factor/scratch', { token: scratch }, { csrfFrom: '/user/two_factor/scratch' });
    expect(gone.status).toBe(401);
    expect(textOf(gone.html)).toContain('The recovery code is not correct.');

    const regenerated = await settings.post(
      '/user/settings/security/two_factor/regenerate_scratch',
      {},
      { csrfFrom: '/user/settings/security' },
    );
    expect(regenerated.status).toBe(200);
    const fresh = scratchOf(regenerated.html);
    expect(fresh).not.toBe(scratch);
    const third = await passwordStep(carol);
    expect((await third.post('/user/two_factor/scratch', { token: fresh }, { csrfFrom: '/user/two_factor/scratch' })).status).toBe(303);
  });

  test('wrong codes count in the sign-in throttle, the password does not reset them; past the limit the right code waits', async () => {
    const dave = await server.user('tf-dave');
    const { secret } = await enrol(new WebClient(server), dave);
    let web = await passwordStep(dave);
    for (let i = 0; i < 3; i++) {
      // Typing the password again does not reset the count of wrong codes.
      if (i === 2) web = await passwordStep(dave);
      expect((await web.post('/user/two_factor', { passcode: wrongCode(secret) }, { csrfFrom: '/user/two_factor' })).status).toBe(401);
    }
    const blocked = await web.post('/user/two_factor', { passcode: codeAt(secret) }, { csrfFrom: '/user/two_factor' });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(web.cookies.has('hearth_session')).toBe(false);
  });

  test('basic auth with a password needs a current X-Gitea-OTP code; tokens do not', async () => {
    const erin = await server.user('tf-erin');
    const token = await server.token(erin, ['read:user', 'write:repository']);
    const { secret } = await enrol(new WebClient(server), erin);
    const basic: [string, string] = [erin.name, erin.password];

    const missing = await server.api('GET', '/user', { basic });
    expect(missing.status).toBe(401);
    expect(missing.body.message).toBe('invalid provided OTP');
    const wrong = await server.api('GET', '/user', { basic, headers: { 'X-Gitea-OTP': wrongCode(secret) } });
    expect(wrong.status).toBe(401);
    // A wrong password is still a wrong password (the factor is only looked at after it).
    const badPassword = await server.api('GET', '/user', { basic: [erin.name, 'nope'], headers: { 'X-Gitea-OTP': codeAt(secret) } });
    expect(badPassword.status).toBe(401);
    expect(badPassword.body.message).not.toBe('invalid provided OTP');

    const code = codeAt(secret);
    const ok = await server.api('GET', '/user', { basic, headers: { 'X-Gitea-OTP': code } });
    expect(ok.status).toBe(200);
    expect(ok.body.login).toBe(erin.name);
    // As on Gitea: one git or API operation sends the same code with each request.
    expect((await server.api('GET', '/user', { basic, headers: { 'X-Gitea-OTP': code } })).status).toBe(200);
    expect((await server.api('GET', '/user', { token })).status).toBe(200);
    // Users without two-factor are not asked.
    expect((await server.api('GET', '/user', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(200);
  });

  test('git over HTTP with a password needs the X-Gitea-OTP header too', async () => {
    const frank = await server.user('tf-frank');
    const token = await server.token(frank, ['write:repository']);
    expect((await server.api('POST', '/user/repos', { token, body: { name: 'secured', auto_init: true, private: true } })).status).toBe(
      201,
    );
    const { secret } = await enrol(new WebClient(server), frank);
    const url = cloneUrl(server.url, `${frank.name}/secured.git`, frank.name, frank.password);

    const refused = await sandbox.git(['clone', '--quiet', url, path.join(sandbox.dir, 'no-otp')]);
    expect(refused.status).not.toBe(0);
    const wrong = await sandbox.git([
      '-c',
      `http.extraHeader=X-Gitea-OTP: ${wrongCode(secret)}`,
      'clone',
      '--quiet',
      url,
      path.join(sandbox.dir, 'wrong-otp'),
    ]);
    expect(wrong.status).not.toBe(0);
    const dir = path.join(sandbox.dir, 'with-otp');
    const ok = await sandbox.git(['-c', `http.extraHeader=X-Gitea-OTP: ${codeAt(secret)}`, 'clone', '--quiet', url, dir]);
    expect(ok.status).toBe(0);
    expect(fs.existsSync(path.join(dir, 'README.md'))).toBe(true);
    const byToken = await sandbox.git([
      'clone',
      '--quiet',
      cloneUrl(server.url, `${frank.name}/secured.git`, frank.name, token),
      path.join(sandbox.dir, 'token'),
    ]);
    expect(byToken.status).toBe(0);
  });

  test('disable needs a current code or the password; only the viewer’s own factor; CSRF required', async () => {
    const gina = await server.user('tf-gina');
    const harry = await server.user('tf-harry');
    const ginaWeb = new WebClient(server);
    const { secret } = await enrol(ginaWeb, gina);

    // Every form refuses a post without the page's token.
    for (const action of ['enroll', 'regenerate_scratch', 'disable']) {
      const res = await ginaWeb.post(`/user/settings/security/two_factor/${action}`, { passcode: codeAt(secret, 1) }, { csrf: null });
      expect(res.status).toBe(403);
    }
    // Another user's session acts on their own (absent) factor only, even with Gina's code.
    const harryWeb = new WebClient(server);
    await harryWeb.signIn(harry);
    const other = await harryWeb.post(
      '/user/settings/security/two_factor/disable',
      { passcode: codeAt(secret, 1) },
      { csrfFrom: '/user/settings/security' },
    );
    expect(other.status).toBe(422);
    expect(
      (await harryWeb.post('/user/settings/security/two_factor/regenerate_scratch', {}, { csrfFrom: '/user/settings/security' })).status,
    ).toBe(422);
    expect((await server.api('GET', '/user', { basic: [gina.name, gina.password] })).status).toBe(401);
    // Anonymous visitors are sent to sign in.
    expect((await new WebClient(server).get('/user/settings/security')).headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);

    const wrong = await ginaWeb.post(
      '/user/settings/security/two_factor/disable',
      { passcode: wrongCode(secret), password: 'not-the-password' },
      { csrfFrom: '/user/settings/security' },
    );
    expect(wrong.status).toBe(422);
    const off = await ginaWeb.post(
      '/user/settings/security/two_factor/disable',
      { password: gina.password },
      { csrfFrom: '/user/settings/security' },
    );
    expect(off.status).toBe(303);
    expect(textOf((await ginaWeb.get('/user/settings/security')).html)).toContain('not enrolled');
    expect((await server.api('GET', '/user', { basic: [gina.name, gina.password] })).status).toBe(200);
    await passwordless(gina, true);

    // Disabling by a current code works as well.
    const again = await enrol(ginaWeb, gina);
    const byCode = await ginaWeb.post(
      '/user/settings/security/two_factor/disable',
      { passcode: codeAt(again.secret, 1) },
      { csrfFrom: '/user/settings/security' },
    );
    expect(byCode.status).toBe(303);
  });

  test('deleting a user removes their two-factor row', async () => {
    const ivy = await server.user('tf-ivy');
    await enrol(new WebClient(server), ivy);
    expect(await server.kernel.db('two_factor').where({ user_id: ivy.id }).first()).toBeTruthy();
    const res = await server.api('DELETE', `/admin/users/${ivy.name}`, { basic: [ADMIN.name, ADMIN.password] });
    expect(res.status).toBe(204);
    expect(await server.kernel.db('two_factor').where({ user_id: ivy.id }).first()).toBeUndefined();
  });
});
