/** Repository history pages: the commit list, one commit with its diff, and the branch and tag lists. */
import type { CodeRef, RefList } from '../routes/repo-git';
import type { ComponentChildren } from 'preact';
import { Avatar, Notice, Pager, plural, Rendered, repoHref, UserLink, When } from './common';
import type { RepoJson } from './home-pages';
import { Layout, type PageKit } from './layout';
import { RepoHeader } from './repo-header';
import { Breadcrumb, CodeBar, commitUrl, refUrl } from './repo-parts';

/** Gitea's Commit JSON, the fields the pages show. */
export interface CommitJson {
  sha: string;
  html_url: string;
  commit: {
    message: string;
    author: { name: string; email: string; date: string };
    committer: { name: string; email: string; date: string };
  };
  author: { login: string; avatar_url: string } | null;
  committer: { login: string; avatar_url: string } | null;
  parents: Array<{ sha: string }>;
  stats: { total: number; additions: number; deletions: number } | null;
  files: Array<{ filename: string; status: string }> | null;
}

/** Gitea's Branch JSON. */
export interface BranchJson {
  name: string;
  commit: { id: string; message: string; timestamp: string; author: { name: string; username?: string } } | null;
  protected: boolean;
}

/** Gitea's Tag JSON. */
export interface TagJson {
  name: string;
  message: string;
  id: string;
  commit: { sha: string; created: string };
}

function summaryOf(message: string): string {
  return message.split('\n', 1)[0].trim() || '(no message)';
}

function Author({ commit }: { commit: CommitJson }) {
  const person = commit.author;
  return person ? (
    <>
      <Avatar url={person.avatar_url} name={person.login} size={20} /> <UserLink user={person} />
    </>
  ) : (
    <span>{commit.commit.author.name}</span>
  );
}

export interface CommitsProps {
  kit: PageKit;
  repo: RepoJson;
  refs: RefList;
  current: CodeRef;
  path: string;
  commits: CommitJson[];
  page: number;
  limit: number;
  total: number;
}

export function CommitsPage({ kit, repo, refs, current, path, commits, page, limit, total }: CommitsProps) {
  const here = refUrl(repo, 'commits', current, path);
  return (
    <Layout kit={kit} title={`Commits · ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="code" />
      <CodeBar repo={repo} refs={refs} current={current} path={path} what="commits" />
      {path && <Breadcrumb repo={repo} current={current} path={path} />}
      <h2>{plural(total, 'commit')}</h2>
      <ul class="rows commits">
        {commits.map((c) => (
          <li>
            <a href={commitUrl(repo, c.sha)} class="title">
              {summaryOf(c.commit.message)}
            </a>
            <p class="meta">
              <Author commit={c} /> committed <When at={c.commit.committer.date || c.commit.author.date} /> ·{' '}
              <a href={commitUrl(repo, c.sha)} class="sha">
                <code>{c.sha.slice(0, 10)}</code>
              </a>{' '}
              · <a href={refUrl(repo, 'src', { kind: 'commit', name: c.sha }, '')}>Browse files</a>
            </p>
          </li>
        ))}
      </ul>
      <Pager page={page} limit={limit} total={total} href={(p) => `${here}?page=${p}`} />
    </Layout>
  );
}

export interface CommitProps {
  kit: PageKit;
  repo: RepoJson;
  commit: CommitJson;
  /** diff2html's line-by-line HTML of the commit's patch (escaped by diff2html). */
  diffHtml: string;
  truncated: boolean;
}

export function CommitPage({ kit, repo, commit, diffHtml, truncated }: CommitProps) {
  const message = commit.commit.message.trim();
  const nl = message.indexOf('\n');
  const summary = nl < 0 ? message : message.slice(0, nl);
  const body = nl < 0 ? '' : message.slice(nl + 1).trim();
  const stats = commit.stats;
  return (
    <Layout kit={kit} title={`${summary || commit.sha.slice(0, 10)} · ${repo.full_name}`} styles={['diff.css', 'highlight.css']}>
      <RepoHeader repo={repo} tab="code" />
      <section class="box commit-head" aria-labelledby="commit-title">
        <header>
          <h2 id="commit-title">{summary || '(no message)'}</h2>
          <a href={refUrl(repo, 'src', { kind: 'commit', name: commit.sha })}>Browse files</a>
        </header>
        <div class="body">
          {body && <pre class="commit-body">{body}</pre>}
          <p class="meta">
            <Author commit={commit} /> authored <When at={commit.commit.author.date} />
            {commit.commit.committer.name !== commit.commit.author.name && <> · committed by {commit.commit.committer.name}</>}
          </p>
          <p class="meta">
            Commit <code>{commit.sha}</code>
            {commit.parents.length > 0 && (
              <>
                {' · '}
                {commit.parents.length === 1 ? 'Parent' : 'Parents'}{' '}
                {commit.parents.map((p) => (
                  <>
                    <a href={commitUrl(repo, p.sha)}>
                      <code>{p.sha.slice(0, 10)}</code>
                    </a>{' '}
                  </>
                ))}
              </>
            )}
          </p>
          {stats && (
            <p class="meta">
              {commit.files ? `${commit.files.length} changed ${commit.files.length === 1 ? 'file' : 'files'} · ` : ''}
              <span class="added">+{stats.additions}</span> <span class="deleted">−{stats.deletions}</span>
            </p>
          )}
        </div>
      </section>
      {truncated && (
        <Notice>
          This diff is too large to show in full; the files after the cut are left out.{' '}
          <a href={`${repoHref(repo.full_name)}/commit/${commit.sha}.diff`}>Download the whole diff</a>.
        </Notice>
      )}
      {diffHtml ? <Rendered html={diffHtml} class="diff" /> : <p class="empty">No changes.</p>}
    </Layout>
  );
}

export interface RefListProps<T> {
  kit: PageKit;
  repo: RepoJson;
  items: T[];
  page: number;
  limit: number;
  total: number;
}

const REF_PAGES = {
  branches: { title: 'Branches', one: 'branch', many: 'branches', none: 'No branches yet.' },
  tags: { title: 'Tags', one: 'tag', many: 'tags', none: 'No tags yet.' },
};

/** The frame of the branch and tag lists: header, Branches/Tags tabs, the count, the rows (or none yet) and the pager. */
function RefListPage<T>({
  kit,
  repo,
  items,
  page,
  limit,
  total,
  what,
  children,
}: RefListProps<T> & {
  what: 'branches' | 'tags';
  children: ComponentChildren;
}) {
  const base = repoHref(repo.full_name);
  const words = REF_PAGES[what];
  return (
    <Layout kit={kit} title={`${words.title} · ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="code" />
      <nav class="tabs sub" aria-label="Refs">
        <a href={`${base}/branches`} aria-current={what === 'branches' ? 'page' : undefined}>
          Branches
        </a>
        <a href={`${base}/tags`} aria-current={what === 'tags' ? 'page' : undefined}>
          Tags
        </a>
      </nav>
      <h2>{plural(total, words.one, words.many)}</h2>
      {items.length === 0 ? <p class="empty">{words.none}</p> : <ul class="rows refs">{children}</ul>}
      <Pager page={page} limit={limit} total={total} href={(p) => `${base}/${what}?page=${p}`} />
    </Layout>
  );
}

export function BranchesPage(props: RefListProps<BranchJson>) {
  const { repo, items } = props;
  return (
    <RefListPage {...props} what="branches">
      {items.map((b) => {
        const ref = { kind: 'branch' as const, name: b.name };
        return (
          <li>
            <a href={refUrl(repo, 'src', ref)} class="title">
              {b.name}
            </a>
            {b.name === repo.default_branch && <span class="badge">Default</span>}
            {b.protected && <span class="badge">Protected</span>}
            {b.commit && (
              <p class="meta">
                <a href={commitUrl(repo, b.commit.id)}>{summaryOf(b.commit.message)}</a> ·{' '}
                {b.commit.author.username || b.commit.author.name} · <When at={b.commit.timestamp} /> ·{' '}
                <a href={refUrl(repo, 'commits', ref)}>Commits</a>
              </p>
            )}
          </li>
        );
      })}
    </RefListPage>
  );
}

export function TagsPage(props: RefListProps<TagJson>) {
  const { repo, items } = props;
  return (
    <RefListPage {...props} what="tags">
      {items.map((t) => (
        <li>
          <a href={refUrl(repo, 'src', { kind: 'tag', name: t.name })} class="title">
            {t.name}
          </a>
          <p class="meta">
            <a href={commitUrl(repo, t.commit.sha)}>
              <code>{t.commit.sha.slice(0, 10)}</code>
            </a>{' '}
            · <When at={t.commit.created} /> · <a href={refUrl(repo, 'commits', { kind: 'tag', name: t.name })}>Commits</a>
          </p>
          {t.message.trim() && <p>{summaryOf(t.message)}</p>}
        </li>
      ))}
    </RefListPage>
  );
}
