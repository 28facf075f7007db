import { ApiError, type AuthRequest, type KernelHooks, type Principal } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import type { UserRow } from '../users/models';
import type { TokenService } from './token-service';
import { looksLikeToken } from './tokens';

/** Tap order on auth.authenticate: tokens first, plugin schemes at 0, passwords (slow) last. */
export const AUTH_STAGES = { token: -100, plugin: 0, basic: 100 } as const;

/**
 * The kernel's own credentials as taps of auth.authenticate: tokens (`Authorization: token X`,
 * `Bearer X`, a bare token as cargo sends it, `?token=`, `?access_token=`) and basic auth (password, or a token as password).
 * Bad credentials are a 401, never a silent fall-back to anonymous.
 */
export function tapBuiltinAuth(hooks: KernelHooks, users: UserService, tokens: TokenService): void {
  const tokenPrincipal = async (secret: string, method: string, expectedUser?: string): Promise<Principal> => {
    const found = await tokens.resolve(secret);
    if (!found || (expectedUser !== undefined && found.user.lower_name !== expectedUser.toLowerCase())) {
      throw ApiError.unauthorized('invalid access token');
    }
    return principalFor(users, found.user, method, found.granted, found.publicOnly, found.tokenId);
  };

  hooks.auth.authenticate.tapPromise({ name: 'hearth:token', stage: AUTH_STAGES.token }, async (req) => {
    const secret = tokenFrom(req);
    return secret === undefined ? undefined : tokenPrincipal(secret, 'token');
  });

  hooks.auth.authenticate.tapPromise({ name: 'hearth:basic', stage: AUTH_STAGES.basic }, async (req) => {
    const basic = basicFrom(req);
    if (!basic) return undefined;
    const { username, password } = basic;
    // git and some SDKs send a token as the password, or as the user name with an empty/x-oauth-basic password.
    if (looksLikeToken(password)) return tokenPrincipal(password, 'basic-token', username);
    if (looksLikeToken(username) && (password === '' || password === 'x-oauth-basic')) return tokenPrincipal(username, 'basic-token');
    const info = await hooks.auth.verifyPassword.promise({ login: username, password });
    const user = info ? await users.byId(info.id) : undefined;
    if (!user) throw ApiError.unauthorized('user name or password is incorrect');
    const principal = principalFor(users, user, 'basic', null, false);
    await hooks.auth.passwordAccepted.promise({ user: principal.user, headers: req.headers });
    return principal;
  });

  // Local accounts answer last: identity plugins (e.g. LDAP) tap earlier and pass with undefined.
  hooks.auth.verifyPassword.tapPromise({ name: 'hearth:local-accounts', stage: AUTH_STAGES.basic }, async ({ login, password }) => {
    const user = await users.verifyLogin(login, password);
    return user ? users.toInfo(user) : null;
  });
}

/** Accounts that may not sign in, by password, token or session: 403 naming why. */
export function assertMaySignIn(user: { prohibitLogin: boolean; isActive: boolean }): void {
  if (user.prohibitLogin) throw ApiError.forbidden('this account is prohibited from signing in; contact your site administrator');
  if (!user.isActive) throw ApiError.forbidden('this account is not activated');
}

function principalFor(
  users: UserService,
  user: UserRow,
  method: string,
  scopes: ReadonlySet<string> | null,
  publicOnly: boolean,
  tokenId?: number,
): Principal {
  assertMaySignIn({ prohibitLogin: user.prohibit_login, isActive: user.is_active });
  return users.rememberRow({ user: users.toInfo(user), method, scopes, publicOnly, tokenId }, user);
}

function header(req: AuthRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function tokenFrom(req: AuthRequest): string | undefined {
  const auth = header(req, 'authorization');
  if (auth) {
    const m = /^(token|bearer)\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[2];
    // cargo sends the registry token verbatim, without a scheme.
    if (looksLikeToken(auth.trim())) return auth.trim();
  }
  for (const key of ['token', 'access_token']) {
    const v = req.query[key];
    if (typeof v === 'string' && v) return v;
  }
  return undefined;
}

function basicFrom(req: AuthRequest): { username: string; password: string } | undefined {
  const auth = header(req, 'authorization');
  const m = auth ? /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth) : null;
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw ApiError.unauthorized('malformed basic credentials');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Resolve the caller through the hook, then apply `Sudo`: a site admin may act as another user
 * (header `Sudo` or query `sudo`), keeping the credential's scopes.
 */
export async function resolvePrincipal(hooks: KernelHooks, users: UserService, req: AuthRequest): Promise<Principal | null> {
  const principal = (await hooks.auth.authenticate.promise(req)) ?? null;
  const sudo = header(req, 'sudo') ?? (typeof req.query.sudo === 'string' ? req.query.sudo : undefined);
  if (!sudo || !principal) return principal;
  if (!principal.user.isAdmin) throw ApiError.forbidden('only site administrators may use sudo');
  const target = await users.byName(sudo);
  if (!target) throw ApiError.notFound(`sudo: user does not exist [name: ${sudo}]`);
  return { ...principal, user: users.toInfo(target) };
}
