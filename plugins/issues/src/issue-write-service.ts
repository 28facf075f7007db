import { ApiError, created, noContent, parseTime, withConflictRetry, type ApiRequest, type UserInfo } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type { IssueContext, IssueDeps, OpenedRepo, RepoParams } from './issue-context';
import { ensureIssueCounter, inTransaction, removeIssueInteractions, toIssue, type IssueRow } from './issue-store';
import { resolveAssignees } from './assignees';
import type { IssueEventKind, IssueEvents } from './issue-events';
import { createIssueIn, createNotices, editIssueLocked, editNotices, type IssueEditChanges } from './issue-service';
import type { IssueNotice } from './service';
import { repoIdLookup, unpinLocked, withPinLock } from './issue-actions';
import { COMMENT_TYPE } from './timeline';
import { assertMilestoneOf, resolveUsableLabels } from './issue-inputs';

type IndexParams = RepoParams & { index: number };

export interface CreateIssueBody {
  title: string;
  body?: string;
  ref?: string;
  assignee?: string;
  assignees?: string[];
  closed?: boolean;
  due_date?: string;
  labels?: number[];
  milestone?: number;
}
export interface EditIssueBody {
  title?: string;
  body?: string;
  ref?: string;
  assignee?: string;
  assignees?: string[];
  state?: string;
  due_date?: string | null;
  unset_due_date?: boolean;
  milestone?: number | null;
}
/** The issue routes' writes: create, edit and delete an issue, then emit the events they decided. */
export function issueWriteService(deps: IssueDeps, ctx: IssueContext, events: IssueEvents) {
  const { db, hooks } = deps;

  const one = async (o: OpenedRepo, row: IssueRow, req: ApiRequest<any, any, any>) => (await ctx.issueJsons(o.r, [row], req.principal))[0];
  /** The events the issue service decided, as Issue payloads (issues only: pull requests emit theirs in the pulls module). */
  const emitNotices = async (o: OpenedRepo, issueId: number, notices: IssueNotice[], actor: UserInfo) => {
    for (const n of notices) {
      await events.issue(n.event as IssueEventKind, o.r, issueId, n.action, actor, {
        changes: n.changes as Record<string, { from: string }> | undefined,
        assigneeId: n.assigneeId,
      });
    }
  };

  const createIssue = async (req: ApiRequest<CreateIssueBody, unknown, RepoParams>) => {
    const o = await ctx.open(req, 'participate');
    const b = req.body;
    if (!b.title.trim()) throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
    // As Gitea: labels and milestone given by a caller without write access are ignored.
    const labels = o.canWrite ? await resolveUsableLabels(db, o.r, b.labels ?? []) : [];
    const milestoneId = o.canWrite && b.milestone ? b.milestone : 0;
    if (milestoneId) await assertMilestoneOf(db, o.r.id, milestoneId);
    const deadline = b.due_date && o.canWrite ? parseTime(b.due_date, 'due_date') : 0;
    // As Gitea: assignees given by a caller without write access are ignored.
    const assigneeIds = o.canWrite ? await resolveAssignees(deps, o.r, false, b.assignee, b.assignees) : [];
    await ensureIssueCounter(db, o.r.id);
    // Referenced repositories are resolved before the transaction (see repoIdLookup).
    const refRepos = await repoIdLookup(deps, req.principal, `${b.title}\n${b.body ?? ''}`);
    const actor = req.principal!.user;
    const row = await inTransaction(db, (trx) =>
      createIssueIn(
        hooks,
        trx,
        {
          repoId: o.r.id,
          title: b.title,
          body: b.body ?? '',
          ref: b.ref ?? '',
          milestoneId,
          deadlineUnix: deadline,
          closed: b.closed ?? false,
          isPull: false,
          labels,
          assigneeIds,
        },
        actor,
        refRepos,
      ),
    );
    const id = row.id;
    await emitNotices(o, id, createNotices(row, assigneeIds), actor);
    return created(await one(o, toIssue(await db('issue').where('id', id).first()), req));
  };

  const editIssue = async (req: ApiRequest<EditIssueBody, unknown, IndexParams>) => {
    const o = await ctx.open(req, 'participate');
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const b = req.body;
    const isPoster = issue.poster_id === req.principal!.user.id;
    if (!isPoster && !o.canWrite) throw ApiError.forbidden('only the poster or a writer may edit this issue');
    const changes: IssueEditChanges = {};
    if (b.title !== undefined) {
      if (!b.title.trim()) throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
      changes.title = b.title;
    }
    if (b.body !== undefined) changes.body = b.body;
    if (b.ref !== undefined) changes.ref = b.ref;
    if (b.state !== undefined) {
      if (b.state !== 'open' && b.state !== 'closed')
        throw ApiError.unprocessable(`invalid state "${b.state}": open or closed`, {
          errors: [{ field: 'state', message: 'must be open or closed' }],
        });
      changes.state = b.state as 'open' | 'closed';
    }
    const writerOnly =
      b.milestone !== undefined ||
      b.due_date !== undefined ||
      b.unset_due_date !== undefined ||
      b.assignee !== undefined ||
      b.assignees !== undefined;
    if (writerOnly && !o.canWrite)
      throw ApiError.forbidden('changing the milestone, due date or assignees needs write access to the issues');
    if (b.milestone !== undefined) {
      const id = b.milestone ?? 0;
      if (id) await assertMilestoneOf(db, o.r.id, id);
      changes.milestoneId = id;
    }
    if (b.unset_due_date) changes.deadlineUnix = 0;
    else if (b.due_date !== undefined) changes.deadlineUnix = b.due_date ? parseTime(b.due_date, 'due_date') : 0;
    if (b.assignee !== undefined || b.assignees !== undefined)
      changes.assigneeIds = await resolveAssignees(deps, o.r, issue.is_pull, b.assignee, b.assignees);
    await ensureIssueCounter(db, o.r.id);
    const refRepos = await repoIdLookup(deps, req.principal, req.body.body ?? '');
    const actor = req.principal!.user;
    const outcome = await withConflictRetry(() =>
      withPinLock(db, issue, (trx: Knex.Transaction, before: IssueRow) => editIssueLocked(hooks, trx, before, changes, actor, refRepos)),
    );
    const after = await ctx.issueByIndex(o.r, issue.index);
    await emitNotices(o, issue.id, editNotices(issue, after, outcome), actor);
    return created(await one(o, after, req));
  };

  const deleteIssue = async (req: ApiRequest<unknown, unknown, IndexParams>) => {
    const o = await ctx.open(req);
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const json = await one(o, issue, req);
    const commentIds = db('comment').where('issue_id', issue.id).select('id');
    const files = [
      ...(await deps.attachments.listOfIssues([issue.id])),
      ...(await deps.attachments.listOfComments((await commentIds).map((c: { id: unknown }) => Number(c.id)))),
    ];
    await withConflictRetry(() =>
      withPinLock(db, issue, async (trx, fresh) => {
        if (fresh.pin_order > 0) await unpinLocked(trx, fresh, req.principal!.user.id);
        await trx('issue_label').where('issue_id', issue.id).delete();
        await removeIssueInteractions(trx, [issue.id]);
        await trx('reaction').whereIn('comment_id', trx('comment').where('issue_id', issue.id).select('id')).delete();
        await trx('comment').where('issue_id', issue.id).delete();
        // Its references on other issues' timelines go too (they would point at nothing).
        await trx('comment')
          .where('ref_issue_id', issue.id)
          .whereIn('type', [COMMENT_TYPE.issue_ref, COMMENT_TYPE.comment_ref, COMMENT_TYPE.pull_ref])
          .delete();
        if (issue.is_pull && deps.pulls.link) await deps.pulls.link.removing([issue.id], trx);
        await trx('issue').where('id', issue.id).delete();
      }),
    );
    await deps.attachments.remove(files);
    await events.deleted(o.r, json, issue.is_pull, req.principal!.user);
    return noContent();
  };

  return { one, createIssue, editIssue, deleteIssue };
}
