import type { Knex } from 'knex';
import type { KernelHooks, PushEvent, RepositoryEvent } from '@hearth/plugin-api';
import { nowUnix } from '../users/models';
import { ZERO_ID, gitText } from './git';
import type { RepoService } from './repo-service';

/** Gitea's action types for what git hosting records. */
export const ACTIVITY = {
  createRepo: 1,
  commitRepo: 5,
  pushTag: 9,
  deleteTag: 16,
  deleteBranch: 17,
} as const;

/** Commits listed per pushed ref in a feed entry (Gitea's FEED_MAX_COMMIT_NUM). */
const FEED_MAX_COMMITS = 5;

/**
 * Records activity rows for repository creation and pushes, tapping the kernel's own
 * notification hooks. A push row carries Gitea's PushCommits JSON (the newest commits with
 * sha, message, author and time, and the total count), read with one git call per ref.
 */
export function recordActivity(hooks: KernelHooks, db: Knex, repos: RepoService): void {
  const insert = async (row: { op_type: number; act_user_id: number; repo_id: number; ref_name?: string; content?: string }) => {
    const repo = await repos.byId(row.repo_id);
    if (!repo) return;
    await db('activities').insert({ ref_name: '', content: '', ...row, is_private: repo.is_private, created_unix: nowUnix() });
  };

  hooks.repository.created.tapPromise('hearth:activity', async (e: RepositoryEvent) => {
    await insert({ op_type: ACTIVITY.createRepo, act_user_id: e.actor?.id ?? e.ownerId, repo_id: e.repositoryId });
  });

  hooks.push.received.tapPromise('hearth:activity', async (e: PushEvent) => {
    const repo = await repos.byId(e.repositoryId);
    if (!repo) return;
    const gitDir = repos.gitDir(e.ownerName, e.name);
    for (const update of e.updates) {
      const isTag = update.ref.startsWith('refs/tags/');
      const deleted = update.newId === ZERO_ID;
      let opType: number = isTag ? ACTIVITY.pushTag : ACTIVITY.commitRepo;
      if (deleted) opType = isTag ? ACTIVITY.deleteTag : ACTIVITY.deleteBranch;
      const content = !isTag && !deleted ? JSON.stringify(await pushCommits(gitDir, update.oldId, update.newId)) : '';
      await insert({ op_type: opType, act_user_id: e.actor?.id ?? 0, repo_id: e.repositoryId, ref_name: update.ref, content });
    }
  });
}

async function pushCommits(gitDir: string, oldId: string, newId: string): Promise<Record<string, unknown>> {
  // A new branch lists only its newest commits, as Gitea does: counting its whole history would
  // make every new-branch push pay for the repository's size.
  const range = oldId === ZERO_ID ? [newId] : [`${oldId}..${newId}`];
  const [count, log] = await Promise.all([
    oldId === ZERO_ID ? Promise.resolve('') : gitText(['rev-list', '--count', '--use-bitmap-index', ...range], { gitDir }),
    gitText(['log', `--max-count=${FEED_MAX_COMMITS}`, '--format=%H%x00%s%x00%an%x00%ae%x00%cI%x1e', ...range], { gitDir }),
  ]);
  const commits = log.split('\x1e').map((l) => l.trim()).filter(Boolean).map((l) => {
    const [sha, message, authorName, authorEmail, timestamp] = l.split('\x00');
    return { Sha1: sha, Message: message, AuthorName: authorName, AuthorEmail: authorEmail, Timestamp: timestamp };
  });
  return { Commits: commits, HeadCommit: commits[0] ?? null, CompareURL: oldId === ZERO_ID ? '' : `${oldId}...${newId}`, Len: count ? Number(count) : commits.length };
}
