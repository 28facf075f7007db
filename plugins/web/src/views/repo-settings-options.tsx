/**
 * `/{owner}/{repo}/settings`: the repository's name, description, website, visibility and template
 * flag; its features (units) and merge styles; its push mirrors; and the danger zone (transfer,
 * archive, delete with the repository's full name typed). Every form posts to the page with Gitea's
 * `action` field.
 */
import { plural, When } from './common';
import { Csrf, type PageKit } from './layout';
import {
  Check,
  FormErrorNotice,
  SettingsBox,
  SettingsFrame,
  settingsHref,
  type FormError,
  type SettingsRepoJson,
} from './repo-settings-frame';

/** Gitea's PushMirror JSON. */
export interface PushMirrorJson {
  remote_name: string;
  remote_address: string;
  created: string;
  last_update: string;
  last_error: string;
  interval: string;
  sync_on_commit: boolean;
}

/** The units a repository turns on and off (the API's has_* fields), as the form names them. */
export const UNITS: Array<[keyof SettingsRepoJson & string, string, string]> = [
  ['has_code', 'Code', 'the files, history, branches and tags'],
  ['has_issues', 'Issues', 'the issue tracker'],
  ['has_pull_requests', 'Pull requests', 'proposing and merging changes'],
  ['has_wiki', 'Wiki', 'pages kept in the repository’s wiki'],
  ['has_releases', 'Releases', 'tagged releases with their files'],
  ['has_packages', 'Packages', 'packages linked to the repository'],
  ['has_projects', 'Projects', 'project boards'],
  ['has_actions', 'Actions', 'workflow runs'],
];

/** Merge settings shown as checkboxes (the API's field names). */
export const MERGE_FLAGS: Array<[keyof SettingsRepoJson & string, string]> = [
  ['allow_merge_commits', 'Create a merge commit'],
  ['allow_rebase', 'Rebase and fast-forward'],
  ['allow_rebase_explicit', 'Rebase, then create a merge commit (--no-ff)'],
  ['allow_squash_merge', 'Squash and merge'],
  ['allow_rebase_update', 'Allow updating a pull request’s branch by rebase'],
  ['default_delete_branch_after_merge', 'Delete the pull request’s branch after merging, by default'],
];

export const MERGE_STYLES: Array<[string, string]> = [
  ['merge', 'Create a merge commit'],
  ['rebase', 'Rebase and fast-forward'],
  ['rebase-merge', 'Rebase, then create a merge commit'],
  ['squash', 'Squash and merge'],
];

export interface OptionsPageProps {
  kit: PageKit;
  repo: SettingsRepoJson;
  /** The push mirrors; null when push mirrors are off on this server. */
  mirrors: PushMirrorJson[] | null;
  hooks: boolean;
  done?: string;
  error?: FormError;
  /** What the failed form sent, shown again (never a password). */
  kept?: Record<string, string>;
}

/** A field's value: what the failed form sent, else the repository's own. */
function valueOf(props: OptionsPageProps, form: string, name: string, own: string): string {
  return props.error?.form === form && props.kept ? (props.kept[name] ?? '') : own;
}

function flagOf(props: OptionsPageProps, form: string, name: string, own: boolean | undefined): boolean {
  return props.error?.form === form && props.kept ? props.kept[name] === 'on' : own !== false;
}

function BasicForm(props: OptionsPageProps) {
  const { kit, repo } = props;
  return (
    <SettingsBox id="basic-title" title="Basic settings">
      <FormErrorNotice error={props.error} form="update" />
      <form method="post" action={settingsHref(repo)} class="stacked">
        <Csrf kit={kit} />
        <input type="hidden" name="action" value="update" />
        <label for="repo_name">Repository name</label>
        <input id="repo_name" name="repo_name" value={valueOf(props, 'update', 'repo_name', repo.name)} required maxLength={100} />
        <label for="description">Description</label>
        <textarea id="description" name="description" maxLength={2048} rows={3}>
          {valueOf(props, 'update', 'description', repo.description)}
        </textarea>
        <label for="website">Website</label>
        <input id="website" name="website" type="url" value={valueOf(props, 'update', 'website', repo.website ?? '')} maxLength={2048} />
        <fieldset>
          <legend>Visibility</legend>
          <Check
            name="private"
            label="Private: only its owner and the people given access see it"
            checked={flagOf(props, 'update', 'private', repo.private)}
          />
        </fieldset>
        <Check
          name="template"
          label="Template: a starting point for new repositories"
          checked={flagOf(props, 'update', 'template', repo.template)}
        />
        <button type="submit" class="primary">
          Update settings
        </button>
      </form>
    </SettingsBox>
  );
}

function FeaturesForm(props: OptionsPageProps) {
  const { kit, repo } = props;
  const style = valueOf(props, 'advanced', 'default_merge_style', repo.default_merge_style ?? 'merge');
  return (
    <SettingsBox id="features-title" title="Features and merging">
      <FormErrorNotice error={props.error} form="advanced" />
      <form method="post" action={settingsHref(repo)} class="stacked">
        <Csrf kit={kit} />
        <input type="hidden" name="action" value="advanced" />
        <fieldset aria-describedby="units-hint">
          <legend>Features</legend>
          <p id="units-hint" class="meta">
            At least one feature must stay on: a repository with none would have nothing to show.
          </p>
          {UNITS.map(([name, label, what]) => (
            <Check name={name} label={`${label} — ${what}`} checked={flagOf(props, 'advanced', name, repo[name] as boolean | undefined)} />
          ))}
        </fieldset>
        <fieldset>
          <legend>Pull request merge styles</legend>
          {MERGE_FLAGS.map(([name, label]) => (
            <Check
              name={name}
              label={label}
              checked={
                props.error?.form === 'advanced' && props.kept ? props.kept[name] === 'on' : (repo[name] as boolean | undefined) === true
              }
            />
          ))}
          <label for="default_merge_style">Default merge style</label>
          <select id="default_merge_style" name="default_merge_style">
            {MERGE_STYLES.map(([value, text]) => (
              <option value={value} selected={value === style}>
                {text}
              </option>
            ))}
          </select>
        </fieldset>
        <button type="submit" class="primary">
          Update features
        </button>
      </form>
    </SettingsBox>
  );
}

function MirrorRow({ kit, repo, mirror }: { kit: PageKit; repo: SettingsRepoJson; mirror: PushMirrorJson }) {
  return (
    <li class="mirror-row">
      <div class="mirror-main">
        <span class="title">{mirror.remote_address}</span>
        <p class="meta">
          {mirror.interval && mirror.interval !== '0s' ? `Every ${mirror.interval}` : 'No periodic sync'}
          {mirror.sync_on_commit ? ' · on every push' : ''} ·{' '}
          {mirror.last_update ? (
            <>
              last synchronised <When at={mirror.last_update} />
            </>
          ) : (
            'not synchronised yet'
          )}
        </p>
        {mirror.last_error && <p class="mirror-error">Last error: {mirror.last_error}</p>}
      </div>
      <form method="post" action={settingsHref(repo)} class="inline">
        <Csrf kit={kit} />
        <input type="hidden" name="action" value="push-mirror-remove" />
        <input type="hidden" name="push_mirror" value={mirror.remote_name} />
        <button type="submit" class="danger" aria-label={`Remove the push mirror to ${mirror.remote_address}`}>
          Remove
        </button>
      </form>
    </li>
  );
}

function MirrorsBox(props: OptionsPageProps) {
  const { kit, repo } = props;
  const mirrors = props.mirrors ?? [];
  return (
    <SettingsBox id="mirrors-title" title="Push mirrors">
      <FormErrorNotice error={props.error} form="push-mirror" />
      {mirrors.length === 0 ? (
        <p class="empty">No push mirrors.</p>
      ) : (
        <>
          <p class="meta">{plural(mirrors.length, 'push mirror')}: every branch and tag is pushed to each.</p>
          <ul class="rows">
            {mirrors.map((mirror) => (
              <MirrorRow kit={kit} repo={repo} mirror={mirror} />
            ))}
          </ul>
          <form method="post" action={settingsHref(repo)} class="mirror-sync">
            <Csrf kit={kit} />
            <input type="hidden" name="action" value="push-mirror-sync" />
            <button type="submit">Synchronise now</button>
          </form>
        </>
      )}
      <form method="post" action={settingsHref(repo)} class="stacked">
        <Csrf kit={kit} />
        <input type="hidden" name="action" value="push-mirror-add" />
        <h3>Add a push mirror</h3>
        <label for="push_mirror_address">Remote repository URL</label>
        <input
          id="push_mirror_address"
          name="push_mirror_address"
          type="url"
          required
          maxLength={2048}
          value={valueOf(props, 'push-mirror', 'push_mirror_address', '')}
        />
        <label for="push_mirror_username">User name (optional)</label>
        <input
          id="push_mirror_username"
          name="push_mirror_username"
          autocomplete="off"
          maxLength={255}
          value={valueOf(props, 'push-mirror', 'push_mirror_username', '')}
        />
        <label for="push_mirror_password">Password or token (optional)</label>
        <input id="push_mirror_password" name="push_mirror_password" type="password" autocomplete="new-password" maxLength={255} />
        <label for="push_mirror_interval">Sync interval (e.g. 8h0m0s, 30m; 0 for none)</label>
        <input
          id="push_mirror_interval"
          name="push_mirror_interval"
          maxLength={32}
          value={valueOf(props, 'push-mirror', 'push_mirror_interval', '8h0m0s')}
        />
        <Check
          name="push_mirror_sync_on_commit"
          label="Also push on every push to this repository"
          checked={props.error?.form === 'push-mirror' && props.kept?.push_mirror_sync_on_commit === 'on'}
        />
        <button type="submit" class="primary">
          Add push mirror
        </button>
      </form>
    </SettingsBox>
  );
}

/** A typed confirmation: the repository's full name, as Gitea asks before transferring or deleting. */
function ConfirmName({ id, repo }: { id: string; repo: SettingsRepoJson }) {
  return (
    <>
      <label for={id}>
        Type <strong>{repo.full_name}</strong> to confirm
      </label>
      <input id={id} name="repo_name" required autocomplete="off" spellcheck={false} maxLength={255} />
    </>
  );
}

function DangerZone(props: OptionsPageProps) {
  const { kit, repo } = props;
  const pending = repo.repo_transfer;
  return (
    <SettingsBox id="danger-title" title="Danger zone" danger>
      <h3>Transfer ownership</h3>
      <FormErrorNotice error={props.error} form="transfer" />
      {pending && (
        <p class="notice">
          A transfer to <strong>{pending.recipient?.login ?? 'another owner'}</strong> is waiting for them to accept it.
        </p>
      )}
      <form method="post" action={settingsHref(repo)} class="stacked">
        <Csrf kit={kit} />
        <input type="hidden" name="action" value="transfer" />
        <label for="new_owner_name">New owner (a user or an organization)</label>
        <input
          id="new_owner_name"
          name="new_owner_name"
          required
          maxLength={255}
          value={valueOf(props, 'transfer', 'new_owner_name', '')}
        />
        <ConfirmName id="transfer_confirm" repo={repo} />
        <button type="submit" class="danger">
          Transfer ownership
        </button>
      </form>

      <h3>{repo.archived ? 'Unarchive this repository' : 'Archive this repository'}</h3>
      <FormErrorNotice error={props.error} form="archive" />
      <p class="meta">
        {repo.archived
          ? 'Unarchiving lets people push, open issues and pull requests, and comment again.'
          : 'An archived repository is read-only: no pushes, issues, pull requests or comments.'}
      </p>
      <form method="post" action={settingsHref(repo)}>
        <Csrf kit={kit} />
        <input type="hidden" name="action" value={repo.archived ? 'unarchive' : 'archive'} />
        <button type="submit" class="danger">
          {repo.archived ? 'Unarchive this repository' : 'Archive this repository'}
        </button>
      </form>

      <h3>Delete this repository</h3>
      <FormErrorNotice error={props.error} form="delete" />
      <p class="meta">This removes the repository, its issues, pull requests, releases and wiki for good. There is no undo.</p>
      <form method="post" action={settingsHref(repo)} class="stacked">
        <Csrf kit={kit} />
        <input type="hidden" name="action" value="delete" />
        <ConfirmName id="delete_confirm" repo={repo} />
        <button type="submit" class="danger">
          Delete this repository
        </button>
      </form>
    </SettingsBox>
  );
}

export function OptionsPage(props: OptionsPageProps) {
  const { kit, repo, hooks, done } = props;
  return (
    <SettingsFrame kit={kit} repo={repo} section="options" title="Repository settings" hooks={hooks} done={done}>
      <BasicForm {...props} />
      <FeaturesForm {...props} />
      {props.mirrors && <MirrorsBox {...props} />}
      <DangerZone {...props} />
    </SettingsFrame>
  );
}
