/**
 * Site administration at Gitea's URLs: `/admin` (dashboard), `/admin/emails`, `/admin/orgs`,
 * `/admin/repos` and `/admin/config`, with the tabs every admin page shares. Users and system
 * webhooks are in admin-user-pages.tsx and admin-hook-pages.tsx.
 */
import type { ComponentChildren } from 'preact';
import { Pager, repoHref, userHref, When } from './common';
import { Layout, type PageKit } from './layout';
import type { RepoJson } from './home-pages';
import type { OrgJson } from './org-pages';

export type AdminTab = 'dashboard' | 'users' | 'emails' | 'orgs' | 'repos' | 'hooks' | 'config';

const TABS: Array<[AdminTab, string, string]> = [
  ['dashboard', '/admin', 'Dashboard'],
  ['users', '/admin/users', 'Users'],
  ['emails', '/admin/emails', 'Emails'],
  ['orgs', '/admin/orgs', 'Organizations'],
  ['repos', '/admin/repos', 'Repositories'],
  ['hooks', '/admin/hooks', 'System webhooks'],
  ['config', '/admin/config', 'Configuration'],
];

/** Every admin page: the site layout, the admin tabs, the page's heading. */
export function AdminShell({ kit, tab, title, children }: { kit: PageKit; tab: AdminTab; title: string; children: ComponentChildren }) {
  return (
    <Layout kit={kit} title={`${title} · Site administration`}>
      <p class="repo-title">Site administration</p>
      <nav class="tabs" aria-label="Site administration">
        {TABS.map(([name, href, label]) => (
          <a href={href} aria-current={tab === name ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <h1>{title}</h1>
      {children}
    </Layout>
  );
}

/** A keyword search form of a list page. */
export function SearchForm({ action, q, label }: { action: string; q: string; label: string }) {
  return (
    <form method="get" action={action} role="search" class="search">
      <label for="q" class="visually-hidden">
        {label}
      </label>
      <input id="q" name="q" type="search" value={q} placeholder="Search…" />
      <button type="submit">Search</button>
    </form>
  );
}

/** A list page's paging links, keeping its query. */
export function ListPager({
  base,
  query,
  page,
  limit,
  total,
}: {
  base: string;
  query: Record<string, string>;
  page: number;
  limit: number;
  total: number;
}) {
  const href = (p: number) =>
    `${base}?${new URLSearchParams({ ...Object.fromEntries(Object.entries(query).filter(([, v]) => v)), page: String(p) })}`;
  return <Pager page={page} limit={limit} total={total} href={href} />;
}

// --- dashboard -------------------------------------------------------------------------------------

export interface DashboardCounts {
  users: number;
  orgs: number;
  repos: number;
  /** Null when system webhooks are off on this site. */
  hooks: number | null;
}

export function AdminDashboardPage({ kit, counts, version }: { kit: PageKit; counts: DashboardCounts; version: string }) {
  const stat = (label: string, value: number, href: string) => (
    <div>
      <dt>
        <a href={href}>{label}</a>
      </dt>
      <dd>{value}</dd>
    </div>
  );
  return (
    <AdminShell kit={kit} tab="dashboard" title="Dashboard">
      <dl class="stats">
        {stat('Users', counts.users, '/admin/users')}
        {stat('Organizations', counts.orgs, '/admin/orgs')}
        {stat('Repositories', counts.repos, '/admin/repos')}
        {counts.hooks !== null && stat('System webhooks', counts.hooks, '/admin/hooks')}
      </dl>
      <p class="meta">
        {kit.appName} speaks Gitea API <strong>{version}</strong>.
      </p>
    </AdminShell>
  );
}

// --- emails ----------------------------------------------------------------------------------------

export interface EmailJson {
  email: string;
  verified: boolean;
  primary: boolean;
  user_id: number;
  username: string;
}

export interface AdminListProps {
  kit: PageKit;
  q: string;
  page: number;
  limit: number;
  total: number;
}

export function AdminEmailsPage({ kit, q, page, limit, total, emails }: AdminListProps & { emails: EmailJson[] }) {
  return (
    <AdminShell kit={kit} tab="emails" title="User email addresses">
      <SearchForm action="/admin/emails" q={q} label="Search email addresses" />
      {emails.length === 0 ? (
        <p class="empty">No email addresses found.</p>
      ) : (
        <div class="table-scroll">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Email</th>
                <th scope="col">Primary</th>
                <th scope="col">Activated</th>
              </tr>
            </thead>
            <tbody>
              {emails.map((e) => (
                <tr>
                  <td>
                    <a href={`/admin/users/${e.user_id}`}>{e.username}</a>
                  </td>
                  <td>{e.email}</td>
                  <td>{e.primary ? 'Yes' : 'No'}</td>
                  <td>{e.verified ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ListPager base="/admin/emails" query={{ q }} page={page} limit={limit} total={total} />
    </AdminShell>
  );
}

// --- organizations ---------------------------------------------------------------------------------

export function AdminOrgsPage({ kit, page, limit, total, orgs }: Omit<AdminListProps, 'q'> & { orgs: OrgJson[] }) {
  return (
    <AdminShell kit={kit} tab="orgs" title="Organizations">
      <p>
        <a class="button primary" href="/org/create">
          New organization
        </a>
      </p>
      {orgs.length === 0 ? (
        <p class="empty">No organizations.</p>
      ) : (
        <div class="table-scroll">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">ID</th>
                <th scope="col">Name</th>
                <th scope="col">Full name</th>
                <th scope="col">Visibility</th>
              </tr>
            </thead>
            <tbody>
              {orgs.map((org) => (
                <tr>
                  <td>{org.id}</td>
                  <td>
                    <a href={userHref(org.name)}>{org.name}</a>
                  </td>
                  <td>{org.full_name}</td>
                  <td>{org.visibility}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ListPager base="/admin/orgs" query={{}} page={page} limit={limit} total={total} />
    </AdminShell>
  );
}

// --- repositories ----------------------------------------------------------------------------------

export function AdminReposPage({ kit, q, page, limit, total, repos }: AdminListProps & { repos: Array<RepoJson & { size?: number }> }) {
  return (
    <AdminShell kit={kit} tab="repos" title="Repositories">
      <SearchForm action="/admin/repos" q={q} label="Search repositories" />
      {repos.length === 0 ? (
        <p class="empty">No repositories found.</p>
      ) : (
        <div class="table-scroll">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">ID</th>
                <th scope="col">Owner</th>
                <th scope="col">Name</th>
                <th scope="col">Private</th>
                <th scope="col">Stars</th>
                <th scope="col">Forks</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {repos.map((repo) => (
                <tr>
                  <td>{repo.id}</td>
                  <td>
                    <a href={userHref(repo.owner.login)}>{repo.owner.login}</a>
                  </td>
                  <td>
                    <a href={repoHref(repo.full_name)}>{repo.name}</a>
                    {repo.fork && <span class="badge">Fork</span>}
                    {repo.archived && <span class="badge">Archived</span>}
                  </td>
                  <td>{repo.private ? 'Yes' : 'No'}</td>
                  <td>{repo.stars_count}</td>
                  <td>{repo.forks_count}</td>
                  <td>
                    <When at={repo.updated_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ListPager base="/admin/repos" query={{ q }} page={page} limit={limit} total={total} />
    </AdminShell>
  );
}

// --- configuration ---------------------------------------------------------------------------------

/** What `/version` and `/settings/{api,repository,ui,attachment}` report; null where the API does not serve it. */
export interface ConfigSummary {
  version: string;
  api: Record<string, unknown> | null;
  repository: Record<string, unknown> | null;
  ui: Record<string, unknown> | null;
  attachment: Record<string, unknown> | null;
}

const LABELS: Record<string, string> = {
  max_response_items: 'Largest page of an API list',
  default_paging_num: 'Default page size',
  default_git_trees_per_page: 'Git tree entries per page',
  default_max_blob_size: 'Largest blob the contents API returns (bytes)',
  mirrors_disabled: 'Mirrors disabled',
  http_git_disabled: 'Git over HTTP disabled',
  migrations_disabled: 'Migrations disabled',
  stars_disabled: 'Stars disabled',
  time_tracking_disabled: 'Time tracking disabled',
  lfs_disabled: 'Git LFS disabled',
  default_theme: 'Default theme',
  allowed_reactions: 'Reactions',
  custom_emojis: 'Custom emojis',
  enabled: 'Attachments enabled',
  allowed_types: 'Allowed file types',
  max_size: 'Largest attachment (MB)',
  max_files: 'Attachments per upload',
};

function shown(value: unknown): string {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.join(', ');
  return String(value ?? '');
}

function Settings({ title, values }: { title: string; values: Record<string, unknown> | null }) {
  return (
    <section>
      <h2>{title}</h2>
      {values === null ? (
        <p class="empty">Not reported by this server.</p>
      ) : (
        <dl class="config">
          {Object.entries(values).map(([key, value]) => (
            <div>
              <dt>{LABELS[key] ?? key}</dt>
              <dd>{shown(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

export function AdminConfigPage({ kit, config }: { kit: PageKit; config: ConfigSummary }) {
  return (
    <AdminShell kit={kit} tab="config" title="Configuration">
      <p class="meta">
        What the API’s settings endpoints report. Secrets (keys, passwords, tokens) are never shown here; the full configuration is the
        operator’s configuration file and environment.
      </p>
      <section>
        <h2>Server</h2>
        <dl class="config">
          <div>
            <dt>Site name</dt>
            <dd>{kit.appName}</dd>
          </div>
          <div>
            <dt>Gitea API version</dt>
            <dd>{config.version}</dd>
          </div>
        </dl>
      </section>
      <Settings title="API" values={config.api} />
      <Settings title="Repositories" values={config.repository} />
      <Settings title="Interface" values={config.ui} />
      <Settings title="Attachments" values={config.attachment} />
    </AdminShell>
  );
}
