import type { Request, Response } from 'express';
import type { VNode } from 'preact';
import { createServiceRef, type UserInfo } from '@hearth/plugin-api';
import type { PageRoutes } from './web-routes';

/** A way to sign in besides the password form (an OpenID Connect provider…), offered on the sign-in page. */
export interface SignInOption {
  /** The button's text, e.g. `Sign in with Example SSO`. */
  label: string;
  /** Where the button goes (a path on this site that starts the flow). */
  href: string;
}

/** A step between the first factor (password, external provider) and the session, e.g. a TOTP code. */
export interface SecondFactor {
  /** Whether `user` must pass this step before a session is granted. */
  required(user: UserInfo): Promise<boolean>;
  /** The page that asks for it (a path on this site, e.g. `/user/two_factor`). */
  path: string;
}

/** A sign-in whose first factor passed and which waits for a second one, in this browser. */
export interface PendingSignIn {
  user: UserInfo;
  redirectTo: string;
}

/** Failed attempts counted per account and client address; past the limit, 429 (the sign-in form's own throttle). */
export interface SignInThrottle {
  assertAllowed(login: string, address: string): Promise<void>;
  recordFailure(login: string, address: string): Promise<void>;
  recordSuccess(login: string): Promise<void>;
}

/**
 * What the web interface offers identity plugins (`webSignInRef`; list it in `optional` or
 * `requires`): start a session for a user they signed in, add their buttons to the sign-in page,
 * and add a second factor consulted before any session is granted.
 * @public
 */
export interface WebSignIn {
  /**
   * Start a signed-in session for `user` on this response: a new session key (any session the
   * browser had ends), the same cookie as a password sign-in. Refuses (403) accounts that may not
   * sign in. Skips second factors: a first factor calls `beginSignIn` instead.
   */
  signIn(req: Request, res: Response, user: UserInfo): Promise<void>;
  /**
   * The first factor passed for `user`: start the session, or — when a second factor applies and
   * `skipSecondFactor` is not set — remember the pending sign-in in this browser (a sealed,
   * short-lived cookie; no session yet). Answers where to send the browser (`redirectTo`, or the
   * second factor's page) and whether a second factor is pending. Refuses (403) accounts that may not sign in.
   */
  beginSignIn(
    req: Request,
    res: Response,
    user: UserInfo,
    redirectTo: string,
    options?: { skipSecondFactor?: boolean },
  ): Promise<{ location: string; secondFactor: boolean }>;
  /** The sign-in this browser has pending (expired ones and gone accounts are null). */
  pendingSignIn(req: Request): Promise<PendingSignIn | null>;
  /** The second factor passed: start the pending sign-in's session (a fresh key); answers where to go. */
  completeSignIn(req: Request, res: Response, pending: PendingSignIn): Promise<string>;
  /** Offer another way to sign in on `/user/login` (call in `apply`, or later). */
  addSignInOption(option: SignInOption | (() => Promise<SignInOption[]>)): void;
  /** Consult `factor` after every first factor (call in `apply`). */
  addSecondFactor(factor: SecondFactor): void;
  /** The sign-in form's throttle, for second factors to count wrong codes too. */
  readonly throttle: SignInThrottle;
}

export const webSignInRef = createServiceRef<WebSignIn>('web.sign-in');

/** The page viewer a plugin page needs: the signed-in user (or null) and the CSRF token for its forms. */
export interface WebViewer {
  user: UserInfo | null;
  csrfToken: string;
}

/** A plugin page in the site's layout. */
export interface PluginPage {
  title: string;
  body: VNode<any>;
  /** Show it as a tab of the user settings (`/user/settings…`) with this href marked current. */
  settingsTab?: string;
  notice?: string;
  error?: string;
  status?: number;
  /**
   * Origins (or schemes, `myapp:`) besides this site that the page's forms may end up at after a
   * redirect (the CSP `form-action` is `'self'` otherwise), e.g. an OAuth2 client's redirect URI
   * after a consent form.
   */
  formTargets?: string[];
}

/**
 * Pages of other plugins in the web interface (`webPagesRef`): routes resolved with the session
 * and CSRF-checked on POST (served before the web plugin's own pages), rendered in the site's
 * layout, with tabs in the user settings.
 * @public
 */
export interface WebPages {
  readonly pages: PageRoutes;
  viewer(req: Request): WebViewer;
  send(req: Request, res: Response, page: PluginPage): void;
  /** Add a tab to the user settings navigation (call in `apply`). */
  addSettingsTab(tab: { href: string; label: string }): void;
  /** Add a short fact about an account to the site admin's user page (null: nothing to say). */
  addAdminUserFact(fact: (userId: number) => Promise<string | null>): void;
}

export const webPagesRef = createServiceRef<WebPages>('web.pages');
