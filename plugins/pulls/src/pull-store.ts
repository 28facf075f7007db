import type { Knex } from 'knex';
import { rowReader, type PluginContext } from '@hearth/plugin-api';
import type { IssuesService } from '@hearth/plugin-issues';

/** The plugin context with the issues service the pull requests are built on. */
export type PullDeps = PluginContext & { issues: IssuesService };

/** Mergeability of a pull request (Gitea's PullRequestStatus, the values Hearth uses). */
export const PULL_STATUS = { checking: 0, mergeable: 1, conflict: 2, empty: 3, error: 4 } as const;
export type PullStatusName = keyof typeof PULL_STATUS;

/** A `pull_request` row (0012_pulls): the pull-request half of an `is_pull` issue. */
export interface PullRow {
  id: number;
  issue_id: number;
  /** The issue's number in the base repository (same as the issue's index). */
  index: number;
  base_repo_id: number;
  head_repo_id: number;
  base_branch: string;
  head_branch: string;
  merge_base: string;
  head_commit_id: string;
  status: number;
  /** Paths that conflict when merging head into base (empty unless status is conflict). */
  conflicted_files: string[];
  has_merged: boolean;
  merged_commit_id: string;
  merger_id: number;
  merged_unix: number;
  allow_maintainer_edit: boolean;
}

const readPull = rowReader<PullRow>({
  numbers: ['id', 'issue_id', 'index', 'base_repo_id', 'head_repo_id', 'status', 'merger_id', 'merged_unix'],
  booleans: ['has_merged', 'allow_maintainer_edit'],
  strings: ['merge_base', 'head_commit_id', 'merged_commit_id'],
  json: { conflicted_files: [] },
});

export function toPull(raw: any): PullRow {
  const row = readPull(raw);
  const files: unknown = row.conflicted_files;
  return {
    ...row,
    base_branch: String(row.base_branch),
    head_branch: String(row.head_branch),
    conflicted_files: Array.isArray(files) ? files.map(String) : [],
  };
}

/** The pull request of a repository by its number; undefined when there is none (or it is a plain issue). */
export async function pullByIndex(db: Knex | Knex.Transaction, baseRepoId: number, index: number): Promise<PullRow | undefined> {
  const row = await db('pull_request').where({ base_repo_id: baseRepoId, index }).first();
  return row ? toPull(row) : undefined;
}

/** Pull requests of issue ids, keyed by issue id. */
export async function pullsByIssueIds(db: Knex | Knex.Transaction, issueIds: readonly number[]): Promise<Map<number, PullRow>> {
  const out = new Map<number, PullRow>();
  if (issueIds.length === 0) return out;
  for (const row of await db('pull_request').whereIn('issue_id', [...issueIds])) {
    const p = toPull(row);
    out.set(p.issue_id, p);
  }
  return out;
}

/** Call inside an issue's deletion transaction: the pull request rows and reviews of deleted PR issues. */
export async function removeIssuePulls(trx: Knex | Knex.Transaction, issueIds: readonly number[]): Promise<void> {
  if (issueIds.length === 0) return;
  await trx('pull_request')
    .whereIn('issue_id', [...issueIds])
    .delete();
  await trx('review')
    .whereIn('issue_id', [...issueIds])
    .delete();
}

/** Remove the pull request rows of the given base repositories (inside the repository-deletion transaction). */
export async function removeRepoPulls(trx: Knex | Knex.Transaction, repoIds: number[]): Promise<void> {
  if (repoIds.length === 0) return;
  await trx('pull_request').whereIn('base_repo_id', repoIds).delete();
  // Reviews and review requests of the repositories (branch protection rules are the core's).
  await trx('review').whereIn('repo_id', repoIds).delete();
}

/** Open (not closed) pull requests among rows, by the issues service's state of their issues. */
export async function openOnly(issues: IssuesService, pulls: PullRow[]): Promise<PullRow[]> {
  if (pulls.length === 0) return [];
  const states = await issues.byIds(pulls.map((p) => p.issue_id));
  return pulls.filter((p) => states.get(p.issue_id)?.isClosed === false);
}
