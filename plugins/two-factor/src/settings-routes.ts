import type { Request, Response } from 'express';
import { h } from 'preact';
import type { PluginContext, UserInfo } from '@hearth/plugin-api';
import type { PluginPage, WebPages } from '@hearth/plugin-web';
import type { TwoFactorStore } from './two-factor-store';
import { DISABLE_PATH, ENROLL_PATH, EnrollBody, REGENERATE_PATH, ScratchBody, SECURITY_PATH, SecurityBody } from './views';

const field = (body: Record<string, unknown>, name: string) => (typeof body?.[name] === 'string' ? (body[name] as string).trim() : '');

/**
 * The signed-in user's security settings at Gitea's URLs: `/user/settings/security` (state),
 * `…/two_factor/enroll` (secret, confirmed by a current code), `…/regenerate_scratch`, `…/disable`.
 * Only the viewer's own factor is ever touched (there is no user in the URL).
 */
export function settingsRoutes(ctx: PluginContext, web: WebPages, store: TwoFactorStore): void {
  const { pages } = web;
  const signedIn = (req: Request, res: Response): UserInfo | null => {
    const { user } = web.viewer(req);
    if (!user) res.redirect(303, `/user/login?redirect_to=${encodeURIComponent(req.originalUrl)}`);
    return user;
  };
  const send = (req: Request, res: Response, page: Omit<PluginPage, 'settingsTab'>) =>
    web.send(req, res, { ...page, settingsTab: SECURITY_PATH });
  const overview = async (req: Request, res: Response, user: UserInfo, extra: Partial<PluginPage> = {}) => {
    const body = h(SecurityBody, { status: await store.status(user.id), csrf: web.viewer(req).csrfToken });
    send(req, res, { title: 'Security', body, ...extra });
  };

  /** A new recovery code, shown this once. */
  const showScratchCode = (req: Request, res: Response, code: string, notice: string) =>
    send(req, res, { title: 'Two-factor authentication', body: h(ScratchBody, { code }), notice });

  pages.get(SECURITY_PATH, async (req, res) => {
    const user = signedIn(req, res);
    if (user)
      await overview(req, res, user, { notice: req.query.done === 'disabled' ? 'Two-factor authentication is disabled.' : undefined });
  });

  const enrollPage = async (req: Request, res: Response, user: UserInfo, error?: string) => {
    const enrolment = await store.enrolment(user.id, user.name);
    if (!enrolment) return res.redirect(303, SECURITY_PATH);
    const body = h(EnrollBody, { enrolment, csrf: web.viewer(req).csrfToken });
    send(req, res, { title: 'Enroll in two-factor authentication', body, error, status: error ? 422 : 200 });
  };

  pages.get(ENROLL_PATH, async (req, res) => {
    const user = signedIn(req, res);
    if (user) await enrollPage(req, res, user);
  });

  pages.post(ENROLL_PATH, async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const scratch = await store.confirm(user.id, field(req.body, 'passcode'));
    if (!scratch) return enrollPage(req, res, user, 'The code is not correct: check the app and the clock, and try the current code.');
    ctx.log.info({ user: user.name }, 'enrolled in two-factor authentication');
    showScratchCode(req, res, scratch, 'Two-factor authentication is enabled.');
  });

  pages.post(REGENERATE_PATH, async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const scratch = await store.regenerateScratchCode(user.id);
    if (!scratch) return overview(req, res, user, { error: 'Two-factor authentication is not enabled.', status: 422 });
    showScratchCode(req, res, scratch, 'A new recovery code was made.');
  });

  pages.post(DISABLE_PATH, async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const passcode = field(req.body, 'passcode');
    const password = typeof req.body?.password === 'string' ? req.body.password : '';
    const byCode = passcode !== '' && (await store.verify(user.id, passcode, true));
    const byPassword = !byCode && password !== '' && (await ctx.users.verifyPassword(user.name, password))?.id === user.id;
    if (!byCode && !byPassword) {
      return overview(req, res, user, { error: 'Give a current code from your app or your password to disable it.', status: 422 });
    }
    await store.remove(user.id);
    ctx.log.info({ user: user.name }, 'disabled two-factor authentication');
    res.redirect(303, `${SECURITY_PATH}?done=disabled`);
  });
}
