import type { Request, Response } from 'express';
import { h } from 'preact';
import { isApiError } from '@hearth/plugin-api';
import type { WebPages, WebSignIn } from '@hearth/plugin-web';
import type { TwoFactorStore } from './two-factor-store';
import { SCRATCH_STEP_PATH, SIGN_IN_STEP_PATH, SignInStepBody } from './views';

/**
 * The sign-in step after the password (Gitea's `/user/two_factor` and `/user/two_factor/scratch`):
 * only a browser with a pending sign-in gets here; a right code starts the session, wrong codes
 * count in the sign-in form's throttle.
 */
export function signInStepRoutes(web: WebPages, signIn: WebSignIn, store: TwoFactorStore): void {
  const { pages } = web;
  const page = (req: Request, res: Response, scratch: boolean, error?: string, status = 200) =>
    web.send(req, res, {
      title: 'Two-factor authentication',
      body: h(SignInStepBody, { scratch, csrf: web.viewer(req).csrfToken }),
      error,
      status,
    });

  for (const scratch of [false, true]) {
    const path = scratch ? SCRATCH_STEP_PATH : SIGN_IN_STEP_PATH;
    pages.get(path, async (req, res) => {
      if (!(await signIn.pendingSignIn(req))) return res.redirect(303, '/user/login');
      page(req, res, scratch);
    });

    pages.post(path, async (req, res) => {
      const pending = await signIn.pendingSignIn(req);
      if (!pending) return res.redirect(303, '/user/login');
      const address = req.ip ?? req.socket.remoteAddress ?? '';
      try {
        await signIn.throttle.assertAllowed(pending.user.name, address);
      } catch (err) {
        if (!isApiError(err)) throw err;
        if (err.headers) res.set(err.headers);
        return page(req, res, scratch, err.message, err.status);
      }
      const code = String((scratch ? req.body?.token : req.body?.passcode) ?? '');
      const ok = scratch ? await store.useScratchCode(pending.user.id, code) : await store.verify(pending.user.id, code, true);
      if (!ok) {
        await signIn.throttle.recordFailure(pending.user.name, address);
        return page(req, res, scratch, scratch ? 'The recovery code is not correct.' : 'The code is not correct.', 401);
      }
      await signIn.throttle.recordSuccess(pending.user.name);
      res.redirect(303, await signIn.completeSignIn(req, res, pending));
    });
  }
}
