import { h } from 'preact';
import { isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { localPath } from '../render';
import { viewerOf } from '../page-session';
import { SignInPage, SignUpPage } from '../views/auth-pages';

/** Sign in, sign out and registration (`/user/login`, `/user/logout`, `/user/sign_up`), as Gitea names them. */
export function authRoutes(web: WebRoutes): void {
  const { ctx, pages, sessions, throttle, renderer } = web;

  pages.get('/user/login', async (req, res) => {
    if (viewerOf(req).user) return res.redirect(303, localPath(req.query.redirect_to));
    const [admin, options] = await Promise.all([ctx.users.hasSiteAdmin(), web.signInOptions()]);
    const form = { redirectTo: localPath(req.query.redirect_to), firstRun: !admin, options };
    renderer.send(res, h(SignInPage, { kit: renderer.kit(req), form }));
  });

  pages.post('/user/login', async (req, res) => {
    const login = String(req.body.user_name ?? '').trim();
    const password = String(req.body.password ?? '');
    const redirectTo = localPath(req.body.redirect_to);
    const again = async (status: number, error: string) => {
      const form = { login, error, redirectTo, firstRun: false, options: await web.signInOptions() };
      renderer.send(res, h(SignInPage, { kit: renderer.kit(req), form }), status);
    };
    const address = req.ip ?? req.socket.remoteAddress ?? '';
    try {
      await throttle.assertAllowed(login, address);
    } catch (err) {
      if (isApiError(err)) {
        if (err.headers) res.set(err.headers);
        return again(err.status, err.message);
      }
      throw err;
    }
    let user;
    try {
      user = login && password ? await ctx.users.verifyPassword(login, password) : null;
    } catch (err) {
      if (isApiError(err) && err.status === 403) return again(403, err.message);
      throw err;
    }
    if (!user || user.type !== 0) {
      await throttle.recordFailure(login, address);
      return again(401, 'The user name or password is incorrect.');
    }
    const next = await web.signIn.beginSignIn(req, res, user, redirectTo);
    // With a second factor pending, the account's failures stand until it passes: the password
    // alone must not reset the count of wrong codes.
    if (!next.secondFactor) await throttle.recordSuccess(login);
    res.redirect(303, next.location);
  });

  pages.post('/user/logout', async (req, res) => {
    await sessions.signOut(req, res);
    res.redirect(303, '/');
  });

  pages.get('/user/sign_up', async (req, res) => {
    if (!renderer.kit(req).registrationOpen) return renderer.send(res, h(SignUpPage, { kit: renderer.kit(req), form: {} }), 403);
    renderer.send(res, h(SignUpPage, { kit: renderer.kit(req), form: {} }));
  });

  pages.post('/user/sign_up', async (req, res) => {
    const name = String(req.body.user_name ?? '').trim();
    const email = String(req.body.email ?? '').trim();
    const password = String(req.body.password ?? '');
    const again = (status: number, error: string) =>
      renderer.send(res, h(SignUpPage, { kit: renderer.kit(req), form: { name, email, error } }), status);
    if (password !== String(req.body.retype ?? '')) return again(422, 'The passwords do not match.');
    try {
      const user = await ctx.users.register({ name, email, password });
      await sessions.signIn(req, res, user);
    } catch (err) {
      if (isApiError(err) && err.status < 500) return again(err.status, err.message);
      throw err;
    }
    res.redirect(303, '/');
  });
}
