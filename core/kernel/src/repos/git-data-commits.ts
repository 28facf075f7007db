import {
  ApiError,
  ok,
  OWNER_REPO_PARAMS,
  ownerRepoParams,
  raw,
  type ApiOperation,
  type ApiRequest,
  type ApiResponse,
  type JsonSchema,
} from '@hearth/plugin-api';
import { gitText, runGit } from './git';
import { COMMIT_OPTION_QUERY, commitOptionsOf, logCommits, toApiCommits } from './commit-json';
import { gitRepoOf, readRef } from './git-data-git';
import { batchCheck, resolveCommit } from './revisions';
import { assertValidTreePath } from './names';
import { READ_CODE, type GitRouteDeps } from './route-deps';

type ShaParams = { owner: string; repo: string; sha: string };

interface CommitQuery {
  stat?: boolean;
  files?: boolean;
  verification?: boolean;
}

interface ListQuery extends CommitQuery {
  sha?: string;
  path?: string;
  not?: string;
}

function withParam(name: string, schema: JsonSchema): JsonSchema {
  return ownerRepoParams({ [name]: schema });
}

const NOTES_REF = 'refs/notes/commits';

/** Where git notes may keep the note of `sha`: flat, or fanned out in 2-digit directories. */
function notePaths(sha: string): string[] {
  const paths: string[] = [];
  for (let depth = 0; depth * 2 < sha.length - 2; depth++) {
    const dirs = Array.from({ length: depth }, (_v, i) => sha.slice(i * 2, i * 2 + 2));
    paths.push([...dirs, sha.slice(depth * 2)].join('/'));
  }
  return paths;
}

/** Commit listings, single commits, comparisons and notes. */
export function commitOperations(deps: GitRouteDeps): ApiOperation[] {
  return [...commitReadOperations(deps), ...noteOperations(deps)];
}

/** Gitea's older paging headers, kept for clients that read them. */
function legacyPagingHeaders(page: number, limit: number, total: number): Record<string, string> {
  const pageCount = Math.ceil(total / limit);
  return {
    'X-Page': String(page),
    'X-PerPage': String(limit),
    'X-Total': String(total),
    'X-PageCount': String(pageCount),
    'X-HasMore': String(page < pageCount),
    'Access-Control-Expose-Headers': 'X-Total-Count, Link, X-Page, X-PerPage, X-Total, X-PageCount, X-HasMore',
  };
}

/**
 * `GET …/git/commits/{sha}.{diffType}` (repoDownloadCommitDiffOrPatch): the commit as `git diff`
 * against its first parent (`git show` for a root commit) or as `git format-patch`, text/plain, as
 * Gitea's GetRawDiff writes them. The path also matches a ref with a dot (`v1.0` reads as sha `v1`,
 * type `0`): as Gitea, whose route only takes `diff|patch`, anything else is the single commit.
 */
function commitDiffOperation(
  deps: GitRouteDeps,
  singleCommit: (req: ApiRequest<unknown, CommitQuery, ShaParams>) => Promise<ApiResponse>,
): ApiOperation {
  return {
    method: 'get',
    path: '/repos/{owner}/{repo}/git/commits/{sha}.{diffType}',
    operationId: 'repoDownloadCommitDiffOrPatch',
    tag: 'repository',
    summary: "Get a commit's diff or patch",
    scopes: ['repository'],
    access: READ_CODE,
    params: ownerRepoParams({
      sha: { type: 'string', minLength: 1, maxLength: 255, description: 'SHA of the commit to get' },
      diffType: { type: 'string', minLength: 1, maxLength: 255, description: 'whether the output is diff or patch (diff, patch)' },
    }),
    query: { type: 'object', properties: { ...COMMIT_OPTION_QUERY } },
    responses: { 200: { description: 'APIString', schema: { type: 'string' } }, 404: 'APIError' },
    handler: async (req: ApiRequest<unknown, CommitQuery, ShaParams & { diffType: string }>) => {
      const { diffType } = req.params;
      if (diffType !== 'diff' && diffType !== 'patch') {
        return singleCommit({ ...req, params: { ...req.params, sha: `${req.params.sha}.${diffType}` } });
      }
      const r = gitRepoOf(deps, req);
      const sha = await resolveCommit(r.gitDir, req.params.sha, 'sha');
      const [, parent] = (await gitText(['rev-list', '--parents', '-n', '1', '--end-of-options', sha], { gitDir: r.gitDir })).split(' ');
      const args =
        diffType === 'diff'
          ? parent
            ? ['diff', '-M', '--end-of-options', parent, sha]
            : ['show', '--end-of-options', sha]
          : [
              'format-patch',
              '--no-signature',
              '--stdout',
              ...(parent ? ['--end-of-options', `${sha}...${parent}`] : ['--root', '--end-of-options', sha]),
            ];
      return raw(200, 'text/plain; charset=utf-8', (await runGit(args, { gitDir: r.gitDir })).stdout);
    },
  };
}

/** Listing commits, reading one, and comparing two. */
function commitReadOperations(deps: GitRouteDeps): ApiOperation[] {
  const singleCommit = async (req: ApiRequest<unknown, CommitQuery, ShaParams>) => {
    const r = gitRepoOf(deps, req);
    const sha = await resolveCommit(r.gitDir, req.params.sha, 'sha');
    const commits = await logCommits(r.gitDir, ['--no-walk', '--end-of-options', sha]);
    const [commit] = await toApiCommits(deps, r.gitDir, r.links, req.principal, commits, commitOptionsOf(req.query));
    return ok(commit);
  };
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/commits',
      operationId: 'repoGetAllCommits',
      tag: 'repository',
      summary: 'Get a list of all commits from a repository',
      scopes: ['repository'],
      access: READ_CODE,
      params: OWNER_REPO_PARAMS,
      paged: true,
      query: {
        type: 'object',
        properties: {
          sha: { type: 'string', maxLength: 255, description: "SHA or branch to start listing commits from (usually 'master')" },
          path: { type: 'string', maxLength: 4096, description: 'filepath of a file/dir' },
          ...COMMIT_OPTION_QUERY,
          not: { type: 'string', maxLength: 255, description: 'commits that match the given specifier will not be listed.' },
        },
      },
      responses: {
        200: { description: 'CommitList', schema: { type: 'array', items: { $ref: 'Commit' } } },
        404: 'APIError',
        409: 'APIError',
      },
      handler: async (req: ApiRequest<unknown, ListQuery, ShaParams>) => {
        const r = gitRepoOf(deps, req);
        if (r.resolved.repo.is_empty) throw new ApiError(409, 'Git Repository is empty.');
        const q = req.query;
        const path = q.path ? assertValidTreePath(q.path) : undefined;
        let head: string;
        if (q.sha) head = await resolveCommit(r.gitDir, q.sha, 'sha');
        else {
          const branch = r.resolved.repo.default_branch;
          const ref = await readRef(r.gitDir, `refs/heads/${branch}`);
          if (!ref) throw ApiError.notFound(`the default branch does not exist [branch: ${branch}]`);
          head = ref.id;
        }
        const not = q.not ? await resolveCommit(r.gitDir, q.not, 'not') : undefined;
        // Both ends are resolved ids by now; the path is validated and read literally (no pathspec magic).
        const range = ['--end-of-options', head, ...(not ? [`^${not}`] : []), ...(path ? ['--', path] : [])];
        const env = path ? { GIT_LITERAL_PATHSPECS: '1' } : undefined;
        const { offset, limit, page } = req.paging;
        const [count, commits] = await Promise.all([
          // Bitmaps count a long history in milliseconds (git ignores them with a path filter).
          gitText(['rev-list', '--count', ...(path ? [] : ['--use-bitmap-index']), ...range], { gitDir: r.gitDir, env }),
          logCommits(r.gitDir, [`--skip=${offset}`, `--max-count=${limit}`, ...range], { env }),
        ]);
        const total = Number(count);
        if (path && total === 0) throw ApiError.notFound(`no commit touches the path [path: ${path}]`);
        const items = await toApiCommits(deps, r.gitDir, r.links, req.principal, commits, commitOptionsOf(q));
        const response = deps.http.paged(req, items, total);
        response.headers = { ...response.headers, ...legacyPagingHeaders(page, limit, total) };
        return response;
      },
    },
    commitDiffOperation(deps, singleCommit),
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/git/commits/{sha}',
      operationId: 'repoGetSingleCommit',
      tag: 'repository',
      summary: 'Get a single commit from a repository',
      scopes: ['repository'],
      access: READ_CODE,
      params: withParam('sha', { type: 'string', minLength: 1, maxLength: 255, description: 'a git ref or commit sha' }),
      query: { type: 'object', properties: { ...COMMIT_OPTION_QUERY } },
      responses: { 200: 'Commit', 404: 'APIError', 422: 'APIError' },
      handler: singleCommit,
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/compare/{basehead*}',
      operationId: 'repoCompareDiff',
      tag: 'repository',
      summary: 'Get commit comparison information',
      scopes: ['repository'],
      access: READ_CODE,
      params: withParam('basehead', {
        type: 'string',
        minLength: 1,
        maxLength: 520,
        description: 'compare two branches, tags or commits: base...head (or base..head)',
      }),
      query: { type: 'object', properties: { verification: COMMIT_OPTION_QUERY.verification, files: COMMIT_OPTION_QUERY.files } },
      responses: { 200: 'Compare', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, CommitQuery, { owner: string; repo: string; basehead: string }>) => {
        const r = gitRepoOf(deps, req);
        const spec = req.params.basehead;
        // As Gitea: base...head, else base..head, else the default branch against the whole name.
        const sep = spec.includes('...') ? '...' : spec.includes('..') ? '..' : null;
        const [base, head] = sep
          ? [spec.slice(0, spec.indexOf(sep)), spec.slice(spec.indexOf(sep) + sep.length)]
          : [r.resolved.repo.default_branch, spec];
        if (!base || !head) throw ApiError.unprocessable(`compare needs base...head [basehead: ${spec}]`);
        const [baseId, headId] = await Promise.all([resolveCommit(r.gitDir, base, 'base'), resolveCommit(r.gitDir, head, 'head')]);
        // The commits of head that base lacks (those after their merge base).
        const commits = await logCommits(r.gitDir, ['--end-of-options', headId, `^${baseId}`]);
        const options = { ...commitOptionsOf(req.query), stat: true };
        return ok({ total_commits: commits.length, commits: await toApiCommits(deps, r.gitDir, r.links, req.principal, commits, options) });
      },
    },
  ];
}

/** Git notes (refs/notes/commits) of a commit. */
function noteOperations(deps: GitRouteDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/git/notes/{sha}',
      operationId: 'repoGetNote',
      tag: 'repository',
      summary: 'Get a note corresponding to a single commit from a repository',
      scopes: ['repository'],
      access: READ_CODE,
      params: withParam('sha', { type: 'string', minLength: 1, maxLength: 255, description: 'a git ref or commit sha' }),
      query: { type: 'object', properties: { verification: COMMIT_OPTION_QUERY.verification, files: COMMIT_OPTION_QUERY.files } },
      responses: { 200: 'Note', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, CommitQuery, ShaParams>) => {
        const r = gitRepoOf(deps, req);
        const sha = await resolveCommit(r.gitDir, req.params.sha, 'sha');
        const noNote = `note does not exist [sha: ${req.params.sha}]`;
        const notes = await readRef(r.gitDir, NOTES_REF);
        if (!notes) throw ApiError.notFound(noNote);
        const paths = notePaths(sha);
        const found = await batchCheck(
          r.gitDir,
          paths.map((p) => `${notes.id}:${p}`),
        );
        const at = found.findIndex((f) => f?.type === 'blob');
        if (at < 0) throw ApiError.notFound(noNote);
        // As Gitea, the note comes with the notes commit that last wrote it (who noted what, when).
        const [blob, commits] = await Promise.all([
          runGit(['cat-file', 'blob', found[at]!.id], { gitDir: r.gitDir }),
          logCommits(r.gitDir, ['--max-count=1', '--end-of-options', notes.id, '--', paths[at]]),
        ]);
        if (commits.length === 0) throw ApiError.notFound(noNote);
        const [commit] = await toApiCommits(deps, r.gitDir, r.links, req.principal, commits, { ...commitOptionsOf(req.query), stat: true });
        return ok({ message: blob.stdout.toString('utf8'), commit });
      },
    },
  ];
}
