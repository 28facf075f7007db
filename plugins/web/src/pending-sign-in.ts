import type { Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import type { SecretSealer, UserDirectory } from '@hearth/plugin-api';
import type { PendingSignIn } from './sign-in-service';

export const PENDING_COOKIE = 'hearth_pending_sign_in';
const CONTEXT = 'pending-sign-in';
/** Time to type a second factor. */
const LIFETIME_SECONDS = 300;

/**
 * A sign-in whose first factor passed, waiting for a second one: sealed into a short-lived cookie
 * (user, where to go, expiry), so nothing is stored and the browser cannot forge or alter it.
 * It grants no session, only the right to try the second factor.
 */
export class PendingSignIns {
  constructor(
    private readonly sealer: SecretSealer,
    private readonly users: UserDirectory,
    private readonly secure: (req: Request) => boolean,
  ) {}

  remember(req: Request, res: Response, userId: number, redirectTo: string): void {
    const expires = Math.floor(Date.now() / 1000) + LIFETIME_SECONDS;
    const sealed = this.sealer.seal(JSON.stringify({ userId, redirectTo, expires }), CONTEXT);
    res.cookie(PENDING_COOKIE, sealed, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure(req),
      path: '/',
      maxAge: LIFETIME_SECONDS * 1000,
    });
  }

  async find(req: Request): Promise<PendingSignIn | null> {
    const sealed = parseCookies(req.headers.cookie ?? '')[PENDING_COOKIE];
    if (!sealed) return null;
    let plain: { userId: number; redirectTo: string; expires: number };
    try {
      plain = JSON.parse(this.sealer.open(sealed, CONTEXT));
    } catch {
      return null;
    }
    if (plain.expires <= Math.floor(Date.now() / 1000)) return null;
    const user = await this.users.byId(plain.userId);
    return user ? { user, redirectTo: plain.redirectTo } : null;
  }

  forget(res: Response): void {
    res.clearCookie(PENDING_COOKIE, { path: '/' });
  }
}
