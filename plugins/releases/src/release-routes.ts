import {
  ApiError,
  ID_PARAM,
  created,
  insertId,
  isUniqueViolation,
  noContent,
  nowUnix,
  ok,
  ownerRepoParams,
  OWNER_REPO_PARAMS,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type PluginContext,
  type RepositoryTarget,
} from '@hearth/plugin-api';
import { ReleaseService, toRelease } from './release-service';

interface CreateReleaseBody {
  tag_name: string;
  target_commitish?: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
}
type EditReleaseBody = Partial<CreateReleaseBody>;

type RepoParams = { owner: string; repo: string };
type IdParams = RepoParams & { id: number };
type AssetParams = IdParams & { attachment_id: number };
type TagParams = RepoParams & { tag: string };
type ListQuery = { draft?: boolean; 'pre-release'?: boolean; per_page?: number };

const ID_PARAMS = ownerRepoParams({ id: { ...ID_PARAM, description: 'id of the release' } });
const ASSET_PARAMS: JsonSchema = {
  type: 'object',
  properties: { ...(ID_PARAMS.properties as object), attachment_id: { ...ID_PARAM, description: 'id of the attachment' } },
  required: ['owner', 'repo', 'id', 'attachment_id'],
};
const TAG_PARAMS = ownerRepoParams({
  tag: { type: 'string', minLength: 1, maxLength: 255, description: 'tag name of the release (may contain /)' },
});
const NAME_QUERY: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 255, description: 'name of the attachment' } },
};
const LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    draft: { type: 'boolean', description: 'filter (exclude / include) drafts, if you dont have repo write access none will show' },
    'pre-release': { type: 'boolean', description: 'filter (exclude / include) pre-releases' },
    per_page: { type: 'integer', description: 'page size of results, deprecated - use limit' },
  },
};
const RELEASE_LIST = { description: 'ReleaseList', schema: { type: 'array', items: { $ref: 'Release' } } };
const ATTACHMENT_LIST = { description: 'AttachmentList', schema: { type: 'array', items: { $ref: 'Attachment' } } };
const NEWEST_FIRST = [
  { column: 'created_unix', order: 'desc' },
  { column: 'id', order: 'desc' },
];

const repoOf = (req: ApiRequest<any, any, any>): RepositoryTarget => req.target.repository!;
const exists = (tag: string) => ApiError.conflict(`release already exists for this tag [tag: ${tag}]`);

/**
 * Releases (Gitea's /repos/{owner}/{repo}/releases…) and their attachments. Every route needs
 * the releases unit; drafts are visible to writers only; changes need write access. Publishing
 * (creating a non-draft release, or un-drafting one) creates its tag from `target_commitish`
 * when the tag does not exist; deleting a release keeps the tag, as Gitea.
 */
export function releaseOperations(ctx: PluginContext, releases: ReleaseService): ApiOperation[] {
  const base = { tag: 'repository', scopes: ['repository'] as ['repository'] };
  const reader = { ...base, access: { repo: { need: 'read', unit: 'releases' } } } as const;
  const writer = { ...base, auth: 'required', access: { repo: { need: 'write', unit: 'releases' } } } as const;
  return [
    {
      ...reader,
      method: 'get',
      path: '/repos/{owner}/{repo}/releases',
      operationId: 'repoListReleases',
      summary: "List a repo's releases",
      params: OWNER_REPO_PARAMS,
      paged: true,
      query: LIST_QUERY,
      responses: { 200: RELEASE_LIST },
      handler: async (req: ApiRequest<unknown, ListQuery, RepoParams>) => {
        const r = repoOf(req);
        const q = ctx.db('release').where('repo_id', r.id);
        if (!(await releases.seesDrafts(r, req.principal))) q.where('is_draft', false);
        if (req.query.draft !== undefined) q.where('is_draft', req.query.draft);
        if (req.query['pre-release'] !== undefined) q.where('is_prerelease', req.query['pre-release']);
        const [{ n }] = await q.clone().count({ n: '*' });
        let { limit, offset } = req.paging;
        if (req.query.per_page && req.query.per_page > 0 && req.raw.query.limit === undefined) {
          limit = Math.min(req.query.per_page, ctx.forge.api.MAX_RESPONSE_ITEMS);
          offset = (req.paging.page - 1) * limit;
        }
        const rows = (await q.clone().orderBy(NEWEST_FIRST).offset(offset).limit(limit)).map(toRelease);
        return ctx.http.paged(req, await releases.toApi(r, rows, req.principal), Number(n));
      },
    },
    {
      ...reader,
      method: 'get',
      path: '/repos/{owner}/{repo}/releases/latest',
      operationId: 'repoGetLatestRelease',
      summary: 'Gets the most recent non-prerelease, non-draft release of a repository, sorted by created_at',
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'Release', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        const row = await ctx.db('release').where({ repo_id: r.id, is_draft: false, is_prerelease: false }).orderBy(NEWEST_FIRST).first();
        if (!row) throw ApiError.notFound('the repository has no published release');
        return ok(await releases.one(r, toRelease(row), req.principal));
      },
    },
    {
      ...reader,
      method: 'get',
      path: '/repos/{owner}/{repo}/releases/tags/{tag*}',
      operationId: 'repoGetReleaseByTag',
      summary: 'Get a release by tag name',
      params: TAG_PARAMS,
      responses: { 200: 'Release', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, TagParams>) => {
        const r = repoOf(req);
        const row = await releases.byTag(r, req.params.tag);
        if (!row || (row.is_draft && !(await releases.seesDrafts(r, req.principal)))) {
          throw ApiError.notFound(`release does not exist [tag: ${req.params.tag}]`);
        }
        return ok(await releases.one(r, row, req.principal));
      },
    },
    {
      ...writer,
      method: 'delete',
      path: '/repos/{owner}/{repo}/releases/tags/{tag*}',
      operationId: 'repoDeleteReleaseByTag',
      summary: 'Delete a release by tag name (the tag stays)',
      params: TAG_PARAMS,
      responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, TagParams>) => {
        const r = repoOf(req);
        const row = await releases.byTag(r, req.params.tag);
        if (!row) throw ApiError.notFound(`release does not exist [tag: ${req.params.tag}]`);
        const json = await releases.hookJson(r, row);
        await releases.remove([row]);
        await releases.announce(r, json, 'deleted', req.principal!);
        return noContent();
      },
    },
    {
      ...writer,
      method: 'post',
      path: '/repos/{owner}/{repo}/releases',
      operationId: 'repoCreateRelease',
      summary: 'Create a release',
      params: OWNER_REPO_PARAMS,
      body: 'CreateReleaseOption',
      bodyRequired: true,
      responses: { 201: 'Release', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateReleaseBody, unknown, RepoParams>) => {
        const r = repoOf(req);
        const b = req.body;
        ctx.git.assertValidRefName(b.tag_name, 'tag');
        const target = b.target_commitish || r.defaultBranch;
        if (await releases.byTag(r, b.tag_name)) throw exists(b.tag_name);
        if (!b.draft) await releases.ensureTag(r, b.tag_name, target, req.principal!);
        const fresh = ReleaseService.newRow(r.id, req.principal!.user.id, b, target);
        const id = await insertId(ctx.db, 'release', fresh).catch((err: unknown) => {
          throw isUniqueViolation(err) ? exists(b.tag_name) : err;
        });
        const row = await releases.byId(r, id, true);
        await releases.announce(r, await releases.hookJson(r, row), 'published', req.principal!);
        return created(await releases.one(r, row, req.principal));
      },
    },
    {
      ...reader,
      method: 'get',
      path: '/repos/{owner}/{repo}/releases/{id}',
      operationId: 'repoGetRelease',
      summary: 'Get a release',
      params: ID_PARAMS,
      responses: { 200: 'Release', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const r = repoOf(req);
        return ok(await releases.one(r, await releases.byId(r, req.params.id, await releases.seesDrafts(r, req.principal)), req.principal));
      },
    },
    {
      ...writer,
      method: 'patch',
      path: '/repos/{owner}/{repo}/releases/{id}',
      operationId: 'repoEditRelease',
      summary: 'Update a release',
      params: ID_PARAMS,
      body: 'EditReleaseOption',
      responses: { 200: 'Release', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<EditReleaseBody, unknown, IdParams>) => editRelease(ctx, releases, req),
    },
    {
      ...writer,
      method: 'delete',
      path: '/repos/{owner}/{repo}/releases/{id}',
      operationId: 'repoDeleteRelease',
      summary: 'Delete a release (the tag stays)',
      params: ID_PARAMS,
      responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const r = repoOf(req);
        const row = await releases.byId(r, req.params.id, true);
        const json = await releases.hookJson(r, row);
        await releases.remove([row]);
        await releases.announce(r, json, 'deleted', req.principal!);
        return noContent();
      },
    },
    ...assetOperations(ctx, releases),
  ];
}

/** PATCH of a release: fields, a move to another tag, publishing a draft (its tag is created then). */
async function editRelease(ctx: PluginContext, releases: ReleaseService, req: ApiRequest<EditReleaseBody, unknown, IdParams>) {
  const r = repoOf(req);
  const rel = await releases.byId(r, req.params.id, true);
  const b = req.body ?? {};
  const patch: Record<string, unknown> = {};
  const tag = b.tag_name || rel.tag_name;
  if (b.tag_name && b.tag_name !== rel.tag_name) {
    ctx.git.assertValidRefName(b.tag_name, 'tag');
    const other = await releases.byTag(r, b.tag_name);
    if (other && other.id !== rel.id) throw exists(b.tag_name);
    Object.assign(patch, { tag_name: b.tag_name, lower_tag_name: b.tag_name.toLowerCase() });
  }
  const target = b.target_commitish || rel.target;
  if (b.target_commitish) patch.target = b.target_commitish;
  if (b.name !== undefined) patch.title = b.name;
  if (b.body !== undefined) patch.note = b.body;
  if (b.prerelease !== undefined) patch.is_prerelease = b.prerelease;
  const draft = b.draft ?? rel.is_draft;
  if (b.draft !== undefined) patch.is_draft = b.draft;
  if (!draft && (rel.is_draft || tag !== rel.tag_name)) {
    await releases.ensureTag(r, tag, target || r.defaultBranch, req.principal!);
    if (rel.is_draft) patch.created_unix = nowUnix(); // published now
  }
  if (Object.keys(patch).length > 0) {
    try {
      await ctx.db('release').where('id', rel.id).update(patch);
    } catch (err) {
      if (isUniqueViolation(err)) throw exists(tag);
      throw err;
    }
  }
  const after = await releases.byId(r, rel.id, true);
  if (Object.keys(patch).length > 0) {
    await releases.announce(r, await releases.hookJson(r, after), rel.is_draft ? 'published' : 'updated', req.principal!);
  }
  return ok(await releases.one(r, after, req.principal));
}

/** A release's attachments (Gitea calls them assets), stored by the core's `ctx.attachments`. */
function assetOperations(ctx: PluginContext, releases: ReleaseService): ApiOperation[] {
  const base = { tag: 'repository', scopes: ['repository'] as ['repository'] };
  const reader = { ...base, access: { repo: { need: 'read', unit: 'releases' } } } as const;
  const writer = { ...base, auth: 'required', access: { repo: { need: 'write', unit: 'releases' } } } as const;
  const asset = (req: ApiRequest<any, any, AssetParams>) =>
    releases.asset(repoOf(req), req.params.id, req.params.attachment_id, req.principal);
  const assets = '/repos/{owner}/{repo}/releases/{id}/assets';
  return [
    {
      ...reader,
      method: 'get',
      path: assets,
      operationId: 'repoListReleaseAttachments',
      summary: "List release's attachments",
      params: ID_PARAMS,
      responses: { 200: ATTACHMENT_LIST, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const r = repoOf(req);
        const rel = await releases.byId(r, req.params.id, await releases.seesDrafts(r, req.principal));
        return ok((await ctx.attachments.listOfReleases([rel.id])).map((a) => ctx.attachments.toApi(a)));
      },
    },
    {
      ...writer,
      method: 'post',
      path: assets,
      operationId: 'repoCreateReleaseAttachment',
      summary: 'Create a release attachment (multipart/form-data, file field "attachment")',
      params: ID_PARAMS,
      query: NAME_QUERY,
      responses: { 201: 'Attachment', 400: 'APIError', 404: 'APIError', 413: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, { name?: string }, IdParams>) => {
        const r = repoOf(req);
        const rel = await releases.byId(r, req.params.id, true);
        const target = { repositoryId: r.id, releaseId: rel.id, uploaderId: req.principal!.user.id, name: req.query.name };
        const row = await ctx.attachments.create(req.raw, target);
        return created(ctx.attachments.toApi(row));
      },
    },
    {
      ...reader,
      method: 'get',
      path: `${assets}/{attachment_id}`,
      operationId: 'repoGetReleaseAttachment',
      summary: 'Get a release attachment',
      params: ASSET_PARAMS,
      responses: { 200: 'Attachment', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, AssetParams>) => ok(ctx.attachments.toApi(await asset(req))),
    },
    {
      ...writer,
      method: 'patch',
      path: `${assets}/{attachment_id}`,
      operationId: 'repoEditReleaseAttachment',
      summary: 'Edit a release attachment',
      params: ASSET_PARAMS,
      body: 'EditAttachmentOptions',
      responses: { 201: 'Attachment', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ name?: string }, unknown, AssetParams>) => {
        const row = await asset(req);
        const next = req.body?.name ? await ctx.attachments.rename(row, req.body.name) : row;
        return created(ctx.attachments.toApi(next)); // Gitea answers 201 here
      },
    },
    {
      ...writer,
      method: 'delete',
      path: `${assets}/{attachment_id}`,
      operationId: 'repoDeleteReleaseAttachment',
      summary: 'Delete a release attachment',
      params: ASSET_PARAMS,
      responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, AssetParams>) => {
        await ctx.attachments.remove([await asset(req)]);
        return noContent();
      },
    },
  ];
}
