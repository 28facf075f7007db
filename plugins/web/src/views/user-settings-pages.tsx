/** The signed-in user's settings at Gitea's URLs: `/user/settings` (profile) and `/user/settings/account` (email addresses). */
import type { ComponentChildren } from 'preact';
import { Avatar, Notice } from './common';
import { Csrf, Layout, type PageKit } from './layout';
import { Checkbox, TextField } from './org-admin-parts';
import type { UserJson } from './home-pages';

/** The web plugin's own tabs; a plugin's tab (`webPagesRef`) is named by its href. */
export type SettingsTab = 'profile' | 'account' | 'applications' | (string & {});

const TABS: Array<{ tab: SettingsTab; href: string; label: string }> = [
  { tab: 'profile', href: '/user/settings', label: 'Profile' },
  { tab: 'account', href: '/user/settings/account', label: 'Account' },
  { tab: 'applications', href: '/user/settings/applications', label: 'Applications' },
];

/** The frame of every settings page: its title, the settings tabs (the current one marked) and a notice. */
export function SettingsFrame({
  kit,
  tab,
  title,
  notice,
  error,
  children,
}: {
  kit: PageKit;
  tab: SettingsTab;
  title: string;
  notice?: string;
  error?: string;
  children: ComponentChildren;
}) {
  return (
    <Layout kit={kit} title={title}>
      <section class="user-settings">
        <h1>Settings</h1>
        <nav class="tabs" aria-label="Settings">
          {[...TABS, ...kit.settingsTabs.map((t) => ({ ...t, tab: t.href }))].map((t) => (
            <a href={t.href} aria-current={t.tab === tab ? 'page' : undefined}>
              {t.label}
            </a>
          ))}
        </nav>
        {notice && <Notice kind="success">{notice}</Notice>}
        {error && <Notice kind="error">{error}</Notice>}
        {children}
      </section>
    </Layout>
  );
}

const VISIBILITY: Record<string, string> = {
  public: 'Public: anyone can see your profile',
  limited: 'Limited: only signed-in users can see your profile',
  private: 'Private: only you and site administrators can see your profile',
};

/** The fields of the profile form: Gitea's `UserSettings` JSON, or what a refused form sent. */
export interface ProfileForm {
  full_name: string;
  website: string;
  location: string;
  description: string;
  hide_email: boolean;
  hide_activity: boolean;
}

export interface ProfileProps {
  kit: PageKit;
  user: UserJson & { email?: string };
  form: ProfileForm;
  notice?: string;
  error?: string;
}

/** The profile form (`PATCH /user/settings`); the name, email address and visibility are shown, changed elsewhere. */
export function ProfileSettingsPage({ kit, user, form, notice, error }: ProfileProps) {
  return (
    <SettingsFrame kit={kit} tab="profile" title="Profile" notice={notice} error={error}>
      <h2>Profile</h2>
      <div class="profile">
        <Avatar url={user.avatar_url} name={user.login} size={80} />
        <p>
          <strong>{user.login}</strong>
          {user.full_name && <span class="muted"> · {user.full_name}</span>}
        </p>
      </div>
      <dl class="settings-fields">
        <dt>Email address</dt>
        <dd>{user.email || <span class="muted">Not set</span>}</dd>
        <dt>Visibility</dt>
        <dd>{VISIBILITY[user.visibility ?? 'public'] ?? user.visibility}</dd>
      </dl>
      <form method="post" action="/user/settings" class="stacked settings-form wide-form">
        <Csrf kit={kit} />
        <TextField id="full_name" label="Full name" value={form.full_name} maxLength={100} autocomplete="name" />
        <TextField
          id="website"
          label="Website"
          type="url"
          value={form.website}
          maxLength={255}
          autocomplete="url"
          hint="An address starting with http:// or https://, or empty."
        />
        <TextField id="location" label="Location" value={form.location} maxLength={50} />
        <label for="description">Biography</label>
        <textarea id="description" name="description" maxLength={255} rows={3}>
          {form.description}
        </textarea>
        <fieldset>
          <legend>Privacy</legend>
          <Checkbox id="hide_email" label="Hide your email address from other users" checked={form.hide_email} />
          <Checkbox id="hide_activity" label="Hide your activity from your profile page" checked={form.hide_activity} />
        </fieldset>
        <button type="submit" class="primary">
          Update profile
        </button>
      </form>
    </SettingsFrame>
  );
}

export interface EmailJson {
  email: string;
  verified: boolean;
  primary: boolean;
}

export interface AccountProps {
  kit: PageKit;
  emails: EmailJson[];
  /** The address typed into the add form (kept when the API refused it). */
  newEmail?: string;
  /** Whether the account signs in through an external source (no local password), and the least password length. */
  password: { external: boolean; minLength: number };
  notice?: string;
  error?: string;
}

/** Email addresses (list, add, delete) and the password form. */
export function AccountSettingsPage({ kit, emails, newEmail = '', password, notice, error }: AccountProps) {
  return (
    <SettingsFrame kit={kit} tab="account" title="Account" notice={notice} error={error}>
      <h2>Email addresses</h2>
      <ul class="rows email-list">
        {emails.map((e) => (
          <li>
            <span class="title">{e.email}</span>
            {e.primary && <span class="badge">Primary</span>}
            <span class="badge">{e.verified ? 'Verified' : 'Not verified'}</span>
            {!e.primary && (
              <form method="post" action="/user/settings/account/email/delete" class="inline row-action">
                <Csrf kit={kit} />
                <input type="hidden" name="email" value={e.email} />
                <button type="submit" class="danger" aria-label={`Delete ${e.email}`}>
                  Delete
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
      <form method="post" action="/user/settings/account/email" class="stacked settings-form">
        <Csrf kit={kit} />
        <label for="email">Add an email address</label>
        <input id="email" name="email" type="email" value={newEmail} required maxLength={255} autocomplete="email" />
        <button type="submit" class="primary">
          Add email address
        </button>
      </form>
      <h2>Password</h2>
      {password.external ? (
        <p class="muted">You sign in through an external authentication source: there is no password here to change.</p>
      ) : (
        <PasswordForm kit={kit} minLength={password.minLength} />
      )}
    </SettingsFrame>
  );
}

/** Change the password: the current one, and the new one twice. Other browsers are signed out afterwards. */
function PasswordForm({ kit, minLength }: { kit: PageKit; minLength: number }) {
  return (
    <form method="post" action="/user/settings/account/password" class="stacked settings-form">
      <Csrf kit={kit} />
      <label for="old_password">Current password</label>
      <input id="old_password" name="old_password" type="password" required autocomplete="current-password" />
      <label for="password">New password</label>
      <input id="password" name="password" type="password" required minLength={minLength} autocomplete="new-password" />
      <label for="retype">Confirm the new password</label>
      <input id="retype" name="retype" type="password" required minLength={minLength} autocomplete="new-password" />
      <p class="muted">At least {minLength} characters. Your other signed-in browsers will be signed out.</p>
      <button type="submit" class="primary">
        Update password
      </button>
    </form>
  );
}
