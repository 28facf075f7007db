import { ApiError, insertId, nowUnix, toBoolean, toNumber, withConflictRetry } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type {
  Issue,
  IssueAudience,
  IssueChanges,
  IssueListQuery,
  IssueSubject,
  IssuesService,
  ReviewComment,
  TimelineEvent,
} from './service';
import { issueContext, type IssueContext, type IssueDeps } from './issue-context';
import { ensureIssueCounter, inTransaction, toComment, toIssue, toLabel, type IssueRow, type LabelRow } from './issue-store';
import { mentionedNames, mutateIssue, repoIdLookup, withPinLock } from './issue-actions';
import { createIssueIn, createNotices, editIssueLocked, editNotices, type IssueEditChanges } from './issue-service';
import { assertMilestoneOf, resolveUsableLabels } from './issue-inputs';
import { resolveAssignees } from './assignees';
import { COMMENT_TYPE, recordIssueEvent, timelineTypeName, type TimelineFields } from './timeline';

/** An issue row as the service hands it out. */
export function toIssueInfo(row: IssueRow): Issue {
  return {
    id: row.id,
    repositoryId: row.repo_id,
    index: row.index,
    posterId: row.poster_id,
    title: row.name,
    body: row.content ?? '',
    ref: row.ref,
    milestoneId: row.milestone_id,
    isClosed: row.is_closed,
    isPull: row.is_pull,
    isLocked: row.is_locked,
    deadlineUnix: row.deadline_unix,
    createdUnix: row.created_unix,
    updatedUnix: row.updated_unix,
    closedUnix: row.closed_unix,
    pinOrder: row.pin_order,
  };
}

/** Comment types whose posters take part in an issue (comment, code comment, review). */
const PARTICIPANT_COMMENT_TYPES = [COMMENT_TYPE.comment, COMMENT_TYPE.code, COMMENT_TYPE.review];

/** The issues service other plugins get (`issuesRef`): plain data over the write path and the converters of the routes. */
export function issuesService(deps: IssueDeps): IssuesService {
  const ctx = issueContext(deps);
  return {
    ...issueReads(deps, ctx),
    ...issueWrites(deps),
    ...reviewCommentMethods(deps),
    ...participationMethods(deps, ctx),
    linkPullRequests: (link) => {
      if (deps.pulls.link) throw new Error('the pull requests feature is linked already (one plugin owns pull requests)');
      deps.pulls.link = link;
    },
  };
}

/** Finding issues, their JSON, and resolving the inputs of a write (labels, milestone, assignees). */
function issueReads(
  deps: IssueDeps,
  ctx: IssueContext,
): Pick<IssuesService, 'byId' | 'byIds' | 'byIndex' | 'list' | 'toApi' | 'resolveLabels' | 'assertMilestone' | 'resolveAssignees'> {
  const { db } = deps;
  return {
    byId: async (id) => {
      const row = await db('issue').where('id', id).first();
      return row ? toIssueInfo(toIssue(row)) : null;
    },
    byIds: async (ids) => {
      const out = new Map<number, Issue>();
      if (ids.length)
        for (const raw of await db('issue').whereIn('id', [...new Set(ids)])) out.set(toNumber(raw.id), toIssueInfo(toIssue(raw)));
      return out;
    },
    byIndex: async (repositoryId, index) => {
      const row = await db('issue').where({ repo_id: repositoryId, index }).first();
      return row ? toIssueInfo(toIssue(row)) : null;
    },
    list: (query) => listIssues(db, query),
    toApi: async (repository, issues, viewer) => {
      if (issues.length === 0) return [];
      const rows = new Map(
        (
          await db('issue').whereIn(
            'id',
            issues.map((i) => i.id),
          )
        ).map((raw: unknown) => [toIssue(raw).id, toIssue(raw)]),
      );
      return ctx.issueJsons(
        repository,
        issues.map((i) => rows.get(i.id)).filter((r): r is IssueRow => !!r),
        viewer,
      );
    },

    resolveLabels: async (repository, refs) => (await resolveUsableLabels(db, repository, refs)).map((l) => l.id),
    assertMilestone: (repositoryId, milestoneId) => assertMilestoneOf(db, repositoryId, milestoneId),
    resolveAssignees: (repository, isPull, assignee, assignees) => resolveAssignees(deps, repository, isPull, assignee, assignees),
  };
}

/** The write path: create and edit (one `issue.mutate` per change, the timeline once), other mutations, merges, events. */
function issueWrites(deps: IssueDeps): Pick<IssuesService, 'create' | 'edit' | 'mutate' | 'closeMerged' | 'touch' | 'recordEvent'> {
  const { db, hooks } = deps;

  const rowById = async (id: number, q: Knex | Knex.Transaction = db): Promise<IssueRow> => {
    const row = await q('issue').where('id', id).first();
    if (!row) throw ApiError.notFound(`issue does not exist [id: ${id}]`);
    return toIssue(row);
  };
  /** Label rows of ids, in the order of the ids (the order `issue.mutate` sees them in). */
  const labelRows = async (ids: readonly number[]): Promise<LabelRow[]> => {
    if (ids.length === 0) return [];
    const byId = new Map((await db('label').whereIn('id', [...new Set(ids)])).map((raw: unknown) => [toLabel(raw).id, toLabel(raw)]));
    return ids.map((id) => byId.get(id)).filter((l): l is LabelRow => !!l);
  };
  /** The internal edit changes: the caller's keys in its order, `labels` (their rows) after `labelIds`. */
  const editChanges = async (changes: IssueChanges): Promise<IssueEditChanges> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      out[key] = value;
      if (key === 'labelIds') out.labels = await labelRows(value as number[]);
    }
    return out as IssueEditChanges;
  };
  const timelineFields = (event: TimelineEvent): TimelineFields => {
    const fields: Record<string, unknown> = {
      content: event.content,
      old_ref: event.oldRef,
      new_ref: event.newRef,
      commit_sha: event.commitSha,
      review_id: event.reviewId,
      assignee_id: event.assigneeId,
      assignee_team_id: event.assigneeTeamId,
      removed_assignee: event.removedAssignee,
    };
    return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as TimelineFields;
  };

  return {
    create: async (input, actor, viewer, within) => {
      await ensureIssueCounter(db, input.repositoryId);
      // Referenced repositories are resolved before the transaction (see repoIdLookup).
      const refRepos = await repoIdLookup(deps, viewer, `${input.title}\n${input.body}`);
      const labels = await labelRows(input.labelIds);
      const row = await inTransaction(db, async (trx) => {
        const created = await createIssueIn(
          hooks,
          trx,
          {
            repoId: input.repositoryId,
            title: input.title,
            body: input.body,
            ref: input.ref,
            milestoneId: input.milestoneId,
            deadlineUnix: input.deadlineUnix,
            closed: input.closed,
            isPull: input.isPull,
            labels,
            assigneeIds: input.assigneeIds,
          },
          actor,
          refRepos,
        );
        if (within) await within(trx, toIssueInfo(created));
        return created;
      });
      const fresh = await rowById(row.id);
      return { issue: toIssueInfo(fresh), notices: createNotices(fresh, input.assigneeIds) };
    },
    edit: async (issueId, changes, { actor, viewer, extraChanges, within }) => {
      const issue = await rowById(issueId);
      const internal = await editChanges(changes);
      await ensureIssueCounter(db, issue.repo_id);
      const refRepos = await repoIdLookup(deps, viewer, changes.body ?? '');
      // Under the repository's pin lock: the issue part (issue.mutate once, the timeline), then the caller's own rows.
      const outcome = await withConflictRetry(() =>
        withPinLock(db, issue, async (trx, current) => {
          const done = await editIssueLocked(hooks, trx, current, internal, actor, refRepos);
          if (within) await within(trx, toIssueInfo(current));
          return done;
        }),
      );
      const after = await rowById(issue.id);
      return { issue: toIssueInfo(after), notices: editNotices(issue, after, outcome, extraChanges) };
    },
    mutate: async (trx, issueId, kind, changes, actor) => mutateIssue(hooks, trx, await rowById(issueId, trx), kind, changes, actor),
    closeMerged: async (issueId, actor, commitSha, closedUnix) => {
      const issue = await rowById(issueId);
      await db.transaction(async (trx) => {
        await trx('issue').where('id', issue.id).update({ is_closed: true, closed_unix: closedUnix, updated_unix: closedUnix });
        await recordIssueEvent(trx, {
          repoId: issue.repo_id,
          issueId: issue.id,
          actorId: actor.id,
          type: 'merge_pull',
          commit_sha: commitSha,
          content: '',
        });
      });
      return toIssueInfo(await rowById(issue.id));
    },
    touch: async (issueId, trx) => {
      const now = nowUnix();
      await (trx ?? db)('issue').where('id', issueId).update({ updated_unix: now });
      return now;
    },
    recordEvent: (event, trx) =>
      recordIssueEvent(trx ?? db, {
        repoId: event.repositoryId,
        issueId: event.issueId,
        actorId: event.actorId,
        type: event.type,
        ...timelineFields(event),
      }),
  };
}

/** The code comments of pull request reviews (comment rows with a review id). */
function reviewCommentMethods(deps: IssueDeps): Pick<IssuesService, 'addReviewComment' | 'reviewComments' | 'removeComments'> {
  const { db } = deps;
  return {
    addReviewComment: async (c, trx) => {
      const now = nowUnix();
      return insertId(trx ?? db, 'comment', {
        type: COMMENT_TYPE.code,
        repo_id: c.repositoryId,
        issue_id: c.issueId,
        poster_id: c.posterId,
        content: c.body,
        review_id: c.reviewId,
        tree_path: c.treePath,
        line: c.line,
        patch: c.patch,
        commit_sha: c.commitSha,
        created_unix: now,
        updated_unix: now,
      });
    },
    reviewComments: async (reviewIds) => {
      if (reviewIds.length === 0) return [];
      const rows = await db('comment')
        .whereIn('review_id', [...reviewIds])
        .whereIn('type', [COMMENT_TYPE.code, COMMENT_TYPE.review])
        .orderBy('id', 'asc');
      return rows.map(toReviewComment);
    },
    removeComments: async (commentIds, trx) => {
      if (commentIds.length === 0) return;
      const q = trx ?? db;
      await q('reaction')
        .whereIn('comment_id', [...commentIds])
        .delete();
      await q('comment')
        .whereIn('id', [...commentIds])
        .delete();
    },
  };
}

/** Who takes part in issues and what notifications and feeds show of them. */
function participationMethods(
  deps: IssueDeps,
  ctx: IssueContext,
): Pick<IssuesService, 'commentsToApi' | 'audience' | 'subjects' | 'mentionedUserIds'> {
  const { db } = deps;
  return {
    commentsToApi: async (commentIds, viewer) => {
      const out = new Map<number, Record<string, unknown>>();
      if (commentIds.length === 0) return out;
      const rows = (await db('comment').whereIn('id', [...new Set(commentIds)])).map(toComment);
      const repos = await deps.repositories.byIds(rows.map((c) => c.repo_id));
      for (const c of rows) {
        const repo = repos.get(c.repo_id);
        if (repo) out.set(c.id, (await ctx.commentJsons(repo, [c], viewer))[0]);
      }
      return out;
    },
    audience: (repositoryId, index) => audienceOf(db, repositoryId, index),
    subjects: async (issueIds) => {
      const out = new Map<number, IssueSubject>();
      if (issueIds.length === 0) return out;
      const ids = [...new Set(issueIds)];
      const rows = await db('issue').whereIn('id', ids).select('id', 'index', 'name', 'is_closed', 'is_pull');
      const last = new Map<number, number>();
      const latest = await db('comment')
        .whereIn('issue_id', ids)
        .where('type', COMMENT_TYPE.comment)
        .groupBy('issue_id')
        .select('issue_id')
        .max({ id: 'id' });
      for (const c of latest as any[]) last.set(toNumber(c.issue_id), toNumber(c.id));
      const pulls = rows.filter((i: { is_pull: unknown }) => toBoolean(i.is_pull)).map((i: { id: unknown }) => toNumber(i.id));
      const meta = deps.pulls.link && pulls.length ? await deps.pulls.link.meta(pulls) : new Map<number, { merged: boolean }>();
      for (const i of rows as any[]) {
        const id = toNumber(i.id);
        out.set(id, {
          index: toNumber(i.index),
          title: String(i.name),
          isClosed: toBoolean(i.is_closed),
          isPull: toBoolean(i.is_pull),
          merged: meta.get(id)?.merged ?? false,
          latestCommentId: last.get(id) ?? 0,
        });
      }
      return out;
    },
    mentionedUserIds: async (text) => {
      const names = mentionedNames(text);
      if (names.length === 0) return [];
      return (await db('users').whereIn('lower_name', names).where('type', 0).select('id')).map((r: { id: unknown }) => toNumber(r.id));
    },
  };
}

function toReviewComment(raw: any): ReviewComment {
  return {
    id: toNumber(raw.id),
    type: timelineTypeName(toNumber(raw.type)) === 'code' ? 'code' : 'review',
    issueId: toNumber(raw.issue_id),
    posterId: toNumber(raw.poster_id),
    reviewId: toNumber(raw.review_id),
    body: String(raw.content ?? ''),
    treePath: String(raw.tree_path ?? ''),
    line: toNumber(raw.line),
    patch: String(raw.patch ?? ''),
    commitSha: String(raw.commit_sha ?? ''),
    oldRef: String(raw.old_ref ?? ''),
    createdUnix: toNumber(raw.created_unix),
    updatedUnix: toNumber(raw.updated_unix),
  };
}

/** A page of a repository's issues (or pull requests): state, milestone and labels filters, Gitea's sort orders. */
async function listIssues(db: Knex, f: IssueListQuery): Promise<{ issues: Issue[]; total: number }> {
  const q = db('issue as i').where('i.repo_id', f.repositoryId);
  if (f.isPull !== undefined) q.where('i.is_pull', f.isPull);
  const st = f.state ?? 'open';
  if (st !== 'all') q.where('i.is_closed', st === 'closed');
  if (f.milestoneId) q.where('i.milestone_id', f.milestoneId);
  for (const id of new Set(f.labelIds ?? [])) q.whereIn('i.id', db('issue_label').where('label_id', id).select('issue_id'));
  if (f.pinned) q.where('i.pin_order', '>', 0);
  const [{ n }] = await q.clone().count({ n: '*' });
  const comments = db('comment').where('type', 0).whereRaw('comment.issue_id = i.id').count('*');
  const ordered = q.clone().select('i.*', db.raw('(?) as hearth_comments', [comments]));
  switch (f.pinned ? 'pinned' : f.sort) {
    case 'pinned':
      ordered.orderBy('i.pin_order');
      break;
    case 'oldest':
      ordered.orderBy([
        { column: 'i.created_unix', order: 'asc' },
        { column: 'i.id', order: 'asc' },
      ]);
      break;
    case 'recentupdate':
      ordered.orderBy([
        { column: 'i.updated_unix', order: 'desc' },
        { column: 'i.id', order: 'desc' },
      ]);
      break;
    case 'leastupdate':
      ordered.orderBy([
        { column: 'i.updated_unix', order: 'asc' },
        { column: 'i.id', order: 'asc' },
      ]);
      break;
    case 'mostcomment':
      ordered.orderBy([
        { column: 'hearth_comments', order: 'desc' },
        { column: 'i.id', order: 'desc' },
      ]);
      break;
    case 'leastcomment':
      ordered.orderBy([
        { column: 'hearth_comments', order: 'asc' },
        { column: 'i.id', order: 'desc' },
      ]);
      break;
    default:
      ordered.orderBy([
        { column: 'i.created_unix', order: 'desc' },
        { column: 'i.id', order: 'desc' },
      ]);
  }
  const rows = await ordered.offset(f.offset).limit(f.limit);
  return { issues: rows.map((raw: unknown) => toIssueInfo(toIssue(raw))), total: toNumber(n) };
}

/** Who takes part in issue `index` of a repository: its poster, commenters, assignees, subscribers (and who unsubscribed). */
async function audienceOf(db: Knex, repositoryId: number, index: number): Promise<IssueAudience | null> {
  const issue = await db('issue').where({ repo_id: repositoryId, index }).first('id', 'poster_id', 'is_pull');
  if (!issue) return null;
  const issueId = toNumber(issue.id);
  const posters = await db('comment').where('issue_id', issueId).whereIn('type', PARTICIPANT_COMMENT_TYPES).distinct('poster_id');
  const assignees = await db('issue_assignees').where('issue_id', issueId).select('assignee_id');
  const watches = await db('issue_watch').where('issue_id', issueId).select('user_id', 'is_watching');
  return {
    issueId,
    isPull: toBoolean(issue.is_pull),
    posterId: toNumber(issue.poster_id),
    commenterIds: posters.map((r: { poster_id: unknown }) => toNumber(r.poster_id)),
    assigneeIds: assignees.map((r: { assignee_id: unknown }) => toNumber(r.assignee_id)),
    subscriberIds: watches
      .filter((w: { is_watching: unknown }) => toBoolean(w.is_watching))
      .map((w: { user_id: unknown }) => toNumber(w.user_id)),
    unsubscribedIds: watches
      .filter((w: { is_watching: unknown }) => !toBoolean(w.is_watching))
      .map((w: { user_id: unknown }) => toNumber(w.user_id)),
  };
}
