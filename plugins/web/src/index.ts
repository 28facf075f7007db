import { Router } from 'express';
import { h } from 'preact';
import { ApiError, definePlugin } from '@hearth/plugin-api';
import { markdownRef } from '@hearth/plugin-misc';
import { Assets } from './assets';
import { ForgeApi } from './forge-api';
import { LoginThrottle } from './login-throttle';
import { webMigrations } from './migrations';
import { pageSessions, viewerOf } from './page-session';
import { PageRenderer } from './render';
import { SessionStore } from './session-store';
import { webSettingsSchema, type WebSettings } from './settings';
import { pageRoutes, type WebRoutes } from './web-routes';
import { authRoutes } from './routes/auth-routes';
import { homeRoutes } from './routes/home-routes';
import { issueRoutes } from './routes/issue-routes';
import { markdownRoutes } from './routes/markdown-routes';
import { pullRoutes } from './routes/pull-routes';
import { repoRoutes } from './routes/repo-routes';
import { repoSettingsRoutes } from './routes/repo-settings-routes';
import { releaseRoutes } from './routes/release-routes';
import { wikiRoutes } from './routes/wiki-routes';
import { packageRoutes } from './routes/package-routes';
import { milestoneLabelRoutes } from './routes/milestone-label-routes';
import { orgRoutes } from './routes/org-routes';
import { adminRoutes } from './routes/admin-routes';
import { userSettingsRoutes } from './routes/user-settings-routes';
import { ErrorPage } from './views/error-page';
import { Layout } from './views/layout';
import { webSignInRef, type SignInOption } from './sign-in-service';

export type { WebSettings } from './settings';
export { webSignInRef, type PluginPage, type SignInOption, type WebSignIn } from './sign-in-service';
export type { PageHandler } from './web-routes';

/**
 * The web interface: server-rendered pages at Gitea's URLs (`/user/login`, `/explore/repos`,
 * `/{owner}`, `/{owner}/{repo}`…), outside `/api/v1`. Pages read and change everything through the
 * API's own operations called in-process as the signed-in viewer (`ctx.api`), so the one access
 * module decides for pages as it does for the API. Sessions are server-side (cookie holds a random
 * key), every form carries a CSRF token, sign-in is throttled. The API itself never accepts the
 * session cookie. Disabled: no pages, no tables.
 */
export default definePlugin<WebSettings>({
  name: 'web',
  version: '0.1.0',
  apiVersion: '^2.2.0',
  description: 'The web interface: pages for people, at Gitea’s URLs',
  settingsSchema: webSettingsSchema,
  migrations: webMigrations,
  requires: [markdownRef],
  provides: [webSignInRef],
  apply(ctx) {
    const { settings } = ctx;
    const store = new SessionStore(ctx.db, settings.sessionDays * 86400);
    const sessions = pageSessions({
      sessions: store,
      users: ctx.users,
      appUrl: () => ctx.forge.appUrl,
      lifetimeSeconds: settings.sessionDays * 86400,
    });
    const assets = new Assets();
    const renderer = new PageRenderer(assets, () => ctx.forge.appName, !ctx.forge.raw.service?.DISABLE_REGISTRATION);
    const router = Router({ caseSensitive: false, strict: false });
    const web: WebRoutes = {
      ctx,
      api: new ForgeApi(ctx.api),
      pages: pageRoutes(router, sessions, settings.maxFormBytes),
      sessions,
      throttle: new LoginThrottle(ctx.db, {
        perAccount: settings.loginAttemptsPerAccount,
        perAddress: settings.loginAttemptsPerAddress,
        windowSeconds: settings.loginWindowMinutes * 60,
      }),
      renderer,
      markdown: ctx.services.get(markdownRef),
      signInOptions: async () => (await Promise.all(signInOptions.map(async (o) => (typeof o === 'function' ? o() : [o])))).flat(),
    };
    const signInOptions: Array<SignInOption | (() => Promise<SignInOption[]>)> = [];
    ctx.services.provide(webSignInRef, {
      async signIn(req, res, user) {
        if (user.prohibitLogin || !user.isActive || user.type !== 0) throw ApiError.forbidden('this account may not sign in');
        await sessions.signIn(req, res, user);
      },
      addSignInOption: (option) => void signInOptions.push(option),
      pages: (pluginRouter) => pageRoutes(pluginRouter, sessions, settings.maxFormBytes),
      viewer: (req) => ({ user: viewerOf(req).user, csrfToken: viewerOf(req).csrfToken }),
      sendPage: (req, res, page) =>
        renderer.send(res, h(Layout, { kit: renderer.kit(req), title: page.title, children: page.body }), page.status, page.formTargets),
    });
    router.use(assets.router());
    authRoutes(web);
    markdownRoutes(web);
    // Before homeRoutes: `/admin` would otherwise be taken by `/:owner`, `/org/{org}/settings` by repository pages.
    orgRoutes(web);
    adminRoutes(web);
    // Before homeRoutes too: `/notifications` would otherwise be taken by `/:owner`.
    userSettingsRoutes(web);
    homeRoutes(web);
    issueRoutes(web);
    pullRoutes(web);
    packageRoutes(web);
    milestoneLabelRoutes(web);
    releaseRoutes(web);
    wikiRoutes(web);
    repoSettingsRoutes(web);
    // Last: its `/:owner/:repo` would otherwise take two-segment pages with a fixed first segment.
    repoRoutes(web);

    ctx.hooks.http.routes.tap('web', (routes) => routes.root('/', router));
    ctx.hooks.http.errorPage.tap('web', (error, req, res) => {
      renderer.send(res, h(ErrorPage, { kit: renderer.kit(req), status: error.status, message: error.message }), error.status);
      return true;
    });
    // Downloads the kernel serves to browsers outside the API — raw files, media, release and
    // issue attachments — know the signed-in viewer by the session cookie, as on Gitea; only reads
    // (GET/HEAD), never `/api/…` (the API refuses the cookie), and a credential sent along wins.
    ctx.hooks.auth.authenticate.tapPromise({ name: 'web:session-downloads', stage: 50 }, async (request) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
      if (request.path.startsWith('/api/') || request.headers.authorization) return undefined;
      const cookie = request.headers.cookie;
      return cookie?.includes('hearth_session=') ? ((await sessions.principalOf(cookie)) ?? undefined) : undefined;
    });
    // A deleted account's sessions go with it.
    ctx.hooks.user.deleting.tapPromise('web', async ({ user, trx }) => store.destroyAllOf(user.id, trx));
    let sweeper: NodeJS.Timeout | undefined;
    ctx.hooks.lifecycle.ready.tap('web', () => {
      sweeper = setInterval(() => void store.sweep().catch((err) => ctx.log.warn({ err }, 'session sweep failed')), 3600_000);
      sweeper.unref();
    });
    ctx.hooks.lifecycle.shutdown.tap('web', () => clearInterval(sweeper));
  },
});
