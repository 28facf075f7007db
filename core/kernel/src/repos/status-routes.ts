import { created, ownerRepoParams, type ApiOperation, type ApiRequest, type JsonSchema } from '@hearth/plugin-api';
import { unixToIso, type UserRow } from '../users/models';
import type { ResolvedRepo } from './repo-service';
import { READ_CODE, WRITE_CODE, type GitRouteDeps } from './route-deps';
import { repoOf } from '../access/operation-access';
import { archiveOperations } from './archive-routes';
import { requireCompleteCommit } from './status-git';
import { resolveCommit } from './revisions';
import { CommitStatusStore, type CommitStatusRow, type StatusSort, type StatusState } from './status-store';

type RepoParams = { owner: string; repo: string };

const withParam = (name: string, schema: JsonSchema): JsonSchema => ownerRepoParams({ [name]: schema });

const SHA_PARAMS = withParam('sha', { type: 'string', minLength: 1, maxLength: 255, description: 'complete id of the commit' });
const REF_PARAMS = withParam('ref', { type: 'string', minLength: 1, maxLength: 1024, description: 'name of branch/tag/commit' });
const STATE_ENUM = ['pending', 'success', 'error', 'failure', 'warning'];
const LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    sort: { type: 'string', enum: ['oldest', 'recentupdate', 'leastupdate', 'leastindex', 'highestindex'], description: 'type of sort' },
    state: { type: 'string', enum: STATE_ENUM, description: 'type of state' },
  },
};
const STATUS_LIST = { description: 'CommitStatusList', schema: { type: 'array', items: { $ref: 'CommitStatus' } } };

interface CreateStatusBody {
  state: StatusState;
  target_url?: string;
  description?: string;
  context?: string;
}

/**
 * Commit statuses (what CI systems post against a commit) and repository archives. Both are
 * reached by commit: statuses are created and listed by complete commit id, or read by any
 * branch, tag or id through /commits/{ref}; archives are made per commit and cached (archive-routes.ts).
 */
export function statusOperations(deps: GitRouteDeps): ApiOperation[] {
  return [...commitStatusOperations(deps), ...archiveOperations(deps)];
}

/** The API path of a repository, as status URLs name it. */
function repoApiPath(resolved: ResolvedRepo): string {
  return `/repos/${encodeURIComponent(resolved.owner.name)}/${encodeURIComponent(resolved.repo.name)}`;
}

/**
 * Gitea's CommitStatus. As in Gitea, `id` is the status's index among its commit's statuses,
 * the JSON field of the state is `status`, and the creator is shown as an anonymous caller
 * would see them (null once the account is gone).
 */
async function statusJson({ users, http }: GitRouteDeps, resolved: ResolvedRepo, rows: CommitStatusRow[]) {
  const creators = new Map<number, UserRow | undefined>();
  for (const id of new Set(rows.map((r) => r.creator_id))) creators.set(id, id ? await users.byId(id) : undefined);
  return rows.map((row) => {
    const creator = creators.get(row.creator_id);
    return {
      id: row.index,
      status: row.state,
      target_url: row.target_url,
      description: row.description,
      url: http.apiUrl(`${repoApiPath(resolved)}/statuses/${row.sha}`),
      context: row.context,
      creator: creator ? users.toApi(creator, null) : null,
      created_at: unixToIso(Number(row.created_unix)),
      updated_at: unixToIso(Number(row.updated_unix)),
    };
  });
}

/** Creating, listing and combining a commit's statuses. */
function commitStatusOperations(deps: GitRouteDeps): ApiOperation[] {
  const { repos, http } = deps;
  // The kernel's knex, from the repository query builder (GitRouteDeps carries no db handle).
  const store = new CommitStatusStore(repos.query().knex());

  const listStatuses = async (
    req: ApiRequest<unknown, { sort?: StatusSort; state?: StatusState }>,
    resolved: ResolvedRepo,
    sha: string,
  ) => {
    const { rows, total } = await store.list(resolved.repo.id, sha, { ...req.paging, sort: req.query.sort, state: req.query.state });
    return http.paged(req, await statusJson(deps, resolved, rows), total);
  };

  return [
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/statuses/{sha}',
      operationId: 'repoCreateStatus',
      tag: 'repository',
      summary: 'Create a commit status',
      scopes: ['repository'],
      auth: 'required',
      access: WRITE_CODE,
      params: SHA_PARAMS,
      body: 'CreateStatusOption',
      bodyRequired: true,
      responses: { 201: 'CommitStatus', 400: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateStatusBody, unknown, RepoParams & { sha: string }>) => {
        const resolved = repoOf(req);
        const sha = await requireCompleteCommit(resolved.gitDir, req.params.sha);
        const body = req.body;
        const row = await store.create({
          repoId: resolved.repo.id,
          sha,
          state: body.state,
          targetUrl: body.target_url ?? '',
          description: body.description ?? '',
          context: body.context ?? '',
          creatorId: req.principal!.user.id,
        });
        return created((await statusJson(deps, resolved, [row]))[0]);
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/statuses/{sha}',
      operationId: 'repoListStatuses',
      tag: 'repository',
      summary: "Get a commit's statuses",
      scopes: ['repository'],
      access: READ_CODE,
      params: SHA_PARAMS,
      query: LIST_QUERY,
      paged: true,
      responses: { 200: STATUS_LIST, 400: 'APIError' },
      handler: async (req: ApiRequest<unknown, { sort?: StatusSort; state?: StatusState }, RepoParams & { sha: string }>) => {
        const resolved = repoOf(req);
        return listStatuses(req, resolved, await requireCompleteCommit(resolved.gitDir, req.params.sha));
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/commits/{ref*}/statuses',
      operationId: 'repoListStatusesByRef',
      tag: 'repository',
      summary: "Get a commit's statuses, by branch/tag/commit reference",
      scopes: ['repository'],
      access: READ_CODE,
      params: REF_PARAMS,
      query: LIST_QUERY,
      paged: true,
      responses: { 200: STATUS_LIST, 400: 'APIError' },
      handler: async (req: ApiRequest<unknown, { sort?: StatusSort; state?: StatusState }, RepoParams & { ref: string }>) => {
        const resolved = repoOf(req);
        return listStatuses(req, resolved, await resolveCommit(resolved.gitDir, req.params.ref, 'ref'));
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/commits/{ref*}/status',
      operationId: 'repoGetCombinedStatusByRef',
      tag: 'repository',
      summary: "Get a commit's combined status, by branch/tag/commit reference",
      scopes: ['repository'],
      access: READ_CODE,
      params: REF_PARAMS,
      paged: true,
      responses: { 200: 'CombinedStatus', 400: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams & { ref: string }>) => {
        const resolved = repoOf(req);
        const sha = await resolveCommit(resolved.gitDir, req.params.ref, 'ref');
        const { rows, total, state } = await store.latest(resolved.repo.id, sha, req.paging);
        const page = http.paged(req, [], total);
        // `state` is the worst of the latest status of every context (error > failure > warning >
        // pending > success), as Gitea's CalcCommitStatus. With no status at all Gitea 1.20
        // answers an empty CombinedStatus whose state is "" (it has no "unknown" state); we keep
        // that state but still fill in the commit, the repository and the URLs. total_count is
        // the number of contexts (X-Total-Count too), `statuses` the requested page of them.
        return {
          ...page,
          body: {
            state,
            sha,
            total_count: total,
            statuses: await statusJson(deps, resolved, rows),
            repository: await repos.toApi(resolved.repo, resolved.owner, req.principal),
            commit_url: http.apiUrl(`${repoApiPath(resolved)}/git/commits/${sha}`),
            url: http.apiUrl(`${repoApiPath(resolved)}/commits/${sha}/status`),
          },
        };
      },
    },
  ];
}
