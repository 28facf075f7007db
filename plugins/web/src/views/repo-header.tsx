/**
 * The top of every repository page: owner/name with badges, and the tabs Code, Issues and Pull
 * requests (those two only when the repository has the unit on, each with its open count), Releases
 * (with its count) and Wiki (each only when the unit is on), and
 * Settings for the repository's administrators.
 */
import { repoHref, userHref } from './common';
import type { RepoJson } from './home-pages';

export type RepoTab = 'code' | 'issues' | 'pulls' | 'settings' | 'releases' | 'wiki';

export interface RepoHeaderProps {
  repo: RepoJson;
  /** The tab marked `aria-current="page"`. */
  tab: RepoTab;
  /**
   * `h1` (default): the repository's name is the page's heading, with its stars, forks and
   * description (the code pages). `breadcrumb`: a smaller line above a page whose own h1 is
   * something else (an issue's or a pull request's title, "Issues", "Compare changes").
   */
  title?: 'h1' | 'breadcrumb';
}

export function RepoHeader({ repo, tab, title = 'h1' }: RepoHeaderProps) {
  const base = repoHref(repo.full_name);
  const current = (name: RepoTab) => (tab === name ? 'page' : undefined);
  const name = (
    <>
      <a href={userHref(repo.owner.login)}>{repo.owner.login}</a> / <a href={base}>{repo.name}</a>
    </>
  );
  return (
    <>
      <header class="repo-head">
        {title === 'h1' ? <h1>{name}</h1> : <p class="repo-title">{name}</p>}
        {repo.private && <span class="badge">Private</span>}
        {repo.fork && <span class="badge">Fork</span>}
        {repo.mirror && <span class="badge">Mirror</span>}
        {repo.template && <span class="badge">Template</span>}
        {repo.archived && <span class="badge">Archived</span>}
        {title === 'h1' && (
          <p class="meta repo-counts">
            <span>
              ★ {repo.stars_count} <span class="visually-hidden">stars</span>
            </span>{' '}
            · <span>{repo.forks_count} forks</span>
          </p>
        )}
      </header>
      {title === 'h1' && repo.description && <p class="repo-description">{repo.description}</p>}
      <nav class="tabs" aria-label="Repository">
        <a href={base} aria-current={current('code')}>
          Code
        </a>
        {repo.has_issues !== false && (
          <a href={`${base}/issues`} aria-current={current('issues')}>
            Issues <span class="count">{repo.open_issues_count}</span>
          </a>
        )}
        {repo.has_pull_requests !== false && (
          <a href={`${base}/pulls`} aria-current={current('pulls')}>
            Pull requests <span class="count">{repo.open_pr_counter}</span>
          </a>
        )}
        {repo.has_releases !== false && (
          <a href={`${base}/releases`} aria-current={current('releases')}>
            Releases{' '}
            {typeof (repo as { release_counter?: number }).release_counter === 'number' && (
              <span class="count">{(repo as { release_counter?: number }).release_counter}</span>
            )}
          </a>
        )}
        {repo.has_wiki !== false && (
          <a href={`${base}/wiki`} aria-current={current('wiki')}>
            Wiki
          </a>
        )}
        {(repo as { has_packages?: boolean }).has_packages !== false && (
          // The owner's packages: packages are not linked to repositories here (the API's `repository` is always null).
          <a href={`${userHref(repo.owner.login)}/-/packages`}>Packages</a>
        )}
        {repo.permissions?.admin && (
          <a href={`${base}/settings`} aria-current={current('settings')}>
            Settings
          </a>
        )}
      </nav>
    </>
  );
}
