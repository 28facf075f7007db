import { nowUnix, ZERO_ID, type PushEvent, type RefUpdate, type RepositoryEvent } from '@hearth/plugin-api';
import type { ActivityDeps } from './activity-context';

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

/** Gitea's `%s`: the message's first paragraph on one line. */
export function subjectOf(message: string): string {
  return message
    .trim()
    .split(/\n\s*\n/)[0]
    .replace(/\s*\n\s*/g, ' ');
}

/**
 * Records activity rows for repository creation and pushes, tapping the kernel's notification
 * hooks. A push row carries Gitea's PushCommits JSON (the newest commits with sha, message, author
 * and time, and the total count), read once per push (`ctx.repositories.pushedCommits`).
 */
export function recordActivity(deps: ActivityDeps): void {
  const { db, hooks } = deps;
  const insert = async (row: { op_type: number; act_user_id: number; repo_id: number; ref_name?: string; content?: string }) => {
    const repo = await deps.repositories.byId(row.repo_id);
    if (!repo) return;
    await db('activities').insert({ ref_name: '', content: '', ...row, is_private: repo.isPrivate, created_unix: nowUnix() });
  };

  hooks.repository.created.tapPromise('activity', async (e: RepositoryEvent) => {
    await insert({ op_type: ACTIVITY.createRepo, act_user_id: e.actor?.id ?? e.ownerId, repo_id: e.repositoryId });
  });

  hooks.push.received.tapPromise('activity', async (e: PushEvent) => {
    if (!(await deps.repositories.byId(e.repositoryId))) return;
    for (const update of e.updates) {
      const isTag = update.ref.startsWith('refs/tags/');
      const deleted = update.newId === ZERO_ID;
      let opType: number = isTag ? ACTIVITY.pushTag : ACTIVITY.commitRepo;
      if (deleted) opType = isTag ? ACTIVITY.deleteTag : ACTIVITY.deleteBranch;
      const content = !isTag && !deleted ? JSON.stringify(await feedCommits(deps, e, update)) : '';
      await insert({ op_type: opType, act_user_id: e.actor?.id ?? 0, repo_id: e.repositoryId, ref_name: update.ref, content });
    }
  });
}

/** Gitea's PushCommits JSON of a feed entry: the newest commits, the compare range, the count. */
async function feedCommits(deps: ActivityDeps, e: PushEvent, update: RefUpdate): Promise<Record<string, unknown>> {
  const { commits, total } = await deps.repositories.pushedCommits(e, update);
  const listed = commits.slice(0, FEED_MAX_COMMITS).map((c) => ({
    Sha1: c.sha,
    Message: subjectOf(c.message),
    AuthorName: c.authorName,
    AuthorEmail: c.authorEmail,
    Timestamp: c.timestamp,
  }));
  return {
    Commits: listed,
    HeadCommit: listed[0] ?? null,
    CompareURL: update.oldId === ZERO_ID ? '' : `${update.oldId}...${update.newId}`,
    Len: total,
  };
}
