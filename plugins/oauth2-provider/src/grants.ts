import type { Knex } from 'knex';
import { insertId, nowUnix } from '@hearth/plugin-api';
import { ACCESS_TOKEN_PREFIX, CODE_PREFIX, REFRESH_TOKEN_PREFIX, hashSecret, newSecret } from './secrets';

export interface Lifetimes {
  codeSeconds: number;
  accessSeconds: number;
  refreshSeconds: number;
}

/** A code as the token endpoint redeems it. */
export interface IssuedCode {
  id: number;
  grantId: number;
  applicationId: number;
  userId: number;
  redirectUri: string;
  scope: string;
  nonce: string;
  codeChallenge: string;
  codeChallengeMethod: string;
}

/** A live access token, as the API and userinfo see it. */
export interface TokenHolder {
  userId: number;
  applicationId: number;
  scope: string;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scope: string;
  nonce: string;
  userId: number;
}

/** Why a code or refresh token was refused: the RFC 6749 `invalid_grant`. */
export class InvalidGrant extends Error {}

/** How long a resolved access token is remembered (revocations in this process forget at once). */
const CACHE_MS = 10_000;
const CACHE_ENTRIES = 10_000;

/** Grants, codes and tokens: every secret stored as its SHA-256, every one expiring. */
export class GrantStore {
  /**
   * Access tokens resolved lately, by hash, so that an API call pays no extra round trip for its
   * token. Every revocation through this store clears it; the TTL bounds how long a revocation
   * made by another process (or direct SQL) goes unseen, as the kernel's token cache does.
   */
  private readonly cache = new Map<string, { holder: TokenHolder; until: number; expiresUnix: number }>();

  constructor(
    private readonly db: Knex,
    private readonly lifetimes: Lifetimes,
  ) {}

  /** Forget every resolved token (after a revocation). */
  forgetResolved(): void {
    this.cache.clear();
  }

  /** The grant of `userId` to the application, if they consented before. */
  async grantOf(userId: number, applicationId: number): Promise<{ id: number; scope: string } | null> {
    const row = await this.db('oauth2_grants').where({ user_id: userId, application_id: applicationId }).first();
    return row ? { id: row.id, scope: row.scope } : null;
  }

  /** Record the consent (widening an earlier grant's scope) and issue a code for it. */
  async issueCode(input: {
    userId: number;
    applicationId: number;
    redirectUri: string;
    scope: string;
    nonce: string;
    codeChallenge: string;
    codeChallengeMethod: string;
  }): Promise<string> {
    const code = newSecret(CODE_PREFIX);
    await this.db.transaction(async (trx) => {
      const grant = await trx('oauth2_grants').where({ user_id: input.userId, application_id: input.applicationId }).first();
      let grantId: number;
      if (grant) {
        grantId = grant.id;
        const scope = [...new Set([...String(grant.scope).split(' '), ...input.scope.split(' ')])].filter(Boolean).join(' ');
        if (scope !== grant.scope) await trx('oauth2_grants').where({ id: grantId }).update({ scope });
      } else {
        const row = { user_id: input.userId, application_id: input.applicationId, scope: input.scope, created_unix: nowUnix() };
        grantId = await insertId(trx, 'oauth2_grants', row);
      }
      await trx('oauth2_codes').insert({
        code_hash: hashSecret(code),
        grant_id: grantId,
        redirect_uri: input.redirectUri,
        scope: input.scope,
        nonce: input.nonce,
        code_challenge: input.codeChallenge,
        code_challenge_method: input.codeChallengeMethod,
        expires_unix: nowUnix() + this.lifetimes.codeSeconds,
      });
    });
    return code;
  }

  /**
   * Take a code for the application: each works once. A code used before is refused, and the
   * tokens issued from it are revoked (RFC 6749 §4.1.2: someone else holds it).
   */
  async redeemCode(code: string, applicationId: number): Promise<IssuedCode> {
    const row = await this.db('oauth2_codes as c')
      .join('oauth2_grants as g', 'g.id', 'c.grant_id')
      .where('c.code_hash', hashSecret(code))
      .select('c.*', 'g.application_id', 'g.user_id')
      .first();
    if (!row || row.application_id !== applicationId) throw new InvalidGrant('the authorization code is unknown or not for this client');
    const taken = await this.db('oauth2_codes').where({ id: row.id, used: false }).update({ used: true });
    if (!taken) {
      await this.db('oauth2_tokens').where('family_id', row.id).delete();
      this.forgetResolved();
      throw new InvalidGrant('the authorization code was already used; the tokens issued for it are revoked');
    }
    if (Number(row.expires_unix) < nowUnix()) throw new InvalidGrant('the authorization code has expired');
    return {
      id: row.id,
      grantId: row.grant_id,
      applicationId: row.application_id,
      userId: row.user_id,
      redirectUri: row.redirect_uri,
      scope: row.scope,
      nonce: row.nonce,
      codeChallenge: row.code_challenge,
      codeChallengeMethod: row.code_challenge_method,
    };
  }

  /** A new access and refresh token in the family of `familyId` (the code they descend from). */
  async issueTokens(grant: { grantId: number; familyId: number; scope: string; nonce: string; userId: number }): Promise<TokenPair> {
    const accessToken = newSecret(ACCESS_TOKEN_PREFIX);
    const refreshToken = newSecret(REFRESH_TOKEN_PREFIX);
    const now = nowUnix();
    const common = { grant_id: grant.grantId, family_id: grant.familyId, scope: grant.scope, nonce: grant.nonce };
    await this.db('oauth2_tokens').insert([
      { ...common, token_hash: hashSecret(accessToken), kind: 'access', expires_unix: now + this.lifetimes.accessSeconds },
      { ...common, token_hash: hashSecret(refreshToken), kind: 'refresh', expires_unix: now + this.lifetimes.refreshSeconds },
    ]);
    return {
      accessToken,
      refreshToken,
      expiresIn: this.lifetimes.accessSeconds,
      scope: grant.scope,
      nonce: grant.nonce,
      userId: grant.userId,
    };
  }

  /**
   * Rotate a refresh token: the old one is spent, a new pair is issued. A spent one presented again
   * means it leaked: refused, and its whole family (every token descending from the same code) revoked.
   */
  async refresh(refreshToken: string, applicationId: number): Promise<TokenPair> {
    const row = await this.db('oauth2_tokens as t')
      .join('oauth2_grants as g', 'g.id', 't.grant_id')
      .where({ 't.token_hash': hashSecret(refreshToken), 't.kind': 'refresh' })
      .select('t.*', 'g.application_id', 'g.user_id')
      .first();
    if (!row || row.application_id !== applicationId) throw new InvalidGrant('the refresh token is unknown or not for this client');
    const spent = await this.db('oauth2_tokens').where({ id: row.id, used: false }).update({ used: true });
    if (!spent) {
      await this.db('oauth2_tokens').where('family_id', row.family_id).delete();
      this.forgetResolved();
      throw new InvalidGrant('the refresh token was already used; every token of this sign-in is revoked');
    }
    if (Number(row.expires_unix) < nowUnix()) throw new InvalidGrant('the refresh token has expired');
    return this.issueTokens({ grantId: row.grant_id, familyId: row.family_id, scope: row.scope, nonce: '', userId: row.user_id });
  }

  /** Who a live access token acts for, or null (unknown, expired, revoked). */
  async accessToken(token: string): Promise<TokenHolder | null> {
    const hash = hashSecret(token);
    const cached = this.cache.get(hash);
    if (cached && cached.until > Date.now()) return cached.expiresUnix < nowUnix() ? null : cached.holder;
    const row = await this.db('oauth2_tokens as t')
      .join('oauth2_grants as g', 'g.id', 't.grant_id')
      .where({ 't.token_hash': hash, 't.kind': 'access' })
      .select('t.scope', 't.expires_unix', 'g.application_id', 'g.user_id')
      .first();
    if (!row || Number(row.expires_unix) < nowUnix()) return null;
    const holder = { userId: row.user_id, applicationId: row.application_id, scope: row.scope };
    // Maps iterate in insertion order: dropping the first key evicts the oldest entry.
    if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hash, { holder, until: Date.now() + CACHE_MS, expiresUnix: Number(row.expires_unix) });
    return holder;
  }

  /** Forget expired codes and tokens. */
  async sweep(): Promise<void> {
    const now = nowUnix();
    await this.db('oauth2_codes')
      .where('expires_unix', '<', now - 86400)
      .delete();
    await this.db('oauth2_tokens').where('expires_unix', '<', now).delete();
  }
}
