import { ApiError, created, nowUnix, ok, unixToIso, type ApiOperation, type ApiRequest, type Principal } from '@hearth/plugin-api';
import { ID_PARAMS, INDEX_PARAMS, list, type IssueContext, type IssueDeps, type OpenedRepo } from './issue-context';
import { toComment, toIssue, type CommentRow, type IssueRow } from './issue-store';
import { base, CONVERSATION_TYPES, type IdParams, type IndexParams } from './interaction-common';

const DEFAULT_REACTIONS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];

/** Reactions to issues and their comments (`[ui] REACTIONS`). */
export function reactionOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, http } = deps;
  const allowed = (): string[] => {
    const configured = deps.forge.raw.ui?.REACTIONS;
    return Array.isArray(configured) ? (configured as string[]) : DEFAULT_REACTIONS;
  };

  const reactionJsons = async (rows: any[], viewer: Principal | null) => {
    const users = await ctx.userJsons(
      rows.map((r) => Number(r.user_id)),
      viewer,
    );
    return rows.map((r) => ({ user: users.get(Number(r.user_id)), content: r.type, created_at: unixToIso(Number(r.created_unix)) }));
  };
  const commentOf = async (o: OpenedRepo, id: number): Promise<{ comment: CommentRow; issue: IssueRow }> => {
    const row = await db('comment').where({ repo_id: o.r.id, id }).whereIn('type', CONVERSATION_TYPES).first();
    if (!row) throw ApiError.notFound(`comment does not exist [id: ${id}]`);
    const comment = toComment(row);
    return { comment, issue: toIssue(await db('issue').where('id', comment.issue_id).first()) };
  };
  /** Add or remove a reaction: signed in; a locked issue only for writers; the content must be an allowed reaction (403, as Gitea). */
  const react = async (req: ApiRequest<{ content: string }, any, any>, o: OpenedRepo, issue: IssueRow, commentId: number, add: boolean) => {
    if (issue.is_locked && !o.canWrite && !req.principal!.user.isAdmin)
      throw ApiError.forbidden('the issue is locked: only writers may react');
    const content = req.body.content;
    if (!allowed().includes(content)) throw ApiError.forbidden(`'${content}' is not an allowed reaction; allowed: ${allowed().join(', ')}`);
    const key = { issue_id: issue.id, comment_id: commentId, type: content, user_id: req.principal!.user.id };
    if (!add) {
      await db('reaction').where(key).delete();
      return ok(undefined);
    }
    const existing = await db('reaction').where(key).first();
    if (existing) return ok((await reactionJsons([existing], req.principal))[0]);
    await db('reaction')
      .insert({ ...key, created_unix: nowUnix() })
      .onConflict(['issue_id', 'comment_id', 'type', 'user_id'])
      .ignore();
    return created((await reactionJsons([await db('reaction').where(key).first()], req.principal))[0]);
  };
  const body = 'EditReactionOption';
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/reactions',
      operationId: 'issueGetIssueReactions',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get a list reactions of an issue',
      params: INDEX_PARAMS,
      paged: true,
      responses: { 200: list('Reaction'), 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const q = db('reaction').where({ issue_id: issue.id, comment_id: 0 });
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = await q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit);
        return http.paged(req as ApiRequest<any, any, any>, await reactionJsons(rows, req.principal), Number(n));
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/reactions',
      operationId: 'issuePostIssueReaction',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Add a reaction to an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      body,
      bodyRequired: true,
      responses: { 200: 'Reaction', 201: 'Reaction', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IndexParams>) => {
        const o = await ctx.open(req, 'participate');
        return react(req, o, await ctx.issueByIndex(o.r, req.params.index), 0, true);
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/reactions',
      operationId: 'issueDeleteIssueReaction',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Remove a reaction from an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      body,
      bodyRequired: true,
      responses: { 200: 'removed', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IndexParams>) => {
        const o = await ctx.open(req, 'participate');
        return react(req, o, await ctx.issueByIndex(o.r, req.params.index), 0, false);
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions',
      operationId: 'issueGetCommentReactions',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get a list of reactions from a comment of an issue',
      params: ID_PARAMS,
      responses: { 200: list('Reaction'), 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const o = await ctx.open(req);
        const { comment } = await commentOf(o, req.params.id);
        return ok(await reactionJsons(await db('reaction').where({ comment_id: comment.id }).orderBy('id'), req.principal));
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions',
      operationId: 'issuePostCommentReaction',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Add a reaction to a comment of an issue',
      auth: 'required',
      params: ID_PARAMS,
      body,
      bodyRequired: true,
      responses: { 200: 'Reaction', 201: 'Reaction', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IdParams>) => {
        const o = await ctx.open(req, 'participate');
        const { comment, issue } = await commentOf(o, req.params.id);
        return react(req, o, issue, comment.id, true);
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions',
      operationId: 'issueDeleteCommentReaction',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Remove a reaction from a comment of an issue',
      auth: 'required',
      params: ID_PARAMS,
      body,
      bodyRequired: true,
      responses: { 200: 'removed', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IdParams>) => {
        const o = await ctx.open(req, 'participate');
        const { comment, issue } = await commentOf(o, req.params.id);
        return react(req, o, issue, comment.id, false);
      },
    },
  ];
}
