import type { Request, Response, Router } from 'express';
import type { VNode } from 'preact';
import { createServiceRef, type UserInfo } from '@hearth/plugin-api';
import type { PageHandler } from './web-routes';

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
  /**
   * Pages of another plugin on its own router, as the web interface serves its own: the viewer is
   * resolved from the session cookie before `get` and `post` handlers, and every `post` must carry
   * the page's CSRF token in `_csrf` (refused with 403 otherwise).
   */
  pages(router: Router): { get(path: string, handler: PageHandler): void; post(path: string, handler: PageHandler): void };
  /** The signed-in user of a request served through `pages` (null when signed out) and the CSRF token its forms carry. */
  viewer(req: Request): { user: UserInfo | null; csrfToken: string };
  /** Send `page` in the web interface's layout (site header, styles, security headers). */
  sendPage(req: Request, res: Response, page: PluginPage): void;
}

/** A page another plugin renders in the web interface's layout (`WebSignIn.sendPage`). */
export interface PluginPage {
  title: string;
  body: VNode<any>;
  status?: number;
  /**
   * Origins the page's forms may end up at after a redirect (the CSP `form-action` directive is
   * `'self'` otherwise), e.g. an OAuth2 client's redirect URI after a consent form.
   */
  formTargets?: string[];
}

export const webSignInRef = createServiceRef<WebSignIn>('web.sign-in');
