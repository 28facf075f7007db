/** The two-factor pages' bodies; the web plugin (`webPagesRef`) puts them in the site's layout. */
import { renderSVG } from 'uqr';
import type { Enrolment, Status } from './two-factor-store';

export const SECURITY_PATH = '/user/settings/security';
export const ENROLL_PATH = '/user/settings/security/two_factor/enroll';
export const REGENERATE_PATH = '/user/settings/security/two_factor/regenerate_scratch';
export const DISABLE_PATH = '/user/settings/security/two_factor/disable';
export const SIGN_IN_STEP_PATH = '/user/two_factor';
export const SCRATCH_STEP_PATH = '/user/two_factor/scratch';

const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

/** `/user/settings/security`: whether two-factor authentication is on, and what can be done about it. */
export function SecurityBody({ status, csrf }: { status: Status; csrf: string }) {
  if (status !== 'active') {
    return (
      <section class="two-factor">
        <h2>Two-factor authentication</h2>
        <p id="two-factor-status">Two-factor authentication is not enrolled.</p>
        <p>
          After your password, sign-in will ask for a code from an authenticator app (TOTP). Basic authentication with your password on the
          API and git then needs the current code in the <code>X-Gitea-OTP</code> header; access tokens do not.
        </p>
        <p>
          <a class="button primary" href={ENROLL_PATH}>
            {status === 'enrolling' ? 'Continue enrolling' : 'Enroll in two-factor authentication'}
          </a>
        </p>
      </section>
    );
  }
  return (
    <section class="two-factor">
      <h2>Two-factor authentication</h2>
      <p id="two-factor-status">Two-factor authentication is enabled.</p>
      <h3>Recovery code</h3>
      <p>The recovery code signs you in once when your authenticator app is not at hand. A new one replaces the old one.</p>
      <form method="post" action={REGENERATE_PATH} class="stacked">
        <Csrf token={csrf} />
        <button type="submit">Regenerate recovery code</button>
      </form>
      <h3>Disable</h3>
      <form method="post" action={DISABLE_PATH} class="stacked">
        <Csrf token={csrf} />
        <label for="passcode">Current code from your app, or your password</label>
        <input id="passcode" name="passcode" autocomplete="one-time-code" />
        <input id="password" name="password" type="password" autocomplete="current-password" aria-label="Password" />
        <button type="submit" class="danger">
          Disable two-factor authentication
        </button>
      </form>
    </section>
  );
}

/**
 * The URI as a QR code: an SVG of plain paths (uqr) in a data: image, which the pages' CSP allows
 * (`img-src data:`) without inline script or style.
 */
function qrCodeImage(uri: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(renderSVG(uri)).toString('base64')}`;
}

/** The enrolment: the secret to add to an app, and a current code to confirm it. */
export function EnrollBody({ enrolment, csrf }: { enrolment: Enrolment; csrf: string }) {
  return (
    <section class="two-factor">
      <h2>Enroll in two-factor authentication</h2>
      <p>Scan this code with your authenticator app:</p>
      <p>
        <img
          id="two-factor-qr"
          src={qrCodeImage(enrolment.uri)}
          width={200}
          height={200}
          alt="QR code of the secret for an authenticator app"
        />
      </p>
      <p>Or add this secret by hand (time-based, 6 digits, every 30 seconds):</p>
      <p>
        <code id="two-factor-secret">{enrolment.secret}</code>
      </p>
      <p>Or open this link with the app:</p>
      <p>
        <code id="two-factor-uri">{enrolment.uri}</code>
      </p>
      <form method="post" action={ENROLL_PATH} class="stacked">
        <Csrf token={csrf} />
        <label for="passcode">Code the app shows now</label>
        <input id="passcode" name="passcode" inputmode="numeric" autocomplete="one-time-code" required autofocus />
        <button type="submit" class="primary">
          Confirm
        </button>
      </form>
    </section>
  );
}

/** A recovery code, shown once. */
export function ScratchBody({ code }: { code: string }) {
  return (
    <section class="two-factor">
      <h2>Your recovery code</h2>
      <p>Keep it somewhere safe: it is shown only now, and signs you in once without the app.</p>
      <p>
        <code id="two-factor-scratch">{code}</code>
      </p>
      <p>
        <a href={SECURITY_PATH}>Back to security settings</a>
      </p>
    </section>
  );
}

/** The sign-in step: the app's code, or (`scratch`) the recovery code. */
export function SignInStepBody({ scratch, csrf }: { scratch: boolean; csrf: string }) {
  return (
    <section class="narrow">
      <h1>Two-factor authentication</h1>
      <form method="post" action={scratch ? SCRATCH_STEP_PATH : SIGN_IN_STEP_PATH} class="stacked">
        <Csrf token={csrf} />
        <label for="passcode">{scratch ? 'Recovery code' : 'Code from your authenticator app'}</label>
        <input id="passcode" name={scratch ? 'token' : 'passcode'} autocomplete="one-time-code" required autofocus />
        <button type="submit" class="primary">
          Verify
        </button>
      </form>
      <p>
        {scratch ? (
          <a href={SIGN_IN_STEP_PATH}>Use a code from your app instead</a>
        ) : (
          <a href={SCRATCH_STEP_PATH}>Use your recovery code instead</a>
        )}
      </p>
    </section>
  );
}
