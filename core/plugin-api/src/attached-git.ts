import type { RepoUnitName } from './types';
import type { RepositoryInfo } from './domain';

/**
 * A git repository a plugin keeps beside every repository (the wiki's `<name>.wiki.git`), served
 * by the kernel's smart HTTP transport at `/{owner}/{repo}{suffix}` and `/{owner}/{repo}{suffix}.git`.
 * Register it with `ctx.git.serveAttached` in `apply`. (API 2.1)
 *
 * - Access is the repository's: fetching needs read on `unit`, pushing write on it (and a token
 *   with the `repository` scope), checked exactly as for the code; anonymous callers refused get a
 *   Basic challenge, as for the code.
 * - A push to it records nothing of the repository: no branch rows, no `push.received`, no
 *   protected-branch rules (its ref updates are the plugin's business).
 * - Keep it at `ctx.repositories.gitDir(ownerName, name + suffix)`: the kernel then treats that
 *   directory as taken when a repository is transferred onto the name, and rewrites its server
 *   hooks with the repository's. Moving it on rename/transfer, copying it on fork and removing it
 *   after deletion stay the plugin's (the `repository.*` hooks).
 * @public
 */
export interface AttachedGitDirectory {
  /** The name suffix, with its leading dot (`.wiki`); matched case-insensitively. Repository names cannot end in it. */
  suffix: string;
  /** The unit that guards it. */
  unit: RepoUnitName;
  /**
   * Its git directory for `repository` (access already checked). `push` is true for a push: the
   * plugin may create the directory then (a first push); for a fetch of one that does not exist,
   * throw ApiError 404.
   */
  locate(repository: RepositoryInfo, push: boolean): Promise<string>;
}
