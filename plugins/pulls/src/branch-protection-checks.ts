import { ApiError, type BranchRule, type Principal, type RepositoryInfo } from '@hearth/plugin-api';
import type { Issue } from '@hearth/plugin-issues';
import type { PullDeps, PullRow } from './pull-store';
import { REVIEW_TYPE } from './review-store';

export interface MergeCheckInput {
  deps: PullDeps;
  /** The base repository, resolved for the caller. */
  base: RepositoryInfo;
  issue: Issue;
  pull: PullRow;
  principal: Principal;
  /** The caller asked to merge past unmet checks (`force_merge`); only admins may. */
  forceMerge: boolean;
  /** Whether the caller is a repository admin (may force). */
  isAdmin: boolean;
}

/** Official approvals that count toward `required_approvals` (Gitea's GetGrantedApprovalsCount). */
export async function grantedApprovals(deps: PullDeps, pull: PullRow, issueId: number, rule: BranchRule): Promise<number> {
  let q = deps.db('review').where({ issue_id: issueId, type: REVIEW_TYPE.approve, official: true, dismissed: false });
  if (rule.dismissStaleApprovals) q = q.where({ stale: false, commit_id: pull.head_commit_id });
  const row = await q.count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Protected-branch checks a merge must pass (Gitea's CheckPullMergable): the merge whitelist
 * (never forced), then required status contexts on the head commit, required official
 * approvals (without stale ones when dismiss_stale_approvals), no official rejection
 * (block_on_rejected_reviews), no open official review request, and a head that is not behind the
 * base (block_on_outdated_branch). Unmet → 405 naming what is missing; a repository admin
 * passes the review and status checks with `force_merge`. The rules are the core's (`ctx.protection`).
 */
export async function assertMergeAllowed(input: MergeCheckInput): Promise<void> {
  const { deps, base, issue, pull, principal } = input;
  const rule = await deps.protection.ruleFor(base.id, pull.base_branch);
  if (!rule) return;
  if (!(await deps.protection.canMerge(rule, principal.user.id)))
    throw new ApiError(405, 'User not allowed to merge PR: the base branch is protected by a merge whitelist');

  const unmet: string[] = [];
  if (!(await deps.protection.statusChecksPass(base.id, pull.head_commit_id, rule))) {
    unmet.push(
      `not all required status checks are successful${rule.statusCheckContexts.length ? ` (${rule.statusCheckContexts.join(', ')})` : ''}`,
    );
  }
  if (rule.requiredApprovals > 0) {
    const granted = await grantedApprovals(deps, pull, issue.id, rule);
    if (granted < rule.requiredApprovals) unmet.push(`does not have enough approvals (${granted} of ${rule.requiredApprovals})`);
  }
  if (rule.blockOnRejectedReviews) {
    const rejected = await deps
      .db('review')
      .where({ issue_id: issue.id, type: REVIEW_TYPE.reject, official: true, dismissed: false })
      .first('id');
    if (rejected) unmet.push('there are requested changes');
  }
  if (rule.blockOnOfficialReviewRequests) {
    const requested = await deps.db('review').where({ issue_id: issue.id, type: REVIEW_TYPE.request, official: true }).first('id');
    if (requested) unmet.push('there are official review requests');
  }
  if (rule.blockOnOutdatedBranch) {
    const tip = (await deps.repositories.branchTips(base.id, [pull.base_branch])).get(pull.base_branch);
    if (tip && pull.merge_base && tip !== pull.merge_base) unmet.push('the head branch is behind the base branch');
  }
  if (unmet.length === 0) return;
  if (input.forceMerge && input.isAdmin) return;
  throw new ApiError(405, `PR is not ready to be merged: ${unmet.join('; ')} [branch protection: ${rule.ruleName}]`);
}
