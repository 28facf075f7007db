import {
  ApiError,
  created,
  insertId,
  noContent,
  nowUnix,
  ok,
  OWNER_REPO_PARAMS,
  parseTime,
  withConflictRetry,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type UserInfo,
} from '@hearth/plugin-api';
import type { Knex } from 'knex';
import {
  ID_PARAMS,
  INDEX_PARAMS,
  issueContext,
  list,
  type IssueContext,
  type IssueDeps,
  type OpenedRepo,
  type RepoParams,
} from './issue-context';
import { ensureIssueCounter, inTransaction, removeIssueInteractions, toComment, toIssue, type IssueRow } from './issue-store';
import { labelOperations } from './label-routes';
import { usableLabels } from './org-labels';
import { milestoneOperations } from './milestone-routes';
import { resolveAssignees } from './assignees';
import { issueEvents, type IssueEventKind, type IssueEvents } from './issue-events';
import { createIssueIn, createNotices, editIssueLocked, editNotices, type IssueEditChanges } from './issue-service';
import type { IssueNotice } from './service';
import { recordReferences, unpinLocked, withPinLock } from './issue-actions';
import { pinnedListOperations } from './pins';
import { COMMENT_TYPE } from './timeline';
import { assertMilestoneOf, resolveUsableLabels } from './issue-inputs';
import { repoIdLookup } from './issue-actions';

type IndexParams = RepoParams & { index: number };
type IdParams = RepoParams & { id: number };

interface CreateIssueBody {
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
interface EditIssueBody {
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
interface ListQuery {
  state?: 'open' | 'closed' | 'all';
  labels?: string;
  q?: string;
  type?: 'issues' | 'pulls';
  milestones?: string;
  since?: string;
  before?: string;
  created_by?: string;
}

const TIME_RANGE = {
  since: {
    type: 'string',
    maxLength: 64,
    description: 'Only show items updated after the given time. This is a timestamp in RFC 3339 format',
  },
  before: {
    type: 'string',
    maxLength: 64,
    description: 'Only show items updated before the given time. This is a timestamp in RFC 3339 format',
  },
};

const LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: ['closed', 'open', 'all'], description: 'whether issue is open or closed' },
    labels: {
      type: 'string',
      maxLength: 4096,
      description: 'comma separated list of labels. Fetch only issues that have any of this labels. Non existent labels are discarded',
    },
    q: { type: 'string', maxLength: 255, description: 'search string' },
    type: { type: 'string', enum: ['issues', 'pulls'], description: 'filter by type (issues / pulls) if set' },
    milestones: {
      type: 'string',
      maxLength: 4096,
      description:
        'comma separated list of milestone names or ids. It uses names and fall back to ids. ' +
        'Fetch only issues that have any of this milestones. Non existent milestones are discarded',
    },
    ...TIME_RANGE,
    created_by: { type: 'string', maxLength: 255, description: 'Only show items which were created by the the given user' },
  },
};

const escapeLike = (s: string) => s.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);

/**
 * Issues (Gitea's /repos/{owner}/{repo}/issues…), their comments, repository labels and milestones.
 * Every route needs the issues unit (404 when off or unreadable). Any signed-in reader may open
 * an issue and comment; the poster may edit (title, body, ref, state) their own issue; labels,
 * milestones, due dates and others' issues need write on the unit; deleting an issue needs admin.
 * Creates, edits and label changes pass through `issue.mutate` inside their transaction (the other
 * kinds — state, pin, lock, deadline — through mutateIssue in issue-actions.ts).
 */
export function issueOperations(deps: IssueDeps): ApiOperation[] {
  const ctx = issueContext(deps);
  const events = issueEvents(deps, ctx);
  return [
    ...pinnedListOperations(deps, ctx),
    ...commentOperations(deps, ctx, events),
    ...issueCrud(deps, ctx, events),
    ...labelOperations(deps, ctx),
    ...milestoneOperations(deps, ctx),
  ];
}

function issueCrud(deps: IssueDeps, ctx: IssueContext, events: IssueEvents): ApiOperation[] {
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

  const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues',
      operationId: 'issueListIssues',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: "List a repository's issues",
      params: OWNER_REPO_PARAMS,
      query: LIST_QUERY,
      paged: true,
      responses: { 200: list('Issue') },
      handler: (req: ApiRequest<unknown, ListQuery, RepoParams>) => listIssues(deps, ctx, req),
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues',
      operationId: 'issueCreateIssue',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Create an issue',
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      body: 'CreateIssueOption',
      bodyRequired: true,
      responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateIssueBody, unknown, RepoParams>) => {
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
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}',
      operationId: 'issueGetIssue',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get an issue',
      params: INDEX_PARAMS,
      responses: { 200: 'Issue', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        return ok(await one(o, await ctx.issueByIndex(o.r, req.params.index), req));
      },
    },
    {
      ...base,
      method: 'patch',
      path: '/repos/{owner}/{repo}/issues/{index}',
      operationId: 'issueEditIssue',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Edit an issue. If using deadline only the date will be taken into account, and time of day ignored.',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'EditIssueOption',
      bodyRequired: true,
      responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<EditIssueBody, unknown, IndexParams>) => {
        const o = await ctx.open(req, 'participate');
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const b = req.body;
        const isPoster = issue.poster_id === req.principal!.user.id;
        if (!isPoster && !o.canWrite) throw ApiError.forbidden('only the poster or a writer may edit this issue');
        const changes: IssueEditChanges = {};
        if (b.title !== undefined) {
          if (!b.title.trim())
            throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
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
          withPinLock(db, issue, (trx: Knex.Transaction, before: IssueRow) =>
            editIssueLocked(hooks, trx, before, changes, actor, refRepos),
          ),
        );
        const after = await ctx.issueByIndex(o.r, issue.index);
        await emitNotices(o, issue.id, editNotices(issue, after, outcome), actor);
        return created(await one(o, after, req));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}',
      operationId: 'issueDelete',
      access: { repo: { need: 'admin', unit: 'issues' } },
      summary: 'Delete an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 204: 'issue deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
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
      },
    },
  ];
}

function commentOperations(deps: IssueDeps, ctx: IssueContext, events: IssueEvents): ApiOperation[] {
  const { db, http } = deps;

  const commentById = async (o: OpenedRepo, id: number) => {
    const row = await db('comment').where({ repo_id: o.r.id, id, type: 0 }).first();
    if (!row) throw ApiError.notFound(`comment does not exist [id: ${id}]`);
    return toComment(row);
  };
  const mayChange = (o: OpenedRepo, posterId: number, req: ApiRequest<any, any, any>) => {
    if (!o.canWrite && posterId !== req.principal?.user.id) throw ApiError.forbidden('only the author or a writer may change this comment');
  };
  const one = async (o: OpenedRepo, id: number, req: ApiRequest<any, any, any>) =>
    (await ctx.commentJsons(o.r, [toComment(await db('comment').where('id', id).first())], req.principal))[0];
  const timeRange = (q: Knex.QueryBuilder, f: { since?: string; before?: string }) => {
    if (f.since) q.where('updated_unix', '>=', parseTime(f.since, 'since'));
    if (f.before) q.where('updated_unix', '<=', parseTime(f.before, 'before'));
  };
  const order = [
    { column: 'created_unix', order: 'asc' as const },
    { column: 'id', order: 'asc' as const },
  ];

  const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/comments',
      operationId: 'issueGetRepoComments',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'List all comments in a repository',
      params: OWNER_REPO_PARAMS,
      query: { type: 'object', properties: TIME_RANGE },
      paged: true,
      responses: { 200: list('Comment') },
      handler: async (req: ApiRequest<unknown, { since?: string; before?: string }, RepoParams>) => {
        const o = await ctx.open(req);
        const q = db('comment').where({ repo_id: o.r.id, type: 0 });
        timeRange(q, req.query);
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = (await q.clone().orderBy(order).offset(req.paging.offset).limit(req.paging.limit)).map(toComment);
        return http.paged(req, await ctx.commentJsons(o.r, rows, req.principal), Number(n));
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/comments/{id}',
      operationId: 'issueGetComment',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get a comment',
      params: ID_PARAMS,
      responses: { 200: 'Comment', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const o = await ctx.open(req);
        const c = await commentById(o, req.params.id);
        return ok(await one(o, c.id, req));
      },
    },
    {
      ...base,
      method: 'patch',
      path: '/repos/{owner}/{repo}/issues/comments/{id}',
      operationId: 'issueEditComment',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Edit a comment',
      auth: 'required',
      params: ID_PARAMS,
      body: 'EditIssueCommentOption',
      bodyRequired: true,
      responses: { 200: 'Comment', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ body: string }, unknown, IdParams>) => {
        const o = await ctx.open(req, 'participate');
        const c = await commentById(o, req.params.id);
        mayChange(o, c.poster_id, req);
        await db('comment').where('id', c.id).update({ content: req.body.body, updated_unix: nowUnix() });
        if ((c.content ?? '') !== req.body.body) {
          const issue = toIssue(await db('issue').where('id', c.issue_id).first());
          await recordReferences(
            db,
            { repoId: o.r.id, issue, commentId: c.id, text: req.body.body, actorId: req.principal!.user.id },
            await repoIdLookup(deps, req.principal, req.body.body),
          );
          await events.comment(o.r, c.issue_id, c.id, 'edited', req.principal!.user, { body: { from: c.content ?? '' } });
        }
        return ok(await one(o, c.id, req));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/comments/{id}',
      operationId: 'issueDeleteComment',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Delete a comment',
      auth: 'required',
      params: ID_PARAMS,
      responses: { 204: 'comment deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const o = await ctx.open(req, 'participate');
        const c = await commentById(o, req.params.id);
        mayChange(o, c.poster_id, req);
        const json = await one(o, c.id, req);
        const files = await deps.attachments.listOfComments([c.id]);
        await db.transaction(async (trx) => {
          await trx('reaction').where('comment_id', c.id).delete();
          await trx('comment').where('id', c.id).delete();
          await trx('comment').where({ ref_comment_id: c.id, type: COMMENT_TYPE.comment_ref }).delete();
        });
        await deps.attachments.remove(files);
        await events.comment(o.r, c.issue_id, json, 'deleted', req.principal!.user);
        return noContent();
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/comments',
      operationId: 'issueGetComments',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'List all comments on an issue',
      params: INDEX_PARAMS,
      query: { type: 'object', properties: TIME_RANGE },
      responses: { 200: list('Comment'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { since?: string; before?: string }, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const q = db('comment').where({ issue_id: issue.id, type: 0 });
        timeRange(q, req.query);
        const rows = (await q.orderBy(order)).map(toComment);
        return ok(await ctx.commentJsons(o.r, rows, req.principal));
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/comments',
      operationId: 'issueCreateComment',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Add a comment to an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'CreateIssueCommentOption',
      bodyRequired: true,
      responses: { 201: 'Comment', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ body: string }, unknown, IndexParams>) => {
        const o = await ctx.open(req, 'participate');
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        // As Gitea: a locked conversation takes comments only from those who may write (and site admins).
        if (issue.is_locked && !o.canWrite && !req.principal!.user.isAdmin)
          throw ApiError.forbidden('unable to create comment because the issue is locked');
        const now = nowUnix();
        const refRepos = await repoIdLookup(deps, req.principal, req.body.body);
        const id = await db.transaction(async (trx) => {
          const cid = await insertId(trx, 'comment', {
            type: 0,
            repo_id: o.r.id,
            issue_id: issue.id,
            poster_id: req.principal!.user.id,
            content: req.body.body,
            created_unix: now,
            updated_unix: now,
          });
          await trx('issue').where('id', issue.id).update({ updated_unix: now });
          await recordReferences(
            trx,
            { repoId: o.r.id, issue, commentId: cid, text: req.body.body, actorId: req.principal!.user.id },
            refRepos,
          );
          return cid;
        });
        await events.comment(o.r, issue.id, id, 'created', req.principal!.user);
        return created(await one(o, id, req));
      },
    },
  ];
}

/** A page of a repository's issues (and pull requests), with Gitea's filters. */
async function listIssues(deps: IssueDeps, ctx: IssueContext, req: ApiRequest<unknown, ListQuery, RepoParams>) {
  const { db, users, http } = deps;
  const o = await ctx.open(req);
  const f = req.query;
  const q = db('issue').where('repo_id', o.r.id);
  const st = f.state ?? 'open';
  if (st !== 'all') q.where('is_closed', st === 'closed');
  if (f.type) q.where('is_pull', f.type === 'pulls');
  let empty = false;
  const names = (s: string | undefined) =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  if (names(f.labels).length) {
    const wanted = names(f.labels);
    const rows = await usableLabels(db('label'), o.r).whereIn('name', wanted).select('id', 'name');
    // Every named label must exist and be on the issue (an unknown label matches nothing).
    if (wanted.some((n) => !rows.some((r: { name: string }) => r.name === n))) empty = true;
    // A correlated EXISTS per label: the issue index is walked in number order and each issue probes
    // issue_label's (issue_id, label_id) index — no list of all labelled issues, no sort (bench/issues.js).
    for (const id of new Set(rows.map((r: { id: number }) => Number(r.id)))) {
      q.whereExists(db('issue_label as il').select(db.raw('1')).whereRaw('?? = ??', ['il.issue_id', 'issue.id']).where('il.label_id', id));
    }
  }
  if (names(f.milestones).length) {
    const refs = names(f.milestones);
    const all = await db('milestone').where('repo_id', o.r.id).select('id', 'name');
    const ids = new Set<number>();
    for (const ref of refs) {
      const byName = all.filter((m: { name: string }) => m.name === ref);
      if (byName.length) byName.forEach((m: { id: number }) => ids.add(Number(m.id)));
      else if (/^\d+$/.test(ref) && all.some((m: { id: number }) => Number(m.id) === Number(ref))) ids.add(Number(ref));
    }
    if (ids.size === 0) empty = true;
    else q.whereIn('milestone_id', [...ids]);
  }
  if (f.q) {
    const like = `%${escapeLike(f.q)}%`;
    q.where((w) => w.whereRaw("LOWER(name) LIKE ? ESCAPE '!'", [like]).orWhereRaw("LOWER(content) LIKE ? ESCAPE '!'", [like]));
  }
  if (f.since) q.where('updated_unix', '>=', parseTime(f.since, 'since'));
  if (f.before) q.where('updated_unix', '<=', parseTime(f.before, 'before'));
  if (f.created_by) {
    const u = await users.byName(f.created_by);
    if (!u) empty = true;
    else q.where('poster_id', u.id);
  }
  if (empty) return http.paged(req, [], 0);
  const [{ n }] = await q.clone().count({ n: '*' });
  const rows = (
    await q
      .clone()
      .orderBy([{ column: 'index', order: 'desc' }])
      .offset(req.paging.offset)
      .limit(req.paging.limit)
  ).map(toIssue);
  return http.paged(req, await ctx.issueJsons(o.r, rows, req.principal), Number(n));
}
