/** Pieces the repository code pages share: URLs, the ref switcher, the path breadcrumb, commit lines, the clone box. */
import type { CodeRef, CommitSummary, RefList } from '../routes/repo-git';
import { encodeSegments, plural, repoHref, When } from './common';
import type { RepoJson } from './home-pages';

export type LinkKind = 'src' | 'raw' | 'blame' | 'commits';

/** `/{owner}/{repo}/{src|raw|blame|commits}/{branch|tag|commit}/{ref}/{path}`. */
export function refUrl(repo: RepoJson, what: LinkKind, ref: Pick<CodeRef, 'kind' | 'name'>, path = ''): string {
  return `${repoHref(repo.full_name)}/${what}/${ref.kind}/${encodeSegments(ref.name)}${path ? `/${encodeSegments(path)}` : ''}`;
}

export function commitUrl(repo: RepoJson, sha: string): string {
  return `${repoHref(repo.full_name)}/commit/${encodeURIComponent(sha)}`;
}

/** A unix time as the pages show dates. */
export function WhenUnix({ at }: { at: number }) {
  return at ? <When at={new Date(at * 1000).toISOString()} /> : null;
}

const SWITCHER_LIMIT = 50;

/**
 * Branches and tags as links in a disclosure (works without JavaScript, by keyboard): each keeps
 * the page kind (`src`, `commits`) and, for files, the path.
 */
export function RefSwitcher({
  repo,
  refs,
  current,
  href,
}: {
  repo: RepoJson;
  refs: RefList;
  current: CodeRef;
  href(ref: CodeRef): string;
}) {
  const label = current.kind === 'commit' ? current.name.slice(0, 10) : current.name;
  const list = (kind: 'branch' | 'tag', items: RefList['branches']) =>
    items.slice(0, SWITCHER_LIMIT).map((r) => (
      <li>
        <a
          href={href({ kind, name: r.name, commit: r.commit })}
          aria-current={current.kind === kind && current.name === r.name ? 'true' : undefined}
        >
          {r.name}
        </a>
      </li>
    ));
  return (
    <details class="ref-switcher">
      <summary>
        <span class="muted">{current.kind === 'branch' ? 'Branch' : current.kind === 'tag' ? 'Tag' : 'Commit'}:</span>{' '}
        <strong>{label}</strong>
      </summary>
      <div class="ref-menu">
        <p class="meta">Branches</p>
        <ul>{list('branch', refs.branches)}</ul>
        {refs.branches.length > SWITCHER_LIMIT && <a href={`${repoHref(repo.full_name)}/branches`}>All {refs.branches.length} branches</a>}
        {refs.tags.length > 0 && (
          <>
            <p class="meta">Tags</p>
            <ul>{list('tag', refs.tags)}</ul>
            {refs.tags.length > SWITCHER_LIMIT && <a href={`${repoHref(repo.full_name)}/tags`}>All {refs.tags.length} tags</a>}
          </>
        )}
      </div>
    </details>
  );
}

/** The bar above the code: ref switcher and links to commits, branches and tags. */
export function CodeBar({
  repo,
  refs,
  current,
  path = '',
  what = 'src',
}: {
  repo: RepoJson;
  refs: RefList;
  current: CodeRef;
  path?: string;
  what?: LinkKind;
}) {
  const base = repoHref(repo.full_name);
  return (
    <div class="code-bar">
      <RefSwitcher repo={repo} refs={refs} current={current} href={(ref) => refUrl(repo, what, ref, path)} />
      <nav class="code-links" aria-label="History">
        <a href={refUrl(repo, 'commits', current)}>Commits</a>
        <a href={`${base}/branches`}>{plural(refs.branches.length, 'branch', 'branches')}</a>
        <a href={`${base}/tags`}>{plural(refs.tags.length, 'tag')}</a>
      </nav>
    </div>
  );
}

/** The path as links: repository root, then each directory; the last segment is the current page. */
export function Breadcrumb({ repo, current, path }: { repo: RepoJson; current: CodeRef; path: string }) {
  const parts = path ? path.split('/') : [];
  return (
    <nav class="breadcrumb" aria-label="Path">
      {parts.length ? <a href={refUrl(repo, 'src', current)}>{repo.name}</a> : <span aria-current="page">{repo.name}</span>}
      {parts.map((part, i) => (
        <>
          {' / '}
          {i === parts.length - 1 ? (
            <span aria-current="page">{part}</span>
          ) : (
            <a href={refUrl(repo, 'src', current, parts.slice(0, i + 1).join('/'))}>{part}</a>
          )}
        </>
      ))}
    </nav>
  );
}

/** One commit in a line: author, linked subject, short id, date. */
export function CommitLine({ repo, commit, history }: { repo: RepoJson; commit: CommitSummary | null; history?: string }) {
  if (!commit) return null;
  return (
    <p class="latest-commit">
      <span class="author">{commit.author}</span> <a href={commitUrl(repo, commit.sha)}>{commit.subject || '(no message)'}</a>{' '}
      <a href={commitUrl(repo, commit.sha)} class="sha">
        <code>{commit.sha.slice(0, 10)}</code>
      </a>{' '}
      <WhenUnix at={commit.when} />
      {history && (
        <>
          {' · '}
          <a href={history}>History</a>
        </>
      )}
    </p>
  );
}

/** The HTTP clone URL in a read-only field with a copy button (hearth.js copies; selectable without it). */
export function CloneBox({ repo }: { repo: RepoJson }) {
  return (
    <div class="clone">
      <label for="clone-url">Clone with HTTP</label>
      <input id="clone-url" readonly value={repo.clone_url} />
      <button type="button" data-copy="#clone-url">
        Copy
      </button>
    </div>
  );
}

/** Bytes as people read them. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
