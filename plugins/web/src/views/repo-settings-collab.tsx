/**
 * `/{owner}/{repo}/settings/collaboration`: the repository's collaborators with their permission
 * (add, change, remove) and, for an organization's repository, the teams with access (add, remove).
 */
import { Avatar, UserLink } from './common';
import { Csrf, type PageKit } from './layout';
import { FormErrorNotice, SettingsBox, SettingsFrame, settingsHref, type FormError, type SettingsRepoJson } from './repo-settings-frame';

export interface CollaboratorView {
  login: string;
  avatar_url?: string;
  /** read, write or admin, as the API reports the user's permission. */
  permission: string;
}

/** Gitea's Team JSON, the fields the page shows. */
export interface TeamJson {
  id: number;
  name: string;
  description?: string;
  permission: string;
  includes_all_repositories?: boolean;
}

export interface CollaborationProps {
  kit: PageKit;
  repo: SettingsRepoJson;
  collaborators: CollaboratorView[];
  /** The teams with access; null when the owner is a user (teams are an organization's). */
  teams: TeamJson[] | null;
  /** The organization's teams the viewer may add; null when they may not list them. */
  orgTeams: TeamJson[] | null;
  hooks: boolean;
  done?: string;
  error?: FormError;
  kept?: Record<string, string>;
}

const PERMISSIONS: Array<[string, string]> = [
  ['read', 'Read'],
  ['write', 'Write'],
  ['admin', 'Administrator'],
];

function PermissionSelect({ id, selected }: { id: string; selected: string }) {
  return (
    <select id={id} name="mode">
      {PERMISSIONS.map(([value, text]) => (
        <option value={value} selected={value === selected}>
          {text}
        </option>
      ))}
    </select>
  );
}

function CollaboratorRow({ kit, repo, user, index }: { kit: PageKit; repo: SettingsRepoJson; user: CollaboratorView; index: number }) {
  const base = settingsHref(repo, '/collaboration');
  return (
    <li class="settings-row">
      <span class="grow">
        <Avatar url={user.avatar_url} name={user.login} /> <UserLink user={user} />
      </span>
      <form method="post" action={`${base}/access_mode`} class="inline-fields">
        <Csrf kit={kit} />
        <input type="hidden" name="name" value={user.login} />
        <label for={`mode-${index}`} class="visually-hidden">
          Permission of {user.login}
        </label>
        <PermissionSelect id={`mode-${index}`} selected={user.permission} />
        <button type="submit">Change</button>
      </form>
      <form method="post" action={`${base}/delete`} class="inline">
        <Csrf kit={kit} />
        <input type="hidden" name="name" value={user.login} />
        <button type="submit" class="danger" aria-label={`Remove ${user.login}`}>
          Remove
        </button>
      </form>
    </li>
  );
}

function Collaborators(props: CollaborationProps) {
  const { kit, repo, collaborators } = props;
  const kept = props.error?.form === 'collaborator' ? props.kept : undefined;
  return (
    <SettingsBox id="collaborators-title" title="Collaborators">
      <FormErrorNotice error={props.error} form="collaborator" />
      {collaborators.length === 0 ? (
        <p class="empty">No collaborators yet: only the owner{props.teams ? ' and its teams' : ''} can reach this repository.</p>
      ) : (
        <ul class="rows">
          {collaborators.map((user, index) => (
            <CollaboratorRow kit={kit} repo={repo} user={user} index={index} />
          ))}
        </ul>
      )}
      <form method="post" action={settingsHref(repo, '/collaboration')} class="add-row">
        <Csrf kit={kit} />
        <h3>Add a collaborator</h3>
        <div class="inline-fields">
          <label for="collaborator">User name</label>
          <input id="collaborator" name="collaborator" required maxLength={255} autocomplete="off" value={kept?.collaborator ?? ''} />
          <label for="collaborator-mode">Permission</label>
          <PermissionSelect id="collaborator-mode" selected={kept?.mode || 'write'} />
          <button type="submit" class="primary">
            Add collaborator
          </button>
        </div>
      </form>
    </SettingsBox>
  );
}

function Teams(props: CollaborationProps) {
  const { kit, repo } = props;
  const teams = props.teams ?? [];
  const base = settingsHref(repo, '/collaboration/team');
  const addable = (props.orgTeams ?? []).filter((t) => !teams.some((has) => has.id === t.id));
  return (
    <SettingsBox id="teams-title" title="Teams">
      <FormErrorNotice error={props.error} form="team" />
      {teams.length === 0 ? (
        <p class="empty">No team has access to this repository.</p>
      ) : (
        <ul class="rows">
          {teams.map((team) => (
            <li class="settings-row">
              <span class="grow">
                <span class="title">{team.name}</span>{' '}
                <span class="meta">
                  {team.permission} access{team.includes_all_repositories ? ' · every repository of the organization' : ''}
                </span>
              </span>
              {!team.includes_all_repositories && (
                <form method="post" action={`${base}/delete`} class="inline">
                  <Csrf kit={kit} />
                  <input type="hidden" name="team_id" value={String(team.id)} />
                  <button type="submit" class="danger" aria-label={`Remove team ${team.name}`}>
                    Remove
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
      {props.orgTeams === null ? (
        <p class="meta">Only members of the organization may give its teams access.</p>
      ) : addable.length === 0 ? (
        <p class="meta">Every team of the organization already has access.</p>
      ) : (
        <form method="post" action={base} class="add-row">
          <Csrf kit={kit} />
          <h3>Add a team</h3>
          <div class="inline-fields">
            <label for="team">Team</label>
            <select id="team" name="team_id">
              {addable.map((team) => (
                <option value={String(team.id)}>{team.name}</option>
              ))}
            </select>
            <button type="submit" class="primary">
              Add team
            </button>
          </div>
        </form>
      )}
    </SettingsBox>
  );
}

export function CollaborationPage(props: CollaborationProps) {
  const { kit, repo, hooks, done } = props;
  return (
    <SettingsFrame kit={kit} repo={repo} section="collaboration" title="Collaborators" hooks={hooks} done={done}>
      <Collaborators {...props} />
      {props.teams && <Teams {...props} />}
    </SettingsFrame>
  );
}
