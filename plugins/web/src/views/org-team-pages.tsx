/**
 * Team pages at Gitea's URLs: `/org/{org}/teams` (list), `/org/{org}/teams/{team}` (members),
 * `/org/{org}/teams/{team}/repositories`, `/org/{org}/teams/new` and `/org/{org}/teams/{team}/edit`
 * (name, description, repository access, unit permissions; the Owners team keeps its powers).
 */
import type { ComponentChildren } from 'preact';
import { Avatar, Notice, repoHref, userHref } from './common';
import { Csrf, Layout, type PageKit } from './layout';
import { ActionButton, Checkbox, TextField, TypedConfirm } from './org-admin-parts';
import { OrgHeader, orgHref, type OrgJson } from './org-pages';
import type { RepoJson, UserJson } from './home-pages';

/** Gitea's Team JSON. */
export interface TeamJson {
  id: number;
  name: string;
  description: string;
  includes_all_repositories: boolean;
  permission: 'none' | 'read' | 'write' | 'admin' | 'owner';
  units: string[];
  units_map: Record<string, string>;
  can_create_org_repo: boolean;
}

export type UnitMode = 'none' | 'read' | 'write';

/** The repository units a team grants, as Gitea 1.20 names them; external trackers and wikis are read or nothing. */
export const TEAM_UNITS: Array<{ unit: string; label: string; readOnly?: boolean }> = [
  { unit: 'repo.code', label: 'Code' },
  { unit: 'repo.issues', label: 'Issues' },
  { unit: 'repo.ext_issues', label: 'External issue tracker', readOnly: true },
  { unit: 'repo.pulls', label: 'Pull requests' },
  { unit: 'repo.releases', label: 'Releases' },
  { unit: 'repo.wiki', label: 'Wiki' },
  { unit: 'repo.ext_wiki', label: 'External wiki', readOnly: true },
  { unit: 'repo.projects', label: 'Projects' },
  { unit: 'repo.packages', label: 'Packages' },
  { unit: 'repo.actions', label: 'Actions' },
];

/** The field of a unit's permission in the team form. */
export const unitField = (unit: string) => `unit_${unit.replace(/\W/g, '_')}`;

/** `/org/{org}/teams/{team}…` */
export function teamHref(org: string, team: string, rest = ''): string {
  return orgHref(org, `/teams/${encodeURIComponent(team)}${rest}`);
}

const isOwnersTeam = (team: TeamJson) => team.permission === 'owner';

function AccessSummary({ team }: { team: TeamJson }) {
  if (isOwnersTeam(team)) return <>Owner access to every repository and the organization’s settings</>;
  if (team.permission === 'admin') return <>Administrator access</>;
  const granted = TEAM_UNITS.filter((u) => team.units_map[u.unit] && team.units_map[u.unit] !== 'none');
  if (granted.length === 0) return <>No access to any unit</>;
  return <>{granted.map((u) => `${u.label}: ${team.units_map[u.unit]}`).join(' · ')}</>;
}

// --- list ------------------------------------------------------------------------------------------

export interface TeamSummary extends TeamJson {
  /** Null when the viewer may not list the team's members. */
  memberCount: number | null;
}

export function TeamsPage({ kit, org, teams, isOwner }: { kit: PageKit; org: OrgJson; teams: TeamSummary[]; isOwner: boolean }) {
  return (
    <Layout kit={kit} title={`${org.name} teams`}>
      <OrgHeader org={org} tab="teams" isMember isOwner={isOwner} />
      <div class="list-head">
        <h1>Teams</h1>
        {isOwner && (
          <a class="button primary" href={orgHref(org.name, '/teams/new')}>
            New team
          </a>
        )}
      </div>
      <ul class="rows">
        {teams.map((team) => (
          <li>
            <a class="title" href={teamHref(org.name, team.name)}>
              {team.name}
            </a>
            {team.memberCount !== null && <span class="badge">{team.memberCount === 1 ? '1 member' : `${team.memberCount} members`}</span>}
            {team.includes_all_repositories && <span class="badge">All repositories</span>}
            {team.description && <p>{team.description}</p>}
            <p class="meta">
              <AccessSummary team={team} />
            </p>
          </li>
        ))}
      </ul>
    </Layout>
  );
}

// --- one team --------------------------------------------------------------------------------------

export interface TeamPageProps {
  kit: PageKit;
  org: OrgJson;
  team: TeamJson;
  tab: 'members' | 'repositories';
  members?: UserJson[];
  repos?: RepoJson[];
  isOwner: boolean;
  notice?: string;
  error?: string;
}

function TeamHead({ org, team, tab, isOwner }: Pick<TeamPageProps, 'org' | 'team' | 'tab' | 'isOwner'>) {
  const current = (name: TeamPageProps['tab']) => (tab === name ? 'page' : undefined);
  return (
    <>
      <div class="list-head">
        <h1>{team.name}</h1>
        {isOwner && (
          <a class="button" href={teamHref(org.name, team.name, '/edit')}>
            Edit team
          </a>
        )}
      </div>
      {team.description && <p class="team-description">{team.description}</p>}
      <p class="meta">
        <AccessSummary team={team} />
        {team.can_create_org_repo && !isOwnersTeam(team) && ' · may create repositories'}
      </p>
      <nav class="tabs sub" aria-label="Team">
        <a href={teamHref(org.name, team.name)} aria-current={current('members')}>
          Members
        </a>
        <a href={teamHref(org.name, team.name, '/repositories')} aria-current={current('repositories')}>
          Repositories
        </a>
      </nav>
    </>
  );
}

/**
 * A team's members or repositories: for owners (`actions`), a form adding one by name; the list,
 * each entry with a Remove button for owners. The form field's name is what the routes read.
 */
function TeamList({
  kit,
  field,
  actions,
  empty,
  listClass,
  items,
}: {
  kit: PageKit;
  field: { name: string; label: string; maxLength: number; button: string };
  actions: { add: string; remove: string } | null;
  empty: string;
  listClass: string;
  items: Array<{ name: string; content: ComponentChildren }>;
}) {
  return (
    <>
      {actions && (
        <form method="post" action={actions.add} class="search">
          <Csrf kit={kit} />
          <label for={field.name} class="visually-hidden">
            {field.label} to add
          </label>
          <input id={field.name} name={field.name} required maxLength={field.maxLength} placeholder={field.label} autocomplete="off" />
          <button type="submit">{field.button}</button>
        </form>
      )}
      {items.length === 0 ? (
        <p class="empty">{empty}</p>
      ) : (
        <ul class={listClass}>
          {items.map((item) => (
            <li>
              {item.content}
              {actions && (
                <span class="actions">
                  <ActionButton
                    kit={kit}
                    action={actions.remove}
                    fields={{ [field.name]: item.name }}
                    label="Remove"
                    name={`Remove ${item.name} from the team`}
                    danger
                  />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function TeamPage(props: TeamPageProps) {
  const { kit, org, team, tab, isOwner, notice, error } = props;
  const action = (rest: string) => teamHref(org.name, team.name, `/action/${rest}`);
  const allRepos = team.includes_all_repositories || isOwnersTeam(team);
  return (
    <Layout kit={kit} title={`${team.name} · ${org.name}`}>
      <OrgHeader org={org} tab="teams" isMember isOwner={isOwner} />
      <TeamHead org={org} team={team} tab={tab} isOwner={isOwner} />
      {notice && <Notice kind="success">{notice}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {tab === 'members' ? (
        <TeamList
          kit={kit}
          field={{ name: 'uname', label: 'User name', maxLength: 40, button: 'Add member' }}
          actions={isOwner ? { add: action('add'), remove: action('remove') } : null}
          empty="This team has no members."
          listClass="rows members"
          items={(props.members ?? []).map((user) => ({
            name: user.login,
            content: (
              <>
                <Avatar url={user.avatar_url} name={user.login} size={32} />
                <span class="who">
                  <a href={userHref(user.login)} class="title">
                    {user.login}
                  </a>
                  {user.full_name && <span class="muted"> {user.full_name}</span>}
                </span>
              </>
            ),
          }))}
        />
      ) : (
        <>
          {allRepos && <Notice>This team has access to every repository of the organization, present and future.</Notice>}
          <TeamList
            kit={kit}
            field={{ name: 'repo_name', label: 'Repository name', maxLength: 100, button: 'Add repository' }}
            actions={isOwner && !allRepos ? { add: action('repo/add'), remove: action('repo/remove') } : null}
            empty="This team has no repositories."
            listClass="rows"
            items={(props.repos ?? []).map((repo) => ({
              name: repo.name,
              content: (
                <>
                  <a href={repoHref(repo.full_name)} class="title">
                    {repo.full_name}
                  </a>
                  {repo.private && <span class="badge">Private</span>}
                </>
              ),
            }))}
          />
        </>
      )}
    </Layout>
  );
}

// --- new / edit ------------------------------------------------------------------------------------

export interface TeamForm {
  team_name: string;
  description: string;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  /** Administrator access to every unit, instead of per-unit permissions. */
  admin: boolean;
  units: Record<string, UnitMode>;
}

export interface TeamFormProps {
  kit: PageKit;
  org: OrgJson;
  /** The team being edited; absent for a new team. */
  team?: TeamJson;
  form: TeamForm;
  saved?: boolean;
  error?: string;
  deleteError?: string;
}

function UnitTable({ form }: { form: TeamForm }) {
  return (
    <fieldset>
      <legend>Permissions per unit (with “Access by unit” above)</legend>
      {TEAM_UNITS.map(({ unit, label, readOnly }) => {
        const id = unitField(unit);
        const modes: UnitMode[] = readOnly ? ['none', 'read'] : ['none', 'read', 'write'];
        return (
          <div class="unit-row">
            <label for={id}>{label}</label>
            <select id={id} name={id}>
              {modes.map((m) => (
                <option value={m} selected={form.units[unit] === m}>
                  {{ none: 'No access', read: 'Read', write: 'Write' }[m]}
                </option>
              ))}
            </select>
          </div>
        );
      })}
    </fieldset>
  );
}

function TeamPowers({ form }: { form: TeamForm }) {
  return (
    <>
      <fieldset>
        <legend>Repository access</legend>
        <div class="check">
          <input type="radio" id="repo_access_specific" name="repo_access" value="specific" checked={!form.includes_all_repositories} />
          <label for="repo_access_specific">Specific repositories: only the repositories added to the team</label>
        </div>
        <div class="check">
          <input type="radio" id="repo_access_all" name="repo_access" value="all" checked={form.includes_all_repositories} />
          <label for="repo_access_all">All repositories: every repository of the organization, present and future</label>
        </div>
      </fieldset>
      <Checkbox id="can_create_org_repo" checked={form.can_create_org_repo} label="Members may create repositories in the organization" />
      <fieldset>
        <legend>Permission</legend>
        <div class="check">
          <input type="radio" id="permission_units" name="permission" value="units" checked={!form.admin} />
          <label for="permission_units">Access by unit: the permissions chosen below</label>
        </div>
        <div class="check">
          <input type="radio" id="permission_admin" name="permission" value="admin" checked={form.admin} />
          <label for="permission_admin">Administrator: admin access to every unit, including repository settings</label>
        </div>
      </fieldset>
      <UnitTable form={form} />
    </>
  );
}

export function TeamFormPage({ kit, org, team, form, saved, error, deleteError }: TeamFormProps) {
  const owners = team !== undefined && isOwnersTeam(team);
  const action = team ? teamHref(org.name, team.name, '/edit') : orgHref(org.name, '/teams/new');
  return (
    <Layout kit={kit} title={team ? `Edit ${team.name}` : 'New team'}>
      <OrgHeader org={org} tab="teams" isMember isOwner />
      <section class="wide-form">
        <h1>{team ? `Edit team ${team.name}` : 'New team'}</h1>
        {saved && <Notice kind="success">The team was saved.</Notice>}
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action={action} class="stacked">
          <Csrf kit={kit} />
          {owners ? (
            <p class="meta">
              The Owners team keeps its name, owner access to every repository and the right to create repositories; only its description
              can change.
            </p>
          ) : (
            <TextField
              id="team_name"
              label="Team name"
              value={form.team_name}
              required
              maxLength={255}
              hint="Letters, digits, dashes, underscores and dots."
            />
          )}
          <TextField id="description" label="Description" value={form.description} maxLength={255} />
          {!owners && <TeamPowers form={form} />}
          <button type="submit" class="primary">
            {team ? 'Update team' : 'Create team'}
          </button>
        </form>
        {team && !owners && (
          <TypedConfirm
            kit={kit}
            action={teamHref(org.name, team.name, '/delete')}
            field="team_name_confirm"
            expected={team.name}
            title="Delete this team"
            button="Delete team"
            error={deleteError}
          >
            <p>Its members lose the access the team gave them; the repositories stay.</p>
          </TypedConfirm>
        )}
      </section>
    </Layout>
  );
}
