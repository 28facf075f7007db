import type { Knex } from 'knex';
import type { KernelHooks } from '@hearth/plugin-api';

const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
const num = (v: unknown): number => Number(v ?? 0);

/** Mergeability of a pull request (Gitea's PullRequestStatus, the values Hearth uses). */
export const PULL_STATUS = { checking: 0, mergeable: 1, conflict: 2, empty: 3, error: 4 } as const;
export type PullStatusName = keyof typeof PULL_STATUS;

/** A `pull_request` row (0012_pulls): the pull-request half of an `is_pull` issue. */
export interface PullRow {
  id: number;
  issue_id: number;
  /** The issue's number in the base repository (same as issue.index). */
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

export function toPull(raw: any): PullRow {
  let conflicted: string[] = [];
  if (raw.conflicted_files) {
    try {
      const parsed = JSON.parse(String(raw.conflicted_files));
      if (Array.isArray(parsed)) conflicted = parsed.map(String);
    } catch {
      conflicted = [];
    }
  }
  return {
    id: num(raw.id), issue_id: num(raw.issue_id), index: num(raw.index), base_repo_id: num(raw.base_repo_id), head_repo_id: num(raw.head_repo_id),
    base_branch: String(raw.base_branch), head_branch: String(raw.head_branch), merge_base: String(raw.merge_base ?? ''),
    head_commit_id: String(raw.head_commit_id ?? ''), status: num(raw.status), conflicted_files: conflicted, has_merged: bool(raw.has_merged),
    merged_commit_id: String(raw.merged_commit_id ?? ''), merger_id: num(raw.merger_id), merged_unix: num(raw.merged_unix),
    allow_maintainer_edit: bool(raw.allow_maintainer_edit),
  };
}

/** The pull request of a repository by its number; undefined when there is none (or it is a plain issue). */
export async function pullByIndex(db: Knex | Knex.Transaction, baseRepoId: number, index: number): Promise<PullRow | undefined> {
  const row = await db('pull_request').where({ base_repo_id: baseRepoId, index }).first();
  return row ? toPull(row) : undefined;
}

/** The pull request of an issue id; undefined when the issue is not a pull request. */
export async function pullByIssueId(db: Knex | Knex.Transaction, issueId: number): Promise<PullRow | undefined> {
  const row = await db('pull_request').where({ issue_id: issueId }).first();
  return row ? toPull(row) : undefined;
}

/** Pull requests of issue ids, keyed by issue id. */
export async function pullsByIssueIds(db: Knex | Knex.Transaction, issueIds: number[]): Promise<Map<number, PullRow>> {
  const out = new Map<number, PullRow>();
  if (issueIds.length === 0) return out;
  for (const row of await db('pull_request').whereIn('issue_id', issueIds)) {
    const p = toPull(row);
    out.set(p.issue_id, p);
  }
  return out;
}

/** Remove the pull request rows of the given base repositories (inside the repository-deletion transaction). */
/** Call inside an issue's deletion transaction: the pull request rows and reviews of deleted PR issues. */
export async function removeIssuePulls(trx: Knex | Knex.Transaction, issueIds: number[]): Promise<void> {
  if (issueIds.length === 0) return;
  await trx('pull_request').whereIn('issue_id', issueIds).delete();
  await trx('review').whereIn('issue_id', issueIds).delete();
}

/** The pulls feature's part of repository deletion: its rows go inside the deletion transaction. */
export function tapRepositoryLifecycle(hooks: KernelHooks): void {
  hooks.repository.deleting.tapPromise('hearth:pulls', async ({ repositoryId, trx }) => {
    await removeRepoPulls(trx, [repositoryId]);
  });
}

export async function removeRepoPulls(trx: Knex | Knex.Transaction, repoIds: number[]): Promise<void> {
  if (repoIds.length === 0) return;
  await trx('pull_request').whereIn('base_repo_id', repoIds).delete();
  // Reviews, review requests and branch protection rules of the repositories (reviews helper).
  await trx('review').whereIn('repo_id', repoIds).delete();
  await trx('protected_branch').whereIn('repo_id', repoIds).delete();
}
