import type { Knex } from 'knex';
import type { Principal } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import type { ResolvedRepo } from '../repos/repo-service';
import { issueContext } from '../issues/issue-context';
import type { IssueRow } from '../issues/issue-store';
import { unixToIso } from '../users/models';
import { PULL_STATUS, type PullRow } from './pull-store';

/** What the requested-reviewers extension point returns for one pull request. */
export interface RequestedReviewers {
  /** User JSON of the requested reviewers (PullRequest.requested_reviewers). */
  users: Record<string, unknown>[];
  /** Team JSON of the requested teams (PullRequest.requested_reviewers_teams, Gitea 1.22). */
  teams: Record<string, unknown>[];
}

/**
 * Load the requested reviewers of pull requests (by issue id) for the API. EXTENSION POINT owned
 * by the reviews helper (pulls/review-*.ts): call `setRequestedReviewersLoader` once (e.g. from the
 * module that defines the review routes); until then every pull request has no requested reviewers.
 */
export type RequestedReviewersLoader = (
  deps: KernelServices, db: Knex | Knex.Transaction, pulls: { issueId: number; pullId: number }[], viewer: Principal | null,
) => Promise<Map<number, RequestedReviewers>>;

let requestedReviewersLoader: RequestedReviewersLoader | null = null;

/** Install the requested-reviewers loader (reviews helper). */
export function setRequestedReviewersLoader(loader: RequestedReviewersLoader): void {
  requestedReviewersLoader = loader;
}

/** Requested reviewers of pull requests, keyed by issue id (empty lists without a loader). */
export async function loadRequestedReviewers(
  deps: KernelServices, db: Knex | Knex.Transaction, pulls: { issueId: number; pullId: number }[], viewer: Principal | null,
): Promise<Map<number, RequestedReviewers>> {
  const loaded = requestedReviewersLoader && pulls.length ? await requestedReviewersLoader(deps, db, pulls, viewer) : new Map<number, RequestedReviewers>();
  const out = new Map<number, RequestedReviewers>();
  for (const p of pulls) out.set(p.issueId, loaded.get(p.issueId) ?? { users: [], teams: [] });
  return out;
}

export interface PullItem {
  issue: IssueRow;
  pull: PullRow;
}

/** Whether a pull request can be merged as far as its git state goes (Gitea's PullRequest.Mergeable without WIP). */
export function isMergeable(pull: PullRow): boolean {
  return pull.status === PULL_STATUS.mergeable;
}

/**
 * Gitea's PullRequest JSON for pull requests of the base repository `base` (all items share it).
 * The issue half (labels, milestone, assignees, comments…) comes from the issues converter, the
 * branches from the pull_request row and the branch table, `requested_reviewers` from the
 * extension point above.
 */
export async function pullJsons(deps: KernelServices, base: ResolvedRepo, items: PullItem[], viewer: Principal | null): Promise<Record<string, unknown>[]> {
  if (items.length === 0) return [];
  const { db, repos, users } = deps;
  const ctx = issueContext(deps);
  const issues = await ctx.issueJsons(base, items.map((i) => i.issue), viewer);
  const reviewers = await loadRequestedReviewers(deps, db, items.map((i) => ({ issueId: i.issue.id, pullId: i.pull.id })), viewer);

  // Repositories (base and heads) as the viewer may see them; branch tips from repo_branches.
  const repoJson = new Map<number, Record<string, unknown> | null>();
  repoJson.set(base.repo.id, await repos.toApi(base.repo, base.owner, viewer));
  for (const { pull } of items) {
    if (repoJson.has(pull.head_repo_id)) continue;
    const headRepo = await repos.byId(pull.head_repo_id);
    const headOwner = headRepo ? await users.byId(headRepo.owner_id) : undefined;
    const visible = headRepo && headOwner && (await repos.access.permission(headRepo, viewer, headOwner)).pull;
    repoJson.set(pull.head_repo_id, visible ? await repos.toApi(headRepo!, headOwner!, viewer) : null);
  }
  const tips = new Map<string, string>();
  const wanted = items.flatMap(({ pull }) => [[pull.base_repo_id, pull.base_branch], [pull.head_repo_id, pull.head_branch]] as [number, string][]);
  const repoIds = [...new Set(wanted.map(([id]) => id))];
  const names = [...new Set(wanted.map(([, n]) => n))];
  for (const row of await db('repo_branches').whereIn('repo_id', repoIds).whereIn('name', names).select('repo_id', 'name', 'commit_id')) {
    tips.set(`${Number(row.repo_id)}:${row.name}`, String(row.commit_id));
  }
  const mergers = new Map<number, Record<string, unknown>>();
  for (const id of new Set(items.filter((i) => i.pull.has_merged && i.pull.merger_id).map((i) => i.pull.merger_id))) {
    const u = await users.byId(id);
    if (u) mergers.set(id, users.toApi(u, viewer));
  }
  const html = ctx.repoUrls(base).html;

  return items.map(({ issue, pull }, n) => {
    const i = issues[n];
    const prHtml = `${html}/pulls/${issue.index}`;
    const headRepo = repoJson.get(pull.head_repo_id) ?? null;
    const req = reviewers.get(issue.id) ?? { users: [], teams: [] };
    return {
      id: pull.id,
      url: prHtml,
      number: issue.index,
      user: i.user,
      title: i.title,
      body: i.body,
      labels: i.labels,
      milestone: i.milestone,
      assignee: i.assignee ?? null,
      assignees: i.assignees ?? null,
      requested_reviewers: req.users,
      requested_reviewers_teams: req.teams,
      state: i.state,
      draft: false,
      is_locked: i.is_locked,
      comments: i.comments,
      html_url: prHtml,
      diff_url: `${prHtml}.diff`,
      patch_url: `${prHtml}.patch`,
      mergeable: !pull.has_merged && isMergeable(pull),
      merged: pull.has_merged,
      merged_at: pull.has_merged && pull.merged_unix ? unixToIso(pull.merged_unix) : null,
      merge_commit_sha: pull.has_merged ? pull.merged_commit_id : null,
      merged_by: pull.has_merged ? mergers.get(pull.merger_id) ?? null : null,
      allow_maintainer_edit: pull.allow_maintainer_edit,
      base: {
        label: pull.base_branch,
        ref: pull.base_branch,
        sha: tips.get(`${pull.base_repo_id}:${pull.base_branch}`) ?? '',
        repo_id: pull.base_repo_id,
        repo: repoJson.get(base.repo.id),
      },
      head: {
        label: pull.head_branch,
        ref: headRepo ? pull.head_branch : `refs/pull/${issue.index}/head`,
        sha: pull.head_commit_id,
        repo_id: pull.head_repo_id,
        repo: headRepo,
      },
      merge_base: pull.merge_base,
      conflicted_files: pull.conflicted_files,
      due_date: i.due_date,
      created_at: i.created_at,
      updated_at: i.updated_at,
      closed_at: i.closed_at,
      pin_order: i.pin_order ?? 0,
    };
  });
}
