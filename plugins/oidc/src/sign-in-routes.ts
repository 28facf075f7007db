import express, { Router, type Request, type Response } from 'express';
import { errors, generators, type BaseClient, type CallbackParamsType } from 'openid-client';
import { ApiError, isApiError, type OutboundNetwork, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import type { GroupMapping } from '@hearth/plugin-group-mapping';
import type { WebSignIn } from '@hearth/plugin-web';
import type { Claims, OidcAccounts } from './accounts';
import { sendLinkPage } from './link-page';
import type { PendingLinks } from './pending-links';
import { providerUnavailable, type ProviderClients } from './provider-client';
import { randomSecret, type PendingSignIn, type SignInStore } from './sign-in-store';
import type { OidcSource, OidcSourceStore } from './source-store';

/** The browser's key to its sign-ins under way; only the sign-in routes see it. */
export const FLOW_COOKIE = 'hearth_oidc';
export const SIGN_IN_PATH = '/user/oauth2';

export interface SignInDeps {
  ctx: Pick<PluginContext, 'users' | 'forge' | 'log'>;
  outbound: OutboundNetwork;
  sources: OidcSourceStore;
  clients: ProviderClients;
  signIns: SignInStore;
  accounts: OidcAccounts;
  links: PendingLinks;
  web: WebSignIn;
  groups: GroupMapping;
  lifetimeSeconds: number;
  redirectUri(source: OidcSource): string;
}

/** A cookie's value as the browser sent it (ours are URL-safe base64: nothing to decode). */
function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A path on this site to return to after signing in; anything else (another site, `//host`) is the home page. */
function localPath(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) && !/[\\\s]/.test(value) ? value : '';
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** The values of the source's group claim: a list of strings, or one string (as Gitea reads it). */
export function groupsOf(claims: Claims, claimName: string): string[] {
  const value = claims[claimName];
  if (typeof value === 'string') return value ? [value] : [];
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string' && g !== '') : [];
}

/**
 * What went wrong in the code exchange or the ID token's verification, as a clear 4xx (or a 502
 * when the provider could not be reached): a tampered or foreign token, a wrong nonce, a replayed
 * or expired code are the sign-in's problem, not the forge's.
 */
function exchangeRefusal(source: OidcSource, outbound: OutboundNetwork, err: unknown): ApiError {
  if (isApiError(err)) return err;
  if (err instanceof errors.OPError) {
    return new ApiError(
      401,
      `the identity provider refused the sign-in: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`,
    );
  }
  if (err instanceof errors.RPError) {
    const status = (err.response as { statusCode?: number } | undefined)?.statusCode ?? 0;
    if (status >= 500 || /timed out/.test(err.message)) return providerUnavailable(source, err.message);
    return new ApiError(401, `the identity provider's answer failed verification: ${err.message}`);
  }
  if (outbound.isRefusal(err)) return providerUnavailable(source, (err as Error).message);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+/.test(code)) return providerUnavailable(source, (err as Error).message);
  throw err;
}

/** The steps of a sign-in: to the provider, back from it, and the link of an existing account. */
class OidcSignIn {
  constructor(private readonly deps: SignInDeps) {}

  private async sourceOf(req: Request): Promise<OidcSource> {
    const source = await this.deps.sources.byName(String(req.params.source));
    if (!source) throw ApiError.notFound(`there is no sign-in source "${String(req.params.source)}"`);
    return source;
  }

  private async clientOf(source: OidcSource): Promise<BaseClient> {
    try {
      return await this.deps.clients.clientFor(source);
    } catch (err) {
      throw exchangeRefusal(source, this.deps.outbound, err);
    }
  }

  private setFlowCookie(res: Response, key: string): void {
    res.cookie(FLOW_COOKIE, key, {
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level navigation, which carries it.
      sameSite: 'lax',
      secure: this.deps.ctx.forge.appUrl.startsWith('https:'),
      path: SIGN_IN_PATH,
      maxAge: this.deps.lifetimeSeconds * 1000,
    });
  }

  /** `GET /user/oauth2/{source}`: remember a new sign-in and send the browser to the provider. */
  async start(req: Request, res: Response): Promise<void> {
    const source = await this.sourceOf(req);
    const client = await this.clientOf(source);
    const browserKey = cookie(req, FLOW_COOKIE) || randomSecret();
    const nonce = generators.nonce();
    const codeVerifier = generators.codeVerifier();
    const redirectTo = localPath(req.query.redirect_to);
    const state = await this.deps.signIns.start(browserKey, { sourceId: source.id, nonce, codeVerifier, redirectTo });
    this.setFlowCookie(res, browserKey);
    res.set('Cache-Control', 'no-store');
    const authorizationUrl = client.authorizationUrl({
      redirect_uri: this.deps.redirectUri(source),
      scope: source.scopes.join(' '),
      state,
      nonce,
      code_challenge: generators.codeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    res.redirect(303, authorizationUrl);
  }

  /** The provider's answer, verified: the claims of the ID token, completed by the userinfo endpoint's. */
  private async claimsOf(source: OidcSource, client: BaseClient, params: CallbackParamsType, pending: PendingSignIn): Promise<Claims> {
    if (params.error) {
      const why = `${params.error}${params.error_description ? `: ${params.error_description}` : ''}`;
      throw new ApiError(params.error === 'access_denied' ? 403 : 400, `the identity provider did not sign you in (${why})`);
    }
    try {
      const tokens = await client.callback(this.deps.redirectUri(source), params, {
        state: params.state,
        nonce: pending.nonce,
        code_verifier: pending.codeVerifier,
        response_type: 'code',
      });
      const claims = tokens.claims() as Claims;
      // Group and profile claims often come from the userinfo endpoint only; the ID token's win where both say something.
      if (!tokens.access_token || !client.issuer.metadata.userinfo_endpoint) return claims;
      return { ...(await client.userinfo(tokens)), ...claims } as Claims;
    } catch (err) {
      throw exchangeRefusal(source, this.deps.outbound, err);
    }
  }

  /** `GET /user/oauth2/{source}/callback`: the provider sends the browser back with a code. */
  async callback(req: Request, res: Response): Promise<void> {
    const { ctx, accounts } = this.deps;
    const source = await this.sourceOf(req);
    const browserKey = cookie(req, FLOW_COOKIE);
    const client = await this.clientOf(source);
    const params = client.callbackParams(req.originalUrl);
    // Taken first, whatever follows: a callback URL works once.
    const pending = await this.deps.signIns.take(text(params.state), browserKey, source.id);
    const claims = await this.claimsOf(source, client, params, pending);
    const groups = source.groupClaimName ? groupsOf(claims, source.groupClaimName) : null;
    const known = await accounts.known(source, claims.sub);
    if (known) return this.finish(req, res, source, known, groups, pending.redirectTo);

    const email = text(claims.email);
    if (!email)
      throw ApiError.forbidden(`${source.name} did not tell the forge your email address (the source must request the "email" scope)`);
    const holder = await ctx.users.byEmail(email);
    if (holder) {
      // An address the provider says it has not verified proves nothing: no offer (it would name the account, and invite guesses).
      if (claims.email_verified === false)
        throw ApiError.conflict(
          `an account with the email address ${email} already exists, and ${source.name} has not verified that the address is yours: ` +
            'sign in with the account’s password instead',
        );
      // Never attached silently: the account's owner confirms with its password on the page this shows.
      const link = { sourceId: source.id, subject: claims.sub, userId: holder.id, groups: groups ?? [], redirectTo: pending.redirectTo };
      const token = await this.deps.links.offer(browserKey!, link);
      const action = `${SIGN_IN_PATH}/${encodeURIComponent(source.name)}/link`;
      return sendLinkPage(res, 409, {
        appName: ctx.forge.appName,
        sourceName: source.name,
        accountName: holder.name,
        email,
        token,
        action,
      });
    }
    const user = await accounts.create(source, claims, email);
    ctx.log.info({ user: user.name, source: source.name }, 'created an account on its first OpenID Connect sign-in');
    await this.finish(req, res, source, user, groups, pending.redirectTo);
  }

  /** `POST /user/oauth2/{source}/link`: the existing account's password, typed into the link page. */
  async link(req: Request, res: Response): Promise<void> {
    const { ctx, links } = this.deps;
    const source = await this.sourceOf(req);
    const token = text(req.body?.token);
    const password = typeof req.body?.password === 'string' ? req.body.password : '';
    const link = await links.find(token, cookie(req, FLOW_COOKIE), source.id);
    const holder = await ctx.users.byId(link.userId);
    if (!holder) throw ApiError.badRequest('the account to link no longer exists: sign in with the provider again');
    const verified = password ? await ctx.users.verifyPassword(holder.name, password) : null;
    if (!verified || verified.id !== holder.id) {
      if (await links.failed(link)) throw new ApiError(401, 'the password was wrong too often: sign in with the provider again');
      const page = { appName: ctx.forge.appName, sourceName: source.name, accountName: holder.name, email: holder.email, token };
      return sendLinkPage(res, 401, { ...page, action: req.originalUrl, error: 'The password is not correct.' });
    }
    if (!(await links.take(link))) throw ApiError.badRequest('this link offer was already used');
    await this.deps.accounts.link(source, link.subject, holder);
    ctx.log.info({ user: holder.name, source: source.name }, 'linked an existing account to its OpenID Connect subject');
    await this.finish(req, res, source, verified, source.groupClaimName ? link.groups : null, link.redirectTo);
  }

  /** The account a verified sign-in is for: groups applied (when the source reads a group claim), session started. */
  private async finish(req: Request, res: Response, source: OidcSource, user: UserInfo, groups: string[] | null, redirectTo: string) {
    if (user.type !== 0 || user.prohibitLogin || !user.isActive) throw ApiError.forbidden('this account may not sign in');
    let signedIn = user;
    if (groups !== null) {
      const report = await this.deps.groups.sync({
        user,
        groups,
        map: source.groupTeamMap,
        removal: source.groupTeamMapRemoval,
        adminGroup: source.adminGroup,
        restrictedGroup: source.restrictedGroup,
        source: `oidc source "${source.name}"`,
      });
      signedIn = report.user;
    }
    const next = await this.deps.web.beginSignIn(req, res, signedIn, redirectTo || '/', { skipSecondFactor: source.skipLocal2fa });
    res.redirect(303, next.location);
  }
}

/** The sign-in routes at Gitea's URLs: `/user/oauth2/{source}`, its `/callback`, and `/link` for existing accounts. */
export function signInRouter(deps: SignInDeps): Router {
  const flow = new OidcSignIn(deps);
  const router = Router({ caseSensitive: false, strict: false });
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  router.get('/:source', (req, res) => flow.start(req, res));
  router.get('/:source/callback', (req, res) => flow.callback(req, res));
  router.post('/:source/link', form, (req, res) => flow.link(req, res));
  return router;
}
