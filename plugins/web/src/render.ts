import type { Request, Response } from 'express';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Assets } from './assets';
import { viewerIfResolved, type PageViewer } from './page-session';
import type { PageKit } from './views/layout';

/**
 * Pages may load only what Hearth serves: no inline scripts, no third-party origins (images in
 * rendered markdown excepted), never framed.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data: https:; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'self'; " +
    "form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  // Pages differ per viewer and carry CSRF tokens: never stored by shared caches.
  'Cache-Control': 'no-store',
};

const ANONYMOUS: PageViewer = { principal: null, user: null, session: null, csrfToken: '' };

export class PageRenderer {
  constructor(
    private readonly assets: Assets,
    private readonly appName: () => string,
    private readonly registrationOpen: boolean,
    private readonly settingsTabs: ReadonlyArray<{ href: string; label: string }> = [],
  ) {}

  kit(req: Request): PageKit {
    return {
      appName: this.appName(),
      viewer: viewerIfResolved(req) ?? ANONYMOUS,
      asset: (name) => this.assets.url(name),
      registrationOpen: this.registrationOpen,
      path: req.originalUrl,
      settingsTabs: this.settingsTabs,
    };
  }

  /** `formTargets`: origins (or schemes, `myapp:`) besides this site that the page's forms may be redirected to (CSP `form-action`). */
  send(res: Response, page: VNode<any>, status = 200, formTargets: string[] = []): void {
    const html = `<!doctype html>${renderToString(page)}`;
    res.status(status).set(SECURITY_HEADERS).type('html');
    if (formTargets.length) {
      const origins = formTargets.filter((o) => /^[a-z][a-z0-9+.-]*:(\/\/[^\s;,']+)?$/i.test(o)).join(' ');
      res.set(
        'Content-Security-Policy',
        SECURITY_HEADERS['Content-Security-Policy'].replace("form-action 'self'", `form-action 'self' ${origins}`),
      );
    }
    res.send(html);
  }
}

/** A path on this site to return to after signing in; anything else (another origin, `//host`) goes home. */
export function localPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return value;
}
