import fs from 'node:fs';
import type { GitToolkit, UserInfo } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import type { UserService } from '../users/user-service';
import { GitError, gitText, runGit, spawnGit } from '../repos/git';
import { casUpdateRef, lastCommitsIn, listTree, readBlobs, withLock, writeBlob } from '../repos/contents-git';
import { resolveCommit } from '../repos/revisions';
import { readRef } from '../repos/git-data-git';
import { assertValidRefName, isObjectId } from '../repos/names';
import { cloneBareRepository, initBareRepository } from '../repos/repo-service';
import { userIdentity } from '../repos/links';

/** The kernel's git plumbing as the plugin API offers it (`ctx.git`). */
export function gitToolkit(config: HearthConfig, users: UserService): GitToolkit {
  const options = (
    gitDir: string | null,
    extra: { input?: string | Buffer; env?: Record<string, string | undefined>; okCodes?: number[] } = {},
  ) => ({ ...extra, ...(gitDir ? { gitDir } : {}) });
  return {
    run: (gitDir, args, extra) => runGit(args, options(gitDir, extra)),
    text: (gitDir, args, extra) => gitText(args, options(gitDir, extra)),
    spawn: (gitDir, args, extra) => {
      const child = spawnGit(args, options(gitDir, extra));
      const exited = new Promise<number>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code) => resolve(code ?? -1));
      });
      return { stdin: child.stdin!, stdout: child.stdout!, stderr: child.stderr!, exited, kill: (signal) => void child.kill(signal) };
    },
    isGitError: (err) => err instanceof GitError,
    resolveCommit: (gitDir, rev, what) => resolveCommit(gitDir, rev, what),
    readRef,
    listTree,
    readBlobs,
    writeBlob,
    lastCommitsIn,
    casUpdateRef,
    withLock,
    cloneBare: cloneBareRepository,
    initBare: async (gitDir, defaultBranch) => {
      if (!fs.existsSync(gitDir)) await initBareRepository(gitDir, defaultBranch);
    },
    assertValidRefName,
    isObjectId,
    identityOf: async (user: UserInfo) => userIdentity(user, await users.byId(user.id), config.service.NO_REPLY_ADDRESS),
  };
}
