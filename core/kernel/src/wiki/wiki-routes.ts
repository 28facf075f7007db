import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type Principal } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { emitEvent } from '../events/emit';
import type { ResolvedRepo } from '../repos/repo-service';
import { repoOf } from '../access/operation-access';
import { userIdentity } from '../repos/links';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import { decodeBase64 } from '../repos/contents-files';
import { FOOTER, SIDEBAR, fileOf, subUrlOf, titleFromParam, validTitle } from './wiki-names';
import {
  blobContent, commitChange, commitInfos, fileHistory, lastCommitsIn, pageBlob, pageEntries, requireWikiCommit, wikiDirOf,
  type Person, type WikiCommitInfo,
} from './wiki-store';

type RepoParams = { owner: string; repo: string };
type PageParams = RepoParams & { pageName: string };
interface WikiOptions {
  title?: string;
  content_base64?: string;
  message?: string;
}

const PAGE_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    ...(OWNER_REPO_PARAMS.properties as Record<string, JsonSchema>),
    pageName: { type: 'string', maxLength: 1024, description: 'name of the page (its sub_url)' },
  },
  required: ['owner', 'repo', 'pageName'],
};

/**
 * The wiki API (Gitea 1.20, section category: repository): pages of the repository's wiki git
 * repository (`<name>.wiki.git`), listed, read, created, edited (and renamed through `title`),
 * deleted, and their revisions. Everything needs the wiki unit: reading it to read, writing it to
 * change. How titles map to files: wiki-names.ts.
 */
export function wikiOperations({ users, config, http, hooks }: KernelServices): ApiOperation[] {
  const reader = { access: { repo: { need: 'read', unit: 'wiki' } } } as const;
  const writer = { auth: 'required', access: { repo: { need: 'write', unit: 'wiki' } } } as const;

  const htmlBase = (resolved: ResolvedRepo) => `${config.server.ROOT_URL}${resolved.owner.name}/${resolved.repo.name}/wiki/`;

  /** The acting user as git author: full name (else login), and the no-reply address when they keep their email private. */
  const authorOf = async (principal: Principal): Promise<Person> =>
    userIdentity(principal.user, await users.rowOf(principal), config.service.NO_REPLY_ADDRESS);

  const wikiCommit = (c: WikiCommitInfo | undefined) =>
    c ? { sha: c.sha, author: c.author, commiter: c.committer, committer: c.committer, message: c.message } : null;

  const metaData = (resolved: ResolvedRepo, title: string, last: WikiCommitInfo | undefined) => {
    const subUrl = subUrlOf(title);
    return { title, html_url: htmlBase(resolved) + subUrl, sub_url: subUrl, last_commit: wikiCommit(last) };
  };

  /** Gitea's WikiPage of the page `title` at the wiki's current commit; 404 when it does not exist. */
  const wikiPage = async (resolved: ResolvedRepo, title: string) => {
    const wikiDir = wikiDirOf(resolved.gitDir);
    const commit = await requireWikiCommit(wikiDir);
    const file = fileOf(title);
    const [entry, sidebar, footer] = await Promise.all([pageBlob(wikiDir, commit, file), pageBlob(wikiDir, commit, fileOf(SIDEBAR)), pageBlob(wikiDir, commit, fileOf(FOOTER))]);
    if (!entry) throw ApiError.notFound(`wiki page does not exist [title: ${title}]`);
    const history = await fileHistory(wikiDir, commit, file, 0, 1);
    const infos = await commitInfos(wikiDir, history.shas);
    const base64 = async (e: typeof sidebar) => (e ? (await blobContent(wikiDir, e.sha)).toString('base64') : '');
    return {
      ...metaData(resolved, title, infos.get(history.shas[0])),
      content_base64: await base64(entry),
      commit_count: history.count,
      sidebar: await base64(sidebar),
      footer: await base64(footer),
    };
  };

  /** Webhooks hear of wiki changes (Gitea's WikiPayload: the page name and the commit message). */
  const announce = (resolved: ResolvedRepo, action: string, page: string, comment: string, actor: Principal) =>
    emitEvent(hooks, { event: 'wiki', action, actor: actor.user, ownerId: resolved.owner.id, repositoryId: resolved.repo.id, payload: { action, page, comment } });

  return [
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/wiki/pages', operationId: 'repoGetWikiPages', tag: 'repository',
      summary: 'Get all wiki pages', scopes: ['repository'], params: OWNER_REPO_PARAMS, paged: true,
      responses: { 200: { description: 'WikiPageList', schema: { type: 'array', items: { $ref: 'WikiPageMetaData' } } }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const resolved = repoOf(req);
        const wikiDir = wikiDirOf(resolved.gitDir);
        const commit = await requireWikiCommit(wikiDir);
        const pages = await pageEntries(wikiDir, commit);
        const slice = pages.slice(req.paging.offset, req.paging.offset + req.paging.limit);
        const last = await lastCommitsIn(wikiDir, commit, '', slice.map((p) => p.name));
        const infos = await commitInfos(wikiDir, [...last.values()].filter(Boolean));
        return http.paged(req, slice.map((p) => metaData(resolved, p.title, infos.get(last.get(p.name) ?? ''))), pages.length);
      },
    },
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/wiki/page/{pageName}', operationId: 'repoGetWikiPage', tag: 'repository',
      summary: 'Get a wiki page', scopes: ['repository'], params: PAGE_PARAMS,
      responses: { 200: 'WikiPage', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, PageParams>) => {
        const resolved = repoOf(req);
        return ok(await wikiPage(resolved, titleFromParam(req.params.pageName)));
      },
    },
    {
      ...reader, method: 'get', path: '/repos/{owner}/{repo}/wiki/revisions/{pageName}', operationId: 'repoGetWikiPageRevisions', tag: 'repository',
      summary: 'Get revisions of a wiki page', scopes: ['repository'], params: PAGE_PARAMS, paged: true,
      responses: { 200: 'WikiCommitList', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, PageParams>) => {
        const resolved = repoOf(req);
        const title = titleFromParam(req.params.pageName);
        const wikiDir = wikiDirOf(resolved.gitDir);
        const commit = await requireWikiCommit(wikiDir);
        const file = fileOf(title);
        if (!(await pageBlob(wikiDir, commit, file))) throw ApiError.notFound(`wiki page does not exist [title: ${title}]`);
        const { shas, count } = await fileHistory(wikiDir, commit, file, req.paging.offset, req.paging.limit);
        const infos = await commitInfos(wikiDir, shas);
        const res = ok({ commits: shas.map((s) => wikiCommit(infos.get(s))), count });
        res.headers = { 'X-Total-Count': String(count), 'Access-Control-Expose-Headers': 'X-Total-Count' };
        return res;
      },
    },
    {
      ...writer, method: 'post', path: '/repos/{owner}/{repo}/wiki/new', operationId: 'repoCreateWikiPage', tag: 'repository',
      summary: 'Create a wiki page', scopes: ['repository'], params: OWNER_REPO_PARAMS,
      body: 'CreateWikiPageOptions', bodyRequired: true,
      responses: { 201: 'WikiPage', 400: 'APIError', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<WikiOptions, unknown, RepoParams>) => {
        const resolved = repoOf(req);
        const title = validTitle(req.body.title);
        const content = decodeBase64(req.body.content_base64 ?? '', fileOf(title));
        const file = fileOf(title);
        const message = req.body.message?.trim() || `Add '${title}'`;
        await commitChange(wikiDirOf(resolved.gitDir), config.repository.DEFAULT_BRANCH, {
          message,
          author: await authorOf(req.principal!),
          plan: async (files) => {
            if (files.has(file)) throw ApiError.badRequest(`wiki page already exists [title: ${title}]`);
            return { remove: [], write: [{ file, content }] };
          },
        });
        await announce(resolved, 'created', title, message, req.principal!);
        return created(await wikiPage(resolved, title));
      },
    },
    {
      ...writer, method: 'patch', path: '/repos/{owner}/{repo}/wiki/page/{pageName}', operationId: 'repoEditWikiPage', tag: 'repository',
      summary: 'Edit a wiki page', scopes: ['repository'], params: PAGE_PARAMS,
      body: 'CreateWikiPageOptions', bodyRequired: true,
      responses: { 200: 'WikiPage', 400: 'APIError', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<WikiOptions, unknown, PageParams>) => {
        const resolved = repoOf(req);
        const oldTitle = titleFromParam(req.params.pageName);
        // An empty or absent title keeps the name; a new one renames the page (in the same commit).
        const newTitle = req.body.title?.trim() ? validTitle(req.body.title) : oldTitle;
        const oldFile = fileOf(oldTitle);
        const newFile = fileOf(newTitle);
        const wikiDir = wikiDirOf(resolved.gitDir);
        await requireWikiCommit(wikiDir);
        const given = req.body.content_base64 === undefined ? null : decodeBase64(req.body.content_base64, newFile);
        const message = req.body.message?.trim() || `Update '${newTitle}'`;
        await commitChange(wikiDir, config.repository.DEFAULT_BRANCH, {
          message,
          author: await authorOf(req.principal!),
          plan: async (files) => {
            const old = files.get(oldFile);
            if (!old || old.type !== 'blob') throw ApiError.notFound(`wiki page does not exist [title: ${oldTitle}]`);
            if (newFile !== oldFile && files.has(newFile)) throw ApiError.badRequest(`wiki page already exists [title: ${newTitle}]`);
            // Without content_base64 the page keeps its text (a pure rename).
            const content = given ?? (await blobContent(wikiDir, old.sha));
            return { remove: newFile === oldFile ? [] : [oldFile], write: [{ file: newFile, content }] };
          },
        });
        await announce(resolved, 'edited', newTitle, message, req.principal!);
        return ok(await wikiPage(resolved, newTitle));
      },
    },
    {
      ...writer, method: 'delete', path: '/repos/{owner}/{repo}/wiki/page/{pageName}', operationId: 'repoDeleteWikiPage', tag: 'repository',
      summary: 'Delete a wiki page', scopes: ['repository'], params: PAGE_PARAMS,
      responses: { 204: 'no content', 403: 'APIError', 404: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, PageParams>) => {
        const resolved = repoOf(req);
        const title = titleFromParam(req.params.pageName);
        const file = fileOf(title);
        const wikiDir = wikiDirOf(resolved.gitDir);
        await requireWikiCommit(wikiDir);
        await commitChange(wikiDir, config.repository.DEFAULT_BRANCH, {
          message: `Delete '${title}'`,
          author: await authorOf(req.principal!),
          plan: async (files) => {
            if (!files.has(file)) throw ApiError.notFound(`wiki page does not exist [title: ${title}]`);
            return { remove: [file], write: [] };
          },
        });
        await announce(resolved, 'deleted', title, `Delete '${title}'`, req.principal!);
        return noContent();
      },
    },
  ];
}
