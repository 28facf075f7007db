import {
  ApiError,
  created,
  isApiError,
  noContent,
  ok,
  type ApiOperation,
  type ApiRequest,
  type HttpHelpers,
  type Principal,
} from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import type { UserRow } from '../users/models';
import { containsCondition } from '../db/like';
import { canCreateOrgRepo } from '../orgs/org-store';
import { actsAsAdmin } from '../access/policy';
import { ownerOf, repoOf } from '../access/operation-access';
import { readableRepoIds } from '../access/readable-repos';
import type { RepositoryRow, RepoSettings, RepoUnits } from './models';
import type { InitialFiles, RepoService } from './repo-service';

/** What repository creation needs of the template data (see templates.ts). */
export interface InitTemplates {
  readme(name: string, vars: { Name: string; Description: string; Owner: string; CloneURLHTTPS: string }): string | null;
  combinedGitignore(names: string[]): string;
  license(name: string): { body: string } | null;
}

export interface RepoRouteDeps {
  repos: RepoService;
  users: UserService;
  http: HttpHelpers;
  templates: InitTemplates;
}

import { OWNER_REPO_PARAMS } from '@hearth/plugin-api';
export { OWNER_REPO_PARAMS };

interface CreateRepoBody {
  name: string;
  description?: string;
  private?: boolean;
  template?: boolean;
  auto_init?: boolean;
  gitignores?: string;
  license?: string;
  readme?: string;
  default_branch?: string;
  issue_labels?: string;
}

type EditRepoBody = Partial<Record<string, unknown>> & {
  name?: string;
  description?: string;
  website?: string;
  private?: boolean;
  template?: boolean;
  archived?: boolean;
  default_branch?: string;
};

const UNIT_FIELDS: Record<string, keyof RepoUnits> = {
  has_code: 'code',
  has_issues: 'issues',
  has_pull_requests: 'pulls',
  has_releases: 'releases',
  has_wiki: 'wiki',
  has_projects: 'projects',
  has_packages: 'packages',
  has_actions: 'actions',
};
const SETTING_FIELDS: Array<keyof RepoSettings> = [
  'allow_merge_commits',
  'allow_rebase',
  'allow_rebase_explicit',
  'allow_squash_merge',
  'allow_fast_forward_only_merge',
  'allow_manual_merge',
  'autodetect_manual_merge',
  'allow_rebase_update',
  'default_delete_branch_after_merge',
  'default_merge_style',
  'default_allow_maintainer_edit',
  'ignore_whitespace_conflicts',
];

/**
 * May the caller create repositories owned by `owner`: their own account; an organization whose
 * Owners team or a repository-creating team they are in (Gitea's CanCreateOrgRepo); any owner for
 * a site admin. A public-only token creates nothing for organizations.
 */
export async function mayCreateRepoFor(repos: RepoService, owner: UserRow, principal: Principal): Promise<boolean> {
  if (principal.user.id === owner.id || actsAsAdmin(principal)) return true;
  return owner.type === 1 && !principal.publicOnly && canCreateOrgRepo(repos.query().knex(), owner.id, principal.user.id);
}

/** The repositories the caller may read (the access module's list rule), as a query to narrow further. */
export function readableRepoQuery(repos: RepoService, viewer: Principal | null) {
  const query = repos.query();
  const readable = readableRepoIds(query.knex(), viewer);
  return readable ? query.whereIn('id', readable) : query;
}

/** Repository CRUD, listing and search (section category: repository). */
export function repoOperations(deps: RepoRouteDeps): ApiOperation[] {
  return [...repoCreationOperations(deps), ...singleRepoOperations(deps), ...repoListOperations(deps)];
}

/** A repository's JSON with its permission computed for the viewer. */
function repoJson(repos: RepoService, row: RepositoryRow, owner: UserRow, viewer: Principal | null) {
  return repos.toApi(row, owner, viewer, true);
}

/** The first commit's files from the creation options; unknown templates are the client's 400, found before anything is written. */
function initialFiles({ http, templates }: RepoRouteDeps, owner: UserRow, body: CreateRepoBody): InitialFiles | undefined {
  if (!body.auto_init) return undefined;
  const files: InitialFiles = {};
  const readme = templates.readme(body.readme || 'Default', {
    Name: body.name,
    Description: body.description ?? '',
    Owner: owner.name,
    CloneURLHTTPS: `${http.apiUrl('').replace(/api\/v1\/?$/, '')}${owner.name}/${body.name}.git`,
  });
  if (readme === null) throw ApiError.badRequest(`readme template does not exist [name: ${body.readme}]`);
  files['README.md'] = readme;
  if (body.gitignores)
    files['.gitignore'] = templates.combinedGitignore(
      body.gitignores
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  if (body.license) {
    const license = templates.license(body.license);
    if (!license) throw ApiError.badRequest(`license template does not exist [name: ${body.license}]`);
    files.LICENSE = license.body;
  }
  return files;
}

/** Create a repository for `owner` from a CreateRepoOption body (201 with its JSON). */
async function createRepoFor(deps: RepoRouteDeps, owner: UserRow, req: ApiRequest<CreateRepoBody>) {
  const { repos } = deps;
  const body = req.body;
  if (!body.auto_init && (body.readme || body.license || body.gitignores)) {
    // Gitea ignores templates without auto_init; validating them still catches typos early.
    initialFiles(deps, owner, { ...body, auto_init: true });
  }
  const row = await repos.create(
    owner,
    {
      name: body.name,
      description: body.description,
      private: body.private,
      template: body.template,
      defaultBranch: body.default_branch,
      initialFiles: initialFiles(deps, owner, body),
      issueLabels: body.issue_labels || undefined,
    },
    req.principal!.user,
  );
  return created(await repoJson(repos, row, owner, req.principal));
}

/** The changes an EditRepoOption body asks for, units and settings only when it names some. */
function repoEditOf(b: EditRepoBody) {
  const units: Partial<RepoUnits> = {};
  for (const [field, unit] of Object.entries(UNIT_FIELDS)) if (typeof b[field] === 'boolean') units[unit] = b[field] as boolean;
  const settings: Partial<RepoSettings> = {};
  for (const field of SETTING_FIELDS) if (b[field] !== undefined) (settings as Record<string, unknown>)[field] = b[field];
  return {
    name: b.name,
    description: b.description,
    website: b.website,
    private: b.private,
    template: b.template,
    archived: b.archived,
    default_branch: b.default_branch,
    units: Object.keys(units).length ? units : undefined,
    settings: Object.keys(settings).length ? settings : undefined,
  };
}

/** One page of a repository query, as JSON, with the total. */
async function listPage(repos: RepoService, req: ApiRequest, query: ReturnType<RepoService['query']>) {
  const [rows, total] = await Promise.all([
    query.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit),
    query.clone().resultSize(),
  ]);
  return { items: await repos.toApiPage(rows, req.principal), total };
}

/** Creating a repository: for the caller, for a user by a site admin, in an organization. */
function repoCreationOperations(deps: RepoRouteDeps): ApiOperation[] {
  const { repos, users } = deps;
  return [
    {
      method: 'post',
      path: '/user/repos',
      operationId: 'createCurrentUserRepo',
      tag: 'repository',
      summary: 'Create a repository',
      scopes: ['repository'],
      auth: 'required',
      access: 'caller',
      body: 'CreateRepoOption',
      bodyRequired: true,
      responses: { 201: 'Repository', 400: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<CreateRepoBody>) => createRepoFor(deps, (await users.rowOf(req.principal!))!, req),
    },
    {
      method: 'post',
      path: '/admin/users/{username}/repos',
      operationId: 'adminCreateRepo',
      tag: 'admin',
      summary: 'Create a repository on behalf of a user',
      scopes: ['admin', 'repository'],
      auth: 'siteAdmin',
      access: 'site-admin',
      body: 'CreateRepoOption',
      bodyRequired: true,
      params: { type: 'object', properties: { username: { type: 'string', maxLength: 255 } }, required: ['username'] },
      responses: { 201: 'Repository', 400: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<CreateRepoBody, unknown, { username: string }>) =>
        createRepoFor(deps, await users.require(req.params.username), req),
    },
    ...(['/orgs/{org}/repos', '/org/{org}/repos'] as const).map((path): ApiOperation => ({
      method: 'post',
      path,
      // Gitea 1.20 still serves the old singular path (createOrgRepoDeprecated), the same operation.
      operationId: path === '/orgs/{org}/repos' ? 'createOrgRepo' : 'createOrgRepoDeprecated',
      tag: 'organization',
      summary:
        path === '/orgs/{org}/repos' ? 'Create a repository in an organization' : 'Create a repository in an organization (deprecated)',
      scopes: ['organization', 'repository'],
      auth: 'required',
      access: { org: 'visible' },
      body: 'CreateRepoOption',
      bodyRequired: true,
      params: { type: 'object', properties: { org: { type: 'string', maxLength: 255 } }, required: ['org'] },
      responses: { 201: 'Repository', 400: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<CreateRepoBody, unknown, { org: string }>) => {
        const org = ownerOf(req);
        if (!(await mayCreateRepoFor(repos, org, req.principal!)))
          throw ApiError.forbidden('you may not create repositories in this organization');
        return createRepoFor(deps, org, req);
      },
    })),
  ];
}

/** One repository: read, edit, delete, and read by id. */
function singleRepoOperations({ repos, users }: RepoRouteDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}',
      operationId: 'repoGet',
      tag: 'repository',
      summary: 'Get a repository',
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'Repository' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { repo, owner, permission } = repoOf(req);
        // The permission the access check resolved is the caller's: not computed twice.
        return ok(await repos.toApi(repo, owner, req.principal, true, undefined, permission));
      },
    },
    {
      method: 'patch',
      path: '/repos/{owner}/{repo}',
      operationId: 'repoEdit',
      tag: 'repository',
      summary: "Edit a repository's properties",
      scopes: ['repository'],
      auth: 'required',
      access: { repo: { need: 'admin' } },
      params: OWNER_REPO_PARAMS,
      body: 'EditRepoOption',
      responses: { 200: 'Repository', 422: 'APIError' },
      handler: async (req: ApiRequest<EditRepoBody, unknown, { owner: string; repo: string }>) => {
        const resolved = repoOf(req);
        const row = await repos.edit(resolved, repoEditOf(req.body), req.principal!.user);
        return ok(await repoJson(repos, row, resolved.owner, req.principal));
      },
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}',
      operationId: 'repoDelete',
      tag: 'repository',
      summary: 'Delete a repository',
      scopes: ['repository'],
      auth: 'required',
      access: { repo: { need: 'admin' } },
      params: OWNER_REPO_PARAMS,
      responses: { 204: 'deleted' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        await repos.delete(repoOf(req), req.principal!.user);
        return noContent();
      },
    },
    {
      method: 'get',
      path: '/repositories/{id}',
      operationId: 'repoGetByID',
      tag: 'repository',
      summary: 'Get a repository by id',
      scopes: ['repository'],
      access: 'anyone',
      params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
      responses: { 200: 'Repository' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const missing = () => ApiError.notFound(`repository does not exist [id: ${req.params.id}]`);
        const row = await repos.byId(Number(req.params.id));
        const owner = row ? await users.byId(row.owner_id) : undefined;
        if (!row || !owner) throw missing();
        // The 404 of an unreadable repository names the id asked for, not the repository.
        const { repo } = await repos.access.check(row, owner, req.principal, 'read').catch((err) => {
          throw isApiError(err) && err.status === 404 ? missing() : err;
        });
        return ok(await repoJson(repos, repo, owner, req.principal));
      },
    },
  ];
}

/** Searching repositories and listing a user's. */
function repoListOperations({ repos, http }: RepoRouteDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/repos/search',
      operationId: 'repoSearch',
      tag: 'repository',
      summary: 'Search for repositories',
      scopes: ['repository'],
      access: 'anyone',
      paged: true,
      query: {
        type: 'object',
        properties: {
          q: { type: 'string', maxLength: 255, description: 'keyword' },
          uid: { type: 'integer', description: 'search only for repos that the user with the given id owns' },
          template: { type: 'boolean', description: 'include template repositories (default true)' },
          private: { type: 'boolean', description: 'include private repositories this user has access to (default true)' },
          is_private: { type: 'boolean', description: 'show only public (false) or private (true) repositories' },
          exclusive: { type: 'boolean', description: 'with uid: only repositories the user owns' },
          sort: { type: 'string', enum: ['alpha', 'created', 'updated', 'size', 'id'] },
          order: { type: 'string', enum: ['asc', 'desc'] },
        },
      },
      responses: { 200: 'SearchResults' },
      handler: async (
        req: ApiRequest<
          unknown,
          { q?: string; uid?: number; template?: boolean; private?: boolean; is_private?: boolean; sort?: string; order?: string }
        >,
      ) => {
        const q = req.query;
        let query = readableRepoQuery(repos, req.principal);
        if (q.q) query = query.whereRaw(...containsCondition('lower_name', q.q));
        if (q.uid) query = query.where('owner_id', q.uid);
        if (q.template === false) query = query.where('is_template', false);
        if (q.private === false) query = query.where('is_private', false);
        if (q.is_private !== undefined) query = query.where('is_private', q.is_private);
        const column =
          { alpha: 'lower_name', created: 'created_unix', updated: 'updated_unix', size: 'size', id: 'id' }[q.sort ?? 'id'] ?? 'id';
        query = query.orderBy(column, q.order === 'desc' ? 'desc' : 'asc');
        const { items, total } = await listPage(repos, req, query);
        const page = http.paged(req, items, total);
        return { ...page, body: { ok: true, data: page.body } };
      },
    },
    {
      method: 'get',
      path: '/user/repos',
      operationId: 'userCurrentListRepos',
      tag: 'user',
      summary: 'List the repos that the authenticated user owns',
      scopes: ['user', 'repository'],
      auth: 'required',
      access: 'caller',
      paged: true,
      responses: { 200: { description: 'RepositoryList', schema: { type: 'array', items: { $ref: 'Repository' } } } },
      handler: async (req) => {
        // Through the list rule: a public-only token lists what anyone may see.
        const query = readableRepoQuery(repos, req.principal).where('owner_id', req.principal!.user.id);
        const { items, total } = await listPage(repos, req, query);
        return http.paged(req, items, total);
      },
    },
    {
      method: 'get',
      path: '/users/{username}/repos',
      operationId: 'userListRepos',
      tag: 'user',
      summary: 'List the repos owned by the given user',
      scopes: ['user', 'repository'],
      access: { user: 'visible' },
      paged: true,
      params: { type: 'object', properties: { username: { type: 'string', maxLength: 255 } }, required: ['username'] },
      responses: { 200: { description: 'RepositoryList', schema: { type: 'array', items: { $ref: 'Repository' } } } },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => {
        const query = readableRepoQuery(repos, req.principal).where('owner_id', ownerOf(req).id);
        const { items, total } = await listPage(repos, req, query);
        return http.paged(req, items, total);
      },
    },
  ];
}
