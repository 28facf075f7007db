import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** A signed-in session as the store keeps it. */
export interface WebSession {
  id: number;
  userId: number;
  csrfToken: string;
  expiresUnix: number;
}

const nowUnix = () => Math.floor(Date.now() / 1000);
const hashKey = (key: string) => crypto.createHash('sha256').update(key).digest('hex');
/** 32 random bytes, URL-safe: session keys and CSRF tokens. */
export const randomToken = () => crypto.randomBytes(32).toString('base64url');

/**
 * Sessions live in the database (every node sees them; sign-out ends them everywhere). The cookie
 * carries a random key; only its hash is stored. A session is created at sign-in only — anonymous
 * visitors cost no write — and a new key is issued at every sign-in, so a key planted before
 * sign-in (session fixation) never becomes a signed-in session.
 */
export class SessionStore {
  constructor(
    private readonly db: Knex,
    private readonly lifetimeSeconds: number,
  ) {}

  async load(key: string): Promise<WebSession | null> {
    const row = await this.db('web_sessions')
      .where({ key_hash: hashKey(key) })
      .first();
    if (!row) return null;
    const session = { id: row.id, userId: row.user_id, csrfToken: row.csrf_token, expiresUnix: Number(row.expires_unix) };
    if (session.expiresUnix <= nowUnix()) {
      await this.db('web_sessions').where({ id: row.id }).delete();
      return null;
    }
    // Sliding expiry, written at most once per tenth of the lifetime rather than on every page.
    const renewed = nowUnix() + this.lifetimeSeconds;
    if (renewed - session.expiresUnix > this.lifetimeSeconds / 10) {
      await this.db('web_sessions').where({ id: row.id }).update({ expires_unix: renewed });
      session.expiresUnix = renewed;
    }
    return session;
  }

  /** A new session for `userId`; the returned key goes into the cookie and nowhere else. */
  async create(userId: number): Promise<{ key: string; session: WebSession }> {
    const key = randomToken();
    const csrfToken = randomToken();
    const expiresUnix = nowUnix() + this.lifetimeSeconds;
    await this.db('web_sessions').insert({
      key_hash: hashKey(key),
      user_id: userId,
      csrf_token: csrfToken,
      created_unix: nowUnix(),
      expires_unix: expiresUnix,
    });
    const row = await this.db('web_sessions')
      .where({ key_hash: hashKey(key) })
      .first('id');
    return { key, session: { id: row.id, userId, csrfToken, expiresUnix } };
  }

  async destroy(sessionId: number): Promise<void> {
    await this.db('web_sessions').where({ id: sessionId }).delete();
  }

  /** Every session of a user (deleted accounts, sign out everywhere). */
  async destroyAllOf(userId: number, db: Knex = this.db): Promise<void> {
    await db('web_sessions').where({ user_id: userId }).delete();
  }

  /** Every session of a user but one (a password change signs out the other browsers). */
  async destroyOthersOf(userId: number, keepSessionId: number): Promise<void> {
    await this.db('web_sessions').where({ user_id: userId }).whereNot({ id: keepSessionId }).delete();
  }

  /** Expired rows, swept now and then. */
  async sweep(): Promise<number> {
    return this.db('web_sessions').where('expires_unix', '<=', nowUnix()).delete();
  }
}
