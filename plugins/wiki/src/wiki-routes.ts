import {
  ApiError,
  created,
  decodeBase64,
  noContent,
  ok,
  ownerRepoParams,
  OWNER_REPO_PARAMS,
  type ApiOperation,
  type ApiRequest,
  type PluginContext,
  type RepositoryTarget,
} from '@hearth/plugin-api';
import { fileOf, validTitle } from './wiki-names';
import { wikiDirOf } from './wiki-store';
import type { WikiPages } from './wiki-pages';

type RepoParams = { owner: string; repo: string };
type PageParams = RepoParams & { pageName: string };
interface WikiOptions {
  title?: string;
  content_base64?: string;
  message?: string;
}

const PAGE_PARAMS = ownerRepoParams({ pageName: { type: 'string', maxLength: 1024, description: 'name of the page (its sub_url)' } });

/**
 * The wiki API (Gitea 1.20, section category: repository): pages of the repository's wiki git
 * repository (`<name>.wiki.git`), listed, read, created, edited (and renamed through `title`),
 * deleted, and their revisions. Everything needs the wiki unit: reading it to read, writing it to
 * change. How titles map to files: wiki-names.ts.
 */
export function wikiOperations(ctx: PluginContext, wiki: WikiPages): ApiOperation[] {
  return [...readOperations(ctx, wiki), ...writeOperations(wiki)];
}

const reader = { access: { repo: { need: 'read', unit: 'wiki' } } } as const;
const writer = { auth: 'required', access: { repo: { need: 'write', unit: 'wiki' } } } as const;
const repoOf = (req: ApiRequest<any, any, any>): RepositoryTarget => req.target.repository!;

/** Listing, reading and the revisions of a page. */
function readOperations(ctx: PluginContext, wiki: WikiPages): ApiOperation[] {
  const { store } = wiki;
  return [
    {
      ...reader,
      method: 'get',
      path: '/repos/{owner}/{repo}/wiki/pages',
      operationId: 'repoGetWikiPages',
      tag: 'repository',
      summary: 'Get all wiki pages',
      scopes: ['repository'],
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: { description: 'WikiPageList', schema: { type: 'array', items: { $ref: 'WikiPageMetaData' } } }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const resolved = repoOf(req);
        const wikiDir = wikiDirOf(resolved.gitDir);
        const commit = await store.requireCommit(wikiDir);
        const pages = await store.pageEntries(wikiDir, commit);
        const slice = pages.slice(req.paging.offset, req.paging.offset + req.paging.limit);
        const last = await store.lastCommitsIn(
          wikiDir,
          commit,
          slice.map((p) => p.name),
        );
        const infos = await store.commitInfos(wikiDir, [...last.values()].filter(Boolean));
        return ctx.http.paged(
          req,
          slice.map((p) => wiki.metaData(resolved, p.title, infos.get(last.get(p.name) ?? ''))),
          pages.length,
        );
      },
    },
    {
      ...reader,
      method: 'get',
      path: '/repos/{owner}/{repo}/wiki/page/{pageName}',
      operationId: 'repoGetWikiPage',
      tag: 'repository',
      summary: 'Get a wiki page',
      scopes: ['repository'],
      params: PAGE_PARAMS,
      responses: { 200: 'WikiPage', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, PageParams>) => {
        const resolved = repoOf(req);
        const { title, file } = await wiki.locate(resolved, req.params.pageName);
        return ok(await wiki.page(resolved, title, file));
      },
    },
    {
      ...reader,
      method: 'get',
      path: '/repos/{owner}/{repo}/wiki/revisions/{pageName}',
      operationId: 'repoGetWikiPageRevisions',
      tag: 'repository',
      summary: 'Get revisions of a wiki page',
      scopes: ['repository'],
      params: PAGE_PARAMS,
      paged: true,
      responses: { 200: 'WikiCommitList', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, PageParams>) => {
        const resolved = repoOf(req);
        const { file } = await wiki.locate(resolved, req.params.pageName);
        const wikiDir = wikiDirOf(resolved.gitDir);
        const commit = await store.requireCommit(wikiDir);
        const { shas, count } = await store.fileHistory(wikiDir, commit, file, req.paging.offset, req.paging.limit);
        const infos = await store.commitInfos(wikiDir, shas);
        const res = ok({ commits: shas.map((s) => wiki.commitJson(infos.get(s))), count });
        res.headers = { 'X-Total-Count': String(count), 'Access-Control-Expose-Headers': 'X-Total-Count' };
        return res;
      },
    },
  ];
}

/** Creating, editing (and renaming) and deleting pages: one commit each, by the caller. */
function writeOperations(wiki: WikiPages): ApiOperation[] {
  const { store } = wiki;
  return [
    {
      ...writer,
      method: 'post',
      path: '/repos/{owner}/{repo}/wiki/new',
      operationId: 'repoCreateWikiPage',
      tag: 'repository',
      summary: 'Create a wiki page',
      scopes: ['repository'],
      params: OWNER_REPO_PARAMS,
      body: 'CreateWikiPageOptions',
      bodyRequired: true,
      responses: { 201: 'WikiPage', 400: 'APIError', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<WikiOptions, unknown, RepoParams>) => {
        const resolved = repoOf(req);
        const title = validTitle(req.body.title);
        const content = decodeBase64(req.body.content_base64 ?? '', fileOf(title));
        const file = fileOf(title);
        const message = req.body.message?.trim() || `Add '${title}'`;
        await store.commitChange(wikiDirOf(resolved.gitDir), wiki.defaultBranch(), {
          message,
          author: await wiki.authorOf(req.principal!),
          plan: async (files) => {
            if (files.has(file)) throw ApiError.badRequest(`wiki page already exists [title: ${title}]`);
            return { remove: [], write: [{ file, content }] };
          },
        });
        await wiki.announce(resolved, 'created', title, message, req.principal!);
        return created(await wiki.page(resolved, title));
      },
    },
    {
      ...writer,
      method: 'patch',
      path: '/repos/{owner}/{repo}/wiki/page/{pageName}',
      operationId: 'repoEditWikiPage',
      tag: 'repository',
      summary: 'Edit a wiki page',
      scopes: ['repository'],
      params: PAGE_PARAMS,
      body: 'CreateWikiPageOptions',
      bodyRequired: true,
      responses: { 200: 'WikiPage', 400: 'APIError', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<WikiOptions, unknown, PageParams>) => {
        const resolved = repoOf(req);
        const { title: oldTitle, file: oldFile } = await wiki.locate(resolved, req.params.pageName);
        // An empty or absent title keeps the name (and the file); a new one renames the page (in the same commit).
        const newTitle = req.body.title?.trim() ? validTitle(req.body.title) : oldTitle;
        const newFile = newTitle === oldTitle ? oldFile : fileOf(newTitle);
        const wikiDir = wikiDirOf(resolved.gitDir);
        const given = req.body.content_base64 === undefined ? null : decodeBase64(req.body.content_base64, newFile);
        const message = req.body.message?.trim() || `Update '${newTitle}'`;
        await store.commitChange(wikiDir, wiki.defaultBranch(), {
          message,
          author: await wiki.authorOf(req.principal!),
          plan: async (files) => {
            const old = files.get(oldFile);
            if (!old || old.type !== 'blob') throw ApiError.notFound(`wiki page does not exist [title: ${oldTitle}]`);
            if (newFile !== oldFile && files.has(newFile)) throw ApiError.badRequest(`wiki page already exists [title: ${newTitle}]`);
            // Without content_base64 the page keeps its text (a pure rename).
            const content = given ?? (await store.blobContent(wikiDir, old.sha));
            return { remove: newFile === oldFile ? [] : [oldFile], write: [{ file: newFile, content }] };
          },
        });
        await wiki.announce(resolved, 'edited', newTitle, message, req.principal!);
        return ok(await wiki.page(resolved, newTitle, newFile));
      },
    },
    {
      ...writer,
      method: 'delete',
      path: '/repos/{owner}/{repo}/wiki/page/{pageName}',
      operationId: 'repoDeleteWikiPage',
      tag: 'repository',
      summary: 'Delete a wiki page',
      scopes: ['repository'],
      params: PAGE_PARAMS,
      responses: { 204: 'no content', 403: 'APIError', 404: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, PageParams>) => {
        const resolved = repoOf(req);
        const { title, file } = await wiki.locate(resolved, req.params.pageName);
        const wikiDir = wikiDirOf(resolved.gitDir);
        await store.commitChange(wikiDir, wiki.defaultBranch(), {
          message: `Delete '${title}'`,
          author: await wiki.authorOf(req.principal!),
          plan: async (files) => {
            if (!files.has(file)) throw ApiError.notFound(`wiki page does not exist [title: ${title}]`);
            return { remove: [file], write: [] };
          },
        });
        await wiki.announce(resolved, 'deleted', title, `Delete '${title}'`, req.principal!);
        return noContent();
      },
    },
  ];
}
