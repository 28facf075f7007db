import type { Knex } from 'knex';
import {
  ApiError,
  isUniqueViolation,
  rowReader,
  toNumber,
  withConflictRetry,
  type IssueMutation,
  type KernelHooks,
} from '@hearth/plugin-api';

export interface IssueRow {
  id: number;
  repo_id: number;
  index: number;
  poster_id: number;
  original_author: string;
  original_author_id: number;
  name: string;
  content: string | null;
  ref: string;
  milestone_id: number;
  is_closed: boolean;
  is_pull: boolean;
  is_locked: boolean;
  deadline_unix: number;
  created_unix: number;
  updated_unix: number;
  closed_unix: number;
  /** 0 = not pinned, 1 = first (issues and pull requests of a repository counted separately). */
  pin_order: number;
}

export interface LabelRow {
  id: number;
  repo_id: number;
  /** The organization of an organization label (repo_id 0); 0 for a repository label. */
  org_id: number;
  name: string;
  exclusive: boolean;
  description: string;
  color: string;
  created_unix: number;
  updated_unix: number;
}

export interface MilestoneRow {
  id: number;
  repo_id: number;
  name: string;
  content: string | null;
  is_closed: boolean;
  deadline_unix: number;
  closed_date_unix: number;
  created_unix: number;
  updated_unix: number;
}

export interface CommentRow {
  id: number;
  type: number;
  repo_id: number;
  issue_id: number;
  poster_id: number;
  original_author: string;
  original_author_id: number;
  content: string | null;
  created_unix: number;
  updated_unix: number;
}

export const toIssue = rowReader<IssueRow>({
  numbers: [
    'id',
    'repo_id',
    'index',
    'poster_id',
    'original_author_id',
    'milestone_id',
    'deadline_unix',
    'created_unix',
    'updated_unix',
    'closed_unix',
    'pin_order',
  ],
  booleans: ['is_closed', 'is_pull', 'is_locked'],
});

export const toLabel = rowReader<LabelRow>({
  numbers: ['id', 'repo_id', 'org_id', 'created_unix', 'updated_unix'],
  booleans: ['exclusive'],
});

export const toMilestone = rowReader<MilestoneRow>({
  numbers: ['id', 'repo_id', 'deadline_unix', 'closed_date_unix', 'created_unix', 'updated_unix'],
  booleans: ['is_closed'],
});

export const toComment = rowReader<CommentRow>({
  numbers: ['id', 'type', 'repo_id', 'issue_id', 'poster_id', 'original_author_id', 'created_unix', 'updated_unix'],
});

// --- labels -------------------------------------------------------------------------------------

/**
 * The scope of a label name: the part before the LAST '/', as Gitea's ExclusiveScope
 * (`scope/alpha/name` → `scope/alpha`). A name without '/', starting with '/' or ending with '/'
 * has no scope ('').
 */
export function labelScope(name: string): string {
  const i = name.lastIndexOf('/');
  if (i <= 0 || i === name.length - 1) return '';
  return name.slice(0, i);
}

/** The scope that makes a label exclusive: its scope when `exclusive` is set, else ''. */
export function exclusiveScope(label: { name: string; exclusive: boolean }): string {
  return label.exclusive ? labelScope(label.name) : '';
}

/**
 * Keep at most one exclusive label per scope: of several exclusive labels sharing a scope, the
 * LAST one in the list wins (Gitea's RemoveDuplicateExclusiveLabels). Non-exclusive labels, and
 * exclusive labels of other scopes, are kept. Order is preserved.
 */
export function removeDuplicateExclusive<T extends { id: number; name: string; exclusive: boolean }>(labels: T[]): T[] {
  const lastOfScope = new Map<string, number>();
  labels.forEach((l, i) => {
    const scope = exclusiveScope(l);
    if (scope) lastOfScope.set(scope, i);
  });
  return labels.filter((l, i) => {
    const scope = exclusiveScope(l);
    return !scope || lastOfScope.get(scope) === i;
  });
}

/** A label as clients create and edit it (CreateLabelOption / EditLabelOption), repository or organization alike. */
export interface LabelBody {
  name?: string;
  color?: string;
  description?: string;
  exclusive?: boolean;
}

/** A colour from a client, normalised, or a 422 naming it. */
export function labelColor(value: string): string {
  const c = normalizeColor(value);
  if (!c)
    throw ApiError.unprocessable(`invalid color "${value}": use #rrggbb`, {
      errors: [{ field: 'color', message: 'must be #rrggbb or rrggbb' }],
    });
  return c;
}

/** The columns an EditLabelOption changes. */
export function labelPatch(b: LabelBody, now: number): Record<string, unknown> {
  const patch: Record<string, unknown> = { updated_unix: now };
  if (b.name !== undefined) patch.name = b.name;
  if (b.color !== undefined) patch.color = labelColor(b.color);
  if (b.description !== undefined) patch.description = b.description;
  if (b.exclusive !== undefined) patch.exclusive = b.exclusive;
  return patch;
}

/** Normalise `#rrggbb`, `rrggbb`, `#rgb` or `rgb` to `#rrggbb` (lower case); null when invalid. */
export function normalizeColor(color: string): string | null {
  const m = /^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/.exec(color.trim());
  if (!m) return null;
  const hex =
    m[1].length === 3
      ? m[1]
          .split('')
          .map((c) => c + c)
          .join('')
      : m[1];
  return `#${hex.toLowerCase()}`;
}

/**
 * The exclusive-label rule, as an `issue.mutate` tap: a mutation whose changes carry
 * `labelIds` (the complete resulting list, in order: current labels first, then those added in
 * request order) and `labels` (the rows of those ids) is rewritten to keep at most one exclusive
 * label per scope — the last one. So adding an exclusive scoped label drops the other exclusive
 * labels of its scope, and replacing all labels keeps the last one given per exclusive scope.
 */
export function tapExclusiveLabels(hooks: KernelHooks): void {
  hooks.issue.mutate.tapPromise('issues', async (mutation: IssueMutation) => {
    const labels = mutation.changes.labels as LabelRow[] | undefined;
    if (!Array.isArray(mutation.changes.labelIds) || !Array.isArray(labels)) return mutation;
    const byId = new Map(labels.map((l) => [l.id, l]));
    const ordered = (mutation.changes.labelIds as number[]).map((id) => byId.get(id)).filter((l): l is LabelRow => !!l);
    const kept = removeDuplicateExclusive(ordered);
    return { ...mutation, changes: { ...mutation.changes, labelIds: kept.map((l) => l.id), labels: kept } };
  });
}

// --- numbering ----------------------------------------------------------------------------------

/** Make sure the repository's counter row exists; call it before the transaction that numbers an issue. */
export async function ensureIssueCounter(db: Knex, repoId: number): Promise<void> {
  try {
    await db('issue_index').insert({ repo_id: repoId, max_index: 0 }).onConflict('repo_id').ignore();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

/**
 * The next number of a repository's shared issue/pull request sequence (after ensureIssueCounter),
 * inside `trx`: the counter row is incremented with an UPDATE (a row lock on MariaDB/PostgreSQL,
 * the write lock on SQLite), so concurrent creates serialise on it and never share a number.
 */
export async function nextIssueIndex(trx: Knex.Transaction, repoId: number): Promise<number> {
  await trx('issue_index').where('repo_id', repoId).increment('max_index', 1);
  const row = await trx('issue_index').where('repo_id', repoId).first('max_index');
  return toNumber(row.max_index);
}

/** Run a transaction, retrying it when the database aborted it for a deadlock or serialisation failure. */
export function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return withConflictRetry(() => db.transaction(work));
}

// --- clean-up -----------------------------------------------------------------------------------

/**
 * Remove every issue, comment, label, milestone and counter of the given repositories, inside
 * the repository-deletion transaction (the plugin's `repository.deleting` tap).
 */
export async function removeRepoIssues(trx: Knex | Knex.Transaction, repoIds: number[]): Promise<void> {
  if (repoIds.length === 0) return;
  const issueIds = trx('issue').whereIn('repo_id', repoIds).select('id');
  await trx('issue_label').whereIn('issue_id', issueIds).delete();
  await removeIssueInteractions(trx, issueIds);
  await trx('comment').whereIn('repo_id', repoIds).delete();
  await trx('issue').whereIn('repo_id', repoIds).delete();
  await trx('label').whereIn('repo_id', repoIds).delete();
  await trx('milestone').whereIn('repo_id', repoIds).delete();
  await trx('issue_index').whereIn('repo_id', repoIds).delete();
}

/**
 * Remove the assignees, watches, dependencies (both directions) and reactions of issues (ids or
 * a subquery of ids), inside the caller's transaction. Attachments are the caller's (their blobs
 * go after commit).
 */
export async function removeIssueInteractions(trx: Knex | Knex.Transaction, issueIds: number[] | Knex.QueryBuilder): Promise<void> {
  await trx('issue_assignees').whereIn('issue_id', issueIds).delete();
  await trx('issue_mention').whereIn('issue_id', issueIds).delete();
  await trx('issue_watch').whereIn('issue_id', issueIds).delete();
  await trx('issue_dependency').whereIn('issue_id', issueIds).delete();
  await trx('issue_dependency').whereIn('dependency_id', issueIds).delete();
  await trx('reaction').whereIn('issue_id', issueIds).delete();
  await trx('stopwatch').whereIn('issue_id', issueIds).delete();
  await trx('tracked_time').whereIn('issue_id', issueIds).delete();
}
