/**
 * User accounts in site administration: `/admin/users` (search by name, login name and source),
 * `/admin/users/new` (with an optional creation time) and `/admin/users/{id}` (edit, rename, delete
 * with purge behind a typed confirmation).
 */
import { Notice, userHref, When } from './common';
import { Csrf, type PageKit } from './layout';
import { AdminShell, ListPager } from './admin-pages';
import { Checkbox, TextField, TypedConfirm, VisibilityChoice, type VisibilityName } from './org-admin-parts';

/** Gitea's User JSON as a site admin sees it. */
export interface AdminUserJson {
  id: number;
  login: string;
  login_name: string;
  full_name: string;
  email: string;
  is_admin: boolean;
  restricted: boolean;
  active: boolean;
  prohibit_login: boolean;
  created: string;
  last_login: string;
  website: string;
  location: string;
  description: string;
  visibility: VisibilityName;
}

export interface UserSearch {
  q: string;
  login_name: string;
  source_id: string;
}

/** Go's zero time, which the API reports for "never". */
const never = (at: string) => !at || at.startsWith('0001-');

function Flags({ user }: { user: AdminUserJson }) {
  return (
    <>
      {user.is_admin && <span class="badge">Admin</span>}
      {user.restricted && <span class="badge">Restricted</span>}
      {!user.active && <span class="badge">Inactive</span>}
      {user.prohibit_login && <span class="badge">Sign-in prohibited</span>}
    </>
  );
}

export interface AdminUsersProps {
  kit: PageKit;
  search: UserSearch;
  users: AdminUserJson[];
  page: number;
  limit: number;
  total: number;
  notice?: string;
}

function UserSearchForm({ search }: { search: UserSearch }) {
  return (
    <form method="get" action="/admin/users" role="search" class="user-search">
      <div>
        <label for="q">Name or full name</label>
        <input id="q" name="q" type="search" value={search.q} />
      </div>
      <div>
        <label for="login_name">Login name at its source</label>
        <input id="login_name" name="login_name" value={search.login_name} />
      </div>
      <div>
        <label for="source_id">Authentication source ID</label>
        <input id="source_id" name="source_id" type="number" min={0} value={search.source_id} />
      </div>
      <button type="submit">Search</button>
    </form>
  );
}

export function AdminUsersPage({ kit, search, users, page, limit, total, notice }: AdminUsersProps) {
  const filtered = Boolean(search.login_name || search.source_id);
  return (
    <AdminShell kit={kit} tab="users" title="User accounts">
      <p>
        <a class="button primary" href="/admin/users/new">
          Create user account
        </a>
      </p>
      {notice && <Notice kind="success">{notice}</Notice>}
      <UserSearchForm search={search} />
      {filtered && search.q && <Notice>The name search is ignored when searching by login name or source.</Notice>}
      {users.length === 0 ? (
        <p class="empty">No users found.</p>
      ) : (
        <div class="table-scroll">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">ID</th>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Login name</th>
                <th scope="col">Created</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr>
                  <td>{user.id}</td>
                  <td>
                    <a href={userHref(user.login)}>{user.login}</a> <Flags user={user} />
                  </td>
                  <td>{user.email}</td>
                  <td>{user.login_name}</td>
                  <td>
                    <When at={user.created} />
                  </td>
                  <td>{never(user.last_login) ? 'Never' : <When at={user.last_login} />}</td>
                  <td>
                    <a href={`/admin/users/${user.id}`} aria-label={`Edit ${user.login}`}>
                      Edit
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ListPager base="/admin/users" query={{ ...search }} page={page} limit={limit} total={total} />
    </AdminShell>
  );
}

// --- new -------------------------------------------------------------------------------------------

export interface NewUserForm {
  user_name: string;
  email: string;
  full_name: string;
  login_name: string;
  source_id: string;
  visibility: VisibilityName;
  must_change_password: boolean;
  restricted: boolean;
  created_at: string;
}

export function AdminNewUserPage({ kit, form, error }: { kit: PageKit; form: NewUserForm; error?: string }) {
  return (
    <AdminShell kit={kit} tab="users" title="Create user account">
      <section class="wide-form">
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action="/admin/users/new" class="stacked">
          <Csrf kit={kit} />
          <TextField id="user_name" label="User name" value={form.user_name} required maxLength={40} autocomplete="off" />
          <TextField id="email" label="Email address" type="email" value={form.email} required maxLength={255} autocomplete="off" />
          <TextField id="password" label="Password" type="password" value="" required maxLength={255} autocomplete="new-password" />
          <TextField id="full_name" label="Full name" value={form.full_name} maxLength={100} />
          <TextField
            id="source_id"
            label="Authentication source ID"
            type="number"
            value={form.source_id}
            hint="0 or empty: a local account signing in with its password."
          />
          <TextField id="login_name" label="Login name at the source" value={form.login_name} maxLength={255} />
          <VisibilityChoice value={form.visibility} who="the user and site administrators" />
          <Checkbox id="must_change_password" checked={form.must_change_password} label="Require a password change at first sign-in" />
          <Checkbox id="restricted" checked={form.restricted} label="Restricted: sees only what they are explicitly given" />
          <TextField
            id="created_at"
            label="Account created at (optional, UTC)"
            type="datetime-local"
            value={form.created_at}
            hint="For accounts moved from elsewhere; empty means now."
          />
          <button type="submit" class="primary">
            Create user account
          </button>
        </form>
      </section>
    </AdminShell>
  );
}

// --- edit ------------------------------------------------------------------------------------------

export interface EditUserForm {
  email: string;
  full_name: string;
  login_name: string;
  source_id: string;
  website: string;
  location: string;
  description: string;
  visibility: VisibilityName;
  must_change_password: boolean;
  active: boolean;
  admin: boolean;
  restricted: boolean;
  prohibit_login: boolean;
}

export interface AdminEditUserProps {
  kit: PageKit;
  user: AdminUserJson;
  form: EditUserForm;
  notice?: string;
  error?: string;
  renameError?: string;
  newName?: string;
  deleteError?: string;
  /** What other plugins say about the account (`webPagesRef.addAdminUserFact`), e.g. its two-factor state. */
  facts?: string[];
}

function EditUserFields({ form }: { form: EditUserForm }) {
  return (
    <>
      <TextField id="full_name" label="Full name" value={form.full_name} maxLength={100} />
      <TextField id="email" label="Email address" type="email" value={form.email} required maxLength={255} />
      <TextField id="source_id" label="Authentication source ID" type="number" value={form.source_id} hint="Empty: unchanged." />
      <TextField id="login_name" label="Login name at the source" value={form.login_name} maxLength={255} />
      <TextField
        id="password"
        label="New password"
        type="password"
        value=""
        maxLength={255}
        autocomplete="new-password"
        hint="Empty: the password stays."
      />
      <Checkbox id="must_change_password" checked={form.must_change_password} label="Require a password change at next sign-in" />
      <TextField id="website" label="Website" type="url" value={form.website} maxLength={255} />
      <TextField id="location" label="Location" value={form.location} maxLength={50} />
      <label for="description">Biography</label>
      <textarea id="description" name="description" maxLength={255} rows={3}>
        {form.description}
      </textarea>
      <VisibilityChoice value={form.visibility} who="the user and site administrators" />
      <fieldset>
        <legend>Permissions</legend>
        <Checkbox id="active" checked={form.active} label="Account is activated" />
        <Checkbox id="prohibit_login" checked={form.prohibit_login} label="Prohibit sign-in" />
        <Checkbox id="admin" checked={form.admin} label="Site administrator" />
        <Checkbox id="restricted" checked={form.restricted} label="Restricted: sees only what they are explicitly given" />
      </fieldset>
    </>
  );
}

export function AdminEditUserPage(props: AdminEditUserProps) {
  const { kit, user, form, notice, error, renameError, newName, deleteError, facts = [] } = props;
  const base = `/admin/users/${user.id}`;
  return (
    <AdminShell kit={kit} tab="users" title={`Edit user account ${user.login}`}>
      <p class="meta">
        <a href={userHref(user.login)}>{user.login}</a> · ID {user.id} · created <When at={user.created} /> <Flags user={user} />
        {facts.map((fact) => (
          <span class="admin-user-fact"> · {fact}</span>
        ))}
      </p>
      {notice && <Notice kind="success">{notice}</Notice>}
      <section class="wide-form">
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action={base} class="stacked">
          <Csrf kit={kit} />
          <EditUserFields form={form} />
          <button type="submit" class="primary">
            Update user account
          </button>
        </form>
        <section class="box" aria-labelledby="rename-title">
          <header>
            <h2 id="rename-title">Rename</h2>
          </header>
          <div class="body">
            {renameError && <Notice kind="error">{renameError}</Notice>}
            <form method="post" action={`${base}/rename`} class="stacked">
              <Csrf kit={kit} />
              <TextField
                id="new_name"
                label="New user name"
                value={newName ?? user.login}
                required
                maxLength={40}
                hint="Links to the old name stop working; repositories move with the account."
              />
              <button type="submit">Rename user</button>
            </form>
          </div>
        </section>
        <TypedConfirm
          kit={kit}
          action={`${base}/delete`}
          field="confirm_name"
          expected={user.login}
          title="Delete this user account"
          button="Delete user account"
          error={deleteError}
        >
          <p>The account must own no repositories or organizations, unless its data is purged with it.</p>
          <Checkbox id="purge" checked={false} label="Purge: delete the user's repositories, organization memberships and other data too" />
        </TypedConfirm>
      </section>
    </AdminShell>
  );
}
