/**
 * A repository's labels and milestones (`/{owner}/{repo}/labels`, `/{owner}/{repo}/milestones`,
 * `/milestones/new`, `/milestones/{id}/edit`): the lists for everyone who may read the issues, the
 * forms for those who may write them.
 */
import { LabelChip, Notice, Pager, plural, repoHref, Rendered, When } from './common';
import type { RepoJson } from './home-pages';
import { Csrf, Layout, type PageKit } from './layout';
import { RepoHeader } from './repo-header';
import type { LabelJson, MilestoneJson } from './timeline';

/** Gitea's Milestone JSON with the dates the list shows. */
export type MilestoneRow = MilestoneJson & { closed_at?: string | null; created_at?: string; updated_at?: string };

/** The label form's values (kept when the form comes back with the API's refusal). */
export interface LabelForm {
  /** The label being edited; absent for a new one. */
  id?: number;
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
  error?: string;
}

/** The milestone form's values; `due` is a `YYYY-MM-DD` day or ''. */
export interface MilestoneForm {
  title: string;
  description: string;
  due: string;
  error?: string;
}

/** Issues, Labels and Milestones: the issue tracker's own pages, under the repository's tabs. */
function IssueTrackerNav({ repo, current }: { repo: RepoJson; current: 'labels' | 'milestones' }) {
  const base = repoHref(repo.full_name);
  return (
    <nav class="tabs sub" aria-label="Issue tracker">
      <a href={`${base}/issues`}>Issues</a>
      <a href={`${base}/labels`} aria-current={current === 'labels' ? 'page' : undefined}>
        Labels
      </a>
      <a href={`${base}/milestones`} aria-current={current === 'milestones' ? 'page' : undefined}>
        Milestones
      </a>
    </nav>
  );
}

/** What a `?saved=…` redirect back says. */
const DONE: Record<string, string> = {
  created: 'The label was created.',
  updated: 'The label was saved.',
  deleted: 'The label was deleted.',
  loaded: 'The labels of the template were added.',
  'milestone-created': 'The milestone was created.',
  'milestone-updated': 'The milestone was saved.',
  'milestone-closed': 'The milestone was closed.',
  'milestone-opened': 'The milestone was reopened.',
  'milestone-deleted': 'The milestone was deleted.',
};

export function DoneNotice({ done }: { done?: string }) {
  const text = done ? DONE[done] : undefined;
  return text ? <Notice kind="success">{text}</Notice> : null;
}

/** A label's scope as Gitea reads it: the part of its name before the last `/` ('' when none). */
export function labelScope(name: string): string {
  const i = name.lastIndexOf('/');
  return i <= 0 || i === name.length - 1 ? '' : name.slice(0, i);
}

/** The fields of a label, new or edited; ids are suffixed so that several forms on one page keep unique ids. */
function LabelFields({ form, suffix }: { form: LabelForm; suffix: string }) {
  const color = /^#[0-9a-f]{6}$/i.test(form.color) ? form.color.toLowerCase() : '#cccccc';
  return (
    <>
      <label for={`label-name-${suffix}`}>Label name</label>
      <input id={`label-name-${suffix}`} name="title" value={form.name} required maxLength={255} />
      <div class="check">
        <input type="checkbox" id={`label-exclusive-${suffix}`} name="exclusive" value="on" checked={form.exclusive} />
        <label for={`label-exclusive-${suffix}`}>
          Exclusive: an issue carries at most one label of this scope (the name's part before the last “/”, as in <code>priority/high</code>
          )
        </label>
      </div>
      <label for={`label-description-${suffix}`}>Description</label>
      <input id={`label-description-${suffix}`} name="description" value={form.description} maxLength={255} />
      <label for={`label-color-${suffix}`}>Colour</label>
      <input id={`label-color-${suffix}`} name="color" type="color" value={color} />
    </>
  );
}

export interface LabelsPageProps {
  kit: PageKit;
  repo: RepoJson;
  labels: LabelJson[];
  /** The organization's labels (usable here, managed by the organization); null for a user's repository. */
  orgLabels: LabelJson[] | null;
  canWrite: boolean;
  /** Names of the label templates a writer may load (empty when none or not a writer). */
  templates: string[];
  /** A form that came back with an error (new when it has no id). */
  form?: LabelForm;
  done?: string;
}

function LabelRow({
  kit,
  repo,
  label,
  canWrite,
  form,
}: {
  kit: PageKit;
  repo: RepoJson;
  label: LabelJson;
  canWrite: boolean;
  form?: LabelForm;
}) {
  const base = repoHref(repo.full_name);
  const scope = labelScope(label.name);
  const editing = form?.id === label.id ? form : undefined;
  const values: LabelForm = editing ?? {
    id: label.id,
    name: label.name,
    color: `#${label.color.replace(/^#/, '')}`,
    description: label.description ?? '',
    exclusive: Boolean(label.exclusive),
  };
  return (
    <li class="label-row" id={`label-${label.id}`}>
      <div class="label-main">
        <LabelChip label={label} href={`${base}/issues?labels=${label.id}`} />
        {label.exclusive && scope && (
          <span class="badge" title={`At most one “${scope}/…” label per issue`}>
            Exclusive scope {scope}
          </span>
        )}
        {label.description && <p class="meta">{label.description}</p>}
      </div>
      <a class="label-issues" href={`${base}/issues?labels=${label.id}`}>
        Open issues<span class="visually-hidden"> labelled {label.name}</span>
      </a>
      {canWrite && (
        <div class="label-actions">
          <details class="edit" open={Boolean(editing)}>
            <summary>
              Edit <span class="visually-hidden">label {label.name}</span>
            </summary>
            <form method="post" action={`${base}/labels/edit`} class="stacked">
              <Csrf kit={kit} />
              <input type="hidden" name="id" value={String(label.id)} />
              {editing?.error && <Notice kind="error">{editing.error}</Notice>}
              <LabelFields form={values} suffix={String(label.id)} />
              <button type="submit" class="primary">
                Save label
              </button>
            </form>
          </details>
          <details class="edit">
            <summary>
              Delete <span class="visually-hidden">label {label.name}</span>
            </summary>
            <form method="post" action={`${base}/labels/delete`} class="stacked">
              <Csrf kit={kit} />
              <input type="hidden" name="id" value={String(label.id)} />
              <p>The label is removed from every issue and pull request that carries it.</p>
              <button type="submit" class="danger">
                Delete label {label.name}
              </button>
            </form>
          </details>
        </div>
      )}
    </li>
  );
}

export function LabelsPage({ kit, repo, labels, orgLabels, canWrite, templates, form, done }: LabelsPageProps) {
  const base = repoHref(repo.full_name);
  const newForm = form && !form.id ? form : undefined;
  return (
    <Layout kit={kit} title={`Labels - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="issues" title="breadcrumb" />
      <IssueTrackerNav repo={repo} current="labels" />
      <h1>Labels</h1>
      <DoneNotice done={done} />
      {canWrite && (
        <details class="edit new-label" open={Boolean(newForm)}>
          <summary>New label</summary>
          <form method="post" action={`${base}/labels/new`} class="stacked narrow-form">
            <Csrf kit={kit} />
            {newForm?.error && <Notice kind="error">{newForm.error}</Notice>}
            <LabelFields form={newForm ?? { name: '', color: '#1d76db', description: '', exclusive: false }} suffix="new" />
            <button type="submit" class="primary">
              Create label
            </button>
          </form>
        </details>
      )}
      <h2>{plural(labels.length, 'label')}</h2>
      {labels.length === 0 ? (
        <p class="empty">This repository has no labels yet.</p>
      ) : (
        <ul class="rows labels">
          {labels.map((label) => (
            <LabelRow kit={kit} repo={repo} label={label} canWrite={canWrite} form={form} />
          ))}
        </ul>
      )}
      {canWrite && labels.length === 0 && templates.length > 0 && (
        <form method="post" action={`${base}/labels/initialize`} class="box load-template">
          <header>
            <h2>Load a label template</h2>
          </header>
          <div class="body stacked">
            <Csrf kit={kit} />
            <p>Start with a ready-made set of labels; you can edit or delete each afterwards.</p>
            <label for="template_name">Label template</label>
            <select id="template_name" name="template_name">
              {templates.map((name) => (
                <option value={name}>{name}</option>
              ))}
            </select>
            <button type="submit">Load labels</button>
          </div>
        </form>
      )}
      {orgLabels && orgLabels.length > 0 && (
        <>
          <h2>Organization labels</h2>
          <p class="meta">Usable in every repository of {repo.owner.login}; the organization manages them.</p>
          <ul class="rows labels">
            {orgLabels.map((label) => (
              <LabelRow kit={kit} repo={repo} label={label} canWrite={false} />
            ))}
          </ul>
        </>
      )}
    </Layout>
  );
}

export interface MilestonesPageProps {
  kit: PageKit;
  repo: RepoJson;
  state: 'open' | 'closed';
  milestones: MilestoneRow[];
  openCount: number;
  closedCount: number;
  page: number;
  limit: number;
  canWrite: boolean;
  renderMarkdown(text: string): string;
  done?: string;
}

/** Closed issues out of all, in whole percent (0 for a milestone without issues). */
export function progressOf(m: MilestoneRow): number {
  const open = m.open_issues ?? 0;
  const closed = m.closed_issues ?? 0;
  return open + closed === 0 ? 0 : Math.floor((closed * 100) / (open + closed));
}

/** A due date, marked when it has passed for an open milestone. */
function Due({ m }: { m: MilestoneRow }) {
  if (!m.due_on) return <span>No due date</span>;
  const overdue = m.state !== 'closed' && new Date(m.due_on).getTime() < Date.now();
  return (
    <span class={overdue ? 'overdue' : undefined}>
      {overdue ? 'Past due' : 'Due'} <When at={m.due_on} />
    </span>
  );
}

function MilestoneItem({ kit, repo, m, canWrite, renderMarkdown }: MilestonesPageProps & { m: MilestoneRow }) {
  const base = repoHref(repo.full_name);
  const issues = (state: string) => `${base}/issues?milestone=${m.id}${state === 'open' ? '' : `&state=${state}`}`;
  const pct = progressOf(m);
  return (
    <li class="milestone-row" id={`milestone-${m.id}`}>
      <div class="milestone-head">
        <h2>
          <a href={issues('all')}>{m.title}</a>
        </h2>
        <span class="meta">
          {m.state === 'closed' ? (
            <>
              Closed <When at={m.closed_at ?? undefined} />
            </>
          ) : (
            <Due m={m} />
          )}
        </span>
      </div>
      <progress max={100} value={pct} aria-label={`${m.title}: ${pct}% complete`}>
        {pct}%
      </progress>
      <p class="meta">
        {pct}% complete · <a href={issues('open')}>{m.open_issues ?? 0} open</a> ·{' '}
        <a href={issues('closed')}>{m.closed_issues ?? 0} closed</a>
      </p>
      {m.description && <Rendered html={renderMarkdown(m.description)} />}
      {canWrite && (
        <div class="milestone-actions">
          <a href={`${base}/milestones/${m.id}/edit`}>
            Edit <span class="visually-hidden">milestone {m.title}</span>
          </a>
          <form method="post" action={`${base}/milestones/${m.id}/${m.state === 'closed' ? 'open' : 'close'}`} class="inline">
            <Csrf kit={kit} />
            <button type="submit" class="link">
              {m.state === 'closed' ? 'Reopen' : 'Close'} <span class="visually-hidden">milestone {m.title}</span>
            </button>
          </form>
          <details class="edit">
            <summary>
              Delete <span class="visually-hidden">milestone {m.title}</span>
            </summary>
            <form method="post" action={`${base}/milestones/delete`} class="stacked">
              <Csrf kit={kit} />
              <input type="hidden" name="id" value={String(m.id)} />
              <p>Its issues and pull requests stay, without a milestone.</p>
              <button type="submit" class="danger">
                Delete milestone {m.title}
              </button>
            </form>
          </details>
        </div>
      )}
    </li>
  );
}

export function MilestonesPage(props: MilestonesPageProps) {
  const { kit, repo, state, milestones, openCount, closedCount, page, limit, canWrite, done } = props;
  const base = repoHref(repo.full_name);
  const href = (s: 'open' | 'closed', p = 1) => `${base}/milestones?state=${s}${p > 1 ? `&page=${p}` : ''}`;
  return (
    <Layout kit={kit} title={`Milestones - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="issues" title="breadcrumb" />
      <IssueTrackerNav repo={repo} current="milestones" />
      <div class="list-head">
        <h1>Milestones</h1>
        {canWrite && (
          <a class="button primary" href={`${base}/milestones/new`}>
            New milestone
          </a>
        )}
      </div>
      <DoneNotice done={done} />
      <nav class="state-tabs" aria-label="Milestone state">
        <a href={href('open')} aria-current={state === 'open' ? 'page' : undefined}>
          {openCount} Open
        </a>
        <a href={href('closed')} aria-current={state === 'closed' ? 'page' : undefined}>
          {closedCount} Closed
        </a>
      </nav>
      {milestones.length === 0 ? (
        <p class="empty">{state === 'closed' ? 'No closed milestones.' : 'No open milestones.'}</p>
      ) : (
        <ul class="rows milestones">
          {milestones.map((m) => (
            <MilestoneItem {...props} m={m} />
          ))}
        </ul>
      )}
      <Pager page={page} limit={limit} total={state === 'open' ? openCount : closedCount} href={(p) => href(state, p)} />
    </Layout>
  );
}

export interface MilestoneFormPageProps {
  kit: PageKit;
  repo: RepoJson;
  /** The milestone being edited; absent for a new one. */
  id?: number;
  form: MilestoneForm;
}

export function MilestoneFormPage({ kit, repo, id, form }: MilestoneFormPageProps) {
  const base = repoHref(repo.full_name);
  const title = id ? 'Edit milestone' : 'New milestone';
  return (
    <Layout kit={kit} title={`${title} - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="issues" title="breadcrumb" />
      <IssueTrackerNav repo={repo} current="milestones" />
      <section class="wide-form">
        <h1>{title}</h1>
        {form.error && <Notice kind="error">{form.error}</Notice>}
        <form method="post" action={id ? `${base}/milestones/${id}/edit` : `${base}/milestones/new`} class="stacked">
          <Csrf kit={kit} />
          <label for="milestone-title">Title</label>
          <input id="milestone-title" name="title" value={form.title} required maxLength={255} />
          <label for="milestone-due">Due date (optional; empty for none)</label>
          <input id="milestone-due" name="deadline" type="date" value={form.due} />
          <label for="milestone-description">Description</label>
          <textarea id="milestone-description" name="content" maxLength={65536} rows={6}>
            {form.description}
          </textarea>
          <button type="submit" class="primary">
            {id ? 'Save milestone' : 'Create milestone'}
          </button>
        </form>
        <p>
          <a href={`${base}/milestones`}>Back to milestones</a>
        </p>
      </section>
    </Layout>
  );
}
