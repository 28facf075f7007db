import type { RepositoryInfo } from './domain';
import type { Principal } from './types';

/**
 * Branch protection as the core owns it (API 2.1): the rule that governs a branch and the checks
 * a merge or a ref change must pass, for features that merge or move branches (pull requests).
 * Plain data; rules are managed by the core's `/branch_protections` routes.
 */

/** How a change moves a ref: a new ref, a fast-forward, a rewrite of its history, or its removal. @public */
export type RefChange = 'create' | 'update' | 'force' | 'delete';

/** The parts of a protected branch rule (Gitea's ProtectedBranch) that merges are checked against. @public */
export interface BranchRule {
  id: number;
  repositoryId: number;
  /** The rule's name: a branch name or a glob. */
  ruleName: string;
  enableStatusCheck: boolean;
  /** Required status contexts (names or globs); empty: every reported status must succeed. */
  statusCheckContexts: string[];
  requiredApprovals: number;
  blockOnRejectedReviews: boolean;
  blockOnOfficialReviewRequests: boolean;
  blockOnOutdatedBranch: boolean;
  dismissStaleApprovals: boolean;
}

/** `ctx.protection`. @public */
export interface BranchProtection {
  /** The rule governing `branch` of a repository (the exact rule, else the oldest matching glob), or null. */
  ruleFor(repositoryId: number, branch: string): Promise<BranchRule | null>;
  /** Whether `userId` may merge into a branch under the rule (its merge whitelist, Gitea's IsUserMergeWhitelisted). */
  canMerge(rule: BranchRule, userId: number): Promise<boolean>;
  /** Whether an approval by `userId` counts (Gitea's IsUserOfficialReviewer); `hasWrite`: write access to the code. */
  isOfficialReviewer(rule: BranchRule, userId: number, hasWrite: boolean): Promise<boolean>;
  /** Whether the rule's required status checks pass on commit `sha` (true when the rule requires none). */
  statusChecksPass(repositoryId: number, sha: string, rule: BranchRule): Promise<boolean>;
  /** Whether `principal` may make `change` to `ref` (a full ref name) of the repository; other refs than branches are not restricted. */
  refChangeAllowed(repository: RepositoryInfo, principal: Principal | null, ref: string, change: RefChange): Promise<boolean>;
  /** As refChangeAllowed, throwing ApiError 403 naming the branch and the rule when refused. */
  assertRefChange(repository: RepositoryInfo, principal: Principal | null, ref: string, change: RefChange): Promise<void>;
}
