import type { Request, Response } from 'express';
import { createServiceRef, type UserInfo } from '@hearth/plugin-api';

/** A way to sign in besides the password form (an OpenID Connect provider…), offered on the sign-in page. */
export interface SignInOption {
  /** The button's text, e.g. `Sign in with Example SSO`. */
  label: string;
  /** Where the button goes (a path on this site that starts the flow). */
  href: string;
}

/**
 * What the web interface offers identity plugins (`webSignInRef`; list it in `optional` or
 * `requires`): start a session for a user they signed in, and add their buttons to the sign-in page.
 * @public
 */
export interface WebSignIn {
  /**
   * Start a signed-in session for `user` on this response: a new session key (any session the
   * browser had ends), the same cookie as a password sign-in. Refuses (403) accounts that may not sign in.
   */
  signIn(req: Request, res: Response, user: UserInfo): Promise<void>;
  /** Offer another way to sign in on `/user/login` (call in `apply`, or later). */
  addSignInOption(option: SignInOption | (() => Promise<SignInOption[]>)): void;
}

export const webSignInRef = createServiceRef<WebSignIn>('web.sign-in');
