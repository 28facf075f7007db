import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import { ApiError, type Principal, type UserDirectory, type UserInfo } from '@hearth/plugin-api';
import { randomToken, type SessionStore, type WebSession } from './session-store';

export const SESSION_COOKIE = 'hearth_session';
/** Anonymous forms (sign in, register) use a double-submit token: this cookie and the form field must match. */
export const ANONYMOUS_CSRF_COOKIE = 'hearth_csrf';

/** Who is looking at a page, and the token its forms carry. */
export interface PageViewer {
  /** The caller as the API sees a password sign-in: full access as the user. Null for anonymous visitors. */
  principal: Principal | null;
  user: UserInfo | null;
  session: WebSession | null;
  /** The CSRF token to put in every form of this page. */
  csrfToken: string;
}

const viewers = new WeakMap<Request, PageViewer>();

/** The viewer the session middleware resolved for this page request. */
export function viewerOf(req: Request): PageViewer {
  const viewer = viewers.get(req);
  if (!viewer) throw new Error('page route without the session middleware');
  return viewer;
}

/** The viewer, when the request went through the session middleware (error pages may come before it). */
export function viewerIfResolved(req: Request): PageViewer | undefined {
  return viewers.get(req);
}

/** Secure cookies when the site is served over TLS (its public URL, or a TLS-terminating proxy's header). */
function secure(req: Request, appUrl: string): boolean {
  return appUrl.startsWith('https:') || req.secure;
}

export interface PageSessionOptions {
  sessions: SessionStore;
  users: UserDirectory;
  appUrl(): string;
  lifetimeSeconds: number;
}

/**
 * Resolves the viewer of every page from the session cookie (a deleted, prohibited or deactivated
 * account is signed out on its next page) and hands out the CSRF token for the page's forms.
 */
export function pageSessions({ sessions, users, appUrl, lifetimeSeconds }: PageSessionOptions) {
  const cookieOptions = (req: Request, maxAgeSeconds: number) => ({
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: secure(req, appUrl()),
    path: '/',
    maxAge: maxAgeSeconds * 1000,
  });

  /** The live session a cookie header names and its user; a session whose account may no longer sign in ends. */
  async function signedIn(cookieHeader: string | undefined): Promise<{ session: WebSession; user: UserInfo } | null> {
    const key = parseCookies(cookieHeader ?? '')[SESSION_COOKIE];
    const session = key ? await sessions.load(key) : null;
    if (!session) return null;
    const user = await users.byId(session.userId);
    if (!user || user.prohibitLogin || !user.isActive || user.type !== 0) {
      await sessions.destroy(session.id);
      return null;
    }
    return { session, user };
  }

  async function resolve(req: Request, res: Response, next: NextFunction): Promise<void> {
    const cookies = parseCookies(req.headers.cookie ?? '');
    const found = await signedIn(req.headers.cookie);
    const session = found?.session ?? null;
    const user = found?.user ?? null;
    if (cookies[SESSION_COOKIE] && !found) res.clearCookie(SESSION_COOKIE, { path: '/' });
    let csrfToken = session?.csrfToken ?? cookies[ANONYMOUS_CSRF_COOKIE];
    if (!csrfToken) {
      csrfToken = randomToken();
      res.cookie(ANONYMOUS_CSRF_COOKIE, csrfToken, cookieOptions(req, 2 * 3600));
    }
    viewers.set(req, {
      principal: user && session ? { user, method: 'session', scopes: null, publicOnly: false } : null,
      user: session ? user : null,
      session,
      csrfToken,
    });
    next();
  }

  return {
    resolve: (req: Request, res: Response, next: NextFunction) => void resolve(req, res, next).catch(next),
    /** The signed-in viewer of a request by its cookie alone (downloads the kernel serves to browsers). */
    async principalOf(cookieHeader: string | undefined): Promise<Principal | null> {
      const found = await signedIn(cookieHeader);
      return found ? { user: found.user, method: 'session', scopes: null, publicOnly: false } : null;
    },
    /** Start a signed-in session with a new key (any earlier session of this browser ends). */
    async signIn(req: Request, res: Response, user: UserInfo): Promise<void> {
      const old = viewers.get(req)?.session;
      if (old) await sessions.destroy(old.id);
      const { key } = await sessions.create(user.id);
      res.cookie(SESSION_COOKIE, key, cookieOptions(req, lifetimeSeconds));
      res.clearCookie(ANONYMOUS_CSRF_COOKIE, { path: '/' });
    },
    /** End the viewer's sessions in every other browser (after a password change). */
    async signOutElsewhere(req: Request): Promise<void> {
      const session = viewers.get(req)?.session;
      if (session) await sessions.destroyOthersOf(session.userId, session.id);
    },
    async signOut(req: Request, res: Response): Promise<void> {
      const session = viewers.get(req)?.session;
      if (session) await sessions.destroy(session.id);
      res.clearCookie(SESSION_COOKIE, { path: '/' });
    },
  };
}

/**
 * Every state-changing page request carries the page's CSRF token in `_csrf` (form field) or the
 * `X-CSRF-Token` header (scripts); anything else is refused before the handler runs.
 */
export function requireCsrf(req: Request, _res: Response, next: NextFunction): void {
  const expected = viewerOf(req).csrfToken;
  const sent = (req.body && typeof req.body._csrf === 'string' ? req.body._csrf : undefined) ?? req.headers['x-csrf-token'];
  const ok =
    typeof sent === 'string' && sent.length === expected.length && crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
  if (!ok) {
    next(ApiError.forbidden('the form was not sent from this site or has expired: reload the page and try again'));
    return;
  }
  next();
}
