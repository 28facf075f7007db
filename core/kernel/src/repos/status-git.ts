import { ApiError } from '@hearth/plugin-api';
import { runGit } from './git';
import { isObjectId, isValidRefName } from './names';

/** A complete object id: 40 hex digits (SHA-1) or 64 (SHA-256). */
export const COMPLETE_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

interface BatchAnswer {
  /** The resolved object id, or null when git did not find (or could not disambiguate) the name. */
  id: string | null;
  type: string | null;
  /** `missing` or `ambiguous` when id is null. */
  problem?: string;
}

/**
 * Ask `git cat-file --batch-check` about several object names in one process. Names travel on
 * stdin, one a line, never as arguments; every caller validates them first (no whitespace, no
 * ':' path syntax), so a line is exactly one object name.
 */
async function batchCheck(gitDir: string, names: string[]): Promise<BatchAnswer[]> {
  const { stdout } = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { gitDir, input: names.map((n) => `${n}\n`).join('') });
  const lines = stdout.toString('utf8').split('\n').filter((l) => l.length > 0);
  return names.map((_name, i) => {
    const line = lines[i] ?? '';
    const parts = line.split(' ');
    // A failure line is "<name> missing" or "<name> ambiguous" (object types are never those words).
    if (parts[1] === 'missing' || parts[1] === 'ambiguous') return { id: null, type: null, problem: parts[1] };
    return { id: parts[0] ?? null, type: parts[1] ?? null };
  });
}

/**
 * The commit a client-supplied `sha` names, which must be its complete id (40 hex digits, 64 in
 * a SHA-256 repository): commit statuses are created and queried by complete id only. A short or
 * malformed id is 422; a well-formed one that is not a commit of the repository is 404.
 */
export async function requireCompleteCommit(gitDir: string, raw: string): Promise<string> {
  const sha = raw.toLowerCase();
  if (!COMPLETE_ID.test(sha)) {
    throw ApiError.unprocessable(`sha must be the complete commit id: 40 hexadecimal characters (64 in a SHA-256 repository), not an abbreviation or a ref [sha: ${raw}]`);
  }
  const [answer] = await batchCheck(gitDir, [sha]);
  if (!answer.id) throw ApiError.notFound(`commit does not exist [sha: ${sha}]`);
  // In a SHA-256 repository git reads 40 digits as an abbreviation of a longer id.
  if (answer.id !== sha) {
    throw ApiError.unprocessable(`sha must be the complete commit id (${answer.id.length} hexadecimal characters in this repository) [sha: ${raw}]`);
  }
  if (answer.type !== 'commit') throw ApiError.unprocessable(`object is a ${answer.type}, not a commit [sha: ${sha}]`);
  return sha;
}

/**
 * Resolve a branch, tag or commit id (complete or abbreviated) to a commit id, in that order of
 * precedence, as Gitea does. Anything that is not a valid ref name or object id is 422 without
 * asking git; anything git does not find is 404.
 */
export async function resolveCommit(gitDir: string, ref: string): Promise<string> {
  if (!isValidRefName(ref) && !isObjectId(ref)) throw ApiError.unprocessable(`invalid ref [ref: ${ref}]`);
  const answers = await batchCheck(gitDir, [`refs/heads/${ref}^{commit}`, `refs/tags/${ref}^{commit}`, `${ref}^{commit}`]);
  const found = answers.find((a) => a.id !== null && a.type === 'commit');
  if (found?.id) return found.id;
  if (answers[2]?.problem === 'ambiguous') throw ApiError.unprocessable(`ref is ambiguous; use a longer commit id [ref: ${ref}]`);
  throw ApiError.notFound(`ref does not exist [ref: ${ref}]`);
}
