import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { PluginContext, UserInfo } from '@hearth/plugin-api';
import type { WebPages } from '@hearth/plugin-web';
import type { ApplicationStore, OAuth2Application } from './applications';
import { RedirectError, checkAuthorizationRequest, verifierMatches, withParams, type AuthorizationRequest } from './authorization';
import { userClaims } from './claims';
import { consentPage } from './consent-page';
import { InvalidGrant, type GrantStore, type TokenPair } from './grants';
import { describeApiScope, parseScope, type RequestedScope } from './scopes';
import type { SigningKeys } from './signing-keys';

export interface ProviderDeps {
  ctx: Pick<PluginContext, 'api' | 'users' | 'forge'>;
  apps: ApplicationStore;
  grants: GrantStore;
  keys: SigningKeys;
  /** The web interface, for sign-in and consent; without it there is no authorization endpoint. */
  web: WebPages | undefined;
  idTokenSeconds: number;
}

/** An RFC 6749 §5.2 error of the token endpoint. */
class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** What the consent page lists for a request's scopes. */
function abilities(scope: RequestedScope): string[] {
  const lines: string[] = [];
  if (scope.oidc.includes('openid')) lines.push('sign you in with your account');
  if (scope.oidc.includes('profile')) lines.push('see your name, user name and avatar');
  if (scope.oidc.includes('email')) lines.push('see your email address');
  if (scope.oidc.includes('groups')) lines.push('see the organizations and teams you belong to');
  return [...lines, ...describeApiScope(scope.api).map((l) => `use the API to ${l}`)];
}

/** The CSP source the consent form's redirect goes to: the client's origin, or its scheme for native apps (`myapp:`). */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

/** `/authorize` and the consent form's `/grant`: pages of the web interface, for signed-in users. */
function authorizationRoutes(deps: ProviderDeps, web: WebPages): void {
  const { ctx, apps, grants } = deps;
  const { pages } = web;

  /** The signed-in user of a page, or a redirect to the sign-in page (coming back to `path`). */
  function signedIn(req: Request, res: Response, path: string): UserInfo | null {
    const { user } = web.viewer(req);
    if (!user) res.redirect(303, `/user/login?redirect_to=${encodeURIComponent(path)}`);
    return user;
  }

  async function answer(res: Response, request: AuthorizationRequest, user: UserInfo, status: number): Promise<void> {
    const code = await grants.issueCode({
      userId: user.id,
      applicationId: request.app.id,
      redirectUri: request.redirectUri,
      scope: request.scope.granted,
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
    });
    res.redirect(status, withParams(request.redirectUri, { code, state: request.state }));
  }

  /** Run an authorization step; refusals for the client go back to its redirect URI. */
  const authorizing = (step: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      await step(req, res);
    } catch (err) {
      if (!(err instanceof RedirectError)) throw err;
      res.redirect(303, err.location());
    }
  };

  pages.get(
    '/login/oauth/authorize',
    authorizing(async (req, res) => {
      const user = signedIn(req, res, req.originalUrl);
      if (!user) return;
      const request = await checkAuthorizationRequest(apps, req.query);
      // Consented before to everything asked now: no page, as on Gitea. Public clients always ask:
      // anyone can claim their client id (and a loopback redirect URI).
      const grant = request.app.confidential ? await grants.grantOf(user.id, request.app.id) : null;
      const had = new Set(grant?.scope.split(' ') ?? []);
      if (grant && request.scope.granted.split(' ').every((s) => had.has(s))) return answer(res, request, user, 303);
      const owner = await ctx.users.byId(request.app.userId);
      const page = consentPage({
        appName: request.app.name,
        ownerName: owner?.name ?? 'a deleted user',
        userName: user.name,
        redirectUri: request.redirectUri,
        csrfToken: web.viewer(req).csrfToken,
        abilities: abilities(request.scope),
        fields: request.fields,
      });
      web.send(req, res, { title: `Authorize ${request.app.name}`, body: page, formTargets: [formTarget(request.redirectUri)] });
    }),
  );

  pages.post(
    '/login/oauth/grant',
    authorizing(async (req, res) => {
      const user = signedIn(req, res, '/');
      if (!user) return;
      const request = await checkAuthorizationRequest(apps, req.body ?? {});
      if (req.body.granted !== 'true')
        throw new RedirectError(request.redirectUri, 'access_denied', 'the user denied the request', request.state);
      await answer(res, request, user, 303);
    }),
  );
}

/** The provider's endpoints at Gitea's URLs, below `/login/oauth`. */
export function providerRouter(deps: ProviderDeps): Router {
  const { ctx, apps, grants, keys, web } = deps;
  const router = Router({ caseSensitive: false, strict: false });
  if (web) authorizationRoutes(deps, web);

  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const json = express.json({ limit: '16kb' });
  router.post('/access_token', form, json, async (req, res) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const app = await clientOf(apps, req, body);
      const pair = await exchange(deps, app, body);
      res.set(NO_STORE).json(await tokenResponse(deps, app, pair));
    } catch (err) {
      const refusal = err instanceof InvalidGrant ? new TokenError(400, 'invalid_grant', err.message) : err;
      if (!(refusal instanceof TokenError)) throw err;
      if (refusal.status === 401) res.set('WWW-Authenticate', 'Basic realm="oauth2"');
      res.status(refusal.status).set(NO_STORE).json({ error: refusal.error, error_description: refusal.message });
    }
  });

  // A body the parsers refuse (malformed, too large) is the client's error, in the endpoint's own shape.
  router.use('/access_token', (err: { status?: number; message?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (!err.status || err.status >= 500) return next(err);
    res
      .status(400)
      .set(NO_STORE)
      .json({ error: 'invalid_request', error_description: `unreadable request body: ${err.message}` });
  });

  const userinfo = async (req: Request, res: Response) => {
    const auth = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const holder = auth ? await grants.accessToken(auth[1]) : null;
    const user = holder ? await ctx.users.byId(holder.userId) : null;
    if (!holder || !user || user.prohibitLogin || !user.isActive) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer error="invalid_token"')
        .json({ error: 'invalid_token', error_description: 'the access token is unknown, expired or revoked' });
      return;
    }
    const scope = parseScope(holder.scope) as RequestedScope;
    res.set(NO_STORE).json(await userClaims(ctx, user, scope.oidc));
  };
  router.get('/userinfo', userinfo);
  router.post('/userinfo', userinfo);
  router.get('/keys', async (_req, res) => void res.json(await keys.jwks()));
  return router;
}

/** The client of a token request: HTTP basic (RFC 6749 §2.3.1) or client_id/client_secret in the body. */
async function clientOf(apps: ApplicationStore, req: Request, body: Record<string, unknown>): Promise<OAuth2Application> {
  let clientId = typeof body.client_id === 'string' ? body.client_id : '';
  let secret = typeof body.client_secret === 'string' ? body.client_secret : '';
  const basic = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new TokenError(401, 'invalid_client', 'malformed basic credentials');
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw new TokenError(401, 'invalid_client', 'malformed basic credentials');
    }
  }
  const app = clientId ? await apps.byClientId(clientId) : null;
  if (!app) throw new TokenError(401, 'invalid_client', 'unknown client');
  if (app.confidential && !(secret && (await apps.authenticate(clientId, secret))))
    throw new TokenError(401, 'invalid_client', 'the client secret is missing or wrong');
  return app;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Redeem a code or a refresh token for a new token pair. */
async function exchange(deps: ProviderDeps, app: OAuth2Application, body: Record<string, unknown>): Promise<TokenPair> {
  const grantType = text(body.grant_type);
  if (grantType === 'refresh_token') {
    if (!text(body.refresh_token)) throw new TokenError(400, 'invalid_request', 'refresh_token is required');
    return deps.grants.refresh(text(body.refresh_token), app.id);
  }
  if (grantType !== 'authorization_code')
    throw new TokenError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  if (!text(body.code)) throw new TokenError(400, 'invalid_request', 'code is required');
  const code = await deps.grants.redeemCode(text(body.code), app.id);
  if (text(body.redirect_uri) !== code.redirectUri) throw new InvalidGrant('redirect_uri differs from the authorization request’s');
  if (code.codeChallenge && !verifierMatches(code.codeChallenge, code.codeChallengeMethod, text(body.code_verifier)))
    throw new InvalidGrant('the PKCE code_verifier does not match the code_challenge');
  return deps.grants.issueTokens({ grantId: code.grantId, familyId: code.id, scope: code.scope, nonce: code.nonce, userId: code.userId });
}

async function tokenResponse(deps: ProviderDeps, app: OAuth2Application, pair: TokenPair): Promise<Record<string, unknown>> {
  // An account that may no longer sign in gets nothing (its tokens would be refused anyway).
  const user = await deps.ctx.users.byId(pair.userId);
  if (!user || user.prohibitLogin || !user.isActive) throw new InvalidGrant('this account may not sign in');
  const body: Record<string, unknown> = {
    access_token: pair.accessToken,
    token_type: 'bearer',
    expires_in: pair.expiresIn,
    refresh_token: pair.refreshToken,
    scope: pair.scope,
  };
  const scope = parseScope(pair.scope) as RequestedScope;
  if (scope.oidc.includes('openid')) {
    const claims = await userClaims(deps.ctx, user, scope.oidc);
    if (pair.nonce) claims.nonce = pair.nonce;
    body.id_token = await deps.keys.idToken(claims, deps.ctx.forge.appUrl, app.clientId, deps.idTokenSeconds);
  }
  return body;
}

/** `GET /.well-known/openid-configuration`: the issuer is ROOT_URL, as on Gitea. */
export function discoveryRouter(ctx: Pick<PluginContext, 'forge'>): Router {
  const router = Router();
  router.get('/openid-configuration', (_req, res) => {
    const base = ctx.forge.appUrl;
    res.json({
      issuer: base,
      authorization_endpoint: `${base}login/oauth/authorize`,
      token_endpoint: `${base}login/oauth/access_token`,
      jwks_uri: `${base}login/oauth/keys`,
      userinfo_endpoint: `${base}login/oauth/userinfo`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: ['openid', 'profile', 'email', 'groups'],
      claims_supported: [
        'aud',
        'exp',
        'iat',
        'iss',
        'sub',
        'nonce',
        'name',
        'preferred_username',
        'profile',
        'picture',
        'website',
        'locale',
        'email',
        'email_verified',
        'groups',
      ],
      code_challenge_methods_supported: ['plain', 'S256'],
    });
  });
  return router;
}
