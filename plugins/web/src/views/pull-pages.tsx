/**
 * Pull request pages: the list, a pull request's conversation / commits / files changed tabs with
 * its merge box, and the compare page that opens a new pull request. Everything shown comes from
 * the API's JSON; diffs are rendered by diff2html (which escapes the text it is given).
 */
import type * as Diff2Html from 'diff2html';
import type * as Diff2HtmlUtils from 'diff2html/lib/render-utils';
import { lazy } from '@hearth/plugin-api';
import type { ComponentChildren } from 'preact';
import { Avatar, encodeSegments, LabelChip, Notice, Pager, plural, Rendered, repoHref, UserLink, When } from './common';
import { Csrf, Layout, signInHref, type PageKit } from './layout';
import type { RepoJson } from './home-pages';
import { RepoHeader } from './repo-header';
import { commitUrl, refUrl } from './repo-parts';
import { Timeline, type LabelJson, type TimelineProps } from './timeline';

// --- JSON shapes (Gitea's, the fields these pages use) ------------------------------------------

export interface UserRef {
  login: string;
  avatar_url?: string;
}

/** Gitea's PullRequest JSON. */
export interface PullJson {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  user: UserRef | null;
  labels: LabelJson[] | null;
  comments: number;
  mergeable: boolean;
  merged: boolean;
  merged_at: string | null;
  merge_commit_sha: string | null;
  merged_by: UserRef | null;
  is_locked?: boolean;
  base: { ref: string; label: string; sha: string; repo: RepoJson | null };
  head: { ref: string; label: string; sha: string; repo: RepoJson | null };
  merge_base: string;
  conflicted_files: string[] | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

/** Gitea's Commit JSON. */
export interface CommitJson {
  sha: string;
  html_url?: string;
  commit: { message: string; author: { name: string; email: string; date: string } };
  author: UserRef | null;
}

/** Gitea's CombinedStatus JSON (`GET /repos/{owner}/{repo}/commits/{ref}/status`). */
export interface CombinedStatusJson {
  state: string;
  total_count: number;
  statuses: Array<{ id: number; context: string; status: string; description: string; target_url: string }>;
}

/** Gitea's PullReview JSON. */
export interface ReviewJson {
  id: number;
  state: string;
  body: string;
  user: UserRef | null;
  comments_count: number;
  submitted_at: string;
  stale?: boolean;
  dismissed?: boolean;
}

/** Gitea's PullReviewComment JSON. */
export interface ReviewCommentJson {
  id: number;
  body: string;
  user: UserRef | null;
  path: string;
  diff_hunk: string;
  /** Line in the new file (0 when the comment is on the old side). */
  position: number;
  /** Line in the old file (0 when the comment is on the new side). */
  original_position: number;
  created_at: string;
}

/** The repository JSON with the merge settings the merge box reads. */
export type PullRepoJson = RepoJson & {
  default_merge_style?: string;
  default_delete_branch_after_merge?: boolean;
  allow_merge_commits?: boolean;
  allow_rebase?: boolean;
  allow_rebase_explicit?: boolean;
  allow_squash_merge?: boolean;
  allow_fast_forward_only_merge?: boolean;
};

// --- small pieces --------------------------------------------------------------------------------

/** `/owner/repo/compare/base...head`. */
export function compareHref(repo: RepoJson, base: string, head: string): string {
  return `${repoHref(repo.full_name)}/compare/${encodeSegments(base)}...${encodeSegments(head)}`;
}

export function PullState({ pr }: { pr: PullJson }) {
  if (pr.merged) return <span class="state merged">Merged</span>;
  return pr.state === 'open' ? <span class="state open">Open</span> : <span class="state closed">Closed</span>;
}

/** The name of a pull request's head as people read it: `branch`, or `owner:branch` from a fork. */
export function headLabel(pr: PullJson): string {
  const headRepo = pr.head.repo;
  if (headRepo && pr.base.repo && headRepo.full_name !== pr.base.repo.full_name) return `${headRepo.owner.login}:${pr.head.ref}`;
  return headRepo ? pr.head.ref : pr.head.label;
}

function BranchLink({ repo, branch, label }: { repo: RepoJson | null; branch: string; label?: string }) {
  const text = label ?? branch;
  return repo ? (
    <a class="branch" href={refUrl(repo, 'src', { kind: 'branch', name: branch })}>
      {text}
    </a>
  ) : (
    <span class="branch">{text}</span>
  );
}

/** `head → base`, as the list shows them. */
function HeadToBase({ pr }: { pr: PullJson }) {
  return (
    <>
      <span class="branch">{headLabel(pr)}</span> → <span class="branch">{pr.base.ref}</span>
    </>
  );
}

// --- the list ------------------------------------------------------------------------------------

export interface PullListProps {
  kit: PageKit;
  repo: RepoJson;
  state: 'open' | 'closed' | 'all';
  pulls: PullJson[];
  counts: { open: number; closed: number };
  total: number;
  page: number;
  limit: number;
  /** Label ids the list is filtered by. */
  labels: number[];
}

export function PullListPage(props: PullListProps) {
  const { kit, repo, state, pulls, counts, page, limit, total, labels } = props;
  const base = repoHref(repo.full_name);
  const href = (query: { state?: string; page?: number; labels?: number[] }) => {
    const q = new URLSearchParams();
    q.set('state', query.state ?? state);
    const ids = query.labels ?? labels;
    if (ids.length) q.set('labels', ids.join(','));
    if (query.page && query.page > 1) q.set('page', String(query.page));
    return `${base}/pulls?${q}`;
  };
  return (
    <Layout kit={kit} title={`Pull requests - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="pulls" title="breadcrumb" />
      <div class="list-head">
        <h1>Pull requests</h1>
        {kit.viewer.user && (
          <a class="button primary" href={`${base}/compare`}>
            New pull request
          </a>
        )}
      </div>
      <nav class="tabs" aria-label="Pull request state">
        <a href={href({ state: 'open' })} aria-current={state === 'open' ? 'page' : undefined}>
          {counts.open} Open
        </a>
        <a href={href({ state: 'closed' })} aria-current={state === 'closed' ? 'page' : undefined}>
          {counts.closed} Closed
        </a>
      </nav>
      {labels.length > 0 && (
        <p class="meta">
          Filtered by labels. <a href={href({ labels: [] })}>Clear the filter</a>
        </p>
      )}
      {pulls.length === 0 ? (
        <p class="empty">{state === 'closed' ? 'No closed pull requests.' : 'No open pull requests.'}</p>
      ) : (
        <ul class="rows pull-rows">
          {pulls.map((pr) => (
            <li>
              <PullState pr={pr} />{' '}
              <a class="title" href={`${base}/pulls/${pr.number}`}>
                {pr.title}
              </a>{' '}
              {(pr.labels ?? []).map((label) => (
                <>
                  <LabelChip label={label} href={href({ labels: [label.id], page: 1 })} />{' '}
                </>
              ))}
              <p class="meta">
                #{pr.number} opened <When at={pr.created_at} /> by <UserLink user={pr.user} /> · <HeadToBase pr={pr} />
                {pr.comments > 0 && <> · {plural(pr.comments, 'comment')}</>}
              </p>
            </li>
          ))}
        </ul>
      )}
      <Pager page={page} limit={limit} total={total} href={(p) => href({ page: p })} />
    </Layout>
  );
}

// --- one pull request ------------------------------------------------------------------------------

export type PullTab = 'conversation' | 'commits' | 'files';

export interface PullCounts {
  /** Commits the head has that the base lacks (null when the code is not readable). */
  commits: number | null;
  files: number | null;
}

/** Title, state, "who wants to merge N commits into base from head" and the tabs. */
export function PullHeader({ repo, pr, counts, tab }: { repo: RepoJson; pr: PullJson; counts: PullCounts; tab: PullTab }) {
  const base = `${repoHref(repo.full_name)}/pulls/${pr.number}`;
  const commits = counts.commits === null ? 'commits' : plural(counts.commits, 'commit');
  const who = pr.merged ? pr.merged_by : pr.user;
  const verb = pr.merged ? 'merged' : 'wants to merge';
  const baseLink = <BranchLink repo={pr.base.repo} branch={pr.base.ref} />;
  const headLink = <BranchLink repo={pr.head.repo} branch={pr.head.ref} label={headLabel(pr)} />;
  return (
    <>
      <header class="pull-head">
        <h1>
          {pr.title} <span class="muted">#{pr.number}</span>
        </h1>
        <p>
          <PullState pr={pr} /> <UserLink user={who} /> {verb} {commits} into {baseLink} from {headLink}
          {pr.merged && pr.merged_at && (
            <>
              {' '}
              <When at={pr.merged_at} />
            </>
          )}
        </p>
      </header>
      <nav class="tabs" aria-label="Pull request">
        <a href={base} aria-current={tab === 'conversation' ? 'page' : undefined}>
          Conversation <span class="badge">{pr.comments}</span>
        </a>
        <a href={`${base}/commits`} aria-current={tab === 'commits' ? 'page' : undefined}>
          Commits {counts.commits !== null && <span class="badge">{counts.commits}</span>}
        </a>
        <a href={`${base}/files`} aria-current={tab === 'files' ? 'page' : undefined}>
          Files changed {counts.files !== null && <span class="badge">{counts.files}</span>}
        </a>
      </nav>
    </>
  );
}

const MERGE_STYLES: Array<{ style: string; setting: string; label: string }> = [
  { style: 'merge', setting: 'allow_merge_commits', label: 'Create merge commit' },
  { style: 'rebase', setting: 'allow_rebase', label: 'Rebase then fast-forward' },
  { style: 'rebase-merge', setting: 'allow_rebase_explicit', label: 'Rebase then create merge commit' },
  { style: 'squash', setting: 'allow_squash_merge', label: 'Create squash commit' },
  { style: 'fast-forward-only', setting: 'allow_fast_forward_only_merge', label: 'Fast-forward only' },
];

/** The merge styles the repository allows, its default first when allowed. */
export function allowedMergeStyles(repo: RepoJson): Array<{ style: string; label: string }> {
  const settings = repo as unknown as Record<string, unknown>;
  return MERGE_STYLES.filter((s) => settings[s.setting] === true);
}

const CHECK_WORDS: Record<string, string> = {
  success: 'Successful',
  failure: 'Failing',
  error: 'Errored',
  pending: 'Pending',
  warning: 'Warning',
};

const SUMMARY: Record<string, string> = {
  success: 'All checks were successful',
  failure: 'Some checks were not successful',
  error: 'Some checks errored',
  pending: 'Some checks are pending',
  warning: 'Some checks have warnings',
};

function Checks({ status }: { status: CombinedStatusJson | null }) {
  if (!status || status.total_count === 0 || status.statuses.length === 0) return null;
  return (
    <section class="checks" aria-labelledby="checks-title">
      <h3 id="checks-title">
        <span class={`check ${status.state}`}>{SUMMARY[status.state] ?? `Checks: ${status.state}`}</span>
      </h3>
      <ul class="rows">
        {status.statuses.map((s) => (
          <li>
            <span class={`check ${s.status}`}>{CHECK_WORDS[s.status] ?? s.status}</span> <strong>{s.context}</strong>
            {s.description && <span class="muted"> — {s.description}</span>}
            {/^https?:\/\//i.test(s.target_url ?? '') && (
              <>
                {' '}
                <a href={s.target_url} rel="nofollow noopener">
                  Details
                </a>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Mergeability({ pr }: { pr: PullJson }) {
  const conflicts = pr.conflicted_files ?? [];
  if (pr.mergeable) return <p class="check success">This branch has no conflicts with the base branch.</p>;
  if (conflicts.length > 0) {
    return (
      <div class="check failure">
        <p>This branch has conflicts that must be resolved:</p>
        <ul>
          {conflicts.map((file) => (
            <li>
              <code>{file}</code>
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (pr.merge_base && pr.merge_base === pr.head.sha) {
    return <p class="check pending">The base branch already contains these changes: there is nothing to merge.</p>;
  }
  return <p class="check pending">The mergeability of this pull request is being checked, or could not be determined.</p>;
}

export interface MergeBoxProps {
  kit: PageKit;
  repo: PullRepoJson;
  pr: PullJson;
  status: CombinedStatusJson | null;
  /** The viewer has write access (the API still decides at the merge). */
  canMerge: boolean;
  /** The refusal of the last merge attempt (branch protection, head moved, …). */
  error?: string;
  /** The base branch's merge message templates (`MERGE_TEMPLATE.md`, …) used when title and message are left empty. */
  templates?: string[];
}

/** The merge box's frame: a box titled "Merge", "Merged" or "Closed". */
function MergeSection({ title, state, children }: { title: string; state?: 'merged' | 'closed'; children: ComponentChildren }) {
  return (
    <section class={state ? `box merge-box ${state}` : 'box merge-box'} aria-labelledby="merge-title">
      <header>
        <h2 id="merge-title">{title}</h2>
      </header>
      <div class="body">{children}</div>
    </section>
  );
}

/** Mergeability, checks and — for writers — the merge form with the styles the repository allows. */
export function MergeBox({ kit, repo, pr, status, canMerge, error, templates = [] }: MergeBoxProps) {
  if (pr.merged) {
    return (
      <MergeSection title="Merged" state="merged">
        <p>
          <UserLink user={pr.merged_by} /> merged{' '}
          {pr.merge_commit_sha && (
            <>
              commit <a href={commitUrl(repo, pr.merge_commit_sha)}>{pr.merge_commit_sha.slice(0, 10)}</a>{' '}
            </>
          )}
          into <span class="branch">{pr.base.ref}</span> <When at={pr.merged_at ?? undefined} />.
        </p>
      </MergeSection>
    );
  }
  if (pr.state === 'closed') {
    return (
      <MergeSection title="Closed" state="closed">
        <p>This pull request was closed without being merged.</p>
      </MergeSection>
    );
  }
  const styles = allowedMergeStyles(repo);
  const chosen = styles.find((s) => s.style === repo.default_merge_style) ?? styles[0];
  const action = `${repoHref(repo.full_name)}/pulls/${pr.number}/merge`;
  return (
    <MergeSection title="Merge">
      {error && <Notice kind="error">The merge was refused: {error}</Notice>}
      <Checks status={status} />
      <Mergeability pr={pr} />
      {!canMerge && <p class="muted">Only people with write access to this repository can merge pull requests.</p>}
      {canMerge && pr.mergeable && styles.length === 0 && <p class="muted">This repository allows no merge style.</p>}
      {canMerge && pr.mergeable && chosen && (
        <form method="post" action={action} class="stacked merge-form">
          <Csrf kit={kit} />
          <input type="hidden" name="head_commit_id" value={pr.head.sha} />
          <fieldset>
            <legend>Merge style</legend>
            {styles.map((s) => (
              <div>
                <input type="radio" id={`do-${s.style}`} name="do" value={s.style} checked={s === chosen} />{' '}
                <label for={`do-${s.style}`}>{s.label}</label>
              </div>
            ))}
          </fieldset>
          <label for="merge_title">Commit title (optional)</label>
          <input id="merge_title" name="merge_title_field" maxLength={255} />
          <label for="merge_message">Commit message (optional)</label>
          <textarea id="merge_message" name="merge_message_field" rows={3} />
          {templates.length > 0 && (
            <p class="muted merge-template">
              Left empty, the title and message come from this repository’s template{templates.length > 1 ? 's' : ''}{' '}
              {templates.map((t, i) => (
                <>
                  {i > 0 && ', '}
                  <code>.gitea/default_merge_message/{t}</code>
                </>
              ))}{' '}
              on {pr.base.ref}.
            </p>
          )}
          {pr.head.repo && (
            <div>
              <input
                type="checkbox"
                id="delete_branch"
                name="delete_branch_after_merge"
                value="true"
                checked={Boolean(repo.default_delete_branch_after_merge)}
              />{' '}
              <label for="delete_branch">Delete the head branch after the merge</label>
            </div>
          )}
          <button type="submit" class="primary">
            Merge pull request
          </button>
        </form>
      )}
    </MergeSection>
  );
}

/** The conversation tab: the pull request's timeline (its issue part), with the merge box above the comment form. */
export interface PullConversationProps extends Pick<
  TimelineProps,
  'kit' | 'issue' | 'events' | 'renderMarkdown' | 'canComment' | 'canChangeState' | 'commentAction'
> {
  repo: PullRepoJson;
  pr: PullJson;
  counts: PullCounts;
  merge: Omit<MergeBoxProps, 'kit' | 'repo' | 'pr'>;
}

export function PullConversationPage({ repo, pr, counts, merge, ...conversation }: PullConversationProps) {
  const { kit } = conversation;
  return (
    <Layout kit={kit} title={`${pr.title} #${pr.number} - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="pulls" title="breadcrumb" />
      <PullHeader repo={repo} pr={pr} counts={counts} tab="conversation" />
      <Timeline {...conversation} repoFullName={repo.full_name} beforeForm={<MergeBox kit={kit} repo={repo} pr={pr} {...merge} />} />
    </Layout>
  );
}

// --- commits -------------------------------------------------------------------------------------

export function CommitRows({ repo, commits }: { repo: RepoJson; commits: CommitJson[] }) {
  if (commits.length === 0) return <p class="empty">No commits.</p>;
  return (
    <ul class="rows commit-rows">
      {commits.map((c) => {
        const [subject] = c.commit.message.split('\n');
        return (
          <li>
            <a class="sha" href={commitUrl(repo, c.sha)}>
              <code>{c.sha.slice(0, 10)}</code>
            </a>{' '}
            <span class="title">{subject}</span>
            <p class="meta">
              <Avatar url={c.author?.avatar_url} name={c.author?.login ?? c.commit.author.name} size={16} />{' '}
              {c.author ? <UserLink user={c.author} /> : c.commit.author.name} committed <When at={c.commit.author.date} />
            </p>
          </li>
        );
      })}
    </ul>
  );
}

export interface PullCommitsProps {
  kit: PageKit;
  repo: RepoJson;
  pr: PullJson;
  counts: PullCounts;
  commits: CommitJson[];
  page: number;
  limit: number;
}

export function PullCommitsPage({ kit, repo, pr, counts, commits, page, limit }: PullCommitsProps) {
  const base = `${repoHref(repo.full_name)}/pulls/${pr.number}/commits`;
  return (
    <Layout kit={kit} title={`Commits · ${pr.title} #${pr.number} - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="pulls" title="breadcrumb" />
      <PullHeader repo={repo} pr={pr} counts={counts} tab="commits" />
      <h2 class="visually-hidden">Commits</h2>
      {counts.commits === null ? (
        <p class="empty">The code of this repository is not visible to you.</p>
      ) : (
        <CommitRows repo={repo} commits={commits} />
      )}
      <Pager page={page} limit={limit} total={counts.commits ?? 0} href={(p) => `${base}?page=${p}`} />
    </Layout>
  );
}

// --- diffs and review comments -------------------------------------------------------------------

/** A diff as diff2html renders it (its output escapes every name and line), with each file's anchor. */
export interface RenderedDiff {
  html: string;
  files: Array<{ name: string; anchor: string }>;
  /** Too large to render: only a link to the raw diff. */
  tooLarge: boolean;
}

/** diff2html, loaded by the first page that shows a diff rather than at start. */
/* eslint-disable @typescript-eslint/no-require-imports */
export const diff2html = lazy(() => ({
  ...(require('diff2html') as typeof Diff2Html),
  getHtmlId: (require('diff2html/lib/render-utils') as typeof Diff2HtmlUtils).getHtmlId,
}));
/* eslint-enable @typescript-eslint/no-require-imports */

/** Diffs beyond this many bytes are not rendered (the raw diff stays a link away). */
export const MAX_RENDERED_DIFF = 2 * 1024 * 1024;

export function renderDiff(text: string): RenderedDiff {
  if (text.length > MAX_RENDERED_DIFF) return { html: '', files: [], tooLarge: true };
  const { parse, html, getHtmlId } = diff2html();
  const parsed = parse(text);
  return {
    html: parsed.length ? html(parsed, { outputFormat: 'line-by-line', drawFileList: true }) : '',
    // git ends a name holding a space with a tab in the ---/+++ lines; diff2html keeps it.
    files: parsed.map((f) => ({ name: (f.newName === '/dev/null' ? f.oldName : f.newName).replace(/\t$/, ''), anchor: getHtmlId(f) })),
    tooLarge: false,
  };
}

export function DiffView({ diff, rawHref }: { diff: RenderedDiff; rawHref?: string }) {
  if (diff.tooLarge) {
    return (
      <p class="empty">
        This diff is too large to show here.{' '}
        {rawHref && (
          <a href={rawHref} rel="nofollow">
            Download the raw diff
          </a>
        )}
      </p>
    );
  }
  if (!diff.html) return <p class="empty">No changes.</p>;
  return <Rendered html={diff.html} class="diff" />;
}

/** Review comments of one file, grouped by line. */
export interface ReviewFileGroup {
  path: string;
  /** The file's anchor in the rendered diff, when the diff shows it. */
  anchor: string | null;
  lines: Array<{ side: 'old' | 'new'; line: number; comments: ReviewCommentJson[] }>;
}

/** Group comments per file (in diff order) and per line. */
export function groupReviewComments(comments: ReviewCommentJson[], diff: RenderedDiff): ReviewFileGroup[] {
  const order = new Map(diff.files.map((f, i) => [f.name, i]));
  const byPath = new Map<string, ReviewFileGroup>();
  for (const c of comments) {
    let group = byPath.get(c.path);
    if (!group) {
      group = { path: c.path, anchor: diff.files.find((f) => f.name === c.path)?.anchor ?? null, lines: [] };
      byPath.set(c.path, group);
    }
    const side = c.position > 0 ? 'new' : 'old';
    const line = c.position > 0 ? c.position : c.original_position;
    let at = group.lines.find((l) => l.side === side && l.line === line);
    if (!at) {
      at = { side, line, comments: [] };
      group.lines.push(at);
    }
    at.comments.push(c);
  }
  const groups = [...byPath.values()];
  for (const g of groups) g.lines.sort((a, b) => a.line - b.line || a.side.localeCompare(b.side));
  return groups.sort((a, b) => (order.get(a.path) ?? 1e9) - (order.get(b.path) ?? 1e9) || a.path.localeCompare(b.path));
}

/** The last lines of a comment's diff hunk: the code it is about. */
function hunkTail(hunk: string): string {
  const lines = hunk.split('\n');
  let start = lines.length;
  while (start > 0 && !lines[start - 1].startsWith('@@')) start--;
  return lines.slice(start).slice(-4).join('\n');
}

const REVIEW_WORDS: Record<string, string> = {
  APPROVED: 'approved',
  REQUEST_CHANGES: 'requested changes',
  COMMENT: 'reviewed',
  PENDING: 'started a review (pending)',
  REQUEST_REVIEW: 'was asked to review',
};

function ReviewSummary({ reviews, renderMarkdown }: { reviews: ReviewJson[]; renderMarkdown(text: string): string }) {
  const shown = reviews.filter((r) => r.state !== 'REQUEST_REVIEW');
  if (shown.length === 0) return null;
  return (
    <ul class="rows reviews">
      {shown.map((r) => (
        <li>
          <UserLink user={r.user} /> {REVIEW_WORDS[r.state] ?? r.state.toLowerCase()} <When at={r.submitted_at} />
          {r.dismissed && <span class="badge">Dismissed</span>}
          {r.stale && <span class="badge">Outdated</span>}
          {r.body && <Rendered html={renderMarkdown(r.body)} />}
        </li>
      ))}
    </ul>
  );
}

function ReviewComments({ groups, renderMarkdown }: { groups: ReviewFileGroup[]; renderMarkdown(text: string): string }) {
  if (groups.length === 0) return <p class="empty">No review comments on the code.</p>;
  return (
    <>
      {groups.map((g) => (
        <section class="box review-file">
          <header>
            <h3>{g.anchor ? <a href={`#${g.anchor}`}>{g.path}</a> : g.path}</h3>
          </header>
          <div class="body">
            {g.lines.map((l) => (
              <div class="review-line">
                <h4>{l.side === 'new' ? `Line ${l.line}` : `Line ${l.line} (before the change)`}</h4>
                {l.comments[0].diff_hunk && <pre class="code hunk">{hunkTail(l.comments[0].diff_hunk)}</pre>}
                <ol class="review-thread">
                  {l.comments.map((c) => (
                    <li id={`issuecomment-${c.id}`}>
                      <p class="meta">
                        <Avatar url={c.user?.avatar_url} name={c.user?.login ?? ''} size={20} /> <UserLink user={c.user} />{' '}
                        <When at={c.created_at} />
                      </p>
                      <Rendered html={renderMarkdown(c.body)} />
                    </li>
                  ))}
                </ol>
              </div>
            ))}
          </div>
        </section>
      ))}
    </>
  );
}

export interface PullFilesProps {
  kit: PageKit;
  repo: RepoJson;
  pr: PullJson;
  counts: PullCounts;
  diff: RenderedDiff;
  reviews: ReviewJson[];
  comments: ReviewCommentJson[];
  renderMarkdown(text: string): string;
}

export function PullFilesPage(props: PullFilesProps) {
  const { kit, repo, pr, counts, diff } = props;
  const groups = groupReviewComments(props.comments, diff);
  return (
    <Layout kit={kit} title={`Files changed · ${pr.title} #${pr.number} - ${repo.full_name}`} styles={['diff.css']}>
      <RepoHeader repo={repo} tab="pulls" title="breadcrumb" />
      <PullHeader repo={repo} pr={pr} counts={counts} tab="files" />
      <h2 class="visually-hidden">Changes</h2>
      <p class="meta">
        <a href={`${repoHref(repo.full_name)}/pulls/${pr.number}.diff`} rel="nofollow">
          Raw diff
        </a>{' '}
        ·{' '}
        <a href={`${repoHref(repo.full_name)}/pulls/${pr.number}.patch`} rel="nofollow">
          Patch
        </a>
      </p>
      <DiffView diff={diff} rawHref={`${repoHref(repo.full_name)}/pulls/${pr.number}.diff`} />
      <section aria-labelledby="reviews-title" class="reviews-section">
        <h2 id="reviews-title">Reviews</h2>
        <ReviewSummary reviews={props.reviews} renderMarkdown={props.renderMarkdown} />
        <ReviewComments groups={groups} renderMarkdown={props.renderMarkdown} />
      </section>
    </Layout>
  );
}

// --- compare and new pull request ---------------------------------------------------------------

/** The base and head branch choosers (a GET form: `/{owner}/{repo}/compare?base=…&head=…`). */
export function BranchChooser({ repo, branches, base, head }: { repo: RepoJson; branches: string[]; base: string; head: string }) {
  const options = (selected: string) => {
    const names = branches.includes(selected) || !selected ? branches : [selected, ...branches];
    return names.map((name) => (
      <option value={name} selected={name === selected}>
        {name}
      </option>
    ));
  };
  return (
    <form method="get" action={`${repoHref(repo.full_name)}/compare`} class="compare-choose">
      <label for="compare-base">Base branch</label>
      <select id="compare-base" name="base">
        {options(base)}
      </select>
      <span aria-hidden="true">←</span>
      <label for="compare-head">Compare branch</label>
      <select id="compare-head" name="head">
        {options(head)}
      </select>
      <button type="submit">Compare</button>
    </form>
  );
}

export function CompareChoosePage({
  kit,
  repo,
  branches,
  base,
  head,
}: {
  kit: PageKit;
  repo: RepoJson;
  branches: string[];
  base: string;
  head: string;
}) {
  return (
    <Layout kit={kit} title={`Compare - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="pulls" title="breadcrumb" />
      <h1>Compare changes</h1>
      <p>Choose two branches to see what changed and to open a pull request.</p>
      {branches.length < 2 ? (
        <p class="empty">This repository needs at least two branches to compare.</p>
      ) : (
        <BranchChooser repo={repo} branches={branches} base={base} head={head} />
      )}
    </Layout>
  );
}

export interface NewPullForm {
  title: string;
  body: string;
  error?: string;
}

export interface CompareProps {
  kit: PageKit;
  repo: RepoJson;
  branches: string[];
  base: string;
  head: string;
  commits: CommitJson[];
  /** False when the branches share no history. */
  related: boolean;
  diff: RenderedDiff;
  /** An open pull request between these branches. */
  existing: PullJson | null;
  form: NewPullForm;
}

function NewPullSection({ kit, repo, base, head, form }: Pick<CompareProps, 'kit' | 'repo' | 'base' | 'head' | 'form'>) {
  return (
    <section class="box" aria-labelledby="new-pull-title">
      <header>
        <h2 id="new-pull-title">New pull request</h2>
      </header>
      <div class="body">
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <form method="post" action={compareHref(repo, base, head)} class="stacked">
          <Csrf kit={kit} />
          <label for="pull-title">Title</label>
          <input id="pull-title" name="title" value={form.title} required maxLength={255} />
          <label for="pull-body">Description</label>
          <textarea id="pull-body" name="body">
            {form.body}
          </textarea>
          <button type="button" data-preview="pull-body" data-target="pull-body-preview" data-context={repo.full_name}>
            Preview
          </button>
          <div id="pull-body-preview" class="markdown preview" hidden />
          <button type="submit" class="primary">
            Create pull request
          </button>
        </form>
      </div>
    </section>
  );
}

function CompareAction(props: CompareProps) {
  const { kit, repo, base, head, commits, related, existing } = props;
  if (existing) {
    return (
      <Notice>
        A pull request between these branches is already open:{' '}
        <a href={`${repoHref(repo.full_name)}/pulls/${existing.number}`}>
          {existing.title} #{existing.number}
        </a>
      </Notice>
    );
  }
  if (!related) return <Notice>These branches have entirely different histories: there is nothing to compare.</Notice>;
  if (commits.length === 0)
    return (
      <Notice>
        These branches are equal: {base} already contains everything in {head}.
      </Notice>
    );
  if (repo.has_pull_requests === false) return null;
  if (!kit.viewer.user) {
    return (
      <p>
        <a href={signInHref(kit.path)}>Sign in</a> to open a pull request.
      </p>
    );
  }
  return <NewPullSection kit={kit} repo={repo} base={base} head={head} form={props.form} />;
}

export function ComparePage(props: CompareProps) {
  const { kit, repo, branches, base, head, commits, diff } = props;
  return (
    <Layout kit={kit} title={`Comparing ${base}...${head} - ${repo.full_name}`} styles={['diff.css']}>
      <RepoHeader repo={repo} tab="pulls" title="breadcrumb" />
      <h1>
        Comparing <span class="branch">{base}</span>...<span class="branch">{head}</span>
      </h1>
      <BranchChooser repo={repo} branches={branches} base={base} head={head} />
      {base === head ? <Notice>Choose two different branches to compare.</Notice> : <CompareAction {...props} />}
      {base !== head && props.related && (
        <>
          <h2>{plural(commits.length, 'commit')}</h2>
          <CommitRows repo={repo} commits={commits} />
          <h2 class="visually-hidden">Files changed</h2>
          <DiffView diff={diff} />
        </>
      )}
    </Layout>
  );
}
