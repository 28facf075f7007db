import { ApiError, isApiError, type ApiRequest } from '@hearth/plugin-api';
import { runGit } from './git';
import { isObjectId, isValidRefName } from './names';
import type { ResolvedRepo } from './repo-service';
import type { GitRouteDeps } from './route-deps';

/**
 * Git plumbing shared by the git data routes: object lookups batched through one
 * `cat-file --batch-check`, revision resolution with Gitea's precedence, exact ref reads, and
 * the URLs of a repository's API and web pages. Every name reaching git here was validated
 * first (see names.ts); names travel on stdin or behind full `refs/…` prefixes, never as options.
 */

export interface ObjectInfo {
  id: string;
  type: string;
  size: number;
}

const OBJECT_LINE = /^([0-9a-f]{40}|[0-9a-f]{64}) (\w+) (\d+)$/;

/**
 * Ask git about several object names in one process. An answer is null when git did not find
 * the name or found it ambiguous. Names must not contain whitespace (validated ref names and
 * object ids never do), so one line is one name.
 */
export async function batchCheck(gitDir: string, names: string[]): Promise<(ObjectInfo | null)[]> {
  if (names.length === 0) return [];
  const { stdout } = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
    gitDir,
    input: names.map((n) => `${n}\n`).join(''),
  });
  const lines = stdout.toString('utf8').split('\n');
  return names.map((_name, i) => {
    const m = OBJECT_LINE.exec(lines[i] ?? '');
    return m ? { id: m[1], type: m[2], size: Number(m[3]) } : null;
  });
}

/** A branch, tag, full ref name or object id a client sent; anything else is 422 before git sees it. */
export function assertRevision(rev: string, what: string): void {
  if (!rev || (!isValidRefName(rev) && !isObjectId(rev))) throw ApiError.unprocessable(`no valid ref or sha [${what}: ${rev}]`);
}

/**
 * Resolve a client's revision to the id of the commit (or tree) it names: a branch first, then a
 * tag, then whatever git makes of it (a complete or abbreviated object id, a full ref name), as
 * Gitea does. Invalid names are 422; names git cannot find are 404.
 */
export async function resolveRevision(gitDir: string, rev: string, peel: 'commit' | 'tree', what: string): Promise<string> {
  assertRevision(rev, what);
  const answers = await batchCheck(gitDir, [`refs/heads/${rev}^{${peel}}`, `refs/tags/${rev}^{${peel}}`, `${rev}^{${peel}}`]);
  const hit = answers.find((a) => a !== null);
  if (!hit) throw ApiError.notFound(`${peel === 'commit' ? 'commit' : 'tree'} does not exist [${what}: ${rev}]`);
  return hit.id;
}

/** Await `work`, replacing a 404 with one carrying `message` (other errors pass through). */
export async function notFoundAs<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isApiError(err) && err.status === 404) throw ApiError.notFound(message);
    throw err;
  }
}

export function resolveCommit(gitDir: string, rev: string, what = 'sha'): Promise<string> {
  return resolveRevision(gitDir, rev, 'commit', what);
}

export interface RefInfo {
  ref: string;
  id: string;
  type: string;
}

/**
 * Refs under `prefixes` (e.g. `refs/heads/`), or the exact refs named when `exact` is set
 * (for-each-ref matches whole path components, so `refs/tags/v1` would also list
 * `refs/tags/v1/x`; those are filtered out). `sort` keys are given lowest priority first.
 */
export async function listRefs(gitDir: string, patterns: string[], options: { exact?: boolean; sort?: string[] } = {}): Promise<RefInfo[]> {
  const sort = (options.sort ?? ['refname']).map((key) => `--sort=${key}`);
  const { stdout } = await runGit(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)', ...sort, '--', ...patterns], { gitDir });
  const wanted = options.exact ? new Set(patterns) : null;
  const refs: RefInfo[] = [];
  for (const line of stdout.toString('utf8').split('\n')) {
    if (!line) continue;
    const first = line.indexOf(' ');
    const second = line.indexOf(' ', first + 1);
    const ref = line.slice(second + 1);
    if (wanted && !wanted.has(ref)) continue;
    refs.push({ id: line.slice(0, first), type: line.slice(first + 1, second), ref });
  }
  return refs;
}

/** The object a full ref name points at, or null. */
export async function readRef(gitDir: string, fullRef: string): Promise<RefInfo | null> {
  const [hit] = await listRefs(gitDir, [fullRef], { exact: true });
  return hit ?? null;
}

/** Escape each path segment of a ref or file name for a URL, keeping the slashes. */
export function escapeSegments(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

/** Where a repository's API (`…/api/v1/repos/o/r`) and web pages (`…/o/r`) live. Read per request: ROOT_URL may be set at listen. */
export interface RepoLinks {
  api: string;
  html: string;
}

export function repoLinks(deps: Pick<GitRouteDeps, 'http' | 'config'>, ownerName: string, repoName: string): RepoLinks {
  const path = `${encodeURIComponent(ownerName)}/${encodeURIComponent(repoName)}`;
  return { api: deps.http.apiUrl(`/repos/${path}`), html: `${deps.config.server.ROOT_URL}${path}` };
}

/** A resolved repository with what every git data handler needs. */
export interface GitDataRepo {
  resolved: ResolvedRepo;
  gitDir: string;
  links: RepoLinks;
}

type OwnerRepoRequest = ApiRequest<any, any, { owner: string; repo: string }>;

/** Resolve owner/repo for the caller at `need`, with the code unit on (404 otherwise, as in Gitea). */
export async function openRepo(deps: GitRouteDeps, req: OwnerRepoRequest, need: 'read' | 'write'): Promise<GitDataRepo> {
  const resolved = deps.repos.requireUnit(await deps.repos.resolve(req.params.owner, req.params.repo, req.principal, need), 'code');
  return { resolved, gitDir: resolved.gitDir, links: repoLinks(deps, resolved.owner.name, resolved.repo.name) };
}

/** Git's ISO 8601 (`+00:00`) as Go's RFC 3339 prints it (`Z` for UTC), which is what Gitea sends. */
export function goDate(iso: string): string {
  return iso.replace(/[+-]00:00$/, 'Z');
}

/** A Unix time and `+hhmm` zone (as in raw commit and tag headers) in UTC, RFC 3339. */
export function unixToUtc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The zero time Gitea prints for unset times. */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** Options for git commands whose output must not depend on the operator's personal git config. */
export const LOG_CONFIG = ['-c', 'log.showSignature=false', '-c', 'log.follow=false', '-c', 'log.mailmap=false', '-c', 'diff.relative=false'];
