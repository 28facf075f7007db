import type { Knex } from 'knex';
import { ApiError, nowUnix } from '@hearth/plugin-api';
import { randomSecret, sameDigest, sha256 } from './sign-in-store';

/** Wrong passwords a pending link survives; then the provider sign-in must be repeated. */
export const LINK_ATTEMPTS = 3;

/** A first sign-in whose email belongs to an existing account, waiting for that account's password. */
export interface PendingLink {
  id: number;
  sourceId: number;
  subject: string;
  userId: number;
  groups: string[];
  redirectTo: string;
  attempts: number;
}

/**
 * Offers to link an existing account (`oidc_pending_links`): the provider's sign-in is never
 * attached to an account silently, only after the account's password was typed into the page
 * the offer shows. The token in that page's form is single-browser, short-lived and dies after
 * `LINK_ATTEMPTS` wrong passwords, so the form is no password-guessing oracle.
 */
export class PendingLinks {
  constructor(
    private readonly db: Knex,
    private readonly lifetimeSeconds: number,
  ) {}

  async offer(browserKey: string, link: Omit<PendingLink, 'id' | 'attempts'>): Promise<string> {
    const token = randomSecret();
    const now = nowUnix();
    await this.db('oidc_pending_links')
      .where('created_unix', '<', now - this.lifetimeSeconds)
      .delete();
    await this.db('oidc_pending_links').insert({
      token_hash: sha256(token),
      browser_hash: sha256(browserKey),
      source_id: link.sourceId,
      subject: link.subject,
      user_id: link.userId,
      groups: JSON.stringify(link.groups),
      redirect_to: link.redirectTo,
      created_unix: now,
    });
    return token;
  }

  /** The offer `token` names, for this browser and source, while it lasts; otherwise a 400. */
  async find(token: string, browserKey: string | undefined, sourceId: number): Promise<PendingLink> {
    const refused = ApiError.badRequest('this link offer is unknown, expired or used up: sign in with the provider again');
    const row = token ? await this.db('oidc_pending_links').where('token_hash', sha256(token)).first() : undefined;
    if (!row || !browserKey || !sameDigest(sha256(browserKey), String(row.browser_hash))) throw refused;
    if (Number(row.source_id) !== sourceId || Number(row.created_unix) < nowUnix() - this.lifetimeSeconds) throw refused;
    return {
      id: Number(row.id),
      sourceId,
      subject: String(row.subject),
      userId: Number(row.user_id),
      groups: JSON.parse(String(row.groups)) as string[],
      redirectTo: String(row.redirect_to),
      attempts: Number(row.attempts),
    };
  }

  /** Count a wrong password; true when the offer is used up (and gone). */
  async failed(link: PendingLink): Promise<boolean> {
    if (link.attempts + 1 >= LINK_ATTEMPTS) {
      await this.db('oidc_pending_links').where('id', link.id).delete();
      return true;
    }
    await this.db('oidc_pending_links').where('id', link.id).increment('attempts', 1);
    return false;
  }

  /** Take the offer once (a second submission of the same form finds nothing). */
  async take(link: PendingLink): Promise<boolean> {
    return (await this.db('oidc_pending_links').where('id', link.id).delete()) === 1;
  }
}
