import type { Page } from 'playwright-core';
import { ADMIN } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, step } from './helpers/browser';
import { startIdentityProvider, type IdentityProvider } from './helpers/identity';

/**
 * OpenID Connect sign-in in a real browser (Debian's chromium): the sign-in page's provider button,
 * the provider's own form (npm oidc-provider on loopback), the way back to the forge signed in, and
 * the group claim mapped to a team. The HTTP-level cases (tampered tokens, state, nonce, linking)
 * are in identity-oidc.test.ts. Saves the screenshot `oidc-signed-in.png`.
 */
const CLIENT = { id: 'hearth-forge', secret: 'client-secret-of-the-forge' };
const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };
const DORA = { sub: 'subject-dora', password: 'dora-at-the-provider' };

const suite = browserSuite({
  plugins: { 'group-mapping': { enabled: true }, oidc: { enabled: true } },
  // The provider listens on loopback; the plugin's requests pass webhook.ALLOWED_HOST_LIST (its default policy).
  webhook: { ALLOWED_HOST_LIST: 'loopback' },
});
let idp: IdentityProvider;
let page: Page;

beforeAll(async () => {
  const { server } = suite;
  idp = await startIdentityProvider({ ...CLIENT, redirectUris: [`${server.url}user/oauth2/corp/callback`] });
  expect((await server.api('POST', '/orgs', { ...admin, body: { username: 'acme' } })).status).toBe(201);
  const team = await server.api('POST', '/orgs/acme/teams', {
    ...admin,
    body: { name: 'devs', permission: 'write', units: ['repo.code'] },
  });
  expect(team.status).toBe(201);
  const out: string[] = [];
  const code = await server.kernel
    .commandsOf('oidc')
    .get('add-source')!
    .run(
      [
        '--name',
        'corp',
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
        JSON.stringify({ developers: { acme: ['devs'] } }),
      ],
      (line) => out.push(line),
    );
  expect({ code: code ?? 0, out }).toMatchObject({ code: 0 });
  await idp.setUser({
    ...DORA,
    claims: { preferred_username: 'dora', email: 'dora@example.com', email_verified: true, name: 'Dora Example', groups: ['developers'] },
  });
  page = await suite.browser.newPage({ viewport: DESKTOP });
}, 90000);
afterAll(async () => idp?.close());

test('sign in through the provider: the account is made, signed in, and its group maps to a team', async () => {
  const forge = new URL(suite.server.url).origin;
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && new URL(page.url()).origin === forge && errors.push(m.text()));

  await step(page, 'provider-button', async () => {
    await page.goto(suite.url('/user/login'));
    await page.getByRole('link', { name: 'Sign in with corp' }).click();
    // The provider's own sign-in form, on its origin.
    await page.locator('input[name="login"]').waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(idp.issuer).origin);
  });

  await step(page, 'provider-form', async () => {
    await page.locator('input[name="login"]').fill(DORA.sub);
    await page.locator('input[name="password"]').fill(DORA.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.origin === forge && !url.pathname.startsWith('/user/oauth2'));
  });

  await step(page, 'signed-in', async () => {
    await page
      .getByRole('button', { name: 'Sign out' })
      .or(page.getByRole('link', { name: 'Sign out' }))
      .first()
      .waitFor();
    await page.getByRole('link', { name: 'dora', exact: true }).waitFor();
    await screenshot(page, 'oidc-signed-in');
  });

  const users = await suite.server.api('GET', '/admin/users?login_name=subject-dora', admin);
  expect(users.body.map((u: { login: string }) => u.login)).toEqual(['dora']);
  const members = await suite.server.api('GET', '/orgs/acme/members/dora', admin);
  expect(members.status).toBe(204);
  expect(errors).toEqual([]);
});
