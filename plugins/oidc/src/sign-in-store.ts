import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError, nowUnix } from '@hearth/plugin-api';

export const sha256 = (value: string) => crypto.createHash('sha256').update(value).digest('hex');

/** A random URL-safe secret (state, browser key, link token). */
export const randomSecret = () => crypto.randomBytes(32).toString('base64url');

/** Equal hex digests, compared in constant time. */
export function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** A sign-in between the redirect to the provider and the callback. */
export interface PendingSignIn {
  sourceId: number;
  nonce: string;
  codeVerifier: string;
  redirectTo: string;
}

/**
 * Sign-ins under way (`oidc_sign_ins`), kept server-side: the provider sees only the state, the
 * browser only its own key (a cookie), the database only their hashes. A sign-in is taken exactly
 * once, by the browser that started it, within `lifetimeSeconds`.
 */
export class SignInStore {
  constructor(
    private readonly db: Knex,
    private readonly lifetimeSeconds: number,
  ) {}

  /** Remember a sign-in; returns the state to send to the provider. */
  async start(browserKey: string, pending: PendingSignIn): Promise<string> {
    const state = randomSecret();
    const now = nowUnix();
    // Abandoned sign-ins go as new ones arrive: no timer needed.
    await this.db('oidc_sign_ins')
      .where('created_unix', '<', now - this.lifetimeSeconds)
      .delete();
    await this.db('oidc_sign_ins').insert({
      state_hash: sha256(state),
      browser_hash: sha256(browserKey),
      source_id: pending.sourceId,
      nonce: pending.nonce,
      code_verifier: pending.codeVerifier,
      redirect_to: pending.redirectTo,
      created_unix: now,
    });
    return state;
  }

  /**
   * Take the sign-in `state` names, once: a replayed callback, another browser's state, an
   * expired or unknown one is a 400 (the row is gone either way, so it cannot be tried again).
   */
  async take(state: string, browserKey: string | undefined, sourceId: number): Promise<PendingSignIn> {
    const refused = ApiError.badRequest('this sign-in is unknown, expired or already used: start again from the sign-in page');
    if (!state) throw refused;
    const row = await this.db('oidc_sign_ins').where('state_hash', sha256(state)).first();
    if (!row) throw refused;
    // Only one of two concurrent callbacks with the same state deletes the row.
    const taken = await this.db('oidc_sign_ins').where('id', row.id).delete();
    if (taken !== 1) throw refused;
    if (!browserKey || !sameDigest(sha256(browserKey), String(row.browser_hash)))
      throw ApiError.badRequest('this sign-in was started in another browser: start again from the sign-in page');
    if (Number(row.source_id) !== sourceId || Number(row.created_unix) < nowUnix() - this.lifetimeSeconds) throw refused;
    return {
      sourceId,
      nonce: String(row.nonce),
      codeVerifier: String(row.code_verifier),
      redirectTo: String(row.redirect_to),
    };
  }
}
