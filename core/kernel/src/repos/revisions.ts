import { ApiError, isApiError } from '@hearth/plugin-api';
import { runGit } from './git';
import { isObjectId, isValidRefName } from './names';

/**
 * Revisions a client names (branch, tag, full ref, commit or tree id): validated before git sees
 * them, resolved in Gitea's order (branch, then tag, then object id), many at once through one
 * `git cat-file --batch-check`. The one place repository routes turn names into object ids.
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

export type RefType = 'branch' | 'tag' | 'commit';

export interface ResolvedRef {
  /** The full commit id. */
  commit: string;
  refType: RefType;
  /** The branch or tag name, or the full commit id for a commit (as Gitea puts it in URLs). */
  name: string;
}

/**
 * A branch, tag or commit id (full or at least 4 hex digits), in Gitea's order: branch first,
 * then tag, then commit. `refs/heads/x` and `refs/tags/x` are accepted too. Anything that is
 * neither a valid ref name nor an object id never reaches git. Null when nothing matches.
 */
export async function resolveRef(gitDir: string, ref: string): Promise<ResolvedRef | null> {
  const candidates: Array<{ expr: string; refType: RefType; name: string }> = [];
  if (ref.startsWith('refs/heads/') && isValidRefName(ref)) candidates.push({ expr: ref, refType: 'branch', name: ref.slice(11) });
  else if (ref.startsWith('refs/tags/') && isValidRefName(ref)) candidates.push({ expr: ref, refType: 'tag', name: ref.slice(10) });
  else if (isValidRefName(ref)) {
    candidates.push({ expr: `refs/heads/${ref}`, refType: 'branch', name: ref });
    candidates.push({ expr: `refs/tags/${ref}`, refType: 'tag', name: ref });
  }
  if (isObjectId(ref)) candidates.push({ expr: ref.toLowerCase(), refType: 'commit', name: '' });
  if (candidates.length === 0) return null;
  const ids = await peelCommits(
    gitDir,
    candidates.map((c) => c.expr),
  );
  for (let i = 0; i < candidates.length; i++) {
    const id = ids[i];
    if (id) return { commit: id, refType: candidates[i].refType, name: candidates[i].refType === 'commit' ? id : candidates[i].name };
  }
  return null;
}

/** The current commit of a branch, or null. */
export async function branchCommit(gitDir: string, branch: string): Promise<string | null> {
  if (!isValidRefName(branch)) return null;
  return (await peelCommits(gitDir, [`refs/heads/${branch}`]))[0];
}

/** Commit ids of validated revision expressions (one cat-file process), null where none. */
async function peelCommits(gitDir: string, exprs: string[]): Promise<Array<string | null>> {
  return (
    await batchCheck(
      gitDir,
      exprs.map((e) => `${e}^{commit}`),
    )
  ).map((info) => (info?.type === 'commit' ? info.id : null));
}
