import { unixToIso, type Principal, type RepositoryInfo } from '@hearth/plugin-api';
import type { Issue } from '@hearth/plugin-issues';
import { PULL_STATUS, type PullDeps, type PullRow } from './pull-store';
import { loadRequestedReviewers } from './review-store';

export interface PullItem {
  issue: Issue;
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
export async function pullJsons(
  deps: PullDeps,
  base: RepositoryInfo,
  items: PullItem[],
  viewer: Principal | null,
): Promise<Record<string, unknown>[]> {
  if (items.length === 0) return [];
  const { repositories, users } = deps;
  const issues = await deps.issues.toApi(
    base,
    items.map((i) => i.issue),
    viewer,
  );
  const reviewers = await loadRequestedReviewers(
    deps,
    items.map((i) => i.issue.id),
    viewer,
  );

  // Repositories (base and heads) as the viewer may see them; branch tips from repo_branches.
  const repoJson = new Map<number, Record<string, unknown> | null>();
  repoJson.set(base.id, await repositories.toApi(base, viewer));
  for (const { pull } of items) {
    if (repoJson.has(pull.head_repo_id)) continue;
    const headRepo = await repositories.byId(pull.head_repo_id);
    const visible =
      headRepo && (await users.byId(headRepo.ownerId))
        ? await deps.access.repository(headRepo.ownerName, headRepo.name, viewer, 'read').catch(() => null)
        : null;
    repoJson.set(pull.head_repo_id, visible ? await repositories.toApi(visible, viewer) : null);
  }
  // The base branch's tip, from the branch table (per base repository).
  const tips = new Map<string, string>();
  for (const repoId of new Set(items.map(({ pull }) => pull.base_repo_id))) {
    const branches = items.filter(({ pull }) => pull.base_repo_id === repoId).map(({ pull }) => pull.base_branch);
    for (const [name, sha] of await repositories.branchTips(repoId, branches)) tips.set(`${repoId}:${name}`, sha);
  }
  const mergers = await users.toApiByIds(
    items.filter((i) => i.pull.has_merged && i.pull.merger_id).map((i) => i.pull.merger_id),
    viewer,
  );
  const html = repositories.links(base.ownerName, base.name).html;

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
      merged_by: pull.has_merged ? (mergers.get(pull.merger_id) ?? null) : null,
      allow_maintainer_edit: pull.allow_maintainer_edit,
      base: {
        label: pull.base_branch,
        ref: pull.base_branch,
        sha: tips.get(`${pull.base_repo_id}:${pull.base_branch}`) ?? '',
        repo_id: pull.base_repo_id,
        repo: repoJson.get(base.id),
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
