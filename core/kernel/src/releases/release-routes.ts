import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type Principal } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { isUniqueViolation } from '../db/errors';
import { nowUnix, unixToIso } from '../users/models';
import { ZERO_ID } from '../repos/git';
import { readRef } from '../repos/git-data-git';
import { escapeSegments, repoLinks } from '../repos/links';
import { notFoundAs, resolveCommit } from '../repos/revisions';
import { assertValidRefName } from '../repos/names';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import type { ResolvedRepo } from '../repos/repo-service';
import { repoOf } from '../access/operation-access';
import { AttachmentStore, attachmentToApi, seesReleaseDrafts, type AttachmentRow } from './attachment-store';
import { emitEvent } from '../events/emit';

interface ReleaseRow {
  id: number;
  repo_id: number;
  publisher_id: number;
  tag_name: string;
  lower_tag_name: string;
  target: string;
  title: string;
  note: string | null;
  is_draft: boolean;
  is_prerelease: boolean;
  created_unix: number;
}

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

const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
const num = (v: unknown): number => Number(v ?? 0);

function toRelease(raw: any): ReleaseRow {
  return { ...raw, id: num(raw.id), repo_id: num(raw.repo_id), publisher_id: num(raw.publisher_id), created_unix: num(raw.created_unix), is_draft: bool(raw.is_draft), is_prerelease: bool(raw.is_prerelease) };
}

const ID_PARAMS: JsonSchema = {
  type: 'object',
  properties: { ...(OWNER_REPO_PARAMS.properties as object), id: { type: 'integer', minimum: 1, description: 'id of the release' } },
  required: ['owner', 'repo', 'id'],
};
const ASSET_PARAMS: JsonSchema = {
  type: 'object',
  properties: { ...(ID_PARAMS.properties as object), attachment_id: { type: 'integer', minimum: 1, description: 'id of the attachment' } },
  required: ['owner', 'repo', 'id', 'attachment_id'],
};
const TAG_PARAMS: JsonSchema = {
  type: 'object',
  properties: { ...(OWNER_REPO_PARAMS.properties as object), tag: { type: 'string', minLength: 1, maxLength: 255, description: 'tag name of the release (may contain /)' } },
  required: ['owner', 'repo', 'tag'],
};
const RELEASE_LIST = { description: 'ReleaseList', schema: { type: 'array', items: { $ref: 'Release' } } };
const ATTACHMENT_LIST = { description: 'AttachmentList', schema: { type: 'array', items: { $ref: 'Attachment' } } };

/**
 * Releases (Gitea's /repos/{owner}/{repo}/releases…) and their attachments. Every route needs
 * the releases unit; drafts are visible to writers only; changes need write access. Publishing
 * (creating a non-draft release, or un-drafting one) creates its tag from `target_commitish`
 * when the tag does not exist; deleting a release keeps the tag, as Gitea.
 */
export function releaseOperations(deps: KernelServices): ApiOperation[] {
  const { db, repos, users, config, http } = deps;
  const attachments = new AttachmentStore(db, config);

  const seesDrafts = (req: ApiRequest<any, any, any>, r: ResolvedRepo): Promise<boolean> => seesReleaseDrafts(repos, r, req.principal);

  /** A release of the repository; drafts only when `drafts` (the caller writes releases). */
  const byId = async (r: ResolvedRepo, id: number, drafts: boolean): Promise<ReleaseRow> => {
    const row = await db('release').where({ repo_id: r.repo.id, id }).first();
    if (!row || (bool(row.is_draft) && !drafts)) throw ApiError.notFound(`release does not exist [id: ${id}]`);
    return toRelease(row);
  };

  const byTag = async (r: ResolvedRepo, tag: string): Promise<ReleaseRow | null> => {
    const rows = await db('release').where({ repo_id: r.repo.id, lower_tag_name: tag.toLowerCase() });
    const row = rows.find((x: { tag_name: string }) => x.tag_name === tag) ?? rows[0];
    return row ? toRelease(row) : null;
  };

  const toApi = async (r: ResolvedRepo, rows: ReleaseRow[], viewer: Principal | null): Promise<Record<string, unknown>[]> => {
    const links = repoLinks(config, r.owner.name, r.repo.name);
    const assets = await attachments.list(rows.map((x) => x.id));
    const authors = new Map<number, Record<string, unknown> | null>();
    for (const id of new Set(rows.map((x) => x.publisher_id))) {
      const u = await users.byId(id);
      authors.set(id, u ? users.toApi(u, viewer) : null);
    }
    return rows.map((rel) => {
      const archive = `${links.html}/archive/${escapeSegments(rel.tag_name)}`;
      const created = unixToIso(rel.created_unix);
      return {
        id: rel.id,
        tag_name: rel.tag_name,
        target_commitish: rel.target,
        name: rel.title,
        body: rel.note ?? '',
        url: `${links.api}/releases/${rel.id}`,
        html_url: `${links.html}/releases/tag/${escapeSegments(rel.tag_name)}`,
        tarball_url: `${archive}.tar.gz`,
        zipball_url: `${archive}.zip`,
        upload_url: `${links.api}/releases/${rel.id}/assets`,
        draft: rel.is_draft,
        prerelease: rel.is_prerelease,
        created_at: created,
        published_at: created,
        author: authors.get(rel.publisher_id) ?? null,
        assets: assets.filter((a) => a.release_id === rel.id).map((a) => attachmentToApi(config, a)),
      };
    });
  };
  const one = async (r: ResolvedRepo, row: ReleaseRow, viewer: Principal | null) => (await toApi(r, [row], viewer))[0];

  /** Create `refs/tags/<tag>` at `target` unless the tag exists (compare-and-swap against no ref). */
  const ensureTag = async (r: ResolvedRepo, tag: string, target: string, principal: Principal): Promise<void> => {
    const ref = `refs/tags/${tag}`;
    if (await readRef(r.gitDir, ref)) return;
    const commit = await notFoundAs(resolveCommit(r.gitDir, target, 'target_commitish'), `target does not exist [target_commitish: ${target}]`);
    if (!(await repos.updateRef(r.repo, ref, ZERO_ID, commit, principal.user, 'hearth: tag created for a release'))) {
      if (await readRef(r.gitDir, ref)) return; // created concurrently
      throw ApiError.conflict(`tag conflicts with an existing tag [name: ${tag}]`);
    }
  };

  /** Webhooks hear of published, updated and deleted releases (drafts stay quiet, as in Gitea). */
  const announce = async (r: ResolvedRepo, release: Record<string, unknown> | null, action: string, actor: Principal): Promise<void> => {
    if (!release) return;
    await emitEvent(deps.hooks, { event: 'release', action, actor: actor.user, ownerId: r.owner.id, repositoryId: r.repo.id, payload: { action, release } });
  };
  const releaseJson = async (r: ResolvedRepo, row: ReleaseRow) => (row.is_draft ? null : one(r, row, null));

  const removeReleases = async (rows: ReleaseRow[]): Promise<void> => {
    const assets = await attachments.list(rows.map((x) => x.id));
    await db.transaction(async (trx) => {
      await trx('attachment').whereIn('release_id', rows.map((x) => x.id)).delete();
      await trx('release').whereIn('id', rows.map((x) => x.id)).delete();
    });
    await attachments.deleteOrphanBlobs(assets.map((a) => a.hash_sha256));
  };

  const asset = async (req: ApiRequest<any, any, AssetParams>): Promise<{ r: ResolvedRepo; row: AttachmentRow }> => {
    const r = repoOf(req);
    await byId(r, req.params.id, await seesDrafts(req, r));
    const row = await attachments.get(req.params.id, req.params.attachment_id);
    if (!row) throw ApiError.notFound(`attachment does not exist [id: ${req.params.attachment_id}]`);
    return { r, row };
  };

  const base = { tag: 'repository', scopes: ['repository'] as ['repository'] };
  const reader = { ...base, access: { repo: { need: 'read', unit: 'releases' } } } as const;
  const writer = { ...base, auth: 'required', access: { repo: { need: 'write', unit: 'releases' } } } as const;
  return [
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/releases', operationId: 'repoListReleases', summary: "List a repo's releases",
      params: OWNER_REPO_PARAMS, paged: true,
      query: { type: 'object', properties: { draft: { type: 'boolean', description: 'filter (exclude / include) drafts, if you dont have repo write access none will show' }, 'pre-release': { type: 'boolean', description: 'filter (exclude / include) pre-releases' }, per_page: { type: 'integer', description: 'page size of results, deprecated - use limit' } } },
      responses: { 200: RELEASE_LIST },
      handler: async (req: ApiRequest<unknown, { draft?: boolean; 'pre-release'?: boolean; per_page?: number }, RepoParams>) => {
        const r = repoOf(req);
        const q = db('release').where('repo_id', r.repo.id);
        if (!(await seesDrafts(req, r))) q.where('is_draft', false);
        if (req.query.draft !== undefined) q.where('is_draft', req.query.draft);
        if (req.query['pre-release'] !== undefined) q.where('is_prerelease', req.query['pre-release']);
        const [{ n }] = await q.clone().count({ n: '*' });
        let { limit, offset } = req.paging;
        if (req.query.per_page && req.query.per_page > 0 && req.raw.query.limit === undefined) {
          limit = Math.min(req.query.per_page, config.api.MAX_RESPONSE_ITEMS);
          offset = (req.paging.page - 1) * limit;
        }
        const rows = (await q.clone().orderBy([{ column: 'created_unix', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(offset).limit(limit)).map(toRelease);
        return http.paged(req, await toApi(r, rows, req.principal), num(n));
      },
    },
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/releases/latest', operationId: 'repoGetLatestRelease',
      summary: 'Gets the most recent non-prerelease, non-draft release of a repository, sorted by created_at',
      params: OWNER_REPO_PARAMS, responses: { 200: 'Release', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        const row = await db('release').where({ repo_id: r.repo.id, is_draft: false, is_prerelease: false })
          .orderBy([{ column: 'created_unix', order: 'desc' }, { column: 'id', order: 'desc' }]).first();
        if (!row) throw ApiError.notFound('the repository has no published release');
        return ok(await one(r, toRelease(row), req.principal));
      },
    },
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/releases/tags/{tag*}', operationId: 'repoGetReleaseByTag', summary: 'Get a release by tag name',
      params: TAG_PARAMS, responses: { 200: 'Release', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, TagParams>) => {
        const r = repoOf(req);
        const row = await byTag(r, req.params.tag);
        if (!row || (row.is_draft && !(await seesDrafts(req, r)))) throw ApiError.notFound(`release does not exist [tag: ${req.params.tag}]`);
        return ok(await one(r, row, req.principal));
      },
    },
    {
      ...writer, method: 'delete', path: '/repos/{owner}/{repo}/releases/tags/{tag*}', operationId: 'repoDeleteReleaseByTag',
      summary: 'Delete a release by tag name (the tag stays)',
      params: TAG_PARAMS, responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, TagParams>) => {
        const r = repoOf(req);
        const row = await byTag(r, req.params.tag);
        if (!row) throw ApiError.notFound(`release does not exist [tag: ${req.params.tag}]`);
        const json = await releaseJson(r, row);
        await removeReleases([row]);
        await announce(r, json, 'deleted', req.principal!);
        return noContent();
      },
    },
    {
      ...writer, method: 'post', path: '/repos/{owner}/{repo}/releases', operationId: 'repoCreateRelease', summary: 'Create a release',
      params: OWNER_REPO_PARAMS, body: 'CreateReleaseOption', bodyRequired: true,
      responses: { 201: 'Release', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateReleaseBody, unknown, RepoParams>) => {
        const r = repoOf(req);
        const b = req.body;
        assertValidRefName(b.tag_name, 'tag');
        const target = b.target_commitish || r.repo.default_branch;
        if (await byTag(r, b.tag_name)) throw ApiError.conflict(`release already exists for this tag [tag: ${b.tag_name}]`);
        if (!b.draft) await ensureTag(r, b.tag_name, target, req.principal!);
        let id: number;
        try {
          const [inserted] = await db('release').insert({
            repo_id: r.repo.id, publisher_id: req.principal!.user.id, tag_name: b.tag_name, lower_tag_name: b.tag_name.toLowerCase(), target,
            title: b.name ?? '', note: b.body ?? '', is_draft: b.draft ?? false, is_prerelease: b.prerelease ?? false, created_unix: nowUnix(),
          }, ['id']);
          id = num(typeof inserted === 'object' ? (inserted as { id: unknown }).id : inserted);
        } catch (err) {
          if (isUniqueViolation(err)) throw ApiError.conflict(`release already exists for this tag [tag: ${b.tag_name}]`);
          throw err;
        }
        const row = await byId(r, id, true);
        await announce(r, await releaseJson(r, row), 'published', req.principal!);
        return created(await one(r, row, req.principal));
      },
    },
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoGetRelease', summary: 'Get a release',
      params: ID_PARAMS, responses: { 200: 'Release', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const r = repoOf(req);
        return ok(await one(r, await byId(r, req.params.id, await seesDrafts(req, r)), req.principal));
      },
    },
    {
      ...writer, method: 'patch', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoEditRelease', summary: 'Update a release',
      params: ID_PARAMS, body: 'EditReleaseOption', responses: { 200: 'Release', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<EditReleaseBody, unknown, IdParams>) => {
        const r = repoOf(req);
        const rel = await byId(r, req.params.id, true);
        const b = req.body ?? {};
        const patch: Record<string, unknown> = {};
        const tag = b.tag_name || rel.tag_name;
        if (b.tag_name && b.tag_name !== rel.tag_name) {
          assertValidRefName(b.tag_name, 'tag');
          const other = await byTag(r, b.tag_name);
          if (other && other.id !== rel.id) throw ApiError.conflict(`release already exists for this tag [tag: ${b.tag_name}]`);
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
          await ensureTag(r, tag, target || r.repo.default_branch, req.principal!);
          if (rel.is_draft) patch.created_unix = nowUnix(); // published now
        }
        if (Object.keys(patch).length > 0) {
          try {
            await db('release').where('id', rel.id).update(patch);
          } catch (err) {
            if (isUniqueViolation(err)) throw ApiError.conflict(`release already exists for this tag [tag: ${tag}]`);
            throw err;
          }
        }
        const after = await byId(r, rel.id, true);
        if (Object.keys(patch).length > 0) await announce(r, await releaseJson(r, after), rel.is_draft ? 'published' : 'updated', req.principal!);
        return ok(await one(r, after, req.principal));
      },
    },
    {
      ...writer, method: 'delete', path: '/repos/{owner}/{repo}/releases/{id}', operationId: 'repoDeleteRelease', summary: 'Delete a release (the tag stays)',
      params: ID_PARAMS, responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const r = repoOf(req);
        const row = await byId(r, req.params.id, true);
        const json = await releaseJson(r, row);
        await removeReleases([row]);
        await announce(r, json, 'deleted', req.principal!);
        return noContent();
      },
    },
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/releases/{id}/assets', operationId: 'repoListReleaseAttachments', summary: 'List release\'s attachments',
      params: ID_PARAMS, responses: { 200: ATTACHMENT_LIST, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const r = repoOf(req);
        const rel = await byId(r, req.params.id, await seesDrafts(req, r));
        return ok((await attachments.list([rel.id])).map((a) => attachmentToApi(config, a)));
      },
    },
    {
      ...writer, method: 'post', path: '/repos/{owner}/{repo}/releases/{id}/assets', operationId: 'repoCreateReleaseAttachment',
      summary: 'Create a release attachment (multipart/form-data, file field "attachment")',
      params: ID_PARAMS, query: { type: 'object', properties: { name: { type: 'string', maxLength: 255, description: 'name of the attachment' } } },
      responses: { 201: 'Attachment', 400: 'APIError', 404: 'APIError', 413: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, { name?: string }, IdParams>) => {
        const r = repoOf(req);
        const rel = await byId(r, req.params.id, true);
        const row = await attachments.upload(req.raw, { repoId: r.repo.id, releaseId: rel.id, uploaderId: req.principal!.user.id, name: req.query.name });
        return created(attachmentToApi(config, row));
      },
    },
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}', operationId: 'repoGetReleaseAttachment', summary: 'Get a release attachment',
      params: ASSET_PARAMS, responses: { 200: 'Attachment', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, AssetParams>) => ok(attachmentToApi(config, (await asset(req)).row)),
    },
    {
      ...writer, method: 'patch', path: '/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}', operationId: 'repoEditReleaseAttachment', summary: 'Edit a release attachment',
      params: ASSET_PARAMS, body: 'EditAttachmentOptions', responses: { 201: 'Attachment', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ name?: string }, unknown, AssetParams>) => {
        const { row } = await asset(req);
        const next = req.body?.name ? await attachments.rename(row, req.body.name) : row;
        return created(attachmentToApi(config, next)); // Gitea answers 201 here
      },
    },
    {
      ...writer, method: 'delete', path: '/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}', operationId: 'repoDeleteReleaseAttachment', summary: 'Delete a release attachment',
      params: ASSET_PARAMS, responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, AssetParams>) => {
        const { row } = await asset(req);
        await attachments.remove([row]);
        return noContent();
      },
    },
  ];
}

