/**
 * What every repository settings page shares: the repository header with its Settings tab, the
 * settings menu (Options, Collaborators, Branches, Webhooks), the page's heading, and the notice a
 * change leaves after its redirect (`?done=…`).
 */
import type { ComponentChildren } from 'preact';
import { Notice, repoHref } from './common';
import type { RepoJson } from './home-pages';
import { Layout, type PageKit } from './layout';
import { RepoHeader } from './repo-header';

/** Gitea's Repository JSON with the fields the settings pages show and change. */
export interface SettingsRepoJson extends RepoJson {
  website: string;
  has_code?: boolean;
  has_projects?: boolean;
  has_packages?: boolean;
  has_actions?: boolean;
  allow_merge_commits?: boolean;
  allow_rebase?: boolean;
  allow_rebase_explicit?: boolean;
  allow_squash_merge?: boolean;
  allow_rebase_update?: boolean;
  default_merge_style?: string;
  default_delete_branch_after_merge?: boolean;
  repo_transfer?: { doer: { login: string } | null; recipient: { login: string } | null } | null;
}

export type SettingsSection = 'options' | 'collaboration' | 'branches' | 'hooks';

/** A refused change, shown above the form it came from, with the status the page answers with. */
export interface FormError {
  /** Which form failed (its `action`, or a page's own name for it). */
  form: string;
  message: string;
}

/** The messages a settings change leaves after its redirect; unknown keys show nothing. */
const DONE: Record<string, string> = {
  updated: 'The repository settings have been updated.',
  units: 'The repository’s features and merge settings have been updated.',
  archived: 'The repository has been archived: it is read-only now.',
  unarchived: 'The repository has been unarchived.',
  transferred: 'The repository has been transferred.',
  'transfer-pending': 'The transfer has been requested: the new owner must accept it.',
  'mirror-added': 'The push mirror has been added.',
  'mirror-sync': 'A synchronisation of the push mirrors has been queued.',
  'mirror-removed': 'The push mirror has been removed.',
  'collaborator-added': 'The collaborator has been added.',
  'collaborator-changed': 'The collaborator’s permission has been changed.',
  'collaborator-removed': 'The collaborator has been removed.',
  'team-added': 'The team has been given access to this repository.',
  'team-removed': 'The team no longer has access to this repository.',
  'hook-added': 'The webhook has been added.',
  'hook-updated': 'The webhook has been updated.',
  'hook-removed': 'The webhook has been removed.',
  tested: 'A test delivery has been queued: it appears under Recent deliveries.',
  redelivered: 'The delivery has been queued again.',
  'rule-saved': 'The branch protection rule has been saved.',
  'rule-removed': 'The branch protection rule has been removed.',
  'default-branch': 'The default branch has been changed.',
};

/** The notice of `?done=key`, when the key is one of ours. */
export function DoneNotice({ done }: { done?: string }) {
  const message = done ? DONE[done] : undefined;
  return message ? <Notice kind="success">{message}</Notice> : null;
}

/** The notice of a refused change, when it came from `form`. */
export function FormErrorNotice({ error, form }: { error?: FormError; form: string }) {
  return error && error.form === form ? <Notice kind="error">{error.message}</Notice> : null;
}

/** `/{owner}/{repo}/settings` and its sub-pages. */
export function settingsHref(repo: { full_name: string }, sub = ''): string {
  return `${repoHref(repo.full_name)}/settings${sub}`;
}

const SECTIONS: Array<[SettingsSection, string, string]> = [
  ['options', 'Repository', ''],
  ['collaboration', 'Collaborators', '/collaboration'],
  ['branches', 'Branches', '/branches'],
  ['hooks', 'Webhooks', '/hooks'],
];

export interface SettingsFrameProps {
  kit: PageKit;
  repo: SettingsRepoJson;
  section: SettingsSection;
  /** The page's heading (h1) and title. */
  title: string;
  /** Whether the webhooks feature is on (its menu entry). */
  hooks: boolean;
  done?: string;
  children: ComponentChildren;
}

export function SettingsFrame({ kit, repo, section, title, hooks, done, children }: SettingsFrameProps) {
  return (
    <Layout kit={kit} title={`${title} · ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="settings" title="breadcrumb" />
      <div class="settings-columns">
        <nav class="settings-nav" aria-label="Settings">
          <ul>
            {SECTIONS.filter(([name]) => name !== 'hooks' || hooks).map(([name, text, sub]) => (
              <li>
                <a href={settingsHref(repo, sub)} aria-current={name === section ? 'page' : undefined}>
                  {text}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="settings-main">
          <h1>{title}</h1>
          <DoneNotice done={done} />
          {children}
        </div>
      </div>
    </Layout>
  );
}

/** A checkbox with its label after it (the `.check` row of the wide forms). */
export function Check({ name, label, checked, id = name }: { name: string; label: ComponentChildren; checked: boolean; id?: string }) {
  return (
    <div class="check">
      <input type="checkbox" id={id} name={name} value="on" checked={checked} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** A settings section: a box with its h2 heading. */
export function SettingsBox({ id, title, children, danger }: { id: string; title: string; children: ComponentChildren; danger?: boolean }) {
  return (
    <section class={danger ? 'box settings-box danger-zone' : 'box settings-box'} aria-labelledby={id}>
      <header>
        <h2 id={id}>{title}</h2>
      </header>
      <div class="body">{children}</div>
    </section>
  );
}
