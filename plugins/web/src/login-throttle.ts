import type { Knex } from 'knex';
import { ApiError } from '@hearth/plugin-api';

export interface ThrottleLimits {
  /** Failed sign-ins allowed per account name within the window. */
  perAccount: number;
  /** Failed sign-ins allowed per client address within the window. */
  perAddress: number;
  windowSeconds: number;
}

const nowUnix = () => Math.floor(Date.now() / 1000);

/**
 * Failed sign-ins counted per account name and per client address in the database (shared by
 * every node). Past the limit a sign-in is refused with 429 before the password is checked, until
 * the window ends; a success clears the account's count.
 */
export class LoginThrottle {
  constructor(
    private readonly db: Knex,
    private readonly limits: ThrottleLimits,
  ) {}

  private subjects(login: string, address: string): Array<{ subject: string; limit: number }> {
    return [
      { subject: `account:${login.trim().toLowerCase()}`.slice(0, 300), limit: this.limits.perAccount },
      { subject: `address:${address}`.slice(0, 300), limit: this.limits.perAddress },
    ];
  }

  async assertAllowed(login: string, address: string): Promise<void> {
    const now = nowUnix();
    for (const { subject, limit } of this.subjects(login, address)) {
      const row = await this.db('web_login_failures').where({ subject }).first();
      if (!row || Number(row.window_start_unix) + this.limits.windowSeconds <= now || row.failures < limit) continue;
      const minutes = Math.ceil((Number(row.window_start_unix) + this.limits.windowSeconds - now) / 60);
      throw new ApiError(429, `too many failed sign-ins; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`, undefined, {
        'Retry-After': String(minutes * 60),
      });
    }
  }

  async recordFailure(login: string, address: string): Promise<void> {
    const now = nowUnix();
    const expired = now - this.limits.windowSeconds;
    for (const { subject } of this.subjects(login, address)) {
      // One upsert, so concurrent failures all count: a window that ended starts again at 1.
      await this.db('web_login_failures')
        .insert({ subject, failures: 1, window_start_unix: now })
        .onConflict('subject')
        .merge({
          failures: this.db.raw('case when web_login_failures.window_start_unix <= ? then 1 else web_login_failures.failures + 1 end', [
            expired,
          ]),
          window_start_unix: this.db.raw(
            'case when web_login_failures.window_start_unix <= ? then ? else web_login_failures.window_start_unix end',
            [expired, now],
          ),
        });
    }
  }

  async recordSuccess(login: string): Promise<void> {
    await this.db('web_login_failures')
      .where({ subject: `account:${login.trim().toLowerCase()}`.slice(0, 300) })
      .delete();
  }
}
