import {
  ApiError,
  created,
  insertId,
  noContent,
  nowUnix,
  ok,
  OWNER_REPO_PARAMS,
  parseTime,
  type ApiOperation,
  type ApiRequest,
} from '@hearth/plugin-api';
import type { Knex } from 'knex';
import {
  ID_PARAMS,
  INDEX_PARAMS,
  list,
  TIME_RANGE,
  type IssueContext,
  type IssueDeps,
  type OpenedRepo,
  type RepoParams,
} from './issue-context';
import { toComment, toIssue } from './issue-store';
import type { IssueEvents } from './issue-events';
import { recordReferences, repoIdLookup } from './issue-actions';
import { COMMENT_TYPE } from './timeline';

type IndexParams = RepoParams & { index: number };
type IdParams = RepoParams & { id: number };

const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };

/** What the comment routes share: finding a comment, who may change it, its JSON, the time filters and order. */
function commentHelpers(deps: IssueDeps, ctx: IssueContext) {
  const { db } = deps;

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

  return { commentById, mayChange, one, timeRange, order };
}

/** Issue comments: those of a repository by id (list, get, edit, delete), then those of one issue (list, add). */
export function commentOperations(deps: IssueDeps, ctx: IssueContext, events: IssueEvents): ApiOperation[] {
  const helpers = commentHelpers(deps, ctx);
  const byId = repoCommentOperations(deps, ctx, events, helpers);
  return [...byId, ...issueCommentOperations(deps, ctx, events, helpers), ...deprecatedCommentOperations(deps, ctx, byId)];
}

/**
 * Gitea 1.20's deprecated `PATCH`/`DELETE /repos/{owner}/{repo}/issues/{index}/comments/{id}`
 * (issueEditCommentDeprecated, issueDeleteCommentDeprecated): the operations by id, once the
 * comment is found to belong to that issue (404 otherwise; Gitea checks the repository only).
 */
function deprecatedCommentOperations(deps: IssueDeps, ctx: IssueContext, byId: ApiOperation[]): ApiOperation[] {
  const params = {
    type: 'object',
    properties: { ...(INDEX_PARAMS.properties as object), id: { type: 'integer', minimum: 1, description: 'id of the comment' } },
    required: ['owner', 'repo', 'index', 'id'],
  };
  return byId
    .filter((op) => op.operationId === 'issueEditComment' || op.operationId === 'issueDeleteComment')
    .map((op) => ({
      ...op,
      path: '/repos/{owner}/{repo}/issues/{index}/comments/{id}',
      operationId: `${op.operationId}Deprecated`,
      summary: `${op.summary} (deprecated)`,
      params,
      handler: async (req: ApiRequest<any, any, IndexParams & { id: number }>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const row = await deps.db('comment').where({ id: req.params.id, issue_id: issue.id, type: 0 }).first('id');
        if (!row) throw ApiError.notFound(`comment does not exist [id: ${req.params.id}]`);
        return op.handler(req);
      },
    }));
}

type CommentHelpers = ReturnType<typeof commentHelpers>;

/** A repository's comments, and one comment by id. */
function repoCommentOperations(deps: IssueDeps, ctx: IssueContext, events: IssueEvents, helpers: CommentHelpers): ApiOperation[] {
  const { db, http } = deps;
  const { commentById, mayChange, one, timeRange, order } = helpers;
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
  ];
}

/** The comments of one issue. */
function issueCommentOperations(deps: IssueDeps, ctx: IssueContext, events: IssueEvents, helpers: CommentHelpers): ApiOperation[] {
  const { db } = deps;
  const { one, timeRange, order } = helpers;
  return [
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
