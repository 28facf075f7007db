import { Avatar, Pager, repoHref, userHref, When } from './common';
import { Layout, type PageKit } from './layout';

/** Gitea's Repository JSON, the fields pages show. */
export interface RepoJson {
  id: number;
  name: string;
  full_name: string;
  description: string;
  private: boolean;
  fork: boolean;
  empty: boolean;
  stars_count: number;
  forks_count: number;
  open_issues_count: number;
  open_pr_counter: number;
  updated_at: string;
  default_branch: string;
  owner: { login: string; avatar_url: string };
  html_url: string;
  clone_url: string;
  permissions?: { admin: boolean; push: boolean; pull: boolean };
  has_issues?: boolean;
  has_pull_requests?: boolean;
  has_wiki?: boolean;
  has_releases?: boolean;
  template?: boolean;
  archived?: boolean;
  mirror?: boolean;
}

export interface UserJson {
  id: number;
  login: string;
  full_name: string;
  avatar_url: string;
  description?: string;
  website?: string;
  location?: string;
  created?: string;
  visibility?: string;
  username?: string;
}

export interface ActivityJson {
  id: number;
  op_type: string;
  act_user?: UserJson;
  repo?: RepoJson;
  ref_name?: string;
  content?: string;
  created: string;
}

export function RepoList({ repos }: { repos: RepoJson[] }) {
  if (repos.length === 0) return <p class="empty">No repositories.</p>;
  return (
    <ul class="cards">
      {repos.map((repo) => (
        <li>
          <a href={repoHref(repo.full_name)} class="title">
            {repo.full_name}
          </a>
          {repo.private && <span class="badge">Private</span>}
          {repo.fork && <span class="badge">Fork</span>}
          {repo.archived && <span class="badge">Archived</span>}
          {repo.description && <p>{repo.description}</p>}
          <p class="meta">
            ★ {repo.stars_count} · forks {repo.forks_count} · updated <When at={repo.updated_at} />
          </p>
        </li>
      ))}
    </ul>
  );
}

export function UserList({ users }: { users: UserJson[] }) {
  if (users.length === 0) return <p class="empty">Nobody found.</p>;
  return (
    <ul class="cards">
      {users.map((user) => (
        <li>
          <Avatar url={user.avatar_url} name={user.login} size={32} />{' '}
          <a href={userHref(user.login)} class="title">
            {user.login}
          </a>
          {user.full_name && <span class="muted"> {user.full_name}</span>}
        </li>
      ))}
    </ul>
  );
}

const ACTIONS: Record<string, string> = {
  create_repo: 'created repository',
  rename_repo: 'renamed repository',
  transfer_repo: 'transferred repository',
  commit_repo: 'pushed to',
  create_issue: 'opened an issue in',
  create_pull_request: 'opened a pull request in',
  comment_issue: 'commented on an issue in',
  comment_pull: 'commented on a pull request in',
  close_issue: 'closed an issue in',
  reopen_issue: 'reopened an issue in',
  close_pull_request: 'closed a pull request in',
  reopen_pull_request: 'reopened a pull request in',
  merge_pull_request: 'merged a pull request in',
  push_tag: 'pushed a tag to',
  delete_tag: 'deleted a tag in',
  delete_branch: 'deleted a branch in',
  publish_release: 'published a release in',
  star_repo: 'starred',
  watch_repo: 'started watching',
  fork_repo: 'forked',
};

export function Feed({ activities }: { activities: ActivityJson[] }) {
  if (activities.length === 0) return <p class="empty">Nothing happened here yet.</p>;
  return (
    <ol class="feed">
      {activities.map((a) => (
        <li>
          <Avatar url={a.act_user?.avatar_url} name={a.act_user?.login ?? ''} />{' '}
          <a href={userHref(a.act_user?.login ?? '')}>{a.act_user?.login}</a> {ACTIONS[a.op_type] ?? a.op_type}{' '}
          {a.repo && <a href={repoHref(a.repo.full_name)}>{a.repo.full_name}</a>} <When at={a.created} />
        </li>
      ))}
    </ol>
  );
}

export function LandingPage({ kit }: { kit: PageKit }) {
  return (
    <Layout kit={kit} title="">
      <section class="hero">
        <h1>{kit.appName}</h1>
        <p>A self-hosted place for code: repositories, issues, pull requests and packages.</p>
        <p>
          <a class="button primary" href="/explore/repos">
            Explore repositories
          </a>{' '}
          <a class="button" href="/user/login">
            Sign in
          </a>
        </p>
      </section>
      <nav class="tabs" aria-label="Explore">
        <a href="/explore/repos">Repositories</a>
        <a href="/explore/users">Users</a>
        <a href="/explore/organizations">Organizations</a>
      </nav>
    </Layout>
  );
}

export function DashboardPage({ kit, feed, repos }: { kit: PageKit; feed: ActivityJson[] | null; repos: RepoJson[] }) {
  return (
    <Layout kit={kit} title="Dashboard">
      <div class="columns">
        <section>
          <h1>Activity</h1>
          {feed === null ? <p class="empty">The activity feed is turned off on this site.</p> : <Feed activities={feed} />}
        </section>
        <aside>
          <h2>
            Your repositories <a href="/repo/create">New</a>
          </h2>
          <RepoList repos={repos} />
        </aside>
      </div>
    </Layout>
  );
}

export type ExploreKind = 'repos' | 'users' | 'organizations';

export function ExplorePage(props: {
  kit: PageKit;
  kind: ExploreKind;
  q: string;
  page: number;
  limit: number;
  total: number;
  repos?: RepoJson[];
  users?: UserJson[];
}) {
  const { kit, kind, q, page, limit, total } = props;
  const label = { repos: 'Repositories', users: 'Users', organizations: 'Organizations' }[kind];
  const href = (p: number) => `/explore/${kind}?${new URLSearchParams({ ...(q ? { q } : {}), page: String(p) })}`;
  return (
    <Layout kit={kit} title={`Explore ${label.toLowerCase()}`}>
      <nav class="tabs" aria-label="Explore">
        <a href="/explore/repos" aria-current={kind === 'repos' ? 'page' : undefined}>
          Repositories
        </a>
        <a href="/explore/users" aria-current={kind === 'users' ? 'page' : undefined}>
          Users
        </a>
        <a href="/explore/organizations" aria-current={kind === 'organizations' ? 'page' : undefined}>
          Organizations
        </a>
      </nav>
      <h1>{label}</h1>
      {kind !== 'organizations' && (
        <form method="get" action={`/explore/${kind}`} role="search" class="search">
          <label for="q" class="visually-hidden">
            Search {label.toLowerCase()}
          </label>
          <input id="q" name="q" type="search" value={q} placeholder="Search…" />
          <button type="submit">Search</button>
        </form>
      )}
      {props.repos ? <RepoList repos={props.repos} /> : <UserList users={props.users ?? []} />}
      <Pager page={page} limit={limit} total={total} href={href} />
    </Layout>
  );
}

export function ProfilePage(props: {
  kit: PageKit;
  owner: UserJson;
  isOrg: boolean;
  repos: RepoJson[];
  page: number;
  limit: number;
  total: number;
  members: UserJson[] | null;
  teams: Array<{ id: number; name: string; description: string }> | null;
}) {
  const { kit, owner, isOrg, repos, page, limit, total } = props;
  const base = userHref(owner.login);
  return (
    <Layout kit={kit} title={owner.login}>
      <header class="profile">
        <Avatar url={owner.avatar_url} name={owner.login} size={96} />
        <div>
          <h1>
            {owner.full_name || owner.login} {owner.full_name && <span class="muted">{owner.login}</span>}
          </h1>
          {owner.description && <p>{owner.description}</p>}
          {owner.location && <p class="meta">{owner.location}</p>}
          {owner.website && /^https?:\/\//i.test(owner.website) && (
            <p class="meta">
              <a href={owner.website} rel="nofollow noopener">
                {owner.website}
              </a>
            </p>
          )}
        </div>
      </header>
      <nav class="tabs" aria-label="Profile">
        <a href={base} aria-current="page">
          Repositories
        </a>
        <a href={`${base}/-/packages`}>Packages</a>
        {isOrg && <a href={`/org${base}/members`}>People</a>}
        {isOrg && props.teams && <a href={`/org${base}/teams`}>Teams</a>}
      </nav>
      <div class="columns">
        <section>
          <h2>Repositories</h2>
          <RepoList repos={repos} />
          <Pager page={page} limit={limit} total={total} href={(p) => `${base}?page=${p}`} />
        </section>
        {isOrg && (
          <aside>
            <h2>Members</h2>
            {props.members ? <UserList users={props.members} /> : <p class="empty">Members are visible to members.</p>}
            {props.teams && (
              <>
                <h2>Teams</h2>
                <ul>
                  {props.teams.map((team) => (
                    <li>
                      <a href={`/org${base}/teams/${encodeURIComponent(team.name)}`}>{team.name}</a>{' '}
                      {team.description && <span class="muted">{team.description}</span>}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </aside>
        )}
      </div>
    </Layout>
  );
}
