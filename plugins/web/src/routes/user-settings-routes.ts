/**
 * The signed-in user's own pages at Gitea 1.20's URLs: `/user/settings` (the profile form),
 * `/user/settings/account` (email addresses), `/user/settings/applications` (access tokens) and
 * `/notifications` (the inbox). Everything goes through the API's operations as the viewer;
 * anonymous visitors are sent to sign in.
 */
import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import { signInHref } from '../views/layout';
import { listAll, refusal, text } from './route-parts';
import { pageNumber } from './home-routes';
import type { UserJson } from '../views/home-pages';
import { AccountSettingsPage, ProfileSettingsPage, type EmailJson, type ProfileForm } from '../views/user-settings-pages';
import { ApplicationsSettingsPage, type TokenForm, type TokenJson } from '../views/user-settings-tokens';
import { NOTIFICATION_TABS, NotificationsPage, type NotificationTab, type ThreadJson } from '../views/user-notifications';

/** A signed-in viewer (principal and user set). */
type Member = PageViewer & { principal: NonNullable<PageViewer['principal']>; user: NonNullable<PageViewer['user']> };

/** The viewer when signed in; otherwise the visitor is sent to sign in (coming back to `back`) and null is returned. */
function signedIn(req: Request, res: Response, back: string): Member | null {
  const viewer = viewerOf(req);
  if (viewer.user && viewer.principal) return viewer as Member;
  res.redirect(303, signInHref(back));
  return null;
}

/** Gitea's settings pages: profile, account, applications; and the notifications inbox. */
export function userSettingsRoutes(web: WebRoutes): void {
  profileRoutes(web);
  accountRoutes(web);
  tokenRoutes(web);
  notificationRoutes(web);
}

const PROFILE_NOTICES: Record<string, string> = {
  updated: 'Your profile was updated.',
};

/** The profile form as sent: single-line fields trimmed, checkboxes on when present. Lengths are the API's to judge. */
function profileFormOf(body: Record<string, unknown>): ProfileForm {
  return {
    full_name: text(body.full_name, 1000).trim(),
    website: text(body.website, 1000).trim(),
    location: text(body.location, 1000).trim(),
    description: text(body.description, 1000),
    hide_email: body.hide_email === 'on',
    hide_activity: body.hide_activity === 'on',
  };
}

function profileRoutes({ api, pages, renderer }: WebRoutes): void {
  /** The page with the account's profile; `form` (what a refused form sent) replaces the saved settings in the fields. */
  const render = async (req: Request, res: Response, viewer: Member, extra: { form?: ProfileForm; error?: string }, status = 200) => {
    const [user, settings] = await Promise.all([
      api.get<UserJson & { email: string }>(viewer, '/user'),
      extra.form ? null : api.get<ProfileForm>(viewer, '/user/settings'),
    ]);
    const form = extra.form ?? settings!;
    const notice = extra.error ? undefined : PROFILE_NOTICES[text(req.query.done, 20)];
    renderer.send(res, h(ProfileSettingsPage, { kit: renderer.kit(req), user, form, notice, error: extra.error }), status);
  };

  pages.get('/user/settings', async (req, res) => {
    const viewer = signedIn(req, res, req.originalUrl);
    if (viewer) await render(req, res, viewer, {});
  });

  pages.post('/user/settings', async (req, res) => {
    const viewer = signedIn(req, res, '/user/settings');
    if (!viewer) return;
    const form = profileFormOf(req.body);
    try {
      await api.send(viewer, 'patch', '/user/settings', form);
    } catch (err) {
      if (refusal(err)) return render(req, res, viewer, { form, error: err.message }, err.status);
      throw err;
    }
    res.redirect(303, '/user/settings?done=updated');
  });
}

const ACCOUNT_NOTICES: Record<string, string> = {
  added: 'The email address was added.',
  deleted: 'The email address was deleted.',
  password: 'Your password was changed. You were signed out everywhere else.',
};

function accountRoutes({ api, ctx, pages, renderer, sessions }: WebRoutes): void {
  const render = async (req: Request, res: Response, viewer: Member, extra: { newEmail?: string; error?: string }, status = 200) => {
    const emails = await api.get<EmailJson[]>(viewer, '/user/emails');
    const notice = extra.error ? undefined : ACCOUNT_NOTICES[text(req.query.done, 20)];
    const password = { external: viewer.user.loginSource !== 0, minLength: ctx.forge.raw.security?.MIN_PASSWORD_LENGTH ?? 8 };
    renderer.send(res, h(AccountSettingsPage, { kit: renderer.kit(req), emails, notice, password, ...extra }), status);
  };

  /** A password change (the current one required); the other browsers' sessions end, this one stays. */
  pages.post('/user/settings/account/password', async (req, res) => {
    const viewer = signedIn(req, res, '/user/settings/account');
    if (!viewer) return;
    const [oldPassword, newPassword, retype] = [
      text(req.body.old_password, 1000),
      text(req.body.password, 1000),
      text(req.body.retype, 1000),
    ];
    try {
      if (newPassword !== retype) throw ApiError.badRequest('the new password and its confirmation differ');
      await ctx.users.changePassword(viewer.user.id, oldPassword, newPassword);
    } catch (err) {
      if (refusal(err)) return render(req, res, viewer, { error: err.message }, err.status);
      throw err;
    }
    await sessions.signOutElsewhere(req);
    res.redirect(303, '/user/settings/account?done=password');
  });

  pages.get('/user/settings/account', async (req, res) => {
    const viewer = signedIn(req, res, req.originalUrl);
    if (viewer) await render(req, res, viewer, {});
  });

  /** Run one change of the email list; 303 back with its notice, or the page again with the API's refusal. */
  const change = (method: 'post' | 'delete', done: string) => async (req: Request, res: Response) => {
    const viewer = signedIn(req, res, '/user/settings/account');
    if (!viewer) return;
    const email = text(req.body.email).trim();
    try {
      await api.send(viewer, method, '/user/emails', { emails: [email] });
    } catch (err) {
      if (refusal(err)) return render(req, res, viewer, { newEmail: method === 'post' ? email : '', error: err.message }, err.status);
      throw err;
    }
    res.redirect(303, `/user/settings/account?done=${done}`);
  };
  pages.post('/user/settings/account/email', change('post', 'added'));
  pages.post('/user/settings/account/email/delete', change('delete', 'deleted'));
}

const TOKEN_NOTICES: Record<string, string> = {
  deleted: 'The access token was deleted. Tools that used it can no longer sign in with it.',
};

function tokenRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const tokensPath = (viewer: Member) => apiPath`/users/${viewer.user.name}/tokens`;
  type Extra = { form?: TokenForm; created?: { name: string; secret: string }; error?: string; noScope?: boolean };
  const render = async (req: Request, res: Response, viewer: Member, extra: Extra = {}, status = 200) => {
    const tokens = await listAll<TokenJson>(web, viewer, tokensPath(viewer));
    const props = {
      kit: renderer.kit(req),
      tokens,
      isAdmin: viewer.user.isAdmin,
      form: { name: '', scopes: [] },
      notice: TOKEN_NOTICES[text(req.query.done, 20)],
      ...extra,
    };
    renderer.send(res, h(ApplicationsSettingsPage, props), status);
  };

  pages.get('/user/settings/applications', async (req, res) => {
    const viewer = signedIn(req, res, req.originalUrl);
    if (viewer) await render(req, res, viewer);
  });

  pages.post('/user/settings/applications', async (req, res) => {
    const viewer = signedIn(req, res, '/user/settings/applications');
    if (!viewer) return;
    const raw: unknown[] = Array.isArray(req.body.scope) ? req.body.scope : [req.body.scope];
    const scopes = raw.map((s) => text(s, 40)).filter(Boolean);
    const form = { name: text(req.body.name).trim(), scopes };
    let created: TokenJson & { sha1: string };
    try {
      // An empty scope list goes to the API too: its refusal (400) is the answer the warning explains.
      created = await api.send(viewer, 'post', tokensPath(viewer), { name: form.name, scopes });
    } catch (err) {
      if (refusal(err)) return render(req, res, viewer, { form, error: err.message, noScope: scopes.length === 0 }, err.status);
      throw err;
    }
    // The secret is in this answer only: never in a URL, never stored by the page.
    await render(req, res, viewer, { created: { name: created.name, secret: created.sha1 } }, 201);
  });

  pages.post('/user/settings/applications/delete', async (req, res) => {
    const viewer = signedIn(req, res, '/user/settings/applications');
    if (!viewer) return;
    const id = text(req.body.id, 12);
    try {
      // By id only: a name made of digits would be read as an id.
      if (!/^\d+$/.test(id)) throw ApiError.notFound('access token does not exist');
      await api.send(viewer, 'delete', apiPath`/users/${viewer.user.name}/tokens/${id}`);
    } catch (err) {
      if (refusal(err)) return render(req, res, viewer, { error: err.message }, err.status);
      throw err;
    }
    res.redirect(303, '/user/settings/applications?done=deleted');
  });
}

const NOTIFICATIONS_PAGE = 20;

function notificationRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const tabOf = (value: unknown): NotificationTab =>
    NOTIFICATION_TABS.includes(value as NotificationTab) ? (value as NotificationTab) : 'unread';
  const back = (tab: NotificationTab, page: number) => `/notifications?q=${tab}${page > 1 ? `&page=${page}` : ''}`;
  /** The API's links are absolute (`ROOT_URL…`); the page links to this site's paths, and to nothing elsewhere. */
  const localHref = (url: string) => {
    const root = web.ctx.forge.appUrl;
    return url && url.startsWith(root) ? `/${url.slice(root.length).replace(/^\/+/, '')}` : '';
  };

  pages.get('/notifications', async (req, res) => {
    const viewer = signedIn(req, res, req.originalUrl);
    if (!viewer) return;
    const tab = tabOf(req.query.q);
    const page = pageNumber(req);
    const count = async (t: NotificationTab) => (await api.list(viewer, '/notifications', { 'status-types': [t], limit: 1 })).total;
    const [list, ...totals] = await Promise.all([
      api.list<ThreadJson>(viewer, '/notifications', { 'status-types': [tab], page, limit: NOTIFICATIONS_PAGE }),
      ...NOTIFICATION_TABS.map(count),
    ]);
    const counts = Object.fromEntries(NOTIFICATION_TABS.map((t, i) => [t, totals[i]])) as Record<NotificationTab, number>;
    const props = { kit: renderer.kit(req), tab, threads: list.items, counts, page, limit: NOTIFICATIONS_PAGE, localHref };
    renderer.send(res, h(NotificationsPage, props));
  });

  pages.post('/notifications/status', async (req, res) => {
    const viewer = signedIn(req, res, '/notifications');
    if (!viewer) return;
    const id = text(req.body.notification_id, 12);
    const status = text(req.body.status, 10);
    if (!/^\d+$/.test(id) || !['read', 'unread', 'pinned'].includes(status)) throw ApiError.badRequest('unknown notification or status');
    await api.send(viewer, 'patch', apiPath`/notifications/threads/${id}`, undefined, { 'to-status': status });
    const page = Number(req.body.page);
    res.redirect(303, back(tabOf(req.body.q), Number.isInteger(page) && page > 0 && page < 1e6 ? page : 1));
  });

  pages.post('/notifications/purge', async (req, res) => {
    const viewer = signedIn(req, res, '/notifications');
    if (!viewer) return;
    // Every unread thread becomes read (the API's default statuses and target).
    await api.send(viewer, 'put', '/notifications', undefined, { 'to-status': 'read' });
    res.redirect(303, back('unread', 1));
  });
}
