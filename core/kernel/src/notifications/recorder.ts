import type { Knex } from 'knex';
import type { ForgeEvent, UserInfo } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { isUniqueViolation } from '../db/errors';
import { nowUnix } from '../users/models';
import type { RepositoryRow } from '../repos/models';
import { principalOf } from '../access/readable-repos';
import { mentionedNames } from '../issues/issue-actions';

/** Gitea's ActionType values of the actions this module records (git hosting records its own in repos/activity.ts). */
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
  1: 'create_repo', 2: 'rename_repo', 3: 'star_repo', 4: 'watch_repo', 5: 'commit_repo', 6: 'create_issue', 7: 'create_pull_request',
  8: 'transfer_repo', 9: 'push_tag', 10: 'comment_issue', 11: 'merge_pull_request', 12: 'close_issue', 13: 'reopen_issue',
  14: 'close_pull_request', 15: 'reopen_pull_request', 16: 'delete_tag', 17: 'delete_branch', 18: 'mirror_sync_push',
  19: 'mirror_sync_create', 20: 'mirror_sync_delete', 21: 'approve_pull_request', 22: 'reject_pull_request', 23: 'comment_pull',
  24: 'publish_release', 25: 'pull_review_dismissed', 26: 'pull_request_ready_for_review', 27: 'auto_merge_pull_request',
};

/** Notification thread statuses and sources (Gitea's NotificationStatus / NotificationSource). */
export const STATUS = { unread: 1, read: 2, pinned: 3 } as const;
export const SOURCE = { issue: 1, pull: 2, commit: 3, repository: 4 } as const;

/** Comment types whose posters take part in an issue (comment, code comment, review). */
const PARTICIPANT_COMMENT_TYPES = [0, 21, 22];
type Payload = Record<string, any>;
const num = (v: unknown): number => Number(v ?? 0);
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
  const text = comment ? String(comment.body ?? '') : p.review ? String((p.review as Payload).content ?? '') : String((pr ?? issue)?.body ?? '');
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
    case 'issues/opened': return { op: ACTION.createIssue, content: `${head}${s.title}` };
    case 'issues/closed': return { op: ACTION.closeIssue, content: head };
    case 'issues/reopened': return { op: ACTION.reopenIssue, content: head };
    case 'pull_request/opened': return { op: ACTION.createPullRequest, content: `${head}${s.title}` };
    case 'pull_request/closed':
      return (p.pull_request as Payload | undefined)?.merged ? { op: ACTION.mergePullRequest, content: `${head}${s.title}` } : { op: ACTION.closePullRequest, content: head };
    case 'pull_request/reopened': return { op: ACTION.reopenPullRequest, content: head };
    case 'issue_comment/created':
    case 'pull_request_comment/created':
      return { op: s.isPull ? ACTION.commentPull : ACTION.commentIssue, content: `${head}${truncate(s.text, 200)}`, commentId: num(s.comment?.id) };
    default:
      if (e.event === 'pull_request_review_approved') return { op: ACTION.approvePullRequest, content: `${head}${truncate(s.text, 200)}` };
      if (e.event === 'pull_request_review_rejected') return { op: ACTION.rejectPullRequest, content: `${head}${truncate(s.text, 200)}` };
      return null;
  }
}

/** Who an event notifies beyond the participants: 'participants' (the usual), a fixed list, or nobody. */
function audienceOf(e: ForgeEvent): 'participants' | 'assignees' | 'reviewer' | null {
  const key = `${e.event}/${e.action ?? ''}`;
  if (['issues/opened', 'issues/closed', 'issues/reopened', 'issue_comment/created', 'pull_request/opened', 'pull_request/closed',
    'pull_request/reopened', 'pull_request/synchronized', 'pull_request_comment/created'].includes(key)) return 'participants';
  if (['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment'].includes(e.event)) return 'participants';
  if ((e.event === 'issue_assign' || e.event === 'pull_request_assign') && e.action === 'assigned') return 'assignees';
  if (e.event === 'pull_request_review_request' && e.action === 'review_requested') return 'reviewer';
  return null;
}

const tappedHooks = new WeakSet<object>();

/**
 * Feeds, watches and notifications follow what happens: repository creators watch their new
 * repositories; forge events (`webhook.emit`) become activity rows and notification threads;
 * deleting a repository or a user removes what refers to it.
 */
export function tapRecorder(deps: KernelServices): void {
  const { db, hooks, repos, users } = deps;
  if (tappedHooks.has(hooks)) return;
  tappedHooks.add(hooks);
  // Pushes, repositories and packages also reach `webhook.emit` (events/domain-events.ts); their
  // feed rows are written by repos/activity.ts from the kernel's own hooks, so `activityOf` below
  // ignores those events: nothing is recorded twice.

  hooks.repository.created.tapPromise('hearth:watch', async (e) => {
    const creator = e.actor && e.actor.type === 0 ? e.actor.id : null;
    if (creator) await watchRepo(db, creator, e.repositoryId, true);
  });

  hooks.repository.deleted.tapPromise('hearth:watch', async (e) => {
    await db.transaction(async (trx) => {
      await trx('watch').where('repo_id', e.repositoryId).delete();
      await trx('star').where('repo_id', e.repositoryId).delete();
      await trx('notification').where('repo_id', e.repositoryId).delete();
    });
  });

  // Before the repositories' own tap (stage -100), so the purged repositories' rows can still be found.
  hooks.user.deleting.tapPromise({ name: 'hearth:watch', stage: -200 }, async ({ user, trx }) => {
    const owned = trx('repositories').where('owner_id', user.id).select('id');
    const watched = (await trx('watch').where('user_id', user.id).select('repo_id')).map((r: { repo_id: number }) => num(r.repo_id));
    const starred = (await trx('star').where('uid', user.id).select('repo_id')).map((r: { repo_id: number }) => num(r.repo_id));
    await trx('watch').where('user_id', user.id).orWhereIn('repo_id', owned.clone()).delete();
    await trx('star').where('uid', user.id).orWhereIn('repo_id', owned.clone()).delete();
    await trx('notification').where('user_id', user.id).orWhereIn('repo_id', owned.clone()).delete();
    await trx('activities').where('act_user_id', user.id).delete();
    await recount(trx, watched, starred);
  });

  hooks.webhook.emit.tapPromise('hearth:feeds', async (e: ForgeEvent) => {
    if (!e.repositoryId) return;
    const activity = activityOf(e);
    const audience = audienceOf(e);
    if (!activity && !audience) return;
    const repo = await repos.byId(e.repositoryId);
    if (!repo) return;
    if (activity) {
      await db('activities').insert({
        op_type: activity.op, act_user_id: e.actor?.id ?? 0, repo_id: repo.id, ref_name: activity.refName ?? '', content: activity.content,
        comment_id: activity.commentId ?? 0, is_private: repo.is_private, created_unix: Math.floor(e.occurredAt.getTime() / 1000) || nowUnix(),
      });
    }
    if (audience) await notify(e, repo, audience);
  });

  /** Write or refresh the notification threads of an issue-like event. */
  const notify = async (e: ForgeEvent, repo: RepositoryRow, audience: 'participants' | 'assignees' | 'reviewer'): Promise<void> => {
    const s = subjectOf(e);
    if (!s) return;
    const issue = await db('issue').where({ repo_id: repo.id, index: s.number }).first('id', 'poster_id', 'is_pull');
    if (!issue) return;
    const issueId = num(issue.id);
    const isPull = issue.is_pull === true || num(issue.is_pull) === 1;
    const p = e.payload as Payload;
    const candidates = new Set<number>();
    const mentioned = new Set<number>();
    if (audience === 'participants') {
      candidates.add(num(issue.poster_id));
      const posters = await db('comment').where('issue_id', issueId).whereIn('type', PARTICIPANT_COMMENT_TYPES).distinct('poster_id');
      for (const r of posters) candidates.add(num(r.poster_id));
      for (const r of await db('watch').where('repo_id', repo.id).select('user_id')) candidates.add(num(r.user_id));
      for (const r of await db('issue_assignees').where('issue_id', issueId).select('assignee_id')) candidates.add(num(r.assignee_id));
      const watches = await db('issue_watch').where('issue_id', issueId).select('user_id', 'is_watching');
      for (const w of watches) if (w.is_watching === true || num(w.is_watching) === 1) candidates.add(num(w.user_id));
      for (const w of watches) if (!(w.is_watching === true || num(w.is_watching) === 1)) candidates.delete(num(w.user_id));
      const names = mentionedNames(s.text);
      if (names.length) for (const r of await db('users').whereIn('lower_name', names).where('type', 0).select('id')) mentioned.add(num(r.id));
    } else if (audience === 'assignees') {
      // The assignee the event names (Gitea notifies the new assignee only), else the issue's assignees.
      const named = num(p.assignee_id ?? (p.assignee as Payload | undefined)?.id);
      if (named > 0) candidates.add(named);
      else {
        const target = (p.pull_request ?? p.issue ?? {}) as Payload;
        for (const a of [target.assignee, ...(Array.isArray(target.assignees) ? target.assignees : [])]) if (a && num(a.id) > 0) candidates.add(num(a.id));
      }
    } else if (p.requested_reviewer && num(p.requested_reviewer.id) > 0) {
      candidates.add(num(p.requested_reviewer.id));
    }
    for (const id of mentioned) candidates.add(id);
    candidates.delete(0);
    if (e.actor) candidates.delete(e.actor.id);
    if (candidates.size === 0) return;

    // Only users who may read the issue (or pull request) get a thread.
    const owner = await users.byId(repo.owner_id);
    const unit = isPull ? 'pulls' : 'issues';
    const recipients: number[] = [];
    for (const id of candidates) {
      const u = await users.byId(id);
      if (!u || u.type !== 0 || !u.is_active || u.prohibit_login) continue;
      const info: UserInfo = users.toInfo(u);
      const level = await repos.access.unitPermission(repo, principalOf(info), unit, owner);
      if (level !== 'none') recipients.push(id);
    }
    if (recipients.length === 0) return;
    const commentId = num(s.comment?.id);
    await upsertThreads(db, recipients, { repoId: repo.id, issueId, source: isPull ? SOURCE.pull : SOURCE.issue, commentId, updatedBy: e.actor?.id ?? 0 });
  };
}

/**
 * Create a thread per recipient or refresh the existing one, as Gitea: a read thread becomes
 * unread and points at the new comment; an unread or pinned one keeps its status and only moves
 * up (updated_unix, updated_by).
 */
async function upsertThreads(db: Knex, userIds: number[], t: { repoId: number; issueId: number; source: number; commentId: number; updatedBy: number }): Promise<void> {
  const now = nowUnix();
  const existing = await db('notification').where({ issue_id: t.issueId, source: t.source }).whereIn('user_id', userIds).select('id', 'user_id', 'status');
  const byUser = new Map(existing.map((r: { id: number; user_id: number; status: number }) => [num(r.user_id), { id: num(r.id), status: num(r.status) }]));
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
        user_id: uid, repo_id: t.repoId, status: STATUS.unread, source: t.source, issue_id: t.issueId, commit_id: '', comment_id: t.commentId,
        updated_by: t.updatedBy, created_unix: now, updated_unix: now,
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Another event created it meanwhile: refresh that one instead.
      const row = await db('notification').where({ user_id: uid, issue_id: t.issueId, source: t.source }).first('id', 'status');
      if (row) await refresh(num(row.id), num(row.status));
    }
  }
}

/** Watch a repository (idempotent) and keep its watcher count; returns the watch row. */
export async function watchRepo(db: Knex, userId: number, repoId: number, watching: boolean): Promise<void> {
  if (watching) {
    const now = nowUnix();
    try {
      await db('watch').insert({ user_id: userId, repo_id: repoId, mode: 1, created_unix: now, updated_unix: now });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  } else {
    await db('watch').where({ user_id: userId, repo_id: repoId }).delete();
  }
  await recount(db, [repoId], []);
}

/** Star or unstar a repository (idempotent) and keep its star count. */
export async function starRepo(db: Knex, userId: number, repoId: number, starring: boolean): Promise<void> {
  if (starring) {
    try {
      await db('star').insert({ uid: userId, repo_id: repoId, created_unix: nowUnix() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  } else {
    await db('star').where({ uid: userId, repo_id: repoId }).delete();
  }
  await recount(db, [], [repoId]);
}

/** Set num_watches / num_stars from the rows (a recount is right whatever ran concurrently). */
async function recount(db: Knex | Knex.Transaction, watched: number[], starred: number[]): Promise<void> {
  if (watched.length) {
    await db('repositories').whereIn('id', watched).update({ num_watches: db('watch').count('*').where('watch.repo_id', db.ref('repositories.id')) });
  }
  if (starred.length) {
    await db('repositories').whereIn('id', starred).update({ num_stars: db('star').count('*').where('star.repo_id', db.ref('repositories.id')) });
  }
}
