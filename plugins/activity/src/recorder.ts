import type { Knex } from 'knex';
import { isUniqueViolation, nowUnix, principalOf, toNumber, type ForgeEvent, type RepositoryInfo } from '@hearth/plugin-api';
import type { IssuesService } from '@hearth/plugin-issues';
import type { ActivityDeps } from './activity-context';

/** Gitea's ActionType values of the actions recorded from forge events (repository creation and pushes: activity-recorder.ts). */
export const ACTION = {
  createIssue: 6,
  createPullRequest: 7,
  commentIssue: 10,
  mergePullRequest: 11,
  closeIssue: 12,
  reopenIssue: 13,
  closePullRequest: 14,
  reopenPullRequest: 15,
  approvePullRequest: 21,
  rejectPullRequest: 22,
  commentPull: 23,
  publishRelease: 24,
} as const;

/** Gitea's ActionType.String(), what the API shows as `op_type`. */
export const OP_TYPE_NAMES: Record<number, string> = {
  1: 'create_repo',
  2: 'rename_repo',
  3: 'star_repo',
  4: 'watch_repo',
  5: 'commit_repo',
  6: 'create_issue',
  7: 'create_pull_request',
  8: 'transfer_repo',
  9: 'push_tag',
  10: 'comment_issue',
  11: 'merge_pull_request',
  12: 'close_issue',
  13: 'reopen_issue',
  14: 'close_pull_request',
  15: 'reopen_pull_request',
  16: 'delete_tag',
  17: 'delete_branch',
  18: 'mirror_sync_push',
  19: 'mirror_sync_create',
  20: 'mirror_sync_delete',
  21: 'approve_pull_request',
  22: 'reject_pull_request',
  23: 'comment_pull',
  24: 'publish_release',
  25: 'pull_review_dismissed',
  26: 'pull_request_ready_for_review',
  27: 'auto_merge_pull_request',
};

/** Notification thread statuses and sources (Gitea's NotificationStatus / NotificationSource). */
export const STATUS = { unread: 1, read: 2, pinned: 3 } as const;
export const SOURCE = { issue: 1, pull: 2, commit: 3, repository: 4 } as const;

type Payload = Record<string, any>;
const num = toNumber;
const truncate = (s: string, n: number): string => [...s].slice(0, n).join('');

/** The issue (or pull request) an issue-like event is about: its number and, for comments, the comment. */
function subjectOf(e: ForgeEvent): { number: number; title: string; isPull: boolean; comment?: Payload; text: string } | null {
  const p = e.payload as Payload;
  const pr = p.pull_request as Payload | undefined;
  const issue = p.issue as Payload | undefined;
  const number = num(p.number ?? pr?.number ?? issue?.number);
  if (!number) return null;
  const isPull = Boolean(pr) || e.event.startsWith('pull_request') || Boolean(p.is_pull);
  const comment = p.comment as Payload | undefined;
  const text = comment
    ? String(comment.body ?? '')
    : p.review
      ? String((p.review as Payload).content ?? '')
      : String((pr ?? issue)?.body ?? '');
  return { number, title: String((pr ?? issue)?.title ?? ''), isPull, comment, text };
}

/** The activity row (op type, content, comment) of a forge event, or null when the feeds do not show it. */
function activityOf(e: ForgeEvent): { op: number; content: string; refName?: string; commentId?: number } | null {
  const p = e.payload as Payload;
  if (e.event === 'release') {
    if (e.action !== 'published') return null;
    const rel = (p.release ?? {}) as Payload;
    return { op: ACTION.publishRelease, content: String(rel.name ?? ''), refName: String(rel.tag_name ?? '') };
  }
  const s = subjectOf(e);
  if (!s) return null;
  const head = `${s.number}|`;
  switch (`${e.event}/${e.action ?? ''}`) {
    case 'issues/opened':
      return { op: ACTION.createIssue, content: `${head}${s.title}` };
    case 'issues/closed':
      return { op: ACTION.closeIssue, content: head };
    case 'issues/reopened':
      return { op: ACTION.reopenIssue, content: head };
    case 'pull_request/opened':
      return { op: ACTION.createPullRequest, content: `${head}${s.title}` };
    case 'pull_request/closed':
      return (p.pull_request as Payload | undefined)?.merged
        ? { op: ACTION.mergePullRequest, content: `${head}${s.title}` }
        : { op: ACTION.closePullRequest, content: head };
    case 'pull_request/reopened':
      return { op: ACTION.reopenPullRequest, content: head };
    case 'issue_comment/created':
    case 'pull_request_comment/created':
      return {
        op: s.isPull ? ACTION.commentPull : ACTION.commentIssue,
        content: `${head}${truncate(s.text, 200)}`,
        commentId: num(s.comment?.id),
      };
    default:
      if (e.event === 'pull_request_review_approved') return { op: ACTION.approvePullRequest, content: `${head}${truncate(s.text, 200)}` };
      if (e.event === 'pull_request_review_rejected') return { op: ACTION.rejectPullRequest, content: `${head}${truncate(s.text, 200)}` };
      return null;
  }
}

/** Who an event notifies beyond the participants: 'participants' (the usual), a fixed list, or nobody. */
function audienceOf(e: ForgeEvent): 'participants' | 'assignees' | 'reviewer' | null {
  const key = `${e.event}/${e.action ?? ''}`;
  if (
    [
      'issues/opened',
      'issues/closed',
      'issues/reopened',
      'issue_comment/created',
      'pull_request/opened',
      'pull_request/closed',
      'pull_request/reopened',
      'pull_request/synchronized',
      'pull_request_comment/created',
    ].includes(key)
  )
    return 'participants';
  if (['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment'].includes(e.event))
    return 'participants';
  if ((e.event === 'issue_assign' || e.event === 'pull_request_assign') && e.action === 'assigned') return 'assignees';
  if (e.event === 'pull_request_review_request' && e.action === 'review_requested') return 'reviewer';
  return null;
}

/**
 * Feeds and notifications follow what happens: forge events (`webhook.emit`) become activity rows
 * and notification threads (about issues: with the issues service); deleting a repository or a
 * user removes what refers to it.
 */
export function tapRecorder(deps: ActivityDeps): void {
  const { db, hooks } = deps;
  // Pushes, repositories and packages also reach `webhook.emit`; their feed rows are written by
  // activity-recorder.ts from the kernel's own hooks, so `activityOf` ignores those events: nothing is recorded twice.

  hooks.repository.deleting.tapPromise('activity', async ({ repositoryId, trx }) => {
    await trx('activities').where('repo_id', repositoryId).delete();
  });
  hooks.repository.deleted.tapPromise('activity', async (e) => {
    await db('notification').where('repo_id', e.repositoryId).delete();
  });
  // Before the repositories' own tap (stage -100), so the purged repositories' rows can still be found.
  hooks.user.deleting.tapPromise({ name: 'activity', stage: -200 }, async ({ user, trx }) => {
    const owned = trx('repositories').where('owner_id', user.id).select('id');
    await trx('notification').where('user_id', user.id).orWhereIn('repo_id', owned).delete();
    await trx('activities').where('act_user_id', user.id).delete();
  });

  hooks.webhook.emit.tapPromise('activity', async (e: ForgeEvent) => {
    if (!e.repositoryId) return;
    const activity = activityOf(e);
    const audience = audienceOf(e);
    if (!activity && !audience) return;
    const repo = await deps.repositories.byId(e.repositoryId);
    if (!repo) return;
    if (activity) {
      await db('activities').insert({
        op_type: activity.op,
        act_user_id: e.actor?.id ?? 0,
        repo_id: repo.id,
        ref_name: activity.refName ?? '',
        content: activity.content,
        comment_id: activity.commentId ?? 0,
        is_private: repo.isPrivate,
        created_unix: Math.floor(e.occurredAt.getTime() / 1000) || nowUnix(),
      });
    }
    if (audience && deps.issues) await notify(deps, deps.issues, e, repo, audience);
  });
}

/** Write or refresh the notification threads of an issue-like event. */
async function notify(
  deps: ActivityDeps,
  issues: IssuesService,
  e: ForgeEvent,
  repo: RepositoryInfo,
  audience: 'participants' | 'assignees' | 'reviewer',
): Promise<void> {
  const s = subjectOf(e);
  if (!s) return;
  const issue = await issues.audience(repo.id, s.number);
  if (!issue) return;
  const p = e.payload as Payload;
  const candidates = new Set<number>();
  const mentioned = new Set<number>();
  if (audience === 'participants') {
    candidates.add(issue.posterId);
    for (const id of issue.commenterIds) candidates.add(id);
    for (const id of await deps.repositories.watcherIds(repo.id)) candidates.add(id);
    for (const id of issue.assigneeIds) candidates.add(id);
    for (const id of issue.subscriberIds) candidates.add(id);
    for (const id of issue.unsubscribedIds) candidates.delete(id);
    for (const id of await issues.mentionedUserIds(s.text)) mentioned.add(id);
  } else if (audience === 'assignees') {
    // The assignee the event names (Gitea notifies the new assignee only), else the issue's assignees.
    const named = num(p.assignee_id ?? (p.assignee as Payload | undefined)?.id);
    if (named > 0) candidates.add(named);
    else {
      const target = (p.pull_request ?? p.issue ?? {}) as Payload;
      for (const a of [target.assignee, ...(Array.isArray(target.assignees) ? target.assignees : [])])
        if (a && num(a.id) > 0) candidates.add(num(a.id));
    }
  } else if (p.requested_reviewer && num(p.requested_reviewer.id) > 0) {
    candidates.add(num(p.requested_reviewer.id));
  }
  for (const id of mentioned) candidates.add(id);
  candidates.delete(0);
  if (e.actor) candidates.delete(e.actor.id);
  if (candidates.size === 0) return;

  // Only users who may read the issue (or pull request) get a thread.
  const unit = issue.isPull ? 'pulls' : 'issues';
  const recipients: number[] = [];
  for (const id of candidates) {
    const u = await deps.users.byId(id);
    if (!u || u.type !== 0 || !u.isActive || u.prohibitLogin) continue;
    const readable = await deps.access.repository(repo.ownerName, repo.name, principalOf(u), 'read', unit).catch(() => null);
    if (readable) recipients.push(id);
  }
  if (recipients.length === 0) return;
  const commentId = num(s.comment?.id);
  await upsertThreads(deps.db, recipients, {
    repoId: repo.id,
    issueId: issue.issueId,
    source: issue.isPull ? SOURCE.pull : SOURCE.issue,
    commentId,
    updatedBy: e.actor?.id ?? 0,
  });
}

/**
 * Create a thread per recipient or refresh the existing one, as Gitea: a read thread becomes
 * unread and points at the new comment; an unread or pinned one keeps its status and only moves
 * up (updated_unix, updated_by).
 */
async function upsertThreads(
  db: Knex,
  userIds: number[],
  t: { repoId: number; issueId: number; source: number; commentId: number; updatedBy: number },
): Promise<void> {
  const now = nowUnix();
  const existing = await db('notification')
    .where({ issue_id: t.issueId, source: t.source })
    .whereIn('user_id', userIds)
    .select('id', 'user_id', 'status');
  const byUser = new Map(
    existing.map((r: { id: number; user_id: number; status: number }) => [num(r.user_id), { id: num(r.id), status: num(r.status) }]),
  );
  const refresh = async (id: number, status: number) => {
    const patch: Record<string, unknown> = { updated_by: t.updatedBy, updated_unix: now };
    if (status === STATUS.read) Object.assign(patch, { status: STATUS.unread, comment_id: t.commentId });
    await db('notification').where('id', id).update(patch);
  };
  for (const uid of userIds) {
    const found = byUser.get(uid);
    if (found) {
      await refresh(found.id, found.status);
      continue;
    }
    try {
      await db('notification').insert({
        user_id: uid,
        repo_id: t.repoId,
        status: STATUS.unread,
        source: t.source,
        issue_id: t.issueId,
        commit_id: '',
        comment_id: t.commentId,
        updated_by: t.updatedBy,
        created_unix: now,
        updated_unix: now,
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Another event created it meanwhile: refresh that one instead.
      const row = await db('notification').where({ user_id: uid, issue_id: t.issueId, source: t.source }).first('id', 'status');
      if (row) await refresh(num(row.id), num(row.status));
    }
  }
}
