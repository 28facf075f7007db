import { ApiError, ok, OWNER_REPO_PARAMS, ownerRepoParams, type ApiOperation, type ApiRequest, type JsonSchema } from '@hearth/plugin-api';
import { runGit } from './git';
import { gitRepoOf, listRefs, type GitDataRepo } from './git-data-git';
import { escapeSegments } from './links';
import { batchCheck, resolveRevision } from './revisions';
import { isObjectId } from './names';
import { READ_CODE, type GitRouteDeps } from './route-deps';

type ShaParams = { owner: string; repo: string; sha: string };

function withParam(name: string, schema: JsonSchema): JsonSchema {
  return ownerRepoParams({ [name]: schema });
}

const SHA_PARAMS = withParam('sha', {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'a commit or tree id, or a branch or tag name',
});

/** Gitea's refs listing: every ref whose full name starts with `refs/<filter>`; one exact match is answered as an object. */
async function refsResponse(r: GitDataRepo, filter: string) {
  const prefix = filter ? `refs/${filter}` : '';
  const refs = (await listRefs(r.gitDir, [])).filter((ref) => ref.ref.startsWith(prefix));
  if (refs.length === 0) throw ApiError.notFound(`no ref matches [ref: ${prefix || 'refs/'}]`);
  const items = refs.map((ref) => ({
    ref: ref.ref,
    url: `${r.links.api}/git/${escapeSegments(ref.ref)}`,
    object: { type: ref.type, sha: ref.id, url: `${r.links.api}/git/${ref.type}s/${ref.id}` },
  }));
  return ok(items.length === 1 && items[0].ref === prefix ? items[0] : items);
}

interface TreeEntry {
  path: string;
  mode: string;
  type: string;
  size: number;
  sha: string;
  url: string;
}

/** Refs, trees and blobs. */
export function objectOperations(deps: GitRouteDeps): ApiOperation[] {
  const { config } = deps;
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/git/refs',
      operationId: 'repoListAllGitRefs',
      tag: 'repository',
      summary: "Get specified ref or filtered repository's refs",
      scopes: ['repository'],
      access: READ_CODE,
      params: OWNER_REPO_PARAMS,
      responses: { 200: { description: 'ReferenceList', schema: { type: 'array', items: { $ref: 'Reference' } } }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ShaParams>) => refsResponse(gitRepoOf(deps, req), ''),
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/git/refs/{ref*}',
      operationId: 'repoListGitRefs',
      tag: 'repository',
      summary: "Get specified ref or filtered repository's refs",
      scopes: ['repository'],
      access: READ_CODE,
      params: withParam('ref', { type: 'string', minLength: 1, maxLength: 1024, description: 'part or full name of the ref' }),
      responses: {
        200: { description: 'Reference, or a ReferenceList when the name is a prefix of several', schema: 'Reference' },
        404: 'APIError',
      },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string; ref: string }>) =>
        // The filter is compared in JavaScript only; it never reaches git.
        refsResponse(gitRepoOf(deps, req), req.params.ref),
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/git/trees/{sha}',
      operationId: 'GetTree',
      tag: 'repository',
      summary: 'Gets the tree of a repository.',
      scopes: ['repository'],
      access: READ_CODE,
      params: SHA_PARAMS,
      query: {
        type: 'object',
        properties: {
          recursive: { type: 'boolean', description: 'show all directories and files' },
          page: {
            type: 'integer',
            description:
              "page number; the 'truncated' field in the response will be true if there are still more " +
              'items after this page, false if the last page',
          },
          per_page: {
            type: 'integer',
            description:
              `number of items per page (at most api.DEFAULT_GIT_TREES_PER_PAGE, default ` + `${config.api.DEFAULT_GIT_TREES_PER_PAGE})`,
          },
        },
      },
      responses: { 200: 'GitTreeResponse', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, { recursive?: boolean; page?: number; per_page?: number }, ShaParams>) => {
        const r = gitRepoOf(deps, req);
        const tree = await resolveRevision(r.gitDir, req.params.sha, 'tree', 'sha');
        const { stdout } = await runGit(['ls-tree', '-l', '-z', ...(req.query.recursive ? ['-r', '-t'] : []), tree], { gitDir: r.gitDir });
        const entries: TreeEntry[] = [];
        for (const line of stdout.toString('utf8').split('\0')) {
          const tab = line.indexOf('\t');
          if (tab < 0) continue;
          const [mode, type, sha, size] = line.slice(0, tab).split(/ +/);
          const url = type === 'tree' ? `${r.links.api}/git/trees/${sha}` : type === 'blob' ? `${r.links.api}/git/blobs/${sha}` : '';
          entries.push({ path: line.slice(tab + 1), mode, type, size: size === '-' ? 0 : Number(size), sha, url });
        }
        const max = config.api.DEFAULT_GIT_TREES_PER_PAGE;
        const perPage = req.query.per_page && req.query.per_page > 0 && req.query.per_page <= max ? req.query.per_page : max;
        const page = req.query.page && req.query.page > 0 ? req.query.page : 1;
        const start = perPage * (page - 1);
        return ok({
          sha: tree,
          url: `${r.links.api}/git/trees/${tree}`,
          tree: entries.slice(start, start + perPage),
          // As Gitea: true whenever the tree does not fit on one page.
          truncated: entries.length > perPage,
          page,
          total_count: entries.length,
        });
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/git/blobs/{sha}',
      operationId: 'GetBlob',
      tag: 'repository',
      summary: 'Gets the blob of a repository.',
      scopes: ['repository'],
      access: READ_CODE,
      params: withParam('sha', { type: 'string', minLength: 1, maxLength: 64, description: 'id of the blob' }),
      responses: { 200: 'GitBlobResponse', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ShaParams>) => {
        const r = gitRepoOf(deps, req);
        const sha = req.params.sha;
        if (!isObjectId(sha)) throw ApiError.unprocessable(`sha must be a blob id [sha: ${sha}]`);
        const [info] = await batchCheck(r.gitDir, [sha]);
        if (!info || info.type !== 'blob') throw ApiError.notFound(`blob does not exist [sha: ${sha}]`);
        // Larger blobs come without content, as in Gitea; the raw file API serves them.
        const content =
          info.size <= config.api.DEFAULT_MAX_BLOB_SIZE
            ? (await runGit(['cat-file', 'blob', info.id], { gitDir: r.gitDir })).stdout.toString('base64')
            : '';
        return ok({ content, encoding: 'base64', url: `${r.links.api}/git/blobs/${info.id}`, sha: info.id, size: info.size });
      },
    },
  ];
}
