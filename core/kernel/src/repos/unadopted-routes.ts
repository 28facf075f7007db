import fs from 'node:fs';
import path from 'node:path';
import { ApiError, noContent, type ApiOperation, type ApiRequest, type HttpHelpers } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import { assertValidRepoName } from './names';
import type { RepoService } from './repo-service';

interface UnadoptedDeps {
  repos: RepoService;
  users: UserService;
  http: HttpHelpers;
}

type OwnerRepo = { owner: string; repo: string };

/** Whether a directory name is one a repository could have: `<name>.git`, lower-case, a valid name, not a wiki. */
function repoNameOf(entry: string): string | null {
  if (!entry.endsWith('.git') || entry.endsWith('.wiki.git')) return null;
  const name = entry.slice(0, -4);
  if (name !== name.toLowerCase()) return null;
  try {
    assertValidRepoName(name);
  } catch {
    return null;
  }
  return name;
}

/** Gitea's pattern: a glob (`*`, `?`) on "owner/repo"; without a wildcard, a substring. */
function patternMatcher(pattern: string | undefined): (fullName: string) => boolean {
  if (!pattern) return () => true;
  const glob = /[*?]/.test(pattern) ? pattern : `*${pattern}*`;
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  const re = new RegExp(`^${source}$`, 'i');
  return (fullName) => re.test(fullName);
}

/**
 * Repositories on disk without a record (Gitea's "unadopted" repositories): listed, adopted (a
 * record created for the files, with their branches) or deleted (the directory removed). Names
 * pass the user and repository name rules before any path is built, so nothing outside the
 * repository root can be reached.
 */
export function unadoptedOperations({ repos, users, http }: UnadoptedDeps): ApiOperation[] {
  const list = async (): Promise<string[]> => {
    const out: string[] = [];
    const owners = fs.existsSync(repos.root) ? fs.readdirSync(repos.root, { withFileTypes: true }) : [];
    for (const ownerDir of owners.filter((d) => d.isDirectory() && !d.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name))) {
      const owner = await users.byName(ownerDir.name);
      if (!owner || owner.lower_name !== ownerDir.name) continue;
      const entries = fs.readdirSync(path.join(repos.root, ownerDir.name), { withFileTypes: true });
      for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
        const name = repoNameOf(entry.name);
        if (name && !(await repos.byOwnerAndName(owner.name, name))) out.push(`${owner.lower_name}/${name}`);
      }
    }
    return out;
  };
  /** The owner and the directory the path names, once both names pass their rules (404 for an unknown owner). */
  const target = async (req: ApiRequest<unknown, unknown, OwnerRepo>) => {
    const owner = await users.byName(req.params.owner);
    if (!owner) throw ApiError.notFound(`user does not exist [name: ${req.params.owner}]`);
    assertValidRepoName(req.params.repo);
    const gitDir = repos.gitDir(owner.name, req.params.repo);
    if (path.dirname(path.dirname(gitDir)) !== path.resolve(repos.root)) throw ApiError.unprocessable('invalid repository name');
    if (await repos.byOwnerAndName(owner.name, req.params.repo))
      throw ApiError.conflict('The repository with the same name already exists.');
    return { owner, gitDir };
  };
  const base = { tag: 'admin', scopes: ['admin'] as ['admin'], auth: 'siteAdmin' as const, access: 'site-admin' as const };
  const params = {
    type: 'object',
    properties: { owner: { type: 'string', maxLength: 255 }, repo: { type: 'string', maxLength: 255 } },
    required: ['owner', 'repo'],
  };
  return [
    {
      ...base,
      method: 'get',
      path: '/admin/unadopted',
      operationId: 'adminUnadoptedList',
      summary: 'List unadopted repositories',
      query: {
        type: 'object',
        properties: { pattern: { type: 'string', maxLength: 255, description: 'pattern of repositories to search for' } },
      },
      paged: true,
      responses: { 200: { description: 'StringSlice', schema: { type: 'array', items: { type: 'string' } } } },
      handler: async (req: ApiRequest<unknown, { pattern?: string }>) => {
        const all = (await list()).filter(patternMatcher(req.query.pattern));
        return http.paged(req, all.slice(req.paging.offset, req.paging.offset + req.paging.limit), all.length);
      },
    },
    {
      ...base,
      method: 'post',
      path: '/admin/unadopted/{owner}/{repo}',
      operationId: 'adminAdoptRepository',
      summary: 'Adopt unadopted files as a repository',
      params,
      responses: { 204: 'empty', 403: 'APIError', 404: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OwnerRepo>) => {
        const { owner } = await target(req);
        await repos.create(owner, { name: req.params.repo, adopt: true }, req.principal!.user);
        return noContent();
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/admin/unadopted/{owner}/{repo}',
      operationId: 'adminDeleteUnadoptedRepository',
      summary: 'Delete unadopted files',
      params,
      responses: { 204: 'empty', 403: 'APIError', 404: 'APIError', 409: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OwnerRepo>) => {
        const { gitDir } = await target(req);
        if (!fs.existsSync(gitDir)) throw ApiError.notFound('no repository files on disk');
        await fs.promises.rm(gitDir, { recursive: true, force: true });
        return noContent();
      },
    },
  ];
}
