import {
  ApiError,
  created,
  insertId,
  noContent,
  nowUnix,
  ok,
  OWNER_REPO_PARAMS,
  type ApiOperation,
  type ApiRequest,
} from '@hearth/plugin-api';
import {
  ID_PARAMS,
  INDEX_ID_PARAMS,
  INDEX_PARAMS,
  list,
  type IssueContext,
  type IssueDeps,
  type OpenedRepo,
  type RepoParams,
} from './issue-context';
import { usableLabels } from './org-labels';
import { replaceLabelsIn } from './issue-service';
import { issueEvents } from './issue-events';
import { inTransaction, labelColor, labelPatch, toLabel, type LabelBody, type LabelRow } from './issue-store';
import { resolveUsableLabels } from './issue-inputs';

type IdParams = RepoParams & { id: number };
type IndexParams = RepoParams & { index: number };
type IndexIdParams = IndexParams & { id: number };

/**
 * Repository labels (`/repos/{owner}/{repo}/labels…`) and the labels of one issue
 * (`/issues/{index}/labels…`). Changing either needs write access to the issues unit. Every
 * change of an issue's labels goes through `issue.mutate` (kind `labels`, changes `labelIds` —
 * the complete resulting list — and `labels`, their rows) inside its transaction; the kernel's
 * `hearth:exclusive-labels` tap enforces exclusive scopes there.
 */
export function labelOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  return [...repoLabelOperations(deps, ctx), ...issueLabelOperations(deps, ctx)];
}

const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };

/** A repository's labels: list, create, get, edit, delete. */
function repoLabelOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db } = deps;
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/labels',
      operationId: 'issueListLabels',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: "Get all of a repository's labels",
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: list('Label') },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const o = await ctx.open(req);
        const q = db('label').where('repo_id', o.r.id);
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = (
          await q
            .clone()
            .orderBy([
              { column: 'name', order: 'asc' },
              { column: 'id', order: 'asc' },
            ])
            .offset(req.paging.offset)
            .limit(req.paging.limit)
        ).map(toLabel);
        return deps.http.paged(
          req,
          rows.map((l) => ctx.labelJson(o.r, l)),
          Number(n),
        );
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/labels',
      operationId: 'issueCreateLabel',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Create a label',
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      body: 'CreateLabelOption',
      bodyRequired: true,
      responses: { 201: 'Label', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<Required<Pick<LabelBody, 'name' | 'color'>> & LabelBody, unknown, RepoParams>) => {
        const o = await ctx.open(req);
        const now = nowUnix();
        const id = await insertId(db, 'label', {
          repo_id: o.r.id,
          name: req.body.name,
          color: labelColor(req.body.color),
          description: req.body.description ?? '',
          exclusive: req.body.exclusive ?? false,
          created_unix: now,
          updated_unix: now,
        });
        return created(ctx.labelJson(o.r, await ctx.labelById(o.r, id)));
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/labels/{id}',
      operationId: 'issueGetLabel',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get a single label',
      params: ID_PARAMS,
      responses: { 200: 'Label', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const o = await ctx.open(req);
        return ok(ctx.labelJson(o.r, await ctx.labelById(o.r, req.params.id)));
      },
    },
    {
      ...base,
      method: 'patch',
      path: '/repos/{owner}/{repo}/labels/{id}',
      operationId: 'issueEditLabel',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Update a label',
      auth: 'required',
      params: ID_PARAMS,
      body: 'EditLabelOption',
      bodyRequired: true,
      responses: { 200: 'Label', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<LabelBody, unknown, IdParams>) => {
        const o = await ctx.open(req);
        const label = await ctx.labelById(o.r, req.params.id);
        await db('label').where('id', label.id).update(labelPatch(req.body, nowUnix()));
        return ok(ctx.labelJson(o.r, await ctx.labelById(o.r, label.id)));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/labels/{id}',
      operationId: 'issueDeleteLabel',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Delete a label',
      auth: 'required',
      params: ID_PARAMS,
      responses: { 204: 'label deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const o = await ctx.open(req);
        const label = await ctx.labelById(o.r, req.params.id);
        await db.transaction(async (trx) => {
          await trx('issue_label').where('label_id', label.id).delete();
          await trx('label').where('id', label.id).delete();
        });
        return noContent();
      },
    },
  ];
}

/** The labels of one issue: get, add, replace, clear, remove one. */
function issueLabelOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, hooks } = deps;
  const events = issueEvents(deps, ctx);

  /** Set an issue's labels to `wanted` (in order) through issue.mutate; returns the stored labels. */
  const setIssueLabels = async (o: OpenedRepo, req: ApiRequest<any, any, IndexParams>, wanted: (current: LabelRow[]) => LabelRow[]) => {
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    await inTransaction(db, async (trx) => {
      const current = (await ctx.labelsOf([issue.id], trx)).get(issue.id) ?? [];
      const next = wanted(current);
      const mutation = await hooks.issue.mutate.promise(
        { kind: 'labels', issueId: issue.id, repositoryId: o.r.id, changes: { labelIds: next.map((l) => l.id), labels: next } },
        { actor: req.principal?.user ?? null, trx },
      );
      // Timeline: one label event per label added (content "1") or removed (content ""), as an edit's.
      await replaceLabelsIn(trx, issue, (mutation.changes.labelIds as number[]).map(Number), req.principal?.user.id ?? 0);
      await trx('issue').where('id', issue.id).update({ updated_unix: nowUnix() });
    });
    await events.issue('issue_label', o.r, issue.id, wantedCleared(req) ? 'label_cleared' : 'label_updated', req.principal?.user ?? null);
    return ((await ctx.labelsOf([issue.id])).get(issue.id) ?? []).map((l) => ctx.labelJson(o.r, l));
  };

  /** Gitea sends `label_cleared` for DELETE /issues/{index}/labels, `label_updated` otherwise. */
  const wantedCleared = (req: ApiRequest<any, any, any>) => req.raw.method === 'DELETE' && !('id' in (req.params as object));
  const labelsBody = 'IssueLabelsOption';
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/labels',
      operationId: 'issueGetLabels',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: "Get an issue's labels",
      params: INDEX_PARAMS,
      responses: { 200: list('Label'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        return ok(((await ctx.labelsOf([issue.id])).get(issue.id) ?? []).map((l) => ctx.labelJson(o.r, l)));
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/labels',
      operationId: 'issueAddLabel',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Add a label to an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      body: labelsBody,
      bodyRequired: true,
      responses: { 200: list('Label'), 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ labels?: (number | string)[] }, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        await ctx.issueByIndex(o.r, req.params.index);
        const added = await resolveUsableLabels(db, o.r, req.body.labels ?? []);
        // Current labels first, then the added ones in request order: an added exclusive label wins its scope.
        return ok(await setIssueLabels(o, req, (current) => [...current.filter((c) => !added.some((a) => a.id === c.id)), ...added]));
      },
    },
    {
      ...base,
      method: 'put',
      path: '/repos/{owner}/{repo}/issues/{index}/labels',
      operationId: 'issueReplaceLabels',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: "Replace an issue's labels",
      auth: 'required',
      params: INDEX_PARAMS,
      body: labelsBody,
      bodyRequired: true,
      responses: { 200: list('Label'), 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ labels?: (number | string)[] }, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        await ctx.issueByIndex(o.r, req.params.index);
        const wanted = await resolveUsableLabels(db, o.r, req.body.labels ?? []);
        return ok(await setIssueLabels(o, req, () => wanted));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/labels',
      operationId: 'issueClearLabels',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Remove all labels from an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 204: 'labels removed', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        await setIssueLabels(o, req, () => []);
        return noContent();
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/labels/{id}',
      operationId: 'issueRemoveLabel',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Remove a label from an issue',
      auth: 'required',
      params: INDEX_ID_PARAMS,
      responses: { 204: 'label removed', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexIdParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const current = (await ctx.labelsOf([issue.id])).get(issue.id) ?? [];
        if (!current.some((l) => l.id === req.params.id)) {
          const exists = await usableLabels(db('label'), o.r).where('id', req.params.id).first('id');
          if (!exists) throw ApiError.unprocessable(`label does not exist in this repository [id: ${req.params.id}]`);
          throw ApiError.notFound(`the issue does not carry label ${req.params.id}`);
        }
        await setIssueLabels(o, req, (cur) => cur.filter((l) => l.id !== req.params.id));
        return noContent();
      },
    },
  ];
}
