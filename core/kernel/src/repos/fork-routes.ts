import { ApiError, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { repoOf } from '../access/operation-access';
import { OWNER_REPO_PARAMS, mayCreateRepoFor, readableRepoQuery, type RepoRouteDeps } from './repo-routes';
import { RepositoryRow } from './models';

/** Forks: `POST/GET /repos/{owner}/{repo}/forks`. */
export function forkOperations({ repos, users, http }: Omit<RepoRouteDeps, 'templates'>): ApiOperation[] {
  return [
    {
      method: 'post',
      path: '/repos/{owner}/{repo}/forks',
      operationId: 'createFork',
      tag: 'repository',
      summary: 'Fork a repository',
      // A fork copies the code: reading the repository through another unit is not enough.
      scopes: ['repository'],
      auth: 'required',
      access: { repo: { need: 'read', unit: 'code' } },
      params: OWNER_REPO_PARAMS,
      body: 'CreateForkOption',
      responses: { 202: 'Repository', 403: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ name?: string; organization?: string }, unknown, { owner: string; repo: string }>) => {
        const source = repoOf(req);
        const principal = req.principal!;
        let target = (await users.rowOf(principal))!;
        if (req.body.organization) {
          const org = await users.byName(req.body.organization);
          if (!org || org.type !== 1 || !(await repos.access.profileVisible(org, principal))) {
            throw ApiError.unprocessable(`organization does not exist [name: ${req.body.organization}]`);
          }
          if (!(await mayCreateRepoFor(repos, org, principal)))
            throw ApiError.forbidden('you may not create repositories in this organization');
          target = org;
        }
        if (target.id === source.repo.owner_id) throw ApiError.conflict('a repository cannot be forked into its own owner');
        // One fork per owner and source, as in Gitea: a dedicated 409 names the existing fork.
        const existing = await RepositoryRow.query(repos.query().knex()).findOne({ owner_id: target.id, fork_id: source.repo.id });
        if (existing) throw ApiError.conflict(`repository is already forked by ${target.name}: ${target.name}/${existing.name}`);
        const row = await repos.create(
          target,
          {
            name: req.body.name || source.repo.name,
            description: source.repo.description,
            private: source.repo.is_private,
            defaultBranch: source.repo.default_branch,
            isFork: true,
            forkId: source.repo.id,
            cloneFrom: source.gitDir,
          },
          principal.user,
        );
        await repos.query().where('id', source.repo.id).increment('num_forks', 1);
        return { status: 202, body: await repos.toApi(row, target, req.principal) };
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/forks',
      operationId: 'listForks',
      tag: 'repository',
      summary: "List a repository's forks",
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: { description: 'RepositoryList', schema: { type: 'array', items: { $ref: 'Repository' } } } },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const forks = readableRepoQuery(repos, req.principal).where('fork_id', repoOf(req).repo.id);
        const [page, total] = await Promise.all([
          forks.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit),
          forks.clone().resultSize(),
        ]);
        return http.paged(req, await repos.toApiPage(page, req.principal), total);
      },
    },
  ];
}
