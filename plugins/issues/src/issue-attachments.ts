import { ApiError, created, noContent, nowUnix, ok, type ApiOperation, type ApiRequest, type AttachmentInfo } from '@hearth/plugin-api';
import { ID_PARAMS, INDEX_PARAMS, type IssueContext, type IssueDeps } from './issue-context';
import { toComment, toIssue, type IssueRow } from './issue-store';
import { base, CONVERSATION_TYPES, withProps } from './interaction-common';

const ASSET_PARAMS = withProps(
  INDEX_PARAMS,
  { attachment_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the attachment' } },
  ['attachment_id'],
);
const COMMENT_ASSET_PARAMS = withProps(
  ID_PARAMS,
  { attachment_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the attachment' } },
  ['attachment_id'],
);
const ATTACHMENT_LIST = { description: 'AttachmentList', schema: { type: 'array', items: { $ref: 'Attachment' } } };
const NAME_QUERY = { type: 'object', properties: { name: { type: 'string', maxLength: 255, description: 'name of the attachment' } } };

/** Attachments of issues and comments (the core's attachments, `ctx.attachments`). */
export function assetOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, attachments } = deps;
  const json = (row: AttachmentInfo) => attachments.toApi(row);
  const listOf = (of: 'issue' | 'comment', id: number) =>
    of === 'issue' ? attachments.listOfIssues([id]) : attachments.listOfComments([id]);

  /** The issue or comment an attachment route is about; `write` needs its author or write access to the issues. */
  const target = async (req: ApiRequest<any, any, any>, of: 'issue' | 'comment', need: 'read' | 'write') => {
    const o = await ctx.open(req, need === 'read' ? 'read' : 'participate');
    let issue: IssueRow;
    let ownerId: number;
    let posterId: number;
    let commentId = 0;
    if (of === 'issue') {
      issue = await ctx.issueByIndex(o.r, req.params.index);
      ownerId = issue.id;
      posterId = issue.poster_id;
    } else {
      const row = await db('comment').where({ repo_id: o.r.id, id: req.params.id }).whereIn('type', CONVERSATION_TYPES).first();
      if (!row) throw ApiError.notFound(`comment does not exist [id: ${req.params.id}]`);
      const comment = toComment(row);
      issue = toIssue(await db('issue').where('id', comment.issue_id).first());
      ownerId = comment.id;
      posterId = comment.poster_id;
      commentId = comment.id;
    }
    if (need === 'write' && !o.canWrite && posterId !== req.principal!.user.id)
      throw ApiError.forbidden(`only the author or a writer may change the attachments of this ${of}`);
    return { o, issue, ownerId, commentId };
  };
  const attachment = async (req: ApiRequest<any, any, any>, of: 'issue' | 'comment', need: 'read' | 'write') => {
    const t = await target(req, of, need);
    const row =
      of === 'issue'
        ? await attachments.getOfIssue(t.ownerId, req.params.attachment_id)
        : await attachments.getOfComment(t.ownerId, req.params.attachment_id);
    if (!row) throw ApiError.notFound(`attachment does not exist [id: ${req.params.attachment_id}]`);
    return row;
  };

  const ops: ApiOperation[] = [];
  for (const of of ['issue', 'comment'] as const) {
    const prefix = of === 'issue' ? '/repos/{owner}/{repo}/issues/{index}/assets' : '/repos/{owner}/{repo}/issues/comments/{id}/assets';
    const Name = of === 'issue' ? 'Issue' : 'IssueComment';
    const params = of === 'issue' ? INDEX_PARAMS : ID_PARAMS;
    const itemParams = of === 'issue' ? ASSET_PARAMS : COMMENT_ASSET_PARAMS;
    ops.push(
      {
        ...base,
        method: 'get',
        path: prefix,
        operationId: `issueList${Name}Attachments`,
        access: { repo: { need: 'read', unit: 'issues' } },
        summary: `List ${of} attachments`,
        params,
        responses: { 200: ATTACHMENT_LIST, 404: 'APIError' },
        handler: async (req: ApiRequest<unknown, unknown, any>) => {
          const t = await target(req, of, 'read');
          return ok((await listOf(of, t.ownerId)).map(json));
        },
      },
      {
        ...base,
        method: 'post',
        path: prefix,
        operationId: `issueCreate${Name}Attachment`,
        access: { repo: { need: 'read', unit: 'issues' } },
        summary: `Create an ${of} attachment (multipart/form-data, file field "attachment")`,
        auth: 'required',
        params,
        query: NAME_QUERY,
        responses: { 201: 'Attachment', 400: 'APIError', 403: 'APIError', 404: 'APIError', 413: 'APIError', 422: 'APIError' },
        handler: async (req: ApiRequest<unknown, { name?: string }, any>) => {
          const t = await target(req, of, 'write');
          const row = await attachments.create(req.raw, {
            repositoryId: t.o.r.id,
            releaseId: 0,
            issueId: t.issue.id,
            commentId: t.commentId,
            uploaderId: req.principal!.user.id,
            name: req.query.name,
          });
          await db('issue').where('id', t.issue.id).update({ updated_unix: nowUnix() });
          return created(json(row));
        },
      },
      {
        ...base,
        method: 'get',
        path: `${prefix}/{attachment_id}`,
        operationId: `issueGet${Name}Attachment`,
        access: { repo: { need: 'read', unit: 'issues' } },
        summary: `Get an ${of} attachment`,
        params: itemParams,
        responses: { 200: 'Attachment', 404: 'APIError' },
        handler: async (req: ApiRequest<unknown, unknown, any>) => ok(json(await attachment(req, of, 'read'))),
      },
      {
        ...base,
        method: 'patch',
        path: `${prefix}/{attachment_id}`,
        operationId: `issueEdit${Name}Attachment`,
        access: { repo: { need: 'read', unit: 'issues' } },
        summary: `Edit an ${of} attachment`,
        auth: 'required',
        params: itemParams,
        body: 'EditAttachmentOptions',
        responses: { 201: 'Attachment', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
        handler: async (req: ApiRequest<{ name?: string } | undefined, unknown, any>) => {
          const row = await attachment(req, of, 'write');
          return created(json(req.body?.name ? await attachments.rename(row, req.body.name) : row)); // Gitea answers 201 here
        },
      },
      {
        ...base,
        method: 'delete',
        path: `${prefix}/{attachment_id}`,
        operationId: `issueDelete${Name}Attachment`,
        access: { repo: { need: 'read', unit: 'issues' } },
        summary: `Delete an ${of} attachment`,
        auth: 'required',
        params: itemParams,
        responses: { 204: 'deleted', 403: 'APIError', 404: 'APIError' },
        handler: async (req: ApiRequest<unknown, unknown, any>) => {
          await attachments.remove([await attachment(req, of, 'write')]);
          return noContent();
        },
      },
    );
  }
  return ops;
}
