import { ApiError, definePlugin } from '@hearth/plugin-api';
import { webPagesRef, webSignInRef } from '@hearth/plugin-web';
import { twoFactorMigrations } from './migrations';
import { settingsRoutes } from './settings-routes';
import { signInStepRoutes } from './sign-in-step-routes';
import { TwoFactorStore } from './two-factor-store';
import { SECURITY_PATH, SIGN_IN_STEP_PATH } from './views';

/** Gitea's header for the current code with basic auth by password. */
const OTP_HEADER = 'x-gitea-otp';

/**
 * Two-factor authentication (TOTP, RFC 6238: 30 s, 6 digits, SHA-1) as Gitea has it: enrolment in
 * the web interface's security settings, a second sign-in step before any session, and the
 * `X-Gitea-OTP` header with basic auth by password on the API, git and packages (tokens are not
 * affected). Unused, it costs one indexed lookup per password sign-in.
 */
export default definePlugin({
  name: 'two-factor',
  version: '0.1.0',
  apiVersion: '^2.3.0',
  description: 'Two-factor authentication (TOTP) for web sign-in and basic auth by password',
  migrations: twoFactorMigrations,
  // Without the web interface there is no enrolment, but enrolled users stay protected on the API and git.
  optional: [webSignInRef, webPagesRef],
  apply(ctx) {
    const store = new TwoFactorStore(ctx.db, ctx.secrets('two-factor'), () => ctx.forge.appName);
    const web = ctx.services.optional(webPagesRef);
    const signIn = ctx.services.optional(webSignInRef);
    if (web && signIn) {
      signIn.addSecondFactor({ path: SIGN_IN_STEP_PATH, required: (user) => store.isActive(user.id) });
      web.addSettingsTab({ href: SECURITY_PATH, label: 'Security' });
      web.addAdminUserFact(async (userId) =>
        (await store.isActive(userId)) ? 'two-factor authentication on' : 'two-factor authentication off',
      );
      settingsRoutes(ctx, web, store);
      signInStepRoutes(web, signIn, store);
    }

    // Basic auth by password: every request of a git or API operation carries the same code, so
    // (as on Gitea) it is checked for being current, not for being new.
    ctx.hooks.auth.passwordAccepted.tapPromise('two-factor', async ({ user, headers }) => {
      if (!(await store.isActive(user.id))) return;
      const sent = headers[OTP_HEADER];
      const code = Array.isArray(sent) ? sent[0] : sent;
      if (!code || !(await store.verify(user.id, code, false))) throw ApiError.unauthorized('invalid provided OTP');
    });
    ctx.hooks.user.deleting.tapPromise('two-factor', async ({ user, trx }) => store.remove(user.id, trx));
  },
});
