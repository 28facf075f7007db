import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { Browser, authorizeAtProvider, startIdentityProvider, type IdentityProvider, type TamperMode } from './helpers/identity';
import { textOf } from './helpers/web';
import { runCommand } from '@hearth/testing';

/**
 * OpenID Connect sign-in against a real provider (npm oidc-provider in a child process on
 * loopback), driven as a browser without JavaScript drives it: the forge's `/user/oauth2/{source}`,
 * the provider's sign-in form, the callback. Sources are managed with the plugin's commands; the
 * group claim maps to teams through the group-mapping plugin. Runs on every database.
 */

const CLIENT = { id: 'hearth-forge', secret: 'client-secret-of-the-forge' };
const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };
const GROUP_MAP = {
  developers: { acme: ['devs'] },
  operators: { acme: ['ops'] },
  // Reported, not fatal: an organization and a team the forge does not have.
  ghosts: { 'no-such-org': ['anything'] },
  phantoms: { acme: ['no-such-team'] },
};

let server: TestServer;
let idp: IdentityProvider;
const logLines: string[] = [];
const teams: Record<string, number> = {};
const sourceIds: Record<string, number> = {};

async function runOidc(command: string, args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const code = await server.kernel
    .commandsOf('oidc')
    .get(command)!
    .run(args, (line) => lines.push(line));
  if (code) throw new Error(`${command} exited ${code}`);
  return lines;
}

async function addSource(name: string, extra: string[] = []): Promise<number> {
  const out = await runOidc('add-source', [
    '--name',
    name,
    '--discovery-url',
    idp.discoveryUrl,
    '--client-id',
    CLIENT.id,
    '--client-secret',
    CLIENT.secret,
    '--scopes',
    'openid email profile groups',
    '--group-claim-name',
    'groups',
    '--group-team-map',
    JSON.stringify(GROUP_MAP),
    ...extra,
  ]);
  const id = Number(/source (\d+) "/.exec(out[0])![1]);
  sourceIds[name] = id;
  return id;
}

/** The accounts a source created for `subject` (the admin search Gitea has). */
async function accountsOf(source: string, subject: string): Promise<Array<{ login: string; is_admin: boolean; restricted: boolean }>> {
  const res = await server.api('GET', `/admin/users?source_id=${sourceIds[source]}&login_name=${encodeURIComponent(subject)}`, admin);
  expect(res.status).toBe(200);
  return res.body;
}

async function teamMembers(team: string): Promise<string[]> {
  const res = await server.api('GET', `/teams/${teams[team]}/members`, admin);
  expect(res.status).toBe(200);
  return res.body.map((u: { login: string }) => u.login).sort();
}

/** A whole sign-in in a new browser; returns the browser and the forge's answer to the callback. */
async function signIn(source: string, login: { sub: string; password: string }) {
  const browser = new Browser();
  const callback = await authorizeAtProvider(browser, `${server.url}user/oauth2/${source}`, login);
  const page = await browser.get(callback);
  return { browser, page, callback };
}

async function userCount(): Promise<number> {
  const res = await server.api('GET', '/admin/users?limit=1', admin);
  return Number(res.headers.get('x-total-count'));
}

beforeAll(async () => {
  server = await startServer(
    {
      plugins: { 'group-mapping': { enabled: true }, oidc: { enabled: true } },
      // The provider listens on loopback; the plugin's requests pass webhook.ALLOWED_HOST_LIST (its default policy).
      webhook: { ALLOWED_HOST_LIST: 'loopback' },
      // An administrator configured the source: its users get accounts even with self-registration off.
      service: { DISABLE_REGISTRATION: true },
    },
    { logLines },
  );
  const redirectUris = ['corp', 'strict'].map((name) => `${server.url}user/oauth2/${name}/callback`);
  idp = await startIdentityProvider({ ...CLIENT, redirectUris });
  expect((await server.api('POST', '/orgs', { ...admin, body: { username: 'acme' } })).status).toBe(201);
  for (const name of ['devs', 'ops', 'unmapped']) {
    const res = await server.api('POST', '/orgs/acme/teams', { ...admin, body: { name, permission: 'write', units: ['repo.code'] } });
    expect(res.status).toBe(201);
    teams[name] = res.body.id;
  }
  await addSource('corp', ['--admin-group', 'forge-admins', '--restricted-group', 'contractors']);
  await addSource('strict', ['--group-team-map-removal']);
}, 60_000);

afterAll(async () => {
  await idp?.close();
  await server?.close();
});

describe('sources', () => {
  test('the client secret is sealed at rest and never listed; the callback URL to register is', async () => {
    const row = await server.kernel.db('oidc_sources').where('id', sourceIds.corp).first();
    expect(row.client_secret).not.toContain(CLIENT.secret);
    const listed = (await runOidc('list-sources', [])).join('\n');
    expect(listed).toContain('"corp"');
    expect(listed).toContain(`${server.url}user/oauth2/corp/callback`);
    expect(listed).not.toContain(CLIENT.secret);
  });

  test('names are unique across sources; bad options and maps are refused with the reason', async () => {
    await expect(addSource('CORP')).rejects.toMatchObject({ status: 409 });
    await expect(runOidc('add-source', ['--name', 'x'])).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('--discovery-url'),
    });
    await expect(runOidc('add-source', ['--nme', 'x'])).rejects.toMatchObject({ status: 400 });
    await expect(addSource('bad-map', ['--group-team-map', '{"g": ["not", "an", "object"]}'])).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('group team map'),
    });
    await expect(
      runOidc('add-source', [
        '--name',
        'nowhere',
        '--discovery-url',
        'http://127.0.0.1:9/.well-known/openid-configuration',
        '--client-id',
        'a',
        '--client-secret',
        'b',
      ]),
    ).rejects.toMatchObject({ status: 502 });
    expect((await runOidc('list-sources', [])).join('\n')).not.toMatch(/nowhere|bad-map/);
  });

  test('a client secret sealed under another key is reported, and can be set again', async () => {
    const id = await addSource('rotated');
    await server.kernel.db('oidc_sources').where('id', id).update({ client_secret: 'sealed-under-another-key' });
    expect((await new Browser().get(`${server.url}user/login`)).status).toBe(200);
    const page = await new Browser().get(`${server.url}user/oauth2/rotated`);
    expect(page.status).toBe(502);
    expect(textOf(page.html)).toContain('client secret cannot be read');
    await expect(runOidc('update-source', ['--id', String(id), '--scopes', 'openid email'])).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('--client-secret'),
    });
    await runOidc('update-source', ['--id', String(id), '--client-secret', CLIENT.secret]);
    expect((await new Browser().get(`${server.url}user/oauth2/rotated`)).status).toBe(303);
    await runOidc('delete-source', ['--id', String(id)]);
  });

  test('the sign-in page offers every source', async () => {
    const page = await new Browser().get(`${server.url}user/login`);
    expect(textOf(page.html)).toContain('Sign in with corp');
    expect(page.html).toContain('href="/user/oauth2/corp"');
  });

  test('an unknown source is a 404 page', async () => {
    const page = await new Browser().get(`${server.url}user/oauth2/nonexistent`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/html/);
  });
});

describe('sign-in', () => {
  test('a first sign-in creates the account (name from preferred_username, login name = subject), maps its groups to teams', async () => {
    await idp.setUser({
      sub: 'subject-ann',
      password: 'ann-at-the-provider',
      claims: {
        preferred_username: 'Ann Example!',
        email: 'ann@example.com',
        email_verified: true,
        name: 'Ann Example',
        groups: ['developers', 'operators', 'ghosts', 'phantoms'],
      },
    });
    const { browser, page } = await signIn('corp', { sub: 'subject-ann', password: 'ann-at-the-provider' });
    expect(page.status).toBe(303);
    expect(page.location).toBe(`${server.url}`);
    expect(browser.cookies(server.url).has('hearth_session')).toBe(true);
    expect(textOf((await browser.get(server.url)).html)).toContain('Sign out');

    const [ann] = await accountsOf('corp', 'subject-ann');
    expect(ann).toMatchObject({ login: 'Ann-Example', full_name: 'Ann Example', email: 'ann@example.com', login_name: 'subject-ann' });
    expect(await teamMembers('devs')).toEqual(['Ann-Example']);
    expect(await teamMembers('ops')).toEqual(['Ann-Example']);
    expect(await teamMembers('unmapped')).toEqual([]);
    // The organization membership comes with the team, as through the team member API.
    expect((await server.api('GET', '/orgs/acme/members/Ann-Example', admin)).status).toBe(204);
    // Unknown organizations and teams in the map are reported, not fatal.
    const report = logLines.find((l) => l.includes('group mapping: not everything was applied'))!;
    expect(report).toContain('the organization \\"no-such-org\\" in the group map does not exist');
    expect(report).toContain('the team \\"no-such-team\\" of the organization \\"acme\\" in the group map does not exist');

    // The second sign-in finds the same account.
    const again = await signIn('corp', { sub: 'subject-ann', password: 'ann-at-the-provider' });
    expect(again.page.status).toBe(303);
    expect(await accountsOf('corp', 'subject-ann')).toHaveLength(1);
  });

  test('a taken name gets a number; the provider-side sign-in form refuses a wrong password', async () => {
    await server.user('bert');
    await idp.setUser({ sub: 'subject-bert', password: 'bert-pw', claims: { preferred_username: 'bert', email: 'bert@corp.example' } });
    const browser = new Browser();
    await expect(authorizeAtProvider(browser, `${server.url}user/oauth2/corp`, { sub: 'subject-bert', password: 'wrong' })).rejects.toThrow(
      /provider answered 401/,
    );
    expect((await signIn('corp', { sub: 'subject-bert', password: 'bert-pw' })).page.status).toBe(303);
    expect((await accountsOf('corp', 'subject-bert'))[0].login).toBe('bert-2');
  });

  test('without removal a lost group keeps its team; with removal the mapped team goes, unmapped teams stay', async () => {
    const carl = { sub: 'subject-carl', password: 'carl-pw' };
    const claims = { preferred_username: 'carl', email: 'carl@corp.example', groups: ['developers', 'operators'] };
    await idp.setUser({ ...carl, claims });
    expect((await signIn('corp', carl)).page.status).toBe(303);
    expect(await teamMembers('ops')).toContain('carl');
    // A team membership the map knows nothing of, given by hand.
    expect((await server.api('PUT', `/teams/${teams.unmapped}/members/carl`, admin)).status).toBe(204);

    await idp.setUser({ ...carl, claims: { ...claims, groups: ['developers'] } });
    expect((await signIn('corp', carl)).page.status).toBe(303);
    expect(await teamMembers('ops')).toContain('carl');

    // The same provider through the source with removal on (its own account: another source, another address).
    const strictClaims = { ...claims, email: 'carl@strict.example' };
    await idp.setUser({ ...carl, claims: strictClaims });
    expect((await signIn('strict', carl)).page.status).toBe(303);
    const [strictCarl] = await accountsOf('strict', carl.sub);
    expect(strictCarl.login).toBe('carl-2');
    expect((await server.api('PUT', `/teams/${teams.unmapped}/members/carl-2`, admin)).status).toBe(204);
    await idp.setUser({ ...carl, claims: { ...strictClaims, groups: ['developers'] } });
    expect((await signIn('strict', carl)).page.status).toBe(303);
    expect(await teamMembers('ops')).not.toContain('carl-2');
    expect(await teamMembers('devs')).toContain('carl-2');
    expect(await teamMembers('unmapped')).toEqual(expect.arrayContaining(['carl', 'carl-2']));

    // Turning removal on for the first source takes effect at the next sign-in.
    await idp.setUser({ ...carl, claims: { ...claims, groups: ['developers'] } });
    await runOidc('update-source', ['--id', String(sourceIds.corp), '--group-team-map-removal']);
    expect((await signIn('corp', carl)).page.status).toBe(303);
    expect(await teamMembers('ops')).not.toContain('carl');
    expect(await teamMembers('unmapped')).toContain('carl');
    await runOidc('update-source', ['--id', String(sourceIds.corp), '--no-group-team-map-removal']);
  });

  test('the admin group makes a site administrator and its loss unmakes one; the restricted group likewise', async () => {
    const dana = { sub: 'subject-dana', password: 'dana-pw' };
    await idp.setUser({ ...dana, claims: { preferred_username: 'dana', email: 'dana@corp.example', groups: ['forge-admins'] } });
    expect((await signIn('corp', dana)).page.status).toBe(303);
    expect((await accountsOf('corp', dana.sub))[0]).toMatchObject({ is_admin: true, restricted: false });

    await idp.setUser({ ...dana, claims: { preferred_username: 'dana', email: 'dana@corp.example', groups: ['contractors'] } });
    expect((await signIn('corp', dana)).page.status).toBe(303);
    expect((await accountsOf('corp', dana.sub))[0]).toMatchObject({ is_admin: false, restricted: true });

    await idp.setUser({ ...dana, claims: { preferred_username: 'dana', email: 'dana@corp.example', groups: [] } });
    expect((await signIn('corp', dana)).page.status).toBe(303);
    expect((await accountsOf('corp', dana.sub))[0]).toMatchObject({ is_admin: false, restricted: false });
  });

  test('the way back after signing in is a path on this site only', async () => {
    const erik = { sub: 'subject-erik', password: 'erik-pw' };
    await idp.setUser({ ...erik, claims: { preferred_username: 'erik', email: 'erik@corp.example' } });
    for (const [asked, expected] of [
      ['/explore/repos', `${server.url}explore/repos`],
      ['//evil.example/x', server.url],
      ['https://evil.example/', server.url],
    ]) {
      const browser = new Browser();
      const callback = await authorizeAtProvider(browser, `${server.url}user/oauth2/corp?redirect_to=${encodeURIComponent(asked)}`, erik);
      expect((await browser.get(callback)).location).toBe(expected);
    }
  });
});

describe('bad input is refused with an error page and nothing created', () => {
  let count = 0;
  const newcomer = async () => {
    const login = { sub: `subject-newcomer-${++count}`, password: 'pw' };
    await idp.setUser({
      ...login,
      claims: { preferred_username: `newcomer${count}`, email: `newcomer${count}@corp.example`, groups: ['developers'] },
    });
    return login;
  };
  const expectNothingCreated = async (subject: string, usersBefore: number) => {
    expect(await accountsOf('corp', subject)).toEqual([]);
    expect(await userCount()).toBe(usersBefore);
  };

  test.each<[TamperMode, RegExp]>([
    ['payload', /signature/i],
    ['foreign-key', /signature|key/i],
    ['alg-none', /alg|signature/i],
    ['nonce', /nonce mismatch/i],
    ['audience', /aud mismatch/i],
    ['issuer', /unexpected iss/i],
    ['expired', /expired/i],
  ])('a tampered ID token (%s) is a 401', async (mode, why) => {
    const login = await newcomer();
    const before = await userCount();
    const browser = new Browser();
    const callback = await authorizeAtProvider(browser, `${server.url}user/oauth2/corp`, login);
    await idp.tamper(mode);
    const page = await browser.get(callback);
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/html/);
    expect(textOf(page.html)).toMatch(why);
    expect(browser.cookies(server.url).has('hearth_session')).toBe(false);
    await expectNothingCreated(login.sub, before);
  });

  test('a wrong or missing state, or another browser, is a 400', async () => {
    const login = await newcomer();
    const before = await userCount();
    const browser = new Browser();
    const callback = new URL(await authorizeAtProvider(browser, `${server.url}user/oauth2/corp`, login));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    expect((await browser.get(forged.toString())).status).toBe(400);
    forged.searchParams.delete('state');
    expect((await browser.get(forged.toString())).status).toBe(400);
    // The right callback in a browser that did not start the sign-in (login CSRF).
    const stranger = await new Browser().get(callback.toString());
    expect(stranger.status).toBe(400);
    expect(textOf(stranger.html)).toContain('started in another browser');
    // …which used it up.
    expect((await browser.get(callback.toString())).status).toBe(400);
    await expectNothingCreated(login.sub, before);
  });

  test('a replayed callback is a 400; a replayed code with a fresh state is refused by the provider (401)', async () => {
    const login = await newcomer();
    const { browser, page, callback } = await signIn('corp', login);
    expect(page.status).toBe(303);
    const after = await userCount();
    expect((await browser.get(callback)).status).toBe(400);

    // A fresh sign-in's state with the old code.
    const start = await browser.get(`${server.url}user/oauth2/corp`);
    const state = new URL(start.location!).searchParams.get('state')!;
    const replay = new URL(callback);
    replay.searchParams.set('state', state);
    const refused = await browser.get(replay.toString());
    expect(refused.status).toBe(401);
    expect(textOf(refused.html)).toContain('invalid_grant');
    expect(await userCount()).toBe(after);
  });

  test('a refusal by the provider (access_denied) is a 403', async () => {
    const login = await newcomer();
    const before = await userCount();
    const browser = new Browser();
    const start = await browser.get(`${server.url}user/oauth2/corp`);
    const state = new URL(start.location!).searchParams.get('state')!;
    const page = await browser.get(`${server.url}user/oauth2/corp/callback?error=access_denied&state=${state}`);
    expect(page.status).toBe(403);
    await expectNothingCreated(login.sub, before);
  });
});

describe('an existing account with the same email', () => {
  test('is not linked silently: the page asks for its password, which links it; later sign-ins go straight in', async () => {
    const fay = await server.user('fay');
    const login = { sub: 'subject-fay', password: 'fay-at-the-provider' };
    await idp.setUser({ ...login, claims: { preferred_username: 'fay', email: 'FAY@example.com', groups: ['developers'] } });
    const before = await userCount();
    const { browser, page } = await signIn('corp', login);
    expect(page.status).toBe(409);
    expect(textOf(page.html)).toContain('An account with this email address already exists');
    expect(textOf(page.html)).toContain('fay');
    expect(browser.cookies(server.url).has('hearth_session')).toBe(false);
    expect(await userCount()).toBe(before);
    expect(await teamMembers('devs')).not.toContain('fay');

    const token = /name="token" value="([^"]+)"/.exec(page.html)![1];
    const action = `${server.url}user/oauth2/corp/link`;
    const wrong = await browser.post(action, { token, password: 'not-her-password' });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.html)).toContain('The password is not correct');
    // Another browser cannot use the offer.
    expect((await new Browser().post(action, { token, password: fay.password })).status).toBe(400);

    const linked = await browser.post(action, { token, password: fay.password });
    expect(linked.status).toBe(303);
    expect(browser.cookies(server.url).has('hearth_session')).toBe(true);
    expect(await teamMembers('devs')).toContain('fay');
    expect(await userCount()).toBe(before);
    // The offer is used up.
    expect((await browser.post(action, { token, password: fay.password })).status).toBe(400);

    const later = await signIn('corp', login);
    expect(later.page.status).toBe(303);
    expect(textOf((await later.browser.get(server.url)).html)).toContain('fay');
  });

  test('no offer when the provider has not verified the address', async () => {
    await server.user('hal');
    const login = { sub: 'subject-hal', password: 'hal-at-the-provider' };
    await idp.setUser({ ...login, claims: { preferred_username: 'hal', email: 'hal@example.com', email_verified: false } });
    const before = await userCount();
    const { page } = await signIn('corp', login);
    expect(page.status).toBe(409);
    expect(textOf(page.html)).toContain('has not verified');
    expect(page.html).not.toContain('name="token"');
    expect(await userCount()).toBe(before);
  });

  test('three wrong passwords end the offer', async () => {
    await server.user('gus');
    const login = { sub: 'subject-gus', password: 'gus-at-the-provider' };
    await idp.setUser({ ...login, claims: { preferred_username: 'gus', email: 'gus@example.com' } });
    const { browser, page } = await signIn('corp', login);
    const token = /name="token" value="([^"]+)"/.exec(page.html)![1];
    const action = `${server.url}user/oauth2/corp/link`;
    expect((await browser.post(action, { token, password: 'one' })).status).toBe(401);
    expect((await browser.post(action, { token, password: 'two' })).status).toBe(401);
    expect((await browser.post(action, { token, password: 'three' })).status).toBe(401);
    expect((await browser.post(action, { token, password: 'gus-password-1' })).status).toBe(400);
  });
});

describe('two-factor authentication (plugin two-factor, on by default)', () => {
  test('an enrolled account signing in with the provider is asked for its code, unless the source has --skip-local-2fa', async () => {
    await idp.setUser({
      sub: 'subject-tess',
      password: 'tess-at-the-provider',
      claims: { preferred_username: 'tess', email: 'tess@example.com', email_verified: true, name: 'Tess' },
    });
    const login = { sub: 'subject-tess', password: 'tess-at-the-provider' };
    const first = await signIn('corp', login);
    expect(first.page.location).toBe(server.url);
    // Enrol in that session, with a code computed from the secret the page shows.
    const enroll = await first.browser.get(`${server.url}user/settings/security/two_factor/enroll`);
    const secret = /id="two-factor-secret">([A-Z2-7]+)</.exec(enroll.html)![1];
    const code = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate();
    const csrf = /name="_csrf" value="([^"]*)"/.exec(enroll.html)![1];
    const confirmed = await first.browser.post(`${server.url}user/settings/security/two_factor/enroll`, { _csrf: csrf, passcode: code });
    expect(confirmed.status).toBe(200);

    const asked = await signIn('corp', login);
    expect(asked.page.location).toBe(`${server.url}user/two_factor`);
    expect(asked.browser.cookies(server.url).has('hearth_session')).toBe(false);

    await runOidc('update-source', ['--id', String(sourceIds.corp), '--skip-local-2fa']);
    try {
      expect((await runOidc('list-sources', [])).join('\n')).toContain('local two-factor authentication skipped');
      const skipped = await signIn('corp', login);
      expect(skipped.page.location).toBe(server.url);
      expect(skipped.browser.cookies(server.url).has('hearth_session')).toBe(true);
    } finally {
      await runOidc('update-source', ['--id', String(sourceIds.corp), '--no-skip-local-2fa']);
    }
  });
});

describe('deleting sources', () => {
  test('is refused while accounts sign in through the source; works on the command line', async () => {
    await expect(runOidc('delete-source', ['--id', String(sourceIds.strict)])).rejects.toMatchObject({ status: 422 });
    const spare = await addSource('spare');
    // The real command line, in its own process, on the same database and data directory.
    const config = server.kernel.config;
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HEARTH__DATABASE__URL: config.database.URL,
      HEARTH__SERVER__DATA_DIR: config.server.DATA_DIR,
      HEARTH__PLUGINS__OIDC__ENABLED: 'true',
      HEARTH__PLUGINS__GROUP_MAPPING__ENABLED: 'true',
      HEARTH__WEBHOOK__ALLOWED_HOST_LIST: 'loopback',
      HEARTH__LOG__LEVEL: 'warn',
    } as NodeJS.ProcessEnv;
    const root = path.join(__dirname, '..');
    const cli = path.join(root, 'core/kernel/dist/cli.js');
    const listed = await runCommand(process.execPath, [cli, 'plugins', 'run', 'oidc', 'list-sources'], { cwd: root, env });
    expect([listed.code, listed.stdout]).toEqual([0, expect.stringContaining('"spare"')]);
    // Everything after `plugins run <plugin>` is the plugin's: its own options included.
    const deleted = await runCommand(process.execPath, [cli, 'plugins', 'run', 'oidc', 'delete-source', '--id', String(spare)], {
      cwd: root,
      env,
    });
    expect([deleted.code, deleted.stdout.trim(), deleted.stderr]).toEqual([0, `deleted OpenID Connect source ${spare} "spare"`, '']);
    expect((await runOidc('list-sources', [])).join('\n')).not.toContain('"spare"');
    expect((await new Browser().get(`${server.url}user/oauth2/spare`)).status).toBe(404);
  });
});

describe('the outbound allow-list', () => {
  test('a provider on a host the policy refuses cannot be added', async () => {
    const guarded = await startServer({ plugins: { 'group-mapping': { enabled: true }, oidc: { enabled: true } } });
    try {
      const lines: string[] = [];
      const run = guarded.kernel
        .commandsOf('oidc')
        .get('add-source')!
        .run(['--name', 'corp', '--discovery-url', idp.discoveryUrl, '--client-id', CLIENT.id, '--client-secret', CLIENT.secret], (l) =>
          lines.push(l),
        );
      await expect(run).rejects.toMatchObject({ status: 502, message: expect.stringContaining('webhook.ALLOWED_HOST_LIST') });
    } finally {
      await guarded.close();
    }
  });
});
