import { noContent, ok, OWNER_REPO_PARAMS, withConflictRetry, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { INDEX_PARAMS, list, repoOf, type IssueContext, type IssueDeps, type RepoParams } from './issue-context';
import { toIssue } from './issue-store';
import { moveLocked, mutateIssue, newPinAllowed, pinLocked, unpinLocked, withPinLock } from './issue-actions';
import { base, withProps, type IndexParams } from './interaction-common';

const POSITION_PARAMS = withProps(
  INDEX_PARAMS,
  { position: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'the new position' } },
  ['position'],
);
/**
 * The pinned issues. Registered ahead of `/issues/{index}` (issue-routes.ts), so that
 * `issues/pinned` is not read as an index. (The pinned pull requests are the pulls plugin's.)
 */
export function pinnedListOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db } = deps;
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/pinned',
      operationId: 'repoListPinnedIssues',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: "List a repo's pinned issues",
      params: OWNER_REPO_PARAMS,
      responses: { 200: list('Issue'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        const rows = (await db('issue').where({ repo_id: r.id, is_pull: false }).where('pin_order', '>', 0).orderBy('pin_order')).map(
          toIssue,
        );
        return ok(await ctx.issueJsons(r, rows, req.principal));
      },
    },
  ];
}

/** Pin, unpin and move issues (`[repository.issue] MAX_PINNED` per kind), and whether one more may be pinned. */
export function pinOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, hooks } = deps;
  /** Pin, unpin or move through issue.mutate (kind `pin`, changes `{ pinned }` or `{ position }`). */
  const pinChange = async (req: ApiRequest<any, any, IndexParams>, changes: { pinned: boolean } | { position: number }) => {
    const o = await ctx.open(req);
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const actor = req.principal!.user;
    await withConflictRetry(() =>
      withPinLock(db, issue, async (trx, fresh) => {
        const c = await mutateIssue(hooks, trx, fresh, 'pin', { ...changes }, actor);
        if (c.position !== undefined) await moveLocked(trx, fresh, Number(c.position));
        else if (c.pinned) await pinLocked(trx, deps, fresh, actor.id);
        else await unpinLocked(trx, fresh, actor.id);
      }),
    );
    return noContent();
  };
  return [
    {
      ...base,
      tag: 'repository',
      scopes: ['repository'] as ['repository'],
      method: 'get',
      path: '/repos/{owner}/{repo}/new_pin_allowed',
      operationId: 'repoNewPinAllowed',
      access: { repo: { need: 'read' } },
      summary: 'Returns if new Issue Pins are allowed',
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'NewIssuePinsAllowed', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const repo = repoOf(req);
        return ok({ issues: await newPinAllowed(deps, repo.id, false), pull_requests: await newPinAllowed(deps, repo.id, true) });
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/pin',
      operationId: 'pinIssue',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Pin an Issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 204: 'pinned', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => pinChange(req, { pinned: true }),
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/pin',
      operationId: 'unpinIssue',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Unpin an Issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 204: 'unpinned', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => pinChange(req, { pinned: false }),
    },
    {
      ...base,
      method: 'patch',
      path: '/repos/{owner}/{repo}/issues/{index}/pin/{position}',
      operationId: 'moveIssuePin',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Moves the Pin to the given Position',
      auth: 'required',
      params: POSITION_PARAMS,
      responses: { 204: 'moved', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams & { position: number }>) => pinChange(req, { position: req.params.position }),
    },
  ];
}
