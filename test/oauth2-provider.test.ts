import { Issuer, errors, generators, type BaseClient, type TokenSet } from 'openid-client';
import { cloneUrl, gitSandbox } from './helpers/git';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { WebClient, csrfToken, textOf } from './helpers/web';

/**
 * The OAuth2 / OpenID Connect provider, driven by a real relying party (openid-client, as a CI
 * system signing its users in would use it): discovery, the authorization URL with PKCE, state and
 * nonce, sign-in and consent over HTTP with a cookie jar, the code exchange with the ID token
 * verified against the JWKS, userinfo, the API with the access token, refresh. Runs on every database.
 */

// The relying party's callback: never fetched, only read from the provider's redirects.
const REDIRECT = 'http://127.0.0.1:9/authorize/callback';
const FULL_SCOPE = 'openid profile email groups';

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let issuer: Issuer<BaseClient>;
let confidential: { id: number; client_id: string; client_secret: string };
let client: BaseClient;
let aliceWeb: WebClient;

const asAlice = () => ({ basic: [alice.name, alice.password] as [string, string] });

async function register(owner: { name: string; password: string }, body: Record<string, unknown>) {
  const res = await server.api('POST', '/user/applications/oauth2', { basic: [owner.name, owner.password], body });
  expect(res.status).toBe(201);
  return res.body as { id: number; client_id: string; client_secret: string; confidential_client: boolean };
}

/** The fields of the consent form (hidden inputs), as a browser would send them back. */
function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[m[1]] = m[2].replace(/&amp;/g, '&');
  delete fields._csrf;
  return fields;
}

/**
 * Open the authorization URL as the signed-in browser and answer the consent page; the redirect
 * back. A confidential client the user consented to before gets its code without the page.
 */
async function consent(web: WebClient, url: string, granted: boolean): Promise<URL> {
  const page = await web.get(url.slice(server.url.length - 1));
  if (page.status === 303 && granted) return new URL(page.headers.get('location')!);
  expect(page.status).toBe(200);
  const fields = formFields(page.html);
  const res = await web.post('/login/oauth/grant', { ...fields, granted: String(granted) }, { csrf: csrfToken(page.html) });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  url: string;
}

function startFlow(rp: BaseClient, scope = FULL_SCOPE, pkce = true): Flow {
  const flow = { state: generators.state(), nonce: generators.nonce(), verifier: generators.codeVerifier() };
  const url = rp.authorizationUrl({
    scope,
    state: flow.state,
    nonce: flow.nonce,
    redirect_uri: REDIRECT,
    ...(pkce ? { code_challenge: generators.codeChallenge(flow.verifier), code_challenge_method: 'S256' } : {}),
  });
  return { ...flow, url };
}

/** A whole sign-in: authorization URL, consent, code exchange with the ID token verified. */
async function signIn(rp: BaseClient, scope = FULL_SCOPE, web = aliceWeb): Promise<TokenSet> {
  const flow = startFlow(rp, scope);
  const back = await consent(web, flow.url, true);
  return rp.callback(REDIRECT, rp.callbackParams(back.toString()), { state: flow.state, nonce: flow.nonce, code_verifier: flow.verifier });
}

async function bearer(token: string, method = 'GET', path = '/user', body?: unknown) {
  return server.api(method, path, { token, tokenVia: 'bearer', body });
}

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  expect((await server.api('POST', '/orgs', { ...asAlice(), body: { username: 'alice-org' } })).status).toBe(201);
  confidential = await register(alice, { name: 'Woodpecker', redirect_uris: [REDIRECT], confidential_client: true });
  issuer = await Issuer.discover(server.url);
  client = new issuer.Client({ client_id: confidential.client_id, client_secret: confidential.client_secret, redirect_uris: [REDIRECT] });
  aliceWeb = new WebClient(server);
  await aliceWeb.signIn(alice);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('applications API', () => {
  test('the secret is shown once, stored hashed; PATCH regenerates it; list and get hide it', async () => {
    expect(confidential.client_secret).toMatch(/^hcs_/);
    const row = await server.kernel.db('oauth2_applications').where('id', confidential.id).first();
    expect(JSON.stringify(row)).not.toContain(confidential.client_secret);
    const list = await server.api('GET', '/user/applications/oauth2', asAlice());
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({ id: confidential.id, name: 'Woodpecker', client_secret: '', redirect_uris: [REDIRECT] }),
    ]);
    const extra = await register(alice, { name: 'Temp', redirect_uris: ['https://ci.example.com/cb'] });
    expect(extra.confidential_client).toBe(true);
    const patched = await server.api('PATCH', `/user/applications/oauth2/${extra.id}`, {
      ...asAlice(),
      body: { name: 'Temp 2', redirect_uris: ['myapp:/cb'], confidential_client: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Temp 2',
      redirect_uris: ['myapp:/cb'],
      confidential_client: false,
      client_id: extra.client_id,
    });
    expect(patched.body.client_secret).toMatch(/^hcs_/);
    expect(patched.body.client_secret).not.toBe(extra.client_secret);
    const got = await server.api('GET', `/user/applications/oauth2/${extra.id}`, asAlice());
    expect(got.body).toMatchObject({ name: 'Temp 2', client_secret: '' });
    expect((await server.api('DELETE', `/user/applications/oauth2/${extra.id}`, asAlice())).status).toBe(204);
    expect((await server.api('GET', `/user/applications/oauth2/${extra.id}`, asAlice())).status).toBe(404);
  });

  test('another user can neither read, change nor delete your application', async () => {
    const asBob = { basic: [bob.name, bob.password] as [string, string] };
    const path = `/user/applications/oauth2/${confidential.id}`;
    expect((await server.api('GET', path, asBob)).status).toBe(404);
    expect((await server.api('PATCH', path, { ...asBob, body: { name: 'x', redirect_uris: [REDIRECT] } })).status).toBe(404);
    expect((await server.api('DELETE', path, asBob)).status).toBe(404);
    expect((await server.api('GET', '/user/applications/oauth2', asBob)).body).toEqual([]);
    expect((await server.api('GET', '/user/applications/oauth2')).status).toBe(401);
  });

  test('bad input is a 4xx JSON error', async () => {
    const bad = [
      {},
      { name: 'x' },
      { name: '', redirect_uris: [REDIRECT] },
      { name: 'x', redirect_uris: [] },
      { name: 'x', redirect_uris: ['/relative/path'] },
      { name: 'x', redirect_uris: ['https://ci.example.com/cb#frag'] },
      { name: 'x', redirect_uris: ['javascript:alert(1)'] },
      { name: 'x', redirect_uris: [REDIRECT], confidential_client: 'yes' },
      { name: 'x', redirect_uris: [REDIRECT], extra: 1 },
    ];
    for (const body of bad) {
      const res = await server.api('POST', '/user/applications/oauth2', { ...asAlice(), body });
      expect([400, 422]).toContain(res.status);
      expect(res.body.message).toEqual(expect.any(String));
    }
    expect([400, 422]).toContain((await server.api('GET', '/user/applications/oauth2/abc', asAlice())).status);
    const token = await server.token(alice, ['read:user']);
    const refused = await server.api('POST', '/user/applications/oauth2', { token, body: { name: 'x', redirect_uris: [REDIRECT] } });
    expect(refused.status).toBe(403);
  });
});

describe('settings page', () => {
  test('lists, registers (secret shown once) and deletes applications; refusals are shown on the form', async () => {
    const page = await aliceWeb.get('/user/settings/applications/oauth2');
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain('Woodpecker');
    const uris = 'https://ci.example.com/a\nhttps://ci.example.com/b';
    const made = await aliceWeb.post(
      '/user/settings/applications/oauth2',
      { name: 'From the page', redirect_uris: uris },
      { csrf: csrfToken(page.html) },
    );
    expect(made.status).toBe(201);
    const secret = /id="client-secret">([^<]+)</.exec(made.html)![1];
    const clientId = /id="client-id">([^<]+)</.exec(made.html)![1];
    const list = (await server.api('GET', '/user/applications/oauth2', asAlice())).body as Array<Record<string, unknown>>;
    const app = list.find((a) => a.client_id === clientId)!;
    expect(app).toMatchObject({
      name: 'From the page',
      redirect_uris: ['https://ci.example.com/a', 'https://ci.example.com/b'],
      confidential_client: false,
    });
    expect(secret).toMatch(/^hcs_/);
    const refused = await aliceWeb.post(
      '/user/settings/applications/oauth2',
      { name: 'Bad', redirect_uris: 'not a uri' },
      { csrf: csrfToken(page.html) },
    );
    expect(refused.status).toBe(422);
    expect(textOf(refused.html)).toContain('is not an absolute URI');
    const deleted = await aliceWeb.post(
      `/user/settings/applications/oauth2/${app.id as number}/delete`,
      {},
      { csrf: csrfToken(page.html) },
    );
    expect(deleted.status).toBe(303);
    expect((await server.api('GET', `/user/applications/oauth2/${app.id as number}`, asAlice())).status).toBe(404);
    expect((await new WebClient(server).get('/user/settings/applications/oauth2')).status).toBe(303);
  });
});

describe('sign-in with openid-client', () => {
  let tokens: TokenSet;

  beforeAll(async () => {
    tokens = await signIn(client);
  });

  test('discovery names ROOT_URL as the issuer and Gitea’s endpoints', () => {
    expect(issuer.metadata.issuer).toBe(server.url);
    expect(issuer.metadata.authorization_endpoint).toBe(`${server.url}login/oauth/authorize`);
    expect(issuer.metadata.token_endpoint).toBe(`${server.url}login/oauth/access_token`);
    expect(issuer.metadata.jwks_uri).toBe(`${server.url}login/oauth/keys`);
  });

  test('the verified ID token carries the user and the granted scopes’ claims', () => {
    const claims = tokens.claims();
    expect(claims).toMatchObject({
      iss: server.url,
      sub: String(alice.id),
      aud: confidential.client_id,
      preferred_username: 'alice',
      email: expect.stringContaining('@'),
      email_verified: true,
      picture: expect.stringContaining('http'),
    });
    expect(claims.groups).toEqual(expect.arrayContaining(['alice-org', 'alice-org:Owners']));
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBeGreaterThan(3000);
    expect(tokens.refresh_token).toMatch(/^hor_/);
  });

  test('the signing key is sealed at rest and published as a JWKS', async () => {
    const row = await server.kernel.db('oauth2_signing_keys').first();
    expect(row.private_key).not.toContain('PRIVATE KEY');
    const jwks = (await (await fetch(`${server.url}login/oauth/keys`)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', kid: row.kid, use: 'sig' })]);
    expect(jwks.keys[0].d).toBeUndefined();
  });

  test('userinfo answers the same subject', async () => {
    const info = await client.userinfo(tokens);
    expect(info).toMatchObject({ sub: String(alice.id), preferred_username: 'alice' });
    const bad = await fetch(`${server.url}login/oauth/userinfo`, { headers: { Authorization: 'Bearer hoa_nope' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('invalid_token');
  });

  test('the access token reads /api/v1/user (Bearer and token schemes) but may not write with sign-in scopes only', async () => {
    const me = await bearer(tokens.access_token!);
    expect(me.status).toBe(200);
    expect(me.body.login).toBe('alice');
    expect((await server.api('GET', '/user', { token: tokens.access_token! })).body.login).toBe('alice');
    // As the password of basic auth, as CI systems clone over HTTP (Woodpecker's netrc).
    expect((await server.api('GET', '/user', { basic: ['alice', tokens.access_token!] })).body.login).toBe('alice');
    expect((await bearer(tokens.access_token!, 'POST', '/user/repos', { name: 'nope' })).status).toBe(403);
    expect((await bearer(tokens.access_token!, 'GET', '/repos/search')).status).toBe(403);
  });

  test('API scopes asked for are granted; no scope at all is full access, as on Gitea 1.20', async () => {
    const scoped = await signIn(client, 'openid write:repository');
    expect(scoped.scope).toBe('openid write:repository');
    expect((await bearer(scoped.access_token!, 'POST', '/user/repos', { name: 'from-ci' })).status).toBe(201);
    expect((await bearer(scoped.access_token!, 'DELETE', '/repos/alice/from-ci')).status).toBe(403);
    const flow = startFlow(client, '');
    const page = await aliceWeb.get(flow.url.slice(server.url.length - 1));
    expect(textOf(page.html)).toContain('act as you on everything');
    const back = await consent(aliceWeb, flow.url, true);
    const full = await client.grant({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: flow.verifier,
    });
    expect(full.id_token).toBeUndefined();
    expect((await bearer(full.access_token!, 'DELETE', '/repos/alice/from-ci')).status).toBe(204);
  });

  test('git over HTTP takes the access token as the password, as CI systems clone, within its scopes', async () => {
    expect(
      (await server.api('POST', '/user/repos', { ...asAlice(), body: { name: 'ci-private', private: true, auto_init: true } })).status,
    ).toBe(201);
    const sandbox = gitSandbox();
    try {
      const url = (token: string) => cloneUrl(server.url, 'alice/ci-private.git', 'alice', token);
      const repoToken = (await signIn(client, 'openid read:repository')).access_token!;
      const listed = await sandbox.git(['ls-remote', url(repoToken), 'refs/heads/main']);
      expect(listed.status).toBe(0);
      expect(listed.stdout).toMatch(/^[0-9a-f]{40}\trefs\/heads\/main/);
      const signInOnly = await sandbox.git(['ls-remote', url(tokens.access_token!)]);
      expect(signInOnly.status).not.toBe(0);
    } finally {
      sandbox.cleanup();
    }
  });

  test('refresh rotates: the new tokens work, the old refresh token is refused and revokes the family', async () => {
    const first = await signIn(client);
    const second = await client.refresh(first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.claims().sub).toBe(String(alice.id));
    expect((await bearer(second.access_token!)).status).toBe(200);
    await expect(client.refresh(first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await bearer(second.access_token!)).status).toBe(401);
    await expect(client.refresh(second.refresh_token!)).rejects.toBeInstanceOf(errors.OPError);
  });
});

describe('refusals', () => {
  test('signed out: the authorization page sends the browser to sign in first, and back', async () => {
    const flow = startFlow(client);
    const res = await new WebClient(server).get(flow.url.slice(server.url.length - 1));
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!, server.url);
    expect(location.pathname).toBe('/user/login');
    expect(location.searchParams.get('redirect_to')).toBe(flow.url.slice(server.url.length - 1));
  });

  test('the consent page is in the site layout, allows the form to reach only the client, and denying answers access_denied', async () => {
    const app = await register(alice, { name: 'Drone', redirect_uris: [REDIRECT] });
    const drone = new issuer.Client({ client_id: app.client_id, client_secret: app.client_secret, redirect_uris: [REDIRECT] });
    const flow = startFlow(drone);
    const page = await aliceWeb.get(flow.url.slice(server.url.length - 1));
    expect(page.html).toContain('class="site"');
    expect(textOf(page.html)).toContain('Authorize Drone');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
    const back = await consent(aliceWeb, flow.url, false);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(flow.state);
    expect(back.searchParams.get('code')).toBeNull();
    expect(await server.kernel.db('oauth2_grants').where({ application_id: app.id })).toEqual([]);
  });

  test('a confidential client consented to before gets its code without the page; a public client always asks', async () => {
    const page = await aliceWeb.get(startFlow(client).url.slice(server.url.length - 1));
    expect(page.status).toBe(303);
    expect(new URL(page.headers.get('location')!).searchParams.get('code')).toMatch(/^hoc_/);
  });

  test('the grant form needs the page’s CSRF token', async () => {
    const flow = startFlow(client);
    const page = await aliceWeb.get(flow.url.slice(server.url.length - 1));
    const res = await aliceWeb.post('/login/oauth/grant', { ...formFields(page.html), granted: 'true' }, { csrf: 'forged' });
    expect(res.status).toBe(403);
  });

  test('an unknown client or a redirect URI it did not register is an error page, never a redirect', async () => {
    const unknown = new issuer.Client({ client_id: 'no-such-client', client_secret: 'x', redirect_uris: [REDIRECT] });
    const res = await aliceWeb.get(startFlow(unknown).url.slice(server.url.length - 1));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const wrong = startFlow(client).url.replace(encodeURIComponent(REDIRECT), encodeURIComponent('http://127.0.0.1:9/evil'));
    const res2 = await aliceWeb.get(wrong.slice(server.url.length - 1));
    expect(res2.status).toBe(400);
    expect(textOf(res2.html)).toContain('redirect_uri');
  });

  test('a wrong PKCE verifier, a wrong redirect_uri at the exchange, and a replayed code are invalid_grant', async () => {
    const flow = startFlow(client);
    const back = await consent(aliceWeb, flow.url, true);
    const code = back.searchParams.get('code')!;
    await expect(
      client.grant({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: generators.codeVerifier() }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    // Spent by the failed attempt: a code works once.
    await expect(
      client.grant({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: flow.verifier }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });

    const flow2 = startFlow(client);
    const code2 = (await consent(aliceWeb, flow2.url, true)).searchParams.get('code')!;
    await expect(
      client.grant({
        grant_type: 'authorization_code',
        code: code2,
        redirect_uri: 'http://127.0.0.1:9/other',
        code_verifier: flow2.verifier,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('a replayed code revokes the tokens the first exchange issued', async () => {
    const flow = startFlow(client);
    const code = (await consent(aliceWeb, flow.url, true)).searchParams.get('code')!;
    const exchange = () => client.grant({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: flow.verifier });
    const first = await exchange();
    expect((await bearer(first.access_token!)).status).toBe(200);
    await expect(exchange()).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await bearer(first.access_token!)).status).toBe(401);
  });

  test('token endpoint errors are RFC 6749 JSON with the right statuses', async () => {
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${server.url}login/oauth/access_token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body),
      });
    const badSecret = await post({
      grant_type: 'authorization_code',
      code: 'x',
      client_id: confidential.client_id,
      client_secret: 'wrong',
    });
    expect(badSecret.status).toBe(401);
    expect(await badSecret.json()).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
    const unknown = await post({ grant_type: 'authorization_code', code: 'x', client_id: 'nobody' });
    expect(unknown.status).toBe(401);
    const basic = `Basic ${Buffer.from(`${confidential.client_id}:${confidential.client_secret}`).toString('base64')}`;
    const grantType = await post({ grant_type: 'password' }, { Authorization: basic });
    expect(grantType.status).toBe(400);
    expect(((await grantType.json()) as { error: string }).error).toBe('unsupported_grant_type');
    const badCode = await post({ grant_type: 'authorization_code', code: 'hoc_nope', redirect_uri: REDIRECT }, { Authorization: basic });
    expect(badCode.status).toBe(400);
    expect(((await badCode.json()) as { error: string }).error).toBe('invalid_grant');
    expect(badCode.headers.get('cache-control')).toBe('no-store');
    const malformed = await fetch(`${server.url}login/oauth/access_token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: basic },
      body: '{"grant_type":',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toBe('invalid_request');
  });

  test('a public client must use PKCE, and then needs no secret', async () => {
    const app = await register(alice, { name: 'CLI', redirect_uris: [REDIRECT, 'myapp:/cb'], confidential_client: false });
    const cli = new issuer.Client({ client_id: app.client_id, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const without = startFlow(cli, FULL_SCOPE, false);
    const res = await aliceWeb.get(without.url.slice(server.url.length - 1));
    expect(res.status).toBe(303);
    const refused = new URL(res.headers.get('location')!);
    expect(refused.searchParams.get('error')).toBe('invalid_request');
    expect(refused.searchParams.get('state')).toBe(without.state);
    const tokens = await signIn(cli);
    expect(tokens.claims().sub).toBe(String(alice.id));
    expect((await aliceWeb.get(startFlow(cli).url.slice(server.url.length - 1))).status).toBe(200);
    // A native app's custom scheme: the consent form may be redirected there.
    const native = startFlow(cli).url.replace(encodeURIComponent(REDIRECT), encodeURIComponent('myapp:/cb'));
    const nativePage = await aliceWeb.get(native.slice(server.url.length - 1));
    expect(nativePage.status).toBe(200);
    expect(nativePage.headers.get('content-security-policy')).toContain("form-action 'self' myapp:;");
  });

  test('expired and revoked tokens are refused; deleting the application revokes its grants and tokens', async () => {
    const app = await register(alice, { name: 'Short-lived', redirect_uris: [REDIRECT] });
    const rp = new issuer.Client({ client_id: app.client_id, client_secret: app.client_secret, redirect_uris: [REDIRECT] });
    const expiring = await signIn(rp);
    const kept = await signIn(rp);
    // Expired behind the server's back, before its first use (a resolved token is remembered for seconds).
    const grant = await server.kernel.db('oauth2_grants').where({ application_id: app.id }).first();
    await server.kernel
      .db('oauth2_tokens')
      .where({ grant_id: grant.id, kind: 'access' })
      .whereNot('id', (await server.kernel.db('oauth2_tokens').where({ grant_id: grant.id, kind: 'access' }).max({ m: 'id' }))[0].m)
      .update({ expires_unix: 1 });
    expect((await bearer(expiring.access_token!)).status).toBe(401);
    expect((await bearer(kept.access_token!)).status).toBe(200);
    expect((await server.api('DELETE', `/user/applications/oauth2/${app.id}`, asAlice())).status).toBe(204);
    expect((await bearer(kept.access_token!)).status).toBe(401);
    await expect(rp.refresh(kept.refresh_token!)).rejects.toMatchObject({ error: 'invalid_client' });
    expect(await server.kernel.db('oauth2_grants').where({ application_id: app.id })).toEqual([]);
  });

  test('an account prohibited from signing in: its tokens are refused and refresh gets nothing', async () => {
    const dave = await server.user('dave');
    const daveWeb = new WebClient(server);
    await daveWeb.signIn(dave);
    const tokens = await signIn(client, FULL_SCOPE, daveWeb);
    expect((await bearer(tokens.access_token!)).body.login).toBe('dave');
    const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };
    const edit = await server.api('PATCH', '/admin/users/dave', {
      ...admin,
      body: { login_name: 'dave', source_id: 0, prohibit_login: true },
    });
    expect(edit.status).toBe(200);
    expect((await bearer(tokens.access_token!)).status).toBe(403);
    await expect(client.refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('deleting a user removes their applications, grants and tokens', async () => {
    const carol = await server.user('carol');
    const app = await register(carol, { name: 'Carol CI', redirect_uris: [REDIRECT] });
    const rp = new issuer.Client({ client_id: app.client_id, client_secret: app.client_secret, redirect_uris: [REDIRECT] });
    const tokens = await signIn(rp);
    expect((await bearer(tokens.access_token!)).status).toBe(200);
    const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };
    expect((await server.api('DELETE', '/admin/users/carol', admin)).status).toBe(204);
    expect(await server.kernel.db('oauth2_applications').where({ user_id: carol.id })).toEqual([]);
    expect(await server.kernel.db('oauth2_grants').where({ application_id: app.id })).toEqual([]);
    expect((await bearer(tokens.access_token!)).status).toBe(401);
  });
});
