import { ApiError, type Principal } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import type { ResolvedRepo } from '../repos/repo-service';
import type { IssueRow } from '../issues/issue-store';
import { CommitStatusStore, combinedState } from '../repos/status-store';
import type { PullRow } from './pull-store';
import { canMergeUnderRule, ruleForBranch, type ProtectedBranchRow } from '../protection/branch-protection-store';
import { REVIEW_TYPE } from './review-store';

export interface MergeCheckInput {
  deps: KernelServices;
  /** The base repository, resolved for the caller. */
  base: ResolvedRepo;
  issue: IssueRow;
  pull: PullRow;
  principal: Principal;
  /** The caller asked to merge past unmet checks (`force_merge`); only admins may. */
  forceMerge: boolean;
  /** Whether the caller is a repository admin (may force). */
  isAdmin: boolean;
}

/** A required status context: a name or a glob (`*` anything, `?` one character), as Gitea's. */
export function contextMatches(pattern: string, context: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === context;
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(context);
}

/** Whether the required status checks of a rule pass on a commit (Gitea's MergeRequiredContextsCommitStatus). */
export async function statusChecksPass(deps: KernelServices, repoId: number, sha: string, rule: ProtectedBranchRow): Promise<boolean> {
  if (!rule.enable_status_check) return true;
  const { rows } = await new CommitStatusStore(deps.db).latest(repoId, sha, { offset: 0, limit: 10000 });
  if (rule.status_check_contexts.length === 0) {
    // No named contexts: every reported status must be successful (none at all passes).
    const state = combinedState(rows.map((r) => r.state));
    return state === '' || state === 'success';
  }
  for (const pattern of rule.status_check_contexts) {
    const matched = rows.filter((r) => contextMatches(pattern, r.context));
    if (matched.length === 0 || combinedState(matched.map((r) => r.state)) !== 'success') return false;
  }
  return true;
}

/** Official approvals that count toward `required_approvals` (Gitea's GetGrantedApprovalsCount). */
export async function grantedApprovals(deps: KernelServices, pull: PullRow, issueId: number, rule: ProtectedBranchRow): Promise<number> {
  let q = deps.db('review').where({ issue_id: issueId, type: REVIEW_TYPE.approve, official: true, dismissed: false });
  if (rule.dismiss_stale_approvals) q = q.where({ stale: false, commit_id: pull.head_commit_id });
  const row = await q.count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Protected-branch checks a merge must pass (Gitea's CheckPullMergable): the merge whitelist
 * (never forced), then required status contexts on the head commit, required official
 * approvals (without stale ones when dismiss_stale_approvals), no official rejection
 * (block_on_rejected_reviews), no open official review request, and a head that is not behind the
 * base (block_on_outdated_branch). Unmet → 405 naming what is missing; a repository admin
 * passes the review and status checks with `force_merge`.
 */
export async function assertMergeAllowed(input: MergeCheckInput): Promise<void> {
  const { deps, base, issue, pull, principal } = input;
  const rule = await ruleForBranch(deps.db, base.repo.id, pull.base_branch);
  if (!rule) return;
  if (!(await canMergeUnderRule(deps.db, rule, principal.user.id))) throw new ApiError(405, 'User not allowed to merge PR: the base branch is protected by a merge whitelist');

  const unmet: string[] = [];
  if (!(await statusChecksPass(deps, base.repo.id, pull.head_commit_id, rule))) {
    unmet.push(`not all required status checks are successful${rule.status_check_contexts.length ? ` (${rule.status_check_contexts.join(', ')})` : ''}`);
  }
  if (rule.required_approvals > 0) {
    const granted = await grantedApprovals(deps, pull, issue.id, rule);
    if (granted < rule.required_approvals) unmet.push(`does not have enough approvals (${granted} of ${rule.required_approvals})`);
  }
  if (rule.block_on_rejected_reviews) {
    const rejected = await deps.db('review').where({ issue_id: issue.id, type: REVIEW_TYPE.reject, official: true, dismissed: false }).first('id');
    if (rejected) unmet.push('there are requested changes');
  }
  if (rule.block_on_official_review_requests) {
    const requested = await deps.db('review').where({ issue_id: issue.id, type: REVIEW_TYPE.request, official: true }).first('id');
    if (requested) unmet.push('there are official review requests');
  }
  if (rule.block_on_outdated_branch) {
    const tip = await deps.db('repo_branches').where({ repo_id: base.repo.id, name: pull.base_branch }).first('commit_id');
    if (tip && pull.merge_base && String(tip.commit_id) !== pull.merge_base) unmet.push('the head branch is behind the base branch');
  }
  if (unmet.length === 0) return;
  if (input.forceMerge && input.isAdmin) return;
  throw new ApiError(405, `PR is not ready to be merged: ${unmet.join('; ')} [branch protection: ${rule.rule_name}]`);
}
