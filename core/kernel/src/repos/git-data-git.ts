import type { ApiRequest } from '@hearth/plugin-api';
import { runGit } from './git';
import type { ResolvedRepo } from './repo-service';
import { repoOf } from '../access/operation-access';
import type { GitRouteDeps } from './route-deps';
import { repoLinks, type RepoLinks } from './links';

/**
 * Git plumbing shared by the git data routes: object lookups batched through one
 * `cat-file --batch-check`, revision resolution with Gitea's precedence, exact ref reads, and
 * the URLs of a repository's API and web pages. Every name reaching git here was validated
 * first (see names.ts); names travel on stdin or behind full `refs/…` prefixes, never as options.
 */

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
  const { stdout } = await runGit(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)', ...sort, '--', ...patterns], {
    gitDir,
  });
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

/** A resolved repository with what every git data handler needs. */
export interface GitDataRepo {
  resolved: ResolvedRepo;
  gitDir: string;
  links: RepoLinks;
}

/** The repository the operation's READ_CODE or WRITE_CODE declaration resolved, with its git directory and links. */
export function gitRepoOf(deps: GitRouteDeps, req: ApiRequest<any, any, any>): GitDataRepo {
  const resolved = repoOf(req);
  return { resolved, gitDir: resolved.gitDir, links: repoLinks(deps.config, resolved.owner.name, resolved.repo.name) };
}

/** Git's ISO 8601 (`+00:00`) as Go's RFC 3339 prints it (`Z` for UTC), which is what Gitea sends. */
export function goDate(iso: string): string {
  return iso.replace(/[+-]00:00$/, 'Z');
}

/** Options for git commands whose output must not depend on the operator's personal git config. */
export const LOG_CONFIG = [
  '-c',
  'log.showSignature=false',
  '-c',
  'log.follow=false',
  '-c',
  'log.mailmap=false',
  '-c',
  'diff.relative=false',
];
