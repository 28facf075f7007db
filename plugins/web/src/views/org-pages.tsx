/**
 * Organization pages at Gitea's URLs: `/org/create`, `/org/{org}/settings` (with the typed delete
 * confirmation) and `/org/{org}/members`; the header with the organization's tabs that the team
 * pages share.
 */
import { Avatar, Notice, Pager, userHref } from './common';
import { Csrf, Layout, type PageKit } from './layout';
import { ActionButton, Checkbox, TextField, TypedConfirm, VisibilityChoice, type VisibilityName } from './org-admin-parts';
import type { UserJson } from './home-pages';

/** Gitea's Organization JSON. */
export interface OrgJson {
  id: number;
  name: string;
  username?: string;
  full_name: string;
  avatar_url: string;
  description: string;
  website: string;
  location: string;
  visibility: VisibilityName;
  repo_admin_change_team_access: boolean;
}

export type OrgTab = 'members' | 'teams' | 'settings';

/** `/org/{org}/…`: an organization's management pages. */
export function orgHref(org: string, rest = ''): string {
  return `/org/${encodeURIComponent(org)}${rest}`;
}

/** The organization's name and tabs: Repositories, People, Teams (members), Settings (owners). */
export function OrgHeader({ org, tab, isMember, isOwner }: { org: OrgJson; tab: OrgTab; isMember: boolean; isOwner: boolean }) {
  const current = (name: OrgTab) => (tab === name ? 'page' : undefined);
  return (
    <>
      <header class="org-head">
        <Avatar url={org.avatar_url} name={org.name} size={32} />
        <p class="repo-title">
          <a href={userHref(org.name)}>{org.full_name || org.name}</a>
        </p>
        {org.visibility !== 'public' && <span class="badge">{org.visibility === 'private' ? 'Private' : 'Limited'}</span>}
      </header>
      <nav class="tabs" aria-label="Organization">
        <a href={userHref(org.name)}>Repositories</a>
        <a href={orgHref(org.name, '/members')} aria-current={current('members')}>
          People
        </a>
        {isMember && (
          <a href={orgHref(org.name, '/teams')} aria-current={current('teams')}>
            Teams
          </a>
        )}
        {isOwner && (
          <a href={orgHref(org.name, '/settings')} aria-current={current('settings')}>
            Settings
          </a>
        )}
      </nav>
    </>
  );
}

// --- create ----------------------------------------------------------------------------------------

export interface OrgCreateForm {
  org_name: string;
  full_name: string;
  visibility: VisibilityName;
  repo_admin_change_team_access: boolean;
}

export function OrgCreatePage({ kit, form, error }: { kit: PageKit; form: OrgCreateForm; error?: string }) {
  return (
    <Layout kit={kit} title="New organization">
      <section class="narrow wide-form">
        <h1>New organization</h1>
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action="/org/create" class="stacked">
          <Csrf kit={kit} />
          <TextField id="org_name" label="Organization name" value={form.org_name} required maxLength={40} />
          <TextField id="full_name" label="Full name" value={form.full_name} maxLength={100} />
          <VisibilityChoice value={form.visibility} />
          <Checkbox
            id="repo_admin_change_team_access"
            checked={form.repo_admin_change_team_access}
            label="Repository administrators may add and remove teams' access to their repository"
          />
          <button type="submit" class="primary">
            Create organization
          </button>
        </form>
      </section>
    </Layout>
  );
}

// --- settings --------------------------------------------------------------------------------------

export interface OrgSettingsForm {
  full_name: string;
  description: string;
  website: string;
  location: string;
  visibility: VisibilityName;
  repo_admin_change_team_access: boolean;
}

export interface OrgSettingsProps {
  kit: PageKit;
  org: OrgJson;
  form: OrgSettingsForm;
  saved?: boolean;
  error?: string;
  deleteError?: string;
}

export function OrgSettingsPage({ kit, org, form, saved, error, deleteError }: OrgSettingsProps) {
  return (
    <Layout kit={kit} title={`${org.name} settings`}>
      <OrgHeader org={org} tab="settings" isMember isOwner />
      <section class="wide-form">
        <h1>Organization settings</h1>
        {saved && <Notice kind="success">The organization’s settings were saved.</Notice>}
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action={orgHref(org.name, '/settings')} class="stacked">
          <Csrf kit={kit} />
          <p class="meta">
            Name: <strong>{org.name}</strong>
          </p>
          <TextField id="full_name" label="Full name" value={form.full_name} maxLength={100} />
          <label for="description">Description</label>
          <textarea id="description" name="description" maxLength={255} rows={3}>
            {form.description}
          </textarea>
          <TextField id="website" label="Website" type="url" value={form.website} maxLength={255} />
          <TextField id="location" label="Location" value={form.location} maxLength={50} />
          <VisibilityChoice value={form.visibility} />
          <Checkbox
            id="repo_admin_change_team_access"
            checked={form.repo_admin_change_team_access}
            label="Repository administrators may add and remove teams' access to their repository"
          />
          <button type="submit" class="primary">
            Update settings
          </button>
        </form>
        <TypedConfirm
          kit={kit}
          action={orgHref(org.name, '/settings/delete')}
          field="org_name"
          expected={org.name}
          title="Delete this organization"
          button="Delete organization"
          error={deleteError}
        >
          <p>
            Deleting an organization removes it, its teams and its members’ seats for good. It must own no repositories: transfer or delete
            them first.
          </p>
        </TypedConfirm>
      </section>
    </Layout>
  );
}

// --- people ----------------------------------------------------------------------------------------

export interface MemberRow {
  user: UserJson;
  isPublic: boolean;
  /** 'Owner' or 'Member' when the viewer may know it (signed in). */
  role: string | null;
}

export interface OrgMembersProps {
  kit: PageKit;
  org: OrgJson;
  members: MemberRow[];
  page: number;
  limit: number;
  total: number;
  isMember: boolean;
  isOwner: boolean;
  notice?: string;
}

export function OrgMembersPage(props: OrgMembersProps) {
  const { kit, org, members, page, limit, total, isMember, isOwner, notice } = props;
  const me = kit.viewer.user?.name.toLowerCase();
  const action = (name: string) => orgHref(org.name, `/members/action/${name}`);
  return (
    <Layout kit={kit} title={`${org.name} people`}>
      <OrgHeader org={org} tab="members" isMember={isMember} isOwner={isOwner} />
      <h1>People</h1>
      {notice && <Notice kind="success">{notice}</Notice>}
      {members.length === 0 ? (
        <p class="empty">No public members.</p>
      ) : (
        <ul class="rows members">
          {members.map(({ user, isPublic, role }) => {
            const self = user.login.toLowerCase() === me;
            return (
              <li>
                <Avatar url={user.avatar_url} name={user.login} size={32} />
                <span class="who">
                  <a href={userHref(user.login)} class="title">
                    {user.login}
                  </a>
                  {user.full_name && <span class="muted"> {user.full_name}</span>}
                </span>
                {role && <span class="badge">{role}</span>}
                {isMember && <span class="meta">{isPublic ? 'Public membership' : 'Private membership'}</span>}
                <span class="actions">
                  {self && (
                    <ActionButton
                      kit={kit}
                      action={action(isPublic ? 'private' : 'public')}
                      label={isPublic ? 'Make my membership private' : 'Make my membership public'}
                    />
                  )}
                  {isOwner && !self && (
                    <ActionButton
                      kit={kit}
                      action={action('remove')}
                      fields={{ uname: user.login }}
                      label="Remove"
                      name={`Remove ${user.login} from the organization`}
                      danger
                    />
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      <Pager page={page} limit={limit} total={total} href={(p) => orgHref(org.name, `/members?page=${p}`)} />
    </Layout>
  );
}
