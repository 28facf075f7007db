import type { Knex } from 'knex';
import { rowReader, unixToIso, type Principal } from '@hearth/plugin-api';
import type { ReviewComment } from '@hearth/plugin-issues';
import type { PullDeps } from './pull-store';

type Db = Knex | Knex.Transaction;

/** The requested reviewers of one pull request. */
export interface RequestedReviewers {
  /** User JSON of the requested reviewers (PullRequest.requested_reviewers). */
  users: Record<string, unknown>[];
  /** Team JSON of the requested teams (PullRequest.requested_reviewers_teams, Gitea 1.22). */
  teams: Record<string, unknown>[];
}

/** Gitea's ReviewType values (the `type` column of `review`). */
export const REVIEW_TYPE = { pending: 0, approve: 1, comment: 2, reject: 3, request: 4 } as const;
export type ReviewType = (typeof REVIEW_TYPE)[keyof typeof REVIEW_TYPE];

/** The API state of each review type (Gitea's ReviewStateType). */
export const REVIEW_STATE: Record<number, string> = {
  0: 'PENDING',
  1: 'APPROVED',
  2: 'COMMENT',
  3: 'REQUEST_CHANGES',
  4: 'REQUEST_REVIEW',
};

/** The webhook event of a submitted review type (events.md). */
export const REVIEW_EVENT: Record<number, string> = {
  1: 'pull_request_review_approved',
  2: 'pull_request_review_comment',
  3: 'pull_request_review_rejected',
};

/** Review `event` values a client may send → the type stored (Gitea accepts the state names). */
export function reviewTypeOf(event: string | undefined): ReviewType | null {
  switch ((event ?? '').toUpperCase()) {
    case '':
    case 'PENDING':
      return REVIEW_TYPE.pending;
    case 'APPROVED':
    case 'APPROVE':
      return REVIEW_TYPE.approve;
    case 'COMMENT':
      return REVIEW_TYPE.comment;
    case 'REQUEST_CHANGES':
      return REVIEW_TYPE.reject;
    default:
      return null;
  }
}

/** A `review` row (0012_reviews). */
export interface ReviewRow {
  id: number;
  type: number;
  reviewer_id: number;
  reviewer_team_id: number;
  repo_id: number;
  issue_id: number;
  content: string;
  official: boolean;
  commit_id: string;
  stale: boolean;
  dismissed: boolean;
  created_unix: number;
  updated_unix: number;
}

const readReview = rowReader<ReviewRow>({
  numbers: ['id', 'type', 'reviewer_id', 'reviewer_team_id', 'repo_id', 'issue_id', 'created_unix', 'updated_unix'],
  booleans: ['official', 'stale', 'dismissed'],
  strings: ['content', 'commit_id'],
});

export function toReview(raw: any): ReviewRow {
  return readReview(raw);
}

export async function reviewById(db: Db, issueId: number, id: number): Promise<ReviewRow | undefined> {
  const raw = await db('review').where({ id, issue_id: issueId }).first();
  return raw ? toReview(raw) : undefined;
}

/** The caller's pending review of a pull request (Gitea's GetCurrentReview), if any. */
export async function pendingReviewOf(db: Db, issueId: number, reviewerId: number): Promise<ReviewRow | undefined> {
  const raw = await db('review')
    .where({ issue_id: issueId, reviewer_id: reviewerId, type: REVIEW_TYPE.pending })
    .orderBy('id', 'desc')
    .first();
  return raw ? toReview(raw) : undefined;
}

/** The code comments of reviews (Gitea's comment type 21), oldest first, through the issues service. */
export async function codeCommentsOf(deps: PullDeps, reviewIds: number[]): Promise<ReviewComment[]> {
  return (await deps.issues.reviewComments(reviewIds)).filter((c) => c.type === 'code');
}

/** Requested reviewers of pull requests (by issue id): review rows of type request, users in request order, then teams. */
export async function loadRequestedReviewers(
  deps: PullDeps,
  issueIds: number[],
  viewer: Principal | null,
): Promise<Map<number, RequestedReviewers>> {
  const out = new Map<number, RequestedReviewers>();
  for (const id of issueIds) out.set(id, { users: [], teams: [] });
  if (issueIds.length === 0) return out;
  const rows = (await deps.db('review').whereIn('issue_id', issueIds).where('type', REVIEW_TYPE.request).orderBy('id', 'asc')).map(
    toReview,
  );
  if (rows.length === 0) return out;
  const userJson = await deps.users.toApiByIds(
    rows.filter((r) => r.reviewer_id).map((r) => r.reviewer_id),
    viewer,
  );
  const teams = await deps.organizations.teamsToApi(rows.filter((r) => r.reviewer_team_id).map((r) => r.reviewer_team_id));
  for (const r of rows) {
    const entry = out.get(r.issue_id);
    if (!entry) continue;
    if (r.reviewer_id) {
      const u = userJson.get(r.reviewer_id);
      if (u) entry.users.push(u);
    } else if (r.reviewer_team_id) {
      const t = teams.get(r.reviewer_team_id);
      if (t) entry.teams.push(t);
    }
  }
  return out;
}

/** Where the review and comment URLs point. */
export interface ReviewLinks {
  /** The pull request's web page. */
  prHtml: string;
}

/** Gitea's PullReview JSON. `headCommit` decides `stale` (a review of an older head is stale). */
export async function reviewJsons(
  deps: PullDeps,
  rows: ReviewRow[],
  links: ReviewLinks,
  headCommit: string,
  viewer: Principal | null,
): Promise<Record<string, unknown>[]> {
  const { users } = deps;
  const counts = new Map<number, number>();
  const timeline = new Map<number, number>();
  for (const c of await deps.issues.reviewComments(rows.map((r) => r.id))) {
    if (c.type === 'code') counts.set(c.reviewId, (counts.get(c.reviewId) ?? 0) + 1);
    else timeline.set(c.reviewId, c.id);
  }
  const userJson = await users.toApiByIds(rows.map((r) => r.reviewer_id).filter(Boolean), viewer);
  const teams = await deps.organizations.teamsToApi(rows.map((r) => r.reviewer_team_id).filter(Boolean));
  return rows.map((r) => {
    const commentId = timeline.get(r.id);
    const judged = r.type === REVIEW_TYPE.approve || r.type === REVIEW_TYPE.reject || r.type === REVIEW_TYPE.comment;
    return {
      id: r.id,
      user: r.reviewer_id ? (userJson.get(r.reviewer_id) ?? null) : null,
      team: r.reviewer_team_id ? (teams.get(r.reviewer_team_id) ?? null) : null,
      state: REVIEW_STATE[r.type] ?? 'COMMENT',
      body: r.content,
      commit_id: r.commit_id,
      stale: r.stale || (judged && !!headCommit && !!r.commit_id && r.commit_id !== headCommit),
      official: r.official,
      dismissed: r.dismissed,
      comments_count: counts.get(r.id) ?? 0,
      submitted_at: unixToIso(r.created_unix),
      updated_at: unixToIso(r.updated_unix),
      html_url: commentId ? `${links.prHtml}#issuecomment-${commentId}` : links.prHtml,
      pull_request_url: links.prHtml,
    };
  });
}

/** Gitea's PullReviewComment JSON. */
export async function reviewCommentJsons(
  deps: PullDeps,
  rows: ReviewComment[],
  links: ReviewLinks,
  viewer: Principal | null,
): Promise<Record<string, unknown>[]> {
  const userJson = await deps.users.toApiByIds(
    rows.map((r) => r.posterId),
    viewer,
  );
  return rows.map((c) => ({
    id: c.id,
    body: c.body,
    user: userJson.get(c.posterId) ?? null,
    resolver: null,
    pull_request_review_id: c.reviewId,
    created_at: unixToIso(c.createdUnix),
    updated_at: unixToIso(c.updatedUnix),
    path: c.treePath,
    commit_id: c.commitSha,
    original_commit_id: c.oldRef,
    diff_hunk: c.patch,
    position: c.line > 0 ? c.line : 0,
    original_position: c.line < 0 ? -c.line : 0,
    html_url: `${links.prHtml}/files#issuecomment-${c.id}`,
    pull_request_url: links.prHtml,
  }));
}

/**
 * The reviews of an issue whose code comments a viewer may not see: somebody else's pending
 * review stays hidden until it is submitted (site admins see everything).
 */
export async function hiddenReviewIds(db: Db, issueId: number, viewer: Principal | null): Promise<number[]> {
  if (viewer?.user.isAdmin) return [];
  const viewerId = viewer?.user.id ?? 0;
  const rows = await db('review').where({ issue_id: issueId, type: REVIEW_TYPE.pending }).whereNot('reviewer_id', viewerId).select('id');
  return rows.map((r: { id: unknown }) => Number(r.id));
}
