import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../db/errors';
import { BaseRow, nowUnix } from '../users/models';

/** The states a commit status may have, best last (Gitea's order: error is worst). */
export const STATUS_STATES = ['error', 'failure', 'warning', 'pending', 'success'] as const;
export type StatusState = (typeof STATUS_STATES)[number];

export class CommitStatusRow extends BaseRow {
  static override tableName = 'commit_statuses';
  id!: number;
  repo_id!: number;
  index!: number;
  sha!: string;
  state!: StatusState;
  target_url!: string;
  description!: string;
  context!: string;
  context_hash!: string;
  creator_id!: number;
  created_unix!: number;
  updated_unix!: number;
}

export type StatusSort = 'oldest' | 'recentupdate' | 'leastupdate' | 'leastindex' | 'highestindex';

/** Gitea's sort options; the default is newest first. `id` breaks ties so pages never overlap. */
const SORTS: Record<StatusSort | 'default', Array<[string, 'asc' | 'desc']>> = {
  oldest: [
    ['created_unix', 'asc'],
    ['id', 'asc'],
  ],
  recentupdate: [
    ['updated_unix', 'desc'],
    ['id', 'desc'],
  ],
  leastupdate: [
    ['updated_unix', 'asc'],
    ['id', 'asc'],
  ],
  leastindex: [['index', 'asc']],
  highestindex: [['index', 'desc']],
  default: [
    ['created_unix', 'desc'],
    ['id', 'desc'],
  ],
};

export interface NewStatus {
  repoId: number;
  sha: string;
  state: StatusState;
  targetUrl: string;
  description: string;
  context: string;
  creatorId: number;
}

export interface Page {
  offset: number;
  limit: number;
}

/** Deadlocks and serialization failures are retried like a lost race for an index. */
const TRANSIENT = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40P01', '40001', 'SQLITE_BUSY']);
const isRetryable = (err: unknown) => {
  const e = err as { code?: string; nativeError?: { code?: string } } | null;
  return isUniqueViolation(err) || (!!e && (TRANSIENT.has(e.code ?? '') || TRANSIENT.has(e.nativeError?.code ?? '')));
};

/** The worst of some states (error > failure > warning > pending > success), or '' for none. */
export function combinedState(states: Iterable<string>): StatusState | '' {
  let worst = -1;
  for (const state of states) {
    const rank = STATUS_STATES.indexOf(state as StatusState);
    if (rank >= 0 && (worst < 0 || rank < worst)) worst = rank;
  }
  return worst < 0 ? '' : STATUS_STATES[worst];
}

/** Rows of `commit_statuses`: statuses CI systems post against a complete commit id. */
export class CommitStatusStore {
  constructor(private readonly db: Knex) {}

  /**
   * Store a status with the next 1-based index of its (repository, commit). Two writers may pick
   * the same index at once; the unique index refuses the second, which simply tries again.
   */
  async create(input: NewStatus): Promise<CommitStatusRow> {
    const now = nowUnix();
    const context = input.context || 'default';
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(async (trx) => {
          const top = await trx('commit_statuses').where({ repo_id: input.repoId, sha: input.sha }).max({ top: 'index' }).first();
          return CommitStatusRow.query(trx).insertAndFetch({
            repo_id: input.repoId,
            index: Number(top?.top ?? 0) + 1,
            sha: input.sha,
            state: input.state,
            target_url: input.targetUrl,
            description: input.description,
            context,
            context_hash: crypto.createHash('sha1').update(context).digest('hex'),
            creator_id: input.creatorId,
            created_unix: now,
            updated_unix: now,
          } as Partial<CommitStatusRow>);
        });
      } catch (err) {
        if (attempt >= 8 || !isRetryable(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
      }
    }
  }

  /** Every status of a commit, optionally of one state, sorted and paged. */
  async list(
    repoId: number,
    sha: string,
    options: Page & { sort?: StatusSort; state?: StatusState },
  ): Promise<{ rows: CommitStatusRow[]; total: number }> {
    let query = CommitStatusRow.query(this.db).where({ repo_id: repoId, sha });
    if (options.state) query = query.where('state', options.state);
    let rowsQuery = query.clone();
    for (const [column, direction] of SORTS[options.sort ?? 'default']) rowsQuery = rowsQuery.orderBy(column, direction);
    const [rows, total] = await Promise.all([rowsQuery.offset(options.offset).limit(options.limit), query.clone().resultSize()]);
    return { rows, total };
  }

  /**
   * The latest status of each context of a commit, newest first (as Gitea lists them), paged;
   * with the combined state over all of them, not only the page.
   */
  async latest(repoId: number, sha: string, page: Page): Promise<{ rows: CommitStatusRow[]; total: number; state: StatusState | '' }> {
    const latestIds = this.db('commit_statuses').max('id').where({ repo_id: repoId, sha }).groupBy('context_hash');
    const query = CommitStatusRow.query(this.db).whereIn('id', latestIds);
    const [rows, total, states] = await Promise.all([
      query.clone().orderBy('id', 'desc').offset(page.offset).limit(page.limit),
      query.clone().resultSize(),
      this.db('commit_statuses').distinct('state').whereIn('id', latestIds.clone()),
    ]);
    return { rows, total, state: combinedState(states.map((s: { state: string }) => s.state)) };
  }
}

/** Delete the statuses of repositories (when they are deleted), inside the caller's transaction. */
export async function deleteCommitStatuses(trx: Knex | Knex.Transaction, repoIds: readonly number[]): Promise<void> {
  if (repoIds.length > 0) await trx('commit_statuses').whereIn('repo_id', repoIds).delete();
}
