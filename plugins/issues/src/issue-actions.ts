import { ApiError, nowUnix, type KernelHooks, type PluginContext, type Principal, type UserInfo } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import { recordIssueEvent } from './timeline';
import { ensureIssueCounter, toIssue, type IssueRow } from './issue-store';

type Db = Knex | Knex.Transaction;

// --- issue.mutate -------------------------------------------------------------------------------

/**
 * The one entry of a change of an existing issue into `issue.mutate`: runs the hook inside the
 * change's transaction `trx`, before anything is written, and returns the (possibly rewritten)
 * changes for the caller to apply. A tap that throws (an ApiError: a veto) fails the transaction,
 * so nothing of the change is written. Call it exactly once per mutation. Kinds and changes:
 * `state` `{ state: 'open'|'closed', commitSha?, merged? }`, `pin` `{ pinned }` or `{ position }`,
 * `lock` `{ locked, lockReason? }`, `deadline` `{ deadlineUnix }`; create, edit and labels build
 * their own mutation (see issue-routes.ts, label-routes.ts).
 */
export async function mutateIssue(
  hooks: KernelHooks,
  trx: Knex.Transaction,
  issue: IssueRow,
  kind: string,
  changes: Record<string, unknown>,
  actor: UserInfo | null,
): Promise<Record<string, unknown>> {
  const mutation = await hooks.issue.mutate.promise({ kind, issueId: issue.id, repositoryId: issue.repo_id, changes }, { actor, trx });
  return mutation.changes;
}

/**
 * Close or reopen through `issue.mutate` (kind `state`), then changeStateLocked with the state the
 * taps left. Already in that state: nothing, and no hook. Inside withPinLock.
 */
export async function changeStateMutating(
  hooks: KernelHooks,
  trx: Knex.Transaction,
  issue: IssueRow,
  closed: boolean,
  actor: UserInfo | null,
  commitSha = '',
): Promise<boolean> {
  if (issue.is_closed === closed) return false;
  const c = await mutateIssue(
    hooks,
    trx,
    issue,
    'state',
    { state: closed ? 'closed' : 'open', ...(commitSha ? { commitSha } : {}) },
    actor,
  );
  return changeStateLocked(trx, issue, c.state === 'closed', actor?.id ?? 0, commitSha);
}

// --- pins ---------------------------------------------------------------------------------------

/** Gitea's `[repository.issue] MAX_PINNED`, per kind (issues, pull requests) and repository. */
export function maxPinned(ctx: Pick<PluginContext, 'forge'>): number {
  const v = ctx.forge.raw.repository?.issue?.MAX_PINNED;
  return typeof v === 'number' ? v : 3;
}

/**
 * Serialise the pin changes of a repository: the first statement of the transaction updates the
 * repository's issue_index row (a row lock on MariaDB/PostgreSQL, the write lock on SQLite), so
 * concurrent pin, unpin and move requests see each other's positions. Call ensureIssueCounter before.
 */
async function lockRepoPins(trx: Knex.Transaction, repoId: number): Promise<void> {
  await trx('issue_index').where('repo_id', repoId).increment('max_index', 0);
}

async function pinnedCount(trx: Db, repoId: number, isPull: boolean): Promise<number> {
  const [{ n }] = await trx('issue').where({ repo_id: repoId, is_pull: isPull }).where('pin_order', '>', 0).count({ n: '*' });
  return Number(n);
}

/** Whether one more issue (or pull request) may be pinned in the repository. */
export async function newPinAllowed(ctx: Pick<PluginContext, 'forge' | 'db'>, repoId: number, isPull: boolean): Promise<boolean> {
  return (await pinnedCount(ctx.db, repoId, isPull)) < maxPinned(ctx);
}

/** Run `work` in a transaction holding the repository's pin lock, with the issue re-read inside it. */
export async function withPinLock<T>(db: Knex, issue: IssueRow, work: (trx: Knex.Transaction, fresh: IssueRow) => Promise<T>): Promise<T> {
  await ensureIssueCounter(db, issue.repo_id);
  return db.transaction(async (trx) => {
    await lockRepoPins(trx, issue.repo_id);
    const fresh = toIssue(await trx('issue').where('id', issue.id).first());
    return work(trx, fresh);
  });
}

/** Pin as the last of its kind; 422 beyond MAX_PINNED. Already pinned: nothing. Inside withPinLock. */
export async function pinLocked(
  trx: Knex.Transaction,
  ctx: Pick<PluginContext, 'forge'>,
  issue: IssueRow,
  actorId: number,
): Promise<boolean> {
  if (issue.pin_order > 0) return false;
  const count = await pinnedCount(trx, issue.repo_id, issue.is_pull);
  const max = maxPinned(ctx);
  if (count >= max) {
    throw ApiError.unprocessable(
      `at most ${max} ${issue.is_pull ? 'pull requests' : 'issues'} may be pinned in a repository ` +
        '(repository.issue.MAX_PINNED); unpin one first',
    );
  }
  await trx('issue')
    .where('id', issue.id)
    .update({ pin_order: count + 1 });
  await recordIssueEvent(trx, { repoId: issue.repo_id, issueId: issue.id, actorId, type: 'pin' });
  return true;
}

/** Unpin, closing the gap behind it. Not pinned: nothing. Inside withPinLock (or a transaction that already holds it). */
export async function unpinLocked(trx: Knex.Transaction, issue: IssueRow, actorId: number): Promise<boolean> {
  if (issue.pin_order <= 0) return false;
  await trx('issue').where('id', issue.id).update({ pin_order: 0 });
  await trx('issue')
    .where({ repo_id: issue.repo_id, is_pull: issue.is_pull })
    .where('pin_order', '>', issue.pin_order)
    .decrement('pin_order', 1);
  await recordIssueEvent(trx, { repoId: issue.repo_id, issueId: issue.id, actorId, type: 'unpin' });
  return true;
}

/**
 * Move a pinned issue to `position` (clamped to the number pinned), shifting the others so the
 * positions stay 1..n. Not pinned: nothing (as Gitea). Inside withPinLock.
 */
export async function moveLocked(trx: Knex.Transaction, issue: IssueRow, position: number): Promise<void> {
  if (issue.pin_order <= 0) return;
  const count = await pinnedCount(trx, issue.repo_id, issue.is_pull);
  const to = Math.max(1, Math.min(position, count));
  const from = issue.pin_order;
  if (to === from) return;
  const others = trx('issue').where({ repo_id: issue.repo_id, is_pull: issue.is_pull }).whereNot('id', issue.id);
  if (to < from) await others.whereBetween('pin_order', [to, from - 1]).increment('pin_order', 1);
  else await others.whereBetween('pin_order', [from + 1, to]).decrement('pin_order', 1);
  await trx('issue').where('id', issue.id).update({ pin_order: to });
}

// --- state --------------------------------------------------------------------------------------

/** Open issues (or pull requests) `issueId` depends on: they block closing it. */
export async function openDependencies(db: Db, issueId: number): Promise<number> {
  const [{ n }] = await db('issue_dependency as d')
    .join('issue as i', 'i.id', 'd.dependency_id')
    .where('d.issue_id', issueId)
    .where('i.is_closed', false)
    .count({ n: '*' });
  return Number(n);
}

/**
 * Close or reopen inside `trx`: the state, closed time, a close/reopen timeline event (with the
 * commit that caused it), and — when closing — unpinning (as Gitea). Closing an issue that still
 * depends on open issues is refused with 412, as Gitea does. Returns whether anything changed.
 * Call it only after the repository's pin lock is held (withPinLock), because unpinning shifts others.
 */
export async function changeStateLocked(
  trx: Knex.Transaction,
  issue: IssueRow,
  closed: boolean,
  actorId: number,
  commitSha = '',
): Promise<boolean> {
  if (issue.is_closed === closed) return false;
  if (closed && (await openDependencies(trx, issue.id)) > 0) {
    throw new ApiError(412, 'cannot close this issue because it still has open dependencies');
  }
  const now = nowUnix();
  await trx('issue')
    .where('id', issue.id)
    .update(closed ? { is_closed: true, closed_unix: now, updated_unix: now } : { is_closed: false, updated_unix: now });
  await recordIssueEvent(trx, {
    repoId: issue.repo_id,
    issueId: issue.id,
    actorId,
    type: closed ? 'close' : 'reopen',
    commit_sha: commitSha,
  });
  if (closed) await unpinLocked(trx, issue, actorId);
  return true;
}

// --- assignees ----------------------------------------------------------------------------------

/**
 * Set an issue's assignees to `wanted` (user ids, in order) inside `trx`, recording an assignees
 * event per added or removed user. Returns who was added and removed.
 */
export async function setAssignees(
  trx: Knex.Transaction,
  issue: IssueRow,
  wanted: number[],
  actorId: number,
): Promise<{ added: number[]; removed: number[] }> {
  const current = (await trx('issue_assignees').where('issue_id', issue.id).orderBy('id').select('assignee_id')).map(
    (r: { assignee_id: unknown }) => Number(r.assignee_id),
  );
  const next = [...new Set(wanted)];
  const removed = current.filter((id) => !next.includes(id));
  const added = next.filter((id) => !current.includes(id));
  if (removed.length) await trx('issue_assignees').where('issue_id', issue.id).whereIn('assignee_id', removed).delete();
  if (added.length) await trx('issue_assignees').insert(added.map((assignee_id) => ({ issue_id: issue.id, assignee_id })));
  for (const id of removed)
    await recordIssueEvent(trx, {
      repoId: issue.repo_id,
      issueId: issue.id,
      actorId,
      type: 'assignees',
      assignee_id: id,
      removed_assignee: true,
    });
  for (const id of added)
    await recordIssueEvent(trx, {
      repoId: issue.repo_id,
      issueId: issue.id,
      actorId,
      type: 'assignees',
      assignee_id: id,
      removed_assignee: false,
    });
  return { added, removed };
}

// --- deadline -----------------------------------------------------------------------------------

const day = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);

/** Record the deadline event of a change from `oldUnix` to `newUnix` (Gitea's content: `new|old` dates). */
export async function recordDeadlineEvent(trx: Db, issue: IssueRow, oldUnix: number, newUnix: number, actorId: number): Promise<void> {
  if (oldUnix === newUnix) return;
  const base = { repoId: issue.repo_id, issueId: issue.id, actorId };
  if (!oldUnix) await recordIssueEvent(trx, { ...base, type: 'added_deadline', content: day(newUnix) });
  else if (!newUnix) await recordIssueEvent(trx, { ...base, type: 'removed_deadline', content: day(oldUnix) });
  else await recordIssueEvent(trx, { ...base, type: 'modified_deadline', content: `${day(newUnix)}|${day(oldUnix)}` });
}

// --- references ---------------------------------------------------------------------------------

/** Gitea's XRefAction: what a reference asks for. */
export const REF_ACTION = { none: 0, closes: 1, reopens: 2, neutered: 3 } as const;
export const REF_ACTION_NAMES = ['', 'closes', 'reopens', 'neutered'];

export interface IssueReference {
  owner: string | null;
  repo: string | null;
  index: number;
  action: number;
}

const CLOSE_WORDS = ['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved'];
const REOPEN_WORDS = ['reopen', 'reopens', 'reopened'];

/**
 * The issue references of a text: `#N` and `owner/repo#N`, each with the keyword right before it
 * (`closes #1`, `Fixes: #2`, `reopens owner/repo#3`), case-insensitive. Duplicates keep the first.
 */
export function findReferences(text: string): IssueReference[] {
  const out: IssueReference[] = [];
  const re = /(?:^|[\s([{,;>"'])(?:([a-z]+):?\s+)?(?:([\w.-]+)\/([\w.-]+))?#(\d{1,10})(?![\w#])/gi;
  for (const m of text.matchAll(re)) {
    const word = (m[1] ?? '').toLowerCase();
    const index = Number(m[4]);
    if (!index || index > 2147483647) continue;
    const action = CLOSE_WORDS.includes(word) ? REF_ACTION.closes : REOPEN_WORDS.includes(word) ? REF_ACTION.reopens : REF_ACTION.none;
    const ref = { owner: m[2] ?? null, repo: m[3] ?? null, index, action };
    if (!out.some((r) => r.owner === ref.owner && r.repo === ref.repo && r.index === ref.index)) out.push(ref);
  }
  return out;
}

/** Mentions considered per text (Gitea bounds mentions too). */
const MAX_MENTIONS = 50;

/** `@name` mentions of a text, lower-cased and de-duplicated (Gitea's mention pattern, simplified). */
export function mentionedNames(text: string): string[] {
  const out = new Set<string>();
  const re = /(?:^|[\s([{>,;])@([0-9A-Za-z_](?:[0-9A-Za-z_.-]*[0-9A-Za-z_])?)(?=$|[\s)\]}:,;.?!'"])/g;
  for (const m of text.matchAll(re)) {
    out.add(m[1].toLowerCase());
    if (out.size >= MAX_MENTIONS) break;
  }
  return [...out];
}

/** Remember the users a text of the issue (its body or a comment) mentions; unknown names are skipped. */
async function recordMentions(trx: Db, issueId: number, text: string): Promise<void> {
  const names = mentionedNames(text);
  if (names.length === 0) return;
  const users = await trx('users').whereIn('lower_name', names).where('type', 0).select('id');
  if (users.length === 0) return;
  await trx('issue_mention')
    .insert(users.map((u: { id: number }) => ({ issue_id: issueId, user_id: Number(u.id) })))
    .onConflict(['issue_id', 'user_id'])
    .ignore();
}

/**
 * The repositories a text references as `owner/repo#N`, resolved for `viewer` BEFORE the
 * transaction that records the references (resolving inside it would wait for a second database
 * connection). The returned lookup gives a repository id, or null when it does not exist or the
 * viewer may not read its issues: a reference never lands on an issue its author cannot see.
 */
export async function repoIdLookup(
  deps: Pick<PluginContext, 'access'>,
  viewer: Principal | null,
  text: string,
): Promise<(owner: string, repo: string) => Promise<number | null>> {
  const ids = new Map<string, number | null>();
  for (const ref of findReferences(text)) {
    if (!ref.owner || !ref.repo) continue;
    const key = `${ref.owner.toLowerCase()}/${ref.repo.toLowerCase()}`;
    if (ids.has(key)) continue;
    try {
      ids.set(key, (await deps.access.repository(ref.owner, ref.repo, viewer, 'read', 'issues')).id);
    } catch {
      ids.set(key, null);
    }
  }
  return async (owner, repo) => ids.get(`${owner.toLowerCase()}/${repo.toLowerCase()}`) ?? null;
}

/**
 * Record reference events on the issues a text mentions (same repository for `#N`, another one for
 * `owner/repo#N`), as Gitea's cross references: type issue_ref (from an issue body), pull_ref (from
 * a pull request body) or comment_ref (from a comment) on the referenced issue, pointing back at
 * the source. Self-references and ones already recorded are skipped.
 */
export async function recordReferences(
  trx: Db,
  source: { repoId: number; issue: IssueRow; commentId: number; text: string; actorId: number },
  repoIdOf: (owner: string, repo: string) => Promise<number | null>,
): Promise<number[]> {
  await recordMentions(trx, source.issue.id, source.text);
  const touched: number[] = [];
  for (const ref of findReferences(source.text)) {
    const repoId = ref.owner && ref.repo ? await repoIdOf(ref.owner, ref.repo) : source.repoId;
    if (!repoId) continue;
    const target = await trx('issue').where({ repo_id: repoId, index: ref.index }).first('id', 'repo_id');
    if (!target || Number(target.id) === source.issue.id) continue;
    const type = source.commentId ? 'comment_ref' : source.issue.is_pull ? 'pull_ref' : 'issue_ref';
    const exists = await trx('comment')
      .where({ issue_id: Number(target.id), ref_issue_id: source.issue.id, ref_comment_id: source.commentId })
      .whereIn('type', [3, 5, 6])
      .first('id');
    if (exists) continue;
    await recordIssueEvent(trx, {
      repoId: Number(target.repo_id),
      issueId: Number(target.id),
      actorId: source.actorId,
      type,
      ref_repo_id: source.repoId,
      ref_issue_id: source.issue.id,
      ref_comment_id: source.commentId,
      ref_action: ref.action,
      ref_is_pull: source.issue.is_pull,
    });
    touched.push(Number(target.id));
  }
  return touched;
}
