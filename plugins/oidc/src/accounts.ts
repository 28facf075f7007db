import { ApiError, isApiError, nowUnix, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import type { OidcSource } from './source-store';

/** The claims of a sign-in: the ID token's, completed by the userinfo endpoint's. */
export type Claims = Record<string, unknown> & { sub: string };

const MAX_NAME_LENGTH = 40;
/** How many numbered variants (`ann-2`, `ann-3`…) are tried before giving up on a name. */
const NAME_ATTEMPTS = 50;

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * A user name the forge accepts, made from what the provider says the user is called:
 * `preferred_username`, else `nickname`, the email's local part, `name`. Accents are dropped,
 * other characters become `-`, and the result starts with a letter or digit and does not end with
 * or repeat `-`, `_` or `.` (the kernel's rules). `user` when nothing usable is left.
 */
export function nameFromClaims(claims: Claims): string {
  const email = text(claims.email);
  const raw = [text(claims.preferred_username), text(claims.nickname), email.split('@')[0], text(claims.name)].find(Boolean) ?? '';
  const cleaned = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\w.-]+/g, '-')
    .replace(/[-._]{2,}/g, '-')
    .replace(/^[^a-zA-Z0-9]+/, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/[-._]+$/, '');
  return cleaned || 'user';
}

/** `base`, then `base-2`, `base-3`… each within the length limit. */
function nameVariant(base: string, attempt: number): string {
  if (attempt === 1) return base;
  const suffix = `-${attempt}`;
  return `${base.slice(0, MAX_NAME_LENGTH - suffix.length).replace(/[-._]+$/, '')}${suffix}`;
}

/** The forge accounts behind a provider's subjects: the account the source created, or one its owner linked. */
export class OidcAccounts {
  constructor(private readonly ctx: Pick<PluginContext, 'db' | 'users'>) {}

  /** The account that signs in as `subject` of `source`, or null on a first sign-in. */
  async known(source: OidcSource, subject: string): Promise<UserInfo | null> {
    const own = await this.ctx.users.byLogin(source.id, subject);
    if (own) return own;
    const link = await this.ctx.db('oidc_links').where({ source_id: source.id, subject }).first('user_id');
    return link ? this.ctx.users.byId(Number(link.user_id)) : null;
  }

  /**
   * Create the account of a first sign-in: the name from the claims, made unique; the source's
   * subject as its login name. The caller made sure the email is not an existing account's.
   */
  async create(source: OidcSource, claims: Claims, email: string): Promise<UserInfo> {
    const base = nameFromClaims(claims);
    let lastRefusal: unknown;
    for (let attempt = 1; attempt <= NAME_ATTEMPTS; attempt++) {
      const name = nameVariant(base, attempt);
      if (await this.ctx.users.byName(name)) continue;
      try {
        return await this.ctx.users.createExternal({
          name,
          email,
          fullName: text(claims.name),
          sourceId: source.id,
          loginName: claims.sub,
        });
      } catch (err) {
        // A reserved name, or one taken meanwhile: try the next variant.
        if (!isApiError(err) || err.status !== 422) throw err;
        // …unless a concurrent first sign-in of the same subject created the account.
        const raced = await this.ctx.users.byLogin(source.id, claims.sub);
        if (raced) return raced;
        if (await this.ctx.users.byEmail(email)) throw err;
        lastRefusal = err;
      }
    }
    throw lastRefusal ?? ApiError.unprocessable(`no free user name like "${base}" was found; ask a site administrator`);
  }

  /** Link an existing account to `subject` of `source` (its owner proved the password). */
  async link(source: OidcSource, subject: string, user: UserInfo): Promise<void> {
    await this.ctx.db('oidc_links').insert({ source_id: source.id, subject, user_id: user.id, created_unix: nowUnix() });
  }
}
