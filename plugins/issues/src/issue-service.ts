import { insertId, nowUnix, type KernelHooks, type UserInfo } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type { IssueNotice } from './service';
import { changeStateLocked, mutateIssue, recordDeadlineEvent, recordReferences, setAssignees } from './issue-actions';
import { nextIssueIndex, toIssue, type IssueRow, type LabelRow } from './issue-store';
import { recordIssueEvent } from './timeline';

/**
 * The one write path of the issue part of issues AND pull requests: create and edit (title, body,
 * ref, state, labels, milestone, assignees, deadline). The issue routes and the pull-request routes
 * both call these, so each mutation passes `issue.mutate` exactly once, the timeline is recorded
 * once, and the events to emit are decided in one place (issueNotices). The caller validates its
 * API's input (permissions, ids) before, and builds each event's payload after the commit
 * (Issue JSON for issues, PullRequest JSON for pull requests). Pull-only fields (head, base,
 * allow_maintainer_edit) stay with the pull requests module.
 */

/** A lookup of referenced repositories (repoIdLookup), resolved before the transaction. */
export type RepoLookup = (owner: string, repo: string) => Promise<number | null>;

export interface IssueCreateInput {
  repoId: number;
  title: string;
  body: string;
  ref: string;
  milestoneId: number;
  deadlineUnix: number;
  closed: boolean;
  isPull: boolean;
  labels: LabelRow[];
  assigneeIds: number[];
}

/**
 * Create an issue (or the issue of a pull request) inside `trx`: the next index, `issue.mutate`
 * (kind `create`), the row, its labels, and the timeline (initial labels and milestone, assignees,
 * references in title and body). Call ensureIssueCounter before the transaction.
 */
export async function createIssueIn(
  hooks: KernelHooks,
  trx: Knex.Transaction,
  input: IssueCreateInput,
  actor: UserInfo,
  refRepos: RepoLookup,
): Promise<IssueRow> {
  const index = await nextIssueIndex(trx, input.repoId);
  const mutation = await hooks.issue.mutate.promise(
    {
      kind: 'create',
      issueId: null,
      repositoryId: input.repoId,
      changes: {
        index,
        title: input.title,
        body: input.body,
        ref: input.ref,
        milestoneId: input.milestoneId,
        deadlineUnix: input.deadlineUnix,
        closed: input.closed,
        ...(input.isPull ? { isPull: true } : {}),
        labelIds: input.labels.map((l) => l.id),
        labels: input.labels,
      },
    },
    { actor, trx },
  );
  const c = mutation.changes;
  const now = nowUnix();
  const closed = Boolean(c.closed);
  const issueId = await insertId(trx, 'issue', {
    repo_id: input.repoId,
    index,
    poster_id: actor.id,
    name: String(c.title),
    content: String(c.body ?? ''),
    ref: String(c.ref ?? ''),
    milestone_id: Number(c.milestoneId ?? 0),
    is_closed: closed,
    is_pull: input.isPull,
    deadline_unix: Number(c.deadlineUnix ?? 0),
    created_unix: now,
    updated_unix: now,
    closed_unix: closed ? now : 0,
  });
  const labelIds = [...new Set(((c.labelIds as number[]) ?? []).map(Number))];
  if (labelIds.length) await trx('issue_label').insert(labelIds.map((label_id) => ({ issue_id: issueId, label_id })));
  const row = toIssue(await trx('issue').where('id', issueId).first());
  // As Gitea, the initial labels and milestone appear in the timeline too.
  const base = { repoId: input.repoId, issueId, actorId: actor.id };
  for (const labelId of labelIds) await recordIssueEvent(trx, { ...base, type: 'label', label_id: labelId, content: '1' });
  if (row.milestone_id) await recordIssueEvent(trx, { ...base, type: 'milestone', milestone_id: row.milestone_id });
  if (input.assigneeIds.length) await setAssignees(trx, row, input.assigneeIds, actor.id);
  // `#N` references (issue_ref / pull_ref events on the issues named) and @mentions.
  await recordReferences(
    trx,
    { repoId: input.repoId, issue: row, commentId: 0, text: `${row.name}\n${row.content ?? ''}`, actorId: actor.id },
    refRepos,
  );
  return row;
}

/**
 * Replace an issue's labels by `ids` (already through issue.mutate), recording one label event per
 * label removed (content "") and added (content "1"). Returns whether anything changed.
 */
export async function replaceLabelsIn(trx: Knex.Transaction, issue: IssueRow, ids: number[], actorId: number): Promise<boolean> {
  // In the order the API shows labels (by name), as the label events were always recorded.
  const current = (
    await trx('issue_label as il')
      .join('label as l', 'l.id', 'il.label_id')
      .where('il.issue_id', issue.id)
      .orderBy([
        { column: 'l.name', order: 'asc' },
        { column: 'l.id', order: 'asc' },
      ])
      .select('il.label_id')
  ).map((r: { label_id: unknown }) => Number(r.label_id));
  const next = [...new Set(ids.map(Number))];
  await trx('issue_label').where('issue_id', issue.id).delete();
  if (next.length) await trx('issue_label').insert(next.map((label_id) => ({ issue_id: issue.id, label_id })));
  const base = { repoId: issue.repo_id, issueId: issue.id, actorId, type: 'label' as const };
  const removed = current.filter((id) => !next.includes(id));
  const added = next.filter((id) => !current.includes(id));
  for (const id of removed) await recordIssueEvent(trx, { ...base, label_id: id, content: '' });
  for (const id of added) await recordIssueEvent(trx, { ...base, label_id: id, content: '1' });
  return removed.length + added.length > 0;
}

/** The issue part of an edit, as the issue.mutate `edit` changes. */
export interface IssueEditChanges {
  title?: string;
  body?: string;
  ref?: string;
  state?: 'open' | 'closed';
  milestoneId?: number;
  deadlineUnix?: number;
  assigneeIds?: number[];
  labelIds?: number[];
  labels?: LabelRow[];
}

export interface IssueEditOutcome {
  stateChanged: boolean;
  milestoneChanged: boolean;
  /** Labels were given: `updated`, or `cleared` when none are left (reported even when unchanged, as Gitea); null otherwise. */
  labels: 'updated' | 'cleared' | null;
  assignees: { added: number[]; removed: number[] };
}

/**
 * Edit an issue (or a pull request's issue) inside `trx`, holding the repository's pin lock
 * (withPinLock): `issue.mutate` once (kind `edit`), then the row and the timeline — change_title,
 * labels, milestone, deadline, assignees, close/reopen (unpinning, 412 while dependencies are open)
 * and the references of a new body. `before` is the issue as read inside the transaction.
 */
export async function editIssueLocked(
  hooks: KernelHooks,
  trx: Knex.Transaction,
  before: IssueRow,
  changes: IssueEditChanges,
  actor: UserInfo,
  refRepos: RepoLookup,
): Promise<IssueEditOutcome> {
  const c = await mutateIssue(hooks, trx, before, 'edit', changes as Record<string, unknown>, actor);
  const actorId = actor.id;
  const done: IssueEditOutcome = { stateChanged: false, milestoneChanged: false, labels: null, assignees: { added: [], removed: [] } };
  const patch: Record<string, unknown> = { updated_unix: nowUnix() };
  if (c.title !== undefined) patch.name = String(c.title);
  if (c.body !== undefined) patch.content = String(c.body);
  if (c.ref !== undefined) patch.ref = String(c.ref);
  if (c.milestoneId !== undefined) patch.milestone_id = Number(c.milestoneId ?? 0);
  if (c.deadlineUnix !== undefined) patch.deadline_unix = Number(c.deadlineUnix ?? 0);
  await trx('issue').where('id', before.id).update(patch);
  const base = { repoId: before.repo_id, issueId: before.id, actorId };
  if (patch.name !== undefined && patch.name !== before.name)
    await recordIssueEvent(trx, { ...base, type: 'change_title', old_title: before.name, new_title: String(patch.name) });
  if (Array.isArray(c.labelIds)) {
    const ids = (c.labelIds as unknown[]).map(Number);
    await replaceLabelsIn(trx, before, ids, actorId);
    done.labels = ids.length ? 'updated' : 'cleared';
  }
  if (patch.milestone_id !== undefined && patch.milestone_id !== before.milestone_id) {
    await recordIssueEvent(trx, {
      ...base,
      type: 'milestone',
      old_milestone_id: before.milestone_id,
      milestone_id: Number(patch.milestone_id),
    });
    done.milestoneChanged = true;
  }
  if (patch.deadline_unix !== undefined) await recordDeadlineEvent(trx, before, before.deadline_unix, Number(patch.deadline_unix), actorId);
  if (Array.isArray(c.assigneeIds)) done.assignees = await setAssignees(trx, before, (c.assigneeIds as unknown[]).map(Number), actorId);
  if (c.state !== undefined) done.stateChanged = await changeStateLocked(trx, before, c.state === 'closed', actorId);
  if (patch.content !== undefined && patch.content !== (before.content ?? '')) {
    const after = toIssue(await trx('issue').where('id', before.id).first());
    await recordReferences(trx, { repoId: before.repo_id, issue: after, commentId: 0, text: String(patch.content), actorId }, refRepos);
  }
  return done;
}

const eventName = (isPull: boolean, kind: '' | 'assign' | 'label' | 'milestone'): IssueNotice['event'] =>
  (isPull ? (kind ? `pull_request_${kind}` : 'pull_request') : kind ? `issue_${kind}` : 'issues') as IssueNotice['event'];

/** The events of a create: opened, then assigned per initial assignee. */
export function createNotices(issue: IssueRow, assigneeIds: number[]): IssueNotice[] {
  return [
    { event: eventName(issue.is_pull, ''), action: 'opened' },
    ...assigneeIds.map((assigneeId) => ({ event: eventName(issue.is_pull, 'assign'), action: 'assigned', assigneeId })),
  ];
}

/**
 * The events of an edit, in order: edited (title, body, and `extraChanges` such as a pull
 * request's base), closed/reopened, label_updated/label_cleared, milestoned/demilestoned,
 * assigned/unassigned per user.
 */
export function editNotices(
  before: IssueRow,
  after: IssueRow,
  outcome: IssueEditOutcome,
  extraChanges: Record<string, unknown> = {},
): IssueNotice[] {
  const isPull = after.is_pull;
  const out: IssueNotice[] = [];
  const edits: Record<string, unknown> = {};
  if (after.name !== before.name) edits.title = { from: before.name };
  if ((after.content ?? '') !== (before.content ?? '')) edits.body = { from: before.content ?? '' };
  Object.assign(edits, extraChanges);
  if (Object.keys(edits).length) out.push({ event: eventName(isPull, ''), action: 'edited', changes: edits });
  if (outcome.stateChanged) out.push({ event: eventName(isPull, ''), action: after.is_closed ? 'closed' : 'reopened' });
  if (outcome.labels) out.push({ event: eventName(isPull, 'label'), action: `label_${outcome.labels}` });
  if (outcome.milestoneChanged)
    out.push({ event: eventName(isPull, 'milestone'), action: after.milestone_id ? 'milestoned' : 'demilestoned' });
  for (const assigneeId of outcome.assignees.added) out.push({ event: eventName(isPull, 'assign'), action: 'assigned', assigneeId });
  for (const assigneeId of outcome.assignees.removed) out.push({ event: eventName(isPull, 'assign'), action: 'unassigned', assigneeId });
  return out;
}
