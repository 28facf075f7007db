import { ApiError, definePlugin, type AuthRequest, type Principal } from '@hearth/plugin-api';
import { webPagesRef } from '@hearth/plugin-web';
import { applicationOperations } from './application-routes';
import { ApplicationStore } from './applications';
import { GrantStore } from './grants';
import { oauth2Migrations } from './migrations';
import { discoveryRouter, providerRouter } from './provider-routes';
import { expandApiScope, parseScope, type RequestedScope } from './scopes';
import { ACCESS_TOKEN_PREFIX } from './secrets';
import { settingsPages } from './settings-page';
import { SigningKeys } from './signing-keys';

/** @public */
export interface OAuth2ProviderSettings {
  /** Seconds an access token (and an ID token) is valid: Gitea's ACCESS_TOKEN_EXPIRATION_TIME. */
  accessTokenSeconds: number;
  /** Hours a refresh token is valid: Gitea's REFRESH_TOKEN_EXPIRATION_TIME. */
  refreshTokenHours: number;
  /** Seconds an authorization code may wait for its exchange. */
  codeSeconds: number;
}

/** The provider's access token in a request: `Authorization: Bearer|token hoa_…`, or the password of basic auth (git clones). */
function accessTokenOf(req: AuthRequest): string | undefined {
  const header = req.headers.authorization;
  const auth = Array.isArray(header) ? header[0] : header;
  if (!auth) return undefined;
  const scheme = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(auth);
  if (scheme) return scheme[1].startsWith(ACCESS_TOKEN_PREFIX) ? scheme[1] : undefined;
  const basic = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const password = decoded.slice(decoded.indexOf(':') + 1);
  return decoded.includes(':') && password.startsWith(ACCESS_TOKEN_PREFIX) ? password : undefined;
}

/**
 * An OAuth2 / OpenID Connect provider at Gitea's URLs (`/login/oauth/authorize`, `…/access_token`,
 * `…/userinfo`, `…/keys`, `/.well-known/openid-configuration`) so that CI systems such as Woodpecker
 * and Drone sign their users in with their forge accounts: users register applications through
 * `/api/v1/user/applications/oauth2`, consent on a page of the web interface, and the access
 * tokens act on `/api/v1` (and git over HTTP) as the user, limited to the scopes granted.
 */
export default definePlugin<OAuth2ProviderSettings>({
  name: 'oauth2-provider',
  version: '0.1.0',
  apiVersion: '^2.3.0',
  description: 'An OAuth2 / OpenID Connect provider for CI systems and other applications',
  // Without the web interface nobody can sign in to consent: the rest (applications, tokens) still works.
  optional: [webPagesRef],
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      accessTokenSeconds: { type: 'integer', minimum: 60, maximum: 86400, default: 3600 },
      refreshTokenHours: { type: 'integer', minimum: 1, maximum: 87600, default: 730 },
      codeSeconds: { type: 'integer', minimum: 30, maximum: 3600, default: 600 },
    },
  },
  migrations: oauth2Migrations,
  apply(ctx) {
    const { settings } = ctx;
    const grants = new GrantStore(ctx.db, {
      codeSeconds: settings.codeSeconds,
      accessSeconds: settings.accessTokenSeconds,
      refreshSeconds: settings.refreshTokenHours * 3600,
    });
    const apps = new ApplicationStore(ctx.db, () => grants.forgetResolved());
    const keys = new SigningKeys(ctx);
    const web = ctx.services.optional(webPagesRef);
    if (web) settingsPages(ctx, web);
    if (!web) ctx.log.warn({}, 'the web plugin is disabled: /login/oauth/authorize is not served, so no application can sign users in');
    const router = providerRouter({ ctx, apps, grants, keys, web, idTokenSeconds: settings.accessTokenSeconds });

    ctx.hooks.http.routes.tap({ name: 'oauth2-provider', stage: -20 }, (routes) => {
      for (const op of applicationOperations(ctx, apps)) routes.api(op);
      // Before the web interface's `/{owner}/{repo}` pages, which would otherwise take `/login/oauth`.
      routes.root('/login/oauth', router);
      routes.root('/.well-known', discoveryRouter(ctx));
    });

    // Before the kernel's token scheme (stage -100), which claims every `Bearer`/`token` credential:
    // only tokens with the provider's prefix are answered here, anything else passes on.
    ctx.hooks.auth.authenticate.tapPromise({ name: 'oauth2-provider', stage: -110 }, async (req): Promise<Principal | undefined> => {
      const token = accessTokenOf(req);
      if (token === undefined) return undefined;
      const holder = await grants.accessToken(token);
      const { granted, publicOnly } = expandApiScope(holder ? (parseScope(holder.scope) as RequestedScope).api : '');
      const principal = holder ? await ctx.users.principalFor(holder.userId, { method: 'oauth2', scopes: granted, publicOnly }) : null;
      if (!principal) throw ApiError.unauthorized('invalid, expired or revoked OAuth2 access token');
      return principal;
    });

    ctx.hooks.user.deleting.tapPromise('oauth2-provider', ({ user, trx }) => apps.deleteUser(trx, user.id));

    let sweeper: NodeJS.Timeout | undefined;
    ctx.hooks.lifecycle.ready.tapPromise('oauth2-provider', async () => {
      await keys.ensure();
      sweeper = setInterval(() => void grants.sweep().catch((err) => ctx.log.warn({ err }, 'OAuth2 token sweep failed')), 3600_000);
      sweeper.unref();
    });
    ctx.hooks.lifecycle.shutdown.tap('oauth2-provider', () => clearInterval(sweeper));
  },
});
