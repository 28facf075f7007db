import { Notice } from './common';
import { Csrf, Layout, type PageKit } from './layout';

export interface SignInForm {
  login?: string;
  error?: string;
  redirectTo: string;
  /** No site administrator exists yet: tell the operator how to make one. */
  firstRun: boolean;
  /** Other ways to sign in (identity plugins). */
  options?: Array<{ label: string; href: string }>;
}

export function SignInPage({ kit, form }: { kit: PageKit; form: SignInForm }) {
  return (
    <Layout kit={kit} title="Sign in">
      <section class="narrow">
        <h1>Sign in</h1>
        {form.firstRun && (
          <Notice>
            <p>This site has no administrator yet.</p>
            <p>
              Create one with <code>hearth admin user create --admin</code>.
            </p>
            <p>
              Or start Hearth once with <code>HEARTH_ADMIN_USERNAME</code>, <code>HEARTH_ADMIN_PASSWORD</code> and{' '}
              <code>HEARTH_ADMIN_EMAIL</code> set.
            </p>
          </Notice>
        )}
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <form method="post" action="/user/login" class="stacked">
          <Csrf kit={kit} />
          <input type="hidden" name="redirect_to" value={form.redirectTo} />
          <label for="user_name">User name or email</label>
          <input id="user_name" name="user_name" value={form.login ?? ''} autocomplete="username" required autofocus />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
        {form.options && form.options.length > 0 && (
          <ul class="sign-in-options" aria-label="Other ways to sign in">
            {form.options.map((option) => (
              <li>
                <a class="button" href={option.href}>
                  {option.label}
                </a>
              </li>
            ))}
          </ul>
        )}
        {kit.registrationOpen && (
          <p>
            No account? <a href="/user/sign_up">Register now.</a>
          </p>
        )}
      </section>
    </Layout>
  );
}

export interface SignUpForm {
  name?: string;
  email?: string;
  error?: string;
}

export function SignUpPage({ kit, form }: { kit: PageKit; form: SignUpForm }) {
  return (
    <Layout kit={kit} title="Register">
      <section class="narrow">
        <h1>Register</h1>
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <form method="post" action="/user/sign_up" class="stacked">
          <Csrf kit={kit} />
          <label for="user_name">User name</label>
          <input id="user_name" name="user_name" value={form.name ?? ''} autocomplete="username" required autofocus />
          <label for="email">Email address</label>
          <input id="email" name="email" type="email" value={form.email ?? ''} autocomplete="email" required />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required />
          <label for="retype">Confirm password</label>
          <input id="retype" name="retype" type="password" autocomplete="new-password" required />
          <button type="submit" class="primary">
            Register account
          </button>
        </form>
        <p>
          Already have an account? <a href="/user/login">Sign in.</a>
        </p>
      </section>
    </Layout>
  );
}
