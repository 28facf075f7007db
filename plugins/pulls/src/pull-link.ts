import type { PullRequestLink } from '@hearth/plugin-issues';
import { pullsByIssueIds, removeIssuePulls, type PullDeps } from './pull-store';
import { hiddenReviewIds, REVIEW_TYPE } from './review-store';

/** How pull requests link into issues: their merge state, hidden review comments, review search filters, deletion. */
export function pullRequestLink(deps: PullDeps): PullRequestLink {
  const { db } = deps;
  return {
    meta: async (issueIds) => {
      const out = new Map<number, { merged: boolean; mergedUnix: number }>();
      for (const [issueId, pull] of await pullsByIssueIds(db, issueIds))
        out.set(issueId, { merged: pull.has_merged, mergedUnix: pull.merged_unix });
      return out;
    },
    hiddenReviewIds: (issueId, viewer) => hiddenReviewIds(db, issueId, viewer),
    reviewFilter: async (kind, userId) => {
      let q;
      if (kind === 'review_requested') {
        // Review requests to the user or to a team the user is in.
        const teams = await deps.organizations.teamIdsOf(userId);
        q = db('review')
          .where('type', REVIEW_TYPE.request)
          .where((w) => w.where('reviewer_id', userId).orWhereIn('reviewer_team_id', teams));
      } else {
        // Reviews the user submitted.
        q = db('review').where('reviewer_id', userId).whereIn('type', [REVIEW_TYPE.approve, REVIEW_TYPE.comment, REVIEW_TYPE.reject]);
      }
      return [...new Set((await q.select('issue_id')).map((r: { issue_id: unknown }) => Number(r.issue_id)))];
    },
    removing: (issueIds, trx) => removeIssuePulls(trx, issueIds),
  };
}
