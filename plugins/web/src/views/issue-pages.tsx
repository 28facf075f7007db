/** The issue pages: the list with its filters, the new issue form, and an issue with its conversation and sidebar. */
import type { ComponentChildren } from 'preact';
import { Avatar, LabelChip, Notice, Pager, plural, repoHref, UserLink, When } from './common';
import type { RepoJson } from './home-pages';
import { Csrf, Layout, type PageKit } from './layout';
import { RepoHeader } from './repo-header';
import { Timeline, type IssueJson, type LabelJson, type MilestoneJson, type ReactionJson, type TimelineEventJson } from './timeline';

/** The list's filters, as they appear in its URL (Gitea's names: `state`, `labels`, `milestone`, `assignee`, `poster`, `q`, `page`). */
export interface IssueFilters {
  state: 'open' | 'closed' | 'all';
  q: string;
  /** Label ids; issues carrying every one of them. */
  labels: number[];
  /** A milestone id; 0 for any. */
  milestone: number;
  /** User names; '' for anyone. */
  assignee: string;
  poster: string;
  page: number;
}

/** The list as it opens: open issues, no filter. */
export const NO_FILTERS: IssueFilters = { state: 'open', q: '', labels: [], milestone: 0, assignee: '', poster: '', page: 1 };

/** The list URL for `filters` with some of them changed (the page goes back to 1 unless given). */
export function issueListHref(repoFullName: string, filters: IssueFilters, change: Partial<IssueFilters> = {}): string {
  const f = { ...filters, page: 1, ...change };
  const query = new URLSearchParams();
  if (f.state !== 'open') query.set('state', f.state);
  if (f.q) query.set('q', f.q);
  if (f.labels.length) query.set('labels', f.labels.join(','));
  if (f.milestone) query.set('milestone', String(f.milestone));
  if (f.assignee) query.set('assignee', f.assignee);
  if (f.poster) query.set('poster', f.poster);
  if (f.page > 1) query.set('page', String(f.page));
  const search = query.toString();
  return `${repoHref(repoFullName)}/issues${search ? `?${search}` : ''}`;
}

export interface IssueListProps {
  kit: PageKit;
  repo: RepoJson;
  filters: IssueFilters;
  issues: IssueJson[];
  /** Issues matching the filters in the current state (for paging). */
  total: number;
  openCount: number;
  closedCount: number;
  limit: number;
  labels: LabelJson[];
  milestones: MilestoneJson[];
  /** Pinned issues, shown above the list (first page only). */
  pinned?: IssueJson[];
}

/** A filter of the list: a select of `[id, text]` options after "all". */
function FilterSelect(props: { name: string; label: string; all: string; options: Array<[number, string]>; selected: number | undefined }) {
  return (
    <div class="field">
      <label for={`filter-${props.name}`}>{props.label}</label>
      <select id={`filter-${props.name}`} name={props.name}>
        <option value="">{props.all}</option>
        {props.options.map(([id, text]) => (
          <option value={String(id)} selected={props.selected === id}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A filter of the list by a user name. */
function FilterInput({ name, label, value }: { name: string; label: string; value: string }) {
  return (
    <div class="field">
      <label for={`filter-${name}`}>{label}</label>
      <input id={`filter-${name}`} name={name} value={value} size={12} autocomplete="off" />
    </div>
  );
}

function IssueFilterForm({ repo, filters, labels, milestones }: IssueListProps) {
  return (
    <form method="get" action={`${repoHref(repo.full_name)}/issues`} class="issue-filters" role="search" aria-label="Filter issues">
      {filters.state !== 'open' && <input type="hidden" name="state" value={filters.state} />}
      <div class="field grow">
        <label for="filter-q">Search</label>
        <input id="filter-q" name="q" type="search" value={filters.q} placeholder="Search issues…" />
      </div>
      <FilterSelect
        name="labels"
        label="Label"
        all="All labels"
        selected={filters.labels[0]}
        options={labels.map((l): [number, string] => [l.id, l.name])}
      />
      <FilterSelect
        name="milestone"
        label="Milestone"
        all="All milestones"
        selected={filters.milestone}
        options={milestones.map((m): [number, string] => [m.id, m.title])}
      />
      <FilterInput name="assignee" label="Assignee" value={filters.assignee} />
      <FilterInput name="poster" label="Author" value={filters.poster} />
      <button type="submit">Filter</button>
    </form>
  );
}

/** The filters in force, each with a link that drops it. */
function ActiveFilters({ repo, filters, labels, milestones }: IssueListProps) {
  const href = (change: Partial<IssueFilters>) => issueListHref(repo.full_name, filters, change);
  const items: Array<{ text: string; href: string }> = [];
  if (filters.q) items.push({ text: `“${filters.q}”`, href: href({ q: '' }) });
  for (const id of filters.labels) {
    const name = labels.find((l) => l.id === id)?.name ?? `#${id}`;
    items.push({ text: `label ${name}`, href: href({ labels: filters.labels.filter((x) => x !== id) }) });
  }
  if (filters.milestone) {
    const title = milestones.find((m) => m.id === filters.milestone)?.title ?? `#${filters.milestone}`;
    items.push({ text: `milestone ${title}`, href: href({ milestone: 0 }) });
  }
  if (filters.assignee) items.push({ text: `assigned to ${filters.assignee}`, href: href({ assignee: '' }) });
  if (filters.poster) items.push({ text: `by ${filters.poster}`, href: href({ poster: '' }) });
  if (items.length === 0) return null;
  return (
    <p class="active-filters">
      Filtered by:{' '}
      {items.map((item) => (
        <a class="filter-chip" href={item.href} aria-label={`Remove filter ${item.text}`}>
          {item.text} ×
        </a>
      ))}{' '}
      <a href={issueListHref(repo.full_name, { ...filters, q: '', labels: [], milestone: 0, assignee: '', poster: '' })}>Clear filters</a>
    </p>
  );
}

export function IssueRow({ issue, repoFullName, filters }: { issue: IssueJson; repoFullName: string; filters?: IssueFilters }) {
  const base = repoHref(repoFullName);
  const labelHref = (id: number) => issueListHref(repoFullName, filters ?? NO_FILTERS, { labels: [id] });
  return (
    <li class="issue-row">
      <span class={`state-dot ${issue.state}`} aria-hidden="true" />
      <span class="visually-hidden">{issue.state === 'open' ? 'Open' : 'Closed'}: </span>
      <div class="issue-main">
        <a class="title" href={`${base}/issues/${issue.number}`}>
          {issue.title}
        </a>{' '}
        {issue.labels.map((l) => (
          <>
            <LabelChip label={l} href={labelHref(l.id)} />{' '}
          </>
        ))}
        <p class="meta">
          #{issue.number} opened <When at={issue.created_at} /> by <UserLink user={issue.user} />
          {issue.milestone && (
            <>
              {' '}
              · milestone{' '}
              <a href={issueListHref(repoFullName, filters ?? NO_FILTERS, { milestone: issue.milestone.id })}>{issue.milestone.title}</a>
            </>
          )}
          {issue.assignees && issue.assignees.length > 0 && <> · assigned to {issue.assignees.map((a) => a.login).join(', ')}</>}
        </p>
      </div>
      {issue.comments > 0 && (
        <a class="comment-count" href={`${base}/issues/${issue.number}`} aria-label={plural(issue.comments, 'comment')}>
          <svg class="icon" width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
            <path d="M2 2h12v9H6l-3 3v-3H2z" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" />
          </svg>{' '}
          {issue.comments}
        </a>
      )}
    </li>
  );
}

export function IssueListPage(props: IssueListProps) {
  const { kit, repo, filters, issues, total, openCount, closedCount, limit } = props;
  const stateLink = (state: IssueFilters['state'], text: string) => (
    <a href={issueListHref(repo.full_name, filters, { state })} aria-current={filters.state === state ? 'page' : undefined}>
      {text}
    </a>
  );
  const filtered = Boolean(filters.q || filters.labels.length || filters.milestone || filters.assignee || filters.poster);
  return (
    <Layout kit={kit} title={`Issues - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="issues" title="breadcrumb" />
      <div class="list-head">
        <h1>Issues</h1>
        <span class="list-actions">
          <a class="button" href={`${repoHref(repo.full_name)}/labels`}>
            Labels
          </a>{' '}
          <a class="button" href={`${repoHref(repo.full_name)}/milestones`}>
            Milestones
          </a>{' '}
          {kit.viewer.user && !repo.archived && (
            <a class="button primary" href={`${repoHref(repo.full_name)}/issues/new`}>
              New issue
            </a>
          )}
        </span>
      </div>
      {props.pinned && props.pinned.length > 0 && (
        <section class="pinned-issues" aria-labelledby="pinned-heading">
          <h2 id="pinned-heading">Pinned issues</h2>
          <ul class="rows issue-list">
            {props.pinned.map((issue) => (
              <IssueRow issue={issue} repoFullName={repo.full_name} filters={filters} />
            ))}
          </ul>
        </section>
      )}
      <IssueFilterForm {...props} />
      <ActiveFilters {...props} />
      <nav class="state-tabs" aria-label="Issue state">
        {stateLink('open', `${openCount} Open`)}
        {stateLink('closed', `${closedCount} Closed`)}
        {stateLink('all', 'All')}
      </nav>
      {issues.length === 0 ? (
        <p class="empty">
          {filtered ? 'No issues match these filters.' : filters.state === 'closed' ? 'No closed issues.' : 'No issues yet.'}
        </p>
      ) : (
        <ul class="rows issue-list">
          {issues.map((issue) => (
            <IssueRow issue={issue} repoFullName={repo.full_name} filters={filters} />
          ))}
        </ul>
      )}
      <Pager page={filters.page} limit={limit} total={total} href={(page) => issueListHref(repo.full_name, filters, { page })} />
    </Layout>
  );
}

/** Users a writer may pick as assignees (collaborators, the owner, current assignees). */
export interface Candidate {
  login: string;
  avatar_url?: string;
}

function LabelPicker({ labels, chosen }: { labels: LabelJson[]; chosen: number[] }) {
  if (labels.length === 0) return <p class="empty">This repository has no labels.</p>;
  return (
    <fieldset class="picker">
      <legend>Labels</legend>
      {labels.map((l) => (
        <div class="pick">
          <input type="checkbox" id={`label-${l.id}`} name="label" value={String(l.id)} checked={chosen.includes(l.id)} />
          <label for={`label-${l.id}`}>
            <LabelChip label={l} />
            {l.description && <span class="muted"> {l.description}</span>}
          </label>
        </div>
      ))}
    </fieldset>
  );
}

function MilestonePicker({ milestones, chosen }: { milestones: MilestoneJson[]; chosen: number }) {
  return (
    <>
      <label for="milestone">Milestone</label>
      <select id="milestone" name="milestone">
        <option value="0">No milestone</option>
        {milestones.map((m) => (
          <option value={String(m.id)} selected={m.id === chosen}>
            {m.title}
            {m.state === 'closed' ? ' (closed)' : ''}
          </option>
        ))}
      </select>
    </>
  );
}

function AssigneePicker({ candidates, chosen }: { candidates: Candidate[]; chosen: string[] }) {
  return (
    <fieldset class="picker">
      <legend>Assignees</legend>
      {candidates.map((c, i) => (
        <div class="pick">
          <input type="checkbox" id={`assignee-${i}`} name="assignee" value={c.login} checked={chosen.includes(c.login)} />
          <label for={`assignee-${i}`}>
            <Avatar url={c.avatar_url} name={c.login} size={20} /> {c.login}
          </label>
        </div>
      ))}
      <label for="assignee-other">Other user names (comma-separated)</label>
      <input id="assignee-other" name="assignee_other" autocomplete="off" />
    </fieldset>
  );
}

export interface NewIssueForm {
  title?: string;
  content?: string;
  labels?: number[];
  milestone?: number;
  assignees?: string[];
  error?: string;
}

export function NewIssuePage(props: {
  kit: PageKit;
  repo: RepoJson;
  canWrite: boolean;
  labels: LabelJson[];
  milestones: MilestoneJson[];
  candidates: Candidate[];
  form: NewIssueForm;
}) {
  const { kit, repo, canWrite, form } = props;
  const base = repoHref(repo.full_name);
  return (
    <Layout kit={kit} title={`New issue - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="issues" title="breadcrumb" />
      <h1>New issue</h1>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      <form method="post" action={`${base}/issues/new`} class="new-issue">
        <Csrf kit={kit} />
        <div class="columns">
          <div class="stacked">
            <label for="title">Title</label>
            <input id="title" name="title" value={form.title ?? ''} required maxLength={255} autofocus />
            <label for="content">Description</label>
            <textarea id="content" name="content" placeholder="Describe the issue (Markdown)" value={form.content ?? ''} />
            <div id="content-preview" class="markdown preview" hidden aria-live="polite" />
            <div class="actions">
              <button type="button" data-preview="content" data-target="content-preview" data-context={repo.full_name} hidden>
                Preview
              </button>
              <button type="submit" class="primary">
                Create issue
              </button>
            </div>
          </div>
          {canWrite && (
            <aside class="sidebar" aria-label="Issue settings">
              <LabelPicker labels={props.labels} chosen={form.labels ?? []} />
              <div class="stacked">
                <MilestonePicker milestones={props.milestones} chosen={form.milestone ?? 0} />
              </div>
              <AssigneePicker candidates={props.candidates} chosen={form.assignees ?? []} />
            </aside>
          )}
        </div>
      </form>
    </Layout>
  );
}

export interface IssuePageProps {
  kit: PageKit;
  repo: RepoJson;
  issue: IssueJson;
  events: TimelineEventJson[];
  reactions: Map<number, ReactionJson[]>;
  allowedReactions: string[];
  renderMarkdown(text: string): string;
  /** Write access to the issues: labels, milestone, assignees. */
  canWrite: boolean;
  canComment: boolean;
  /** A writer or the poster may close/reopen and retitle. */
  canChangeState: boolean;
  labels: LabelJson[];
  milestones: MilestoneJson[];
  candidates: Candidate[];
}

function IssueSidebar(props: IssuePageProps) {
  const { kit, repo, issue, canWrite } = props;
  const action = (what: string) => `${repoHref(repo.full_name)}/issues/${issue.number}/${what}`;
  const filters = NO_FILTERS;
  const edit = (what: string, summary: string, children: ComponentChildren, button: string) => (
    <details class="edit">
      <summary>{summary}</summary>
      <form method="post" action={action(what)} class="stacked">
        <Csrf kit={kit} />
        {children}
        <button type="submit">{button}</button>
      </form>
    </details>
  );
  return (
    <aside class="sidebar" aria-label="Issue details">
      <section>
        <h2>Labels</h2>
        {issue.labels.length ? (
          <p class="chips">
            {issue.labels.map((l) => (
              <>
                <LabelChip label={l} href={issueListHref(repo.full_name, filters, { labels: [l.id] })} />{' '}
              </>
            ))}
          </p>
        ) : (
          <p class="empty">None yet</p>
        )}
        {canWrite &&
          edit('labels', 'Edit labels', <LabelPicker labels={props.labels} chosen={issue.labels.map((l) => l.id)} />, 'Apply labels')}
      </section>
      <section>
        <h2>Milestone</h2>
        {issue.milestone ? (
          <p>
            <a href={issueListHref(repo.full_name, filters, { milestone: issue.milestone.id })}>{issue.milestone.title}</a>
          </p>
        ) : (
          <p class="empty">No milestone</p>
        )}
        {canWrite &&
          edit(
            'milestone',
            'Set milestone',
            <MilestonePicker milestones={props.milestones} chosen={issue.milestone?.id ?? 0} />,
            'Set milestone',
          )}
      </section>
      <section>
        <h2>Assignees</h2>
        {issue.assignees?.length ? (
          <ul class="plain">
            {issue.assignees.map((a) => (
              <li>
                <Avatar url={a.avatar_url} name={a.login} size={20} /> <UserLink user={a} />
              </li>
            ))}
          </ul>
        ) : (
          <p class="empty">No one assigned</p>
        )}
        {canWrite &&
          edit(
            'assignees',
            'Edit assignees',
            <AssigneePicker candidates={props.candidates} chosen={(issue.assignees ?? []).map((a) => a.login)} />,
            'Apply assignees',
          )}
      </section>
    </aside>
  );
}

export function IssuePage(props: IssuePageProps) {
  const { kit, repo, issue } = props;
  const base = `${repoHref(repo.full_name)}/issues/${issue.number}`;
  const opened = <When at={issue.created_at} />;
  return (
    <Layout kit={kit} title={`${issue.title} - Issue #${issue.number} - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="issues" title="breadcrumb" />
      <header class="issue-head">
        <h1>
          {issue.title} <span class="muted">#{issue.number}</span>
        </h1>
        <p class="meta">
          <span class={`state ${issue.state}`}>{issue.state === 'open' ? 'Open' : 'Closed'}</span> <UserLink user={issue.user} /> opened
          this issue {opened} · {plural(issue.comments, 'comment')}
          {issue.locked && <span class="badge">Locked</span>}
        </p>
        {props.canChangeState && (
          <details class="edit">
            <summary>Edit title</summary>
            <form method="post" action={`${base}/title`} class="search">
              <Csrf kit={kit} />
              <label for="edit-title" class="visually-hidden">
                Title
              </label>
              <input id="edit-title" name="title" value={issue.title} required maxLength={255} />
              <button type="submit">Save</button>
            </form>
          </details>
        )}
      </header>
      <div class="columns">
        <Timeline
          kit={kit}
          repoFullName={repo.full_name}
          issue={issue}
          events={props.events}
          renderMarkdown={props.renderMarkdown}
          canComment={props.canComment}
          canChangeState={props.canChangeState}
          commentAction={`${base}/comments`}
          reactions={props.reactions}
          allowedReactions={props.allowedReactions}
          reactionAction={props.canComment ? `${base}/reactions` : undefined}
        />
        <IssueSidebar {...props} />
      </div>
    </Layout>
  );
}
