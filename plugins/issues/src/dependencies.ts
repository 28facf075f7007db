import { created, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { INDEX_PARAMS, list, type IssueContext, type IssueDeps } from './issue-context';
import { base, type IndexParams } from './interaction-common';
import { dependencyService, type IssueMeta } from './dependency-service';

/** Issue dependencies: what blocks an issue, and what it blocks (closing waits for its open dependencies). */
export function dependencyOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { metaIssue, listSide, change, urlIssue, one } = dependencyService(deps, ctx);
  const pageq = { type: 'object', properties: {} };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/dependencies',
      operationId: 'issueListIssueDependencies',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: "List an issue's dependencies, i.e all issues that block this issue.",
      params: INDEX_PARAMS,
      query: pageq,
      paged: true,
      responses: { 200: list('Issue'), 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => listSide(req, 'blockers'),
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/dependencies',
      operationId: 'issueCreateIssueDependencies',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Make the issue in the url depend on the issue in the form.',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'IssueMeta',
      bodyRequired: true,
      responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const target = await urlIssue(req);
        await change(req, target, await metaIssue(req), true);
        return created(await one(target, req));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/dependencies',
      operationId: 'issueRemoveIssueDependencies',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Remove an issue dependency',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'IssueMeta',
      bodyRequired: true,
      responses: { 200: 'Issue', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const target = await urlIssue(req);
        await change(req, target, await metaIssue(req), false);
        return ok(await one(target, req));
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/blocks',
      operationId: 'issueListBlocks',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'List issues that are blocked by this issue',
      params: INDEX_PARAMS,
      query: pageq,
      paged: true,
      responses: { 200: list('Issue'), 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => listSide(req, 'blocked'),
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/blocks',
      operationId: 'issueCreateIssueBlocking',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Block the issue given in the body by the issue in path',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'IssueMeta',
      bodyRequired: true,
      responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const dependency = await urlIssue(req);
        await change(req, await metaIssue(req), dependency, true);
        return created(await one(dependency, req));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/blocks',
      operationId: 'issueRemoveIssueBlocking',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Unblock the issue given in the body by the issue in path',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'IssueMeta',
      bodyRequired: true,
      responses: { 200: 'Issue', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const dependency = await urlIssue(req);
        await change(req, await metaIssue(req), dependency, false);
        return ok(await one(dependency, req));
      },
    },
  ];
}
