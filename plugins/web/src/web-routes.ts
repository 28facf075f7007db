import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { PluginContext } from '@hearth/plugin-api';
import type { MarkdownRenderer } from '@hearth/plugin-misc';
import type { ForgeApi } from './forge-api';
import type { LoginThrottle } from './login-throttle';
import { pageSessions, requireCsrf } from './page-session';
import type { PageRenderer } from './render';
import type { WebSettings } from './settings';
import type { SignInOption, WebSignIn } from './sign-in-service';

export type PageHandler = (req: Request, res: Response) => Promise<unknown> | unknown;

/** Page routes: the viewer is resolved before every handler, and every POST must carry the page's CSRF token. */
export interface PageRoutes {
  get(path: string, handler: PageHandler): void;
  post(path: string, handler: PageHandler): void;
  /**
   * A multipart/form-data POST (a file upload) whose body the handler streams itself. The token
   * cannot be read from a body that is not read yet, so the form's action carries it in the
   * `_csrf` query parameter, checked as the form field is.
   */
  upload(path: string, handler: PageHandler): void;
}

/** What the page route modules share. */
export interface WebRoutes {
  ctx: PluginContext<WebSettings>;
  api: ForgeApi;
  pages: PageRoutes;
  sessions: ReturnType<typeof pageSessions>;
  /** Sign-in with second factors (`webSignInRef`, as identity plugins use it). */
  signIn: WebSignIn;
  throttle: LoginThrottle;
  renderer: PageRenderer;
  markdown: MarkdownRenderer;
  /** Facts other plugins add to the admin's user page (`webPagesRef.addAdminUserFact`). */
  adminUserFacts: Array<(userId: number) => Promise<string | null>>;
  /** Other ways to sign in, offered on the sign-in page (identity plugins add them through `webSignInRef`). */
  signInOptions(): Promise<SignInOption[]>;
}

export function pageRoutes(router: Router, sessions: ReturnType<typeof pageSessions>, maxFormBytes: number): PageRoutes {
  const form = express.urlencoded({ extended: false, limit: maxFormBytes, parameterLimit: 1000 });
  return {
    get: (path, handler) => router.get(path, sessions.resolve, handler),
    post: (path, handler) => router.post(path, form, sessions.resolve, requireCsrf, handler),
    upload: (path, handler) => router.post(path, csrfFromQuery, sessions.resolve, requireCsrf, handler),
  };
}

/** An upload's CSRF token, from its action's query string (the body stays unread for the handler). */
function csrfFromQuery(req: Request, _res: Response, next: NextFunction): void {
  req.body = { _csrf: typeof req.query._csrf === 'string' ? req.query._csrf : undefined };
  next();
}

export { Router };
