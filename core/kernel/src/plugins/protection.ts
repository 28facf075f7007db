import type { Knex } from 'knex';
import type { BranchProtection, BranchRule } from '@hearth/plugin-api';
import type { RepoService } from '../repos/repo-service';
import type { RepositoryRow } from '../repos/models';
import { CommitStatusStore, combinedState } from '../repos/status-store';
import {
  canMergeUnderRule,
  isOfficialReviewer,
  ruleForBranch,
  toProtectedBranch,
  type ProtectedBranchRow,
} from '../protection/branch-protection-store';
import { assertRefChange, refChangeVerdict } from '../protection/ref-protection';

/** A required status context: a name or a glob (`*` anything, `?` one character), as Gitea's. */
export function contextMatches(pattern: string, context: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === context;
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(context);
}

function toRule(row: ProtectedBranchRow): BranchRule {
  return {
    id: row.id,
    repositoryId: row.repo_id,
    ruleName: row.rule_name,
    enableStatusCheck: row.enable_status_check,
    statusCheckContexts: row.status_check_contexts,
    requiredApprovals: row.required_approvals,
    blockOnRejectedReviews: row.block_on_rejected_reviews,
    blockOnOfficialReviewRequests: row.block_on_official_review_requests,
    blockOnOutdatedBranch: row.block_on_outdated_branch,
    dismissStaleApprovals: row.dismiss_stale_approvals,
  };
}

/** Branch protection as the plugin API offers it (`ctx.protection`): plain data over the core's rules. */
export function branchProtection(db: Knex, repos: RepoService): BranchProtection {
  const rowOf = async (rule: BranchRule): Promise<ProtectedBranchRow | null> => {
    const raw = await db('protected_branch').where('id', rule.id).first();
    return raw ? toProtectedBranch(raw) : null;
  };
  const repoRow = async (id: number): Promise<RepositoryRow> => {
    const row = await repos.byId(id);
    if (!row) throw new Error(`repository ${id} does not exist`);
    return row;
  };
  return {
    ruleFor: async (repositoryId, branch) => {
      const row = await ruleForBranch(db, repositoryId, branch);
      return row ? toRule(row) : null;
    },
    canMerge: async (rule, userId) => {
      const row = await rowOf(rule);
      return row ? canMergeUnderRule(db, row, userId) : true;
    },
    isOfficialReviewer: async (rule, userId, hasWrite) => {
      const row = await rowOf(rule);
      return row ? isOfficialReviewer(db, row, userId, hasWrite) : hasWrite;
    },
    // Gitea's MergeRequiredContextsCommitStatus.
    statusChecksPass: async (repositoryId, sha, rule) => {
      if (!rule.enableStatusCheck) return true;
      const { rows } = await new CommitStatusStore(db).latest(repositoryId, sha, { offset: 0, limit: 10000 });
      if (rule.statusCheckContexts.length === 0) {
        // No named contexts: every reported status must be successful (none at all passes).
        const state = combinedState(rows.map((r) => r.state));
        return state === '' || state === 'success';
      }
      for (const pattern of rule.statusCheckContexts) {
        const matched = rows.filter((r) => contextMatches(pattern, r.context));
        if (matched.length === 0 || combinedState(matched.map((r) => r.state)) !== 'success') return false;
      }
      return true;
    },
    refChangeAllowed: async (repository, principal, ref, change) =>
      (await refChangeVerdict(repos, await repoRow(repository.id), principal, ref, change)).allowed,
    assertRefChange: async (repository, principal, ref, change) =>
      assertRefChange(repos, await repoRow(repository.id), principal, ref, change),
  };
}
