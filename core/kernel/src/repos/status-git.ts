import { ApiError } from '@hearth/plugin-api';
import { batchCheck } from './revisions';

/** A complete object id: 40 hex digits (SHA-1) or 64 (SHA-256). */
export const COMPLETE_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The commit a client-supplied `sha` names, which must be its complete id (40 hex digits, 64 in
 * a SHA-256 repository): commit statuses are created and queried by complete id only. A short or
 * malformed id is 422; a well-formed one that is not a commit of the repository is 404.
 */
export async function requireCompleteCommit(gitDir: string, raw: string): Promise<string> {
  const sha = raw.toLowerCase();
  if (!COMPLETE_ID.test(sha)) {
    throw ApiError.unprocessable(
      `sha must be the complete commit id: 40 hexadecimal characters (64 in a SHA-256 ` +
        `repository), not an abbreviation or a ref [sha: ${raw}]`,
    );
  }
  const [answer] = await batchCheck(gitDir, [sha]);
  if (!answer) throw ApiError.notFound(`commit does not exist [sha: ${sha}]`);
  // In a SHA-256 repository git reads 40 digits as an abbreviation of a longer id.
  if (answer.id !== sha) {
    throw ApiError.unprocessable(
      `sha must be the complete commit id (${answer.id.length} hexadecimal characters in this repository) [sha: ${raw}]`,
    );
  }
  if (answer.type !== 'commit') throw ApiError.unprocessable(`object is a ${answer.type}, not a commit [sha: ${sha}]`);
  return sha;
}
