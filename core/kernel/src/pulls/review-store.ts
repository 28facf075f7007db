import type { Knex } from 'knex';
import type { Principal } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { ACCESS_MODES, normalizeTeam, TEAM_UNITS } from '../orgs/org-store';
import { COMMENT_TYPE } from '../issues/timeline';
import { unixToIso } from '../users/models';
import type { RequestedReviewers } from './pull-json';

type Db = Knex | Knex.Transaction;

/** Gitea's ReviewType values (the `type` column of `review`). */
export const REVIEW_TYPE = { pending: 0, approve: 1, comment: 2, reject: 3, request: 4 } as const;
export type ReviewType = (typeof REVIEW_TYPE)[keyof typeof REVIEW_TYPE];

/** The API state of each review type (Gitea's ReviewStateType). */
export const REVIEW_STATE: Record<number, string> = { 0: 'PENDING', 1: 'APPROVED', 2: 'COMMENT', 3: 'REQUEST_CHANGES', 4: 'REQUEST_REVIEW' };

/** The webhook event of a submitted review type (events.md). */
export const REVIEW_EVENT: Record<number, string> = {
  1: 'pull_request_review_approved', 2: 'pull_request_review_comment', 3: 'pull_request_review_rejected',
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

const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
const num = (v: unknown): number => Number(v ?? 0);

export function toReview(raw: any): ReviewRow {
  return {
    id: num(raw.id), type: num(raw.type), reviewer_id: num(raw.reviewer_id), reviewer_team_id: num(raw.reviewer_team_id), repo_id: num(raw.repo_id),
    issue_id: num(raw.issue_id), content: String(raw.content ?? ''), official: bool(raw.official), commit_id: String(raw.commit_id ?? ''),
    stale: bool(raw.stale), dismissed: bool(raw.dismissed), created_unix: num(raw.created_unix), updated_unix: num(raw.updated_unix),
  };
}

/** A code comment (`comment` row of type 21) with the columns a review comment uses. */
export interface CodeCommentRow {
  id: number;
  issue_id: number;
  poster_id: number;
  review_id: number;
  content: string;
  tree_path: string;
  line: number;
  patch: string;
  commit_sha: string;
  old_ref: string;
  created_unix: number;
  updated_unix: number;
}

export function toCodeComment(raw: any): CodeCommentRow {
  return {
    id: num(raw.id), issue_id: num(raw.issue_id), poster_id: num(raw.poster_id), review_id: num(raw.review_id), content: String(raw.content ?? ''),
    tree_path: String(raw.tree_path ?? ''), line: num(raw.line), patch: String(raw.patch ?? ''), commit_sha: String(raw.commit_sha ?? ''),
    old_ref: String(raw.old_ref ?? ''), created_unix: num(raw.created_unix), updated_unix: num(raw.updated_unix),
  };
}

export async function reviewById(db: Db, issueId: number, id: number): Promise<ReviewRow | undefined> {
  const raw = await db('review').where({ id, issue_id: issueId }).first();
  return raw ? toReview(raw) : undefined;
}

/** The caller's pending review of a pull request (Gitea's GetCurrentReview), if any. */
export async function pendingReviewOf(db: Db, issueId: number, reviewerId: number): Promise<ReviewRow | undefined> {
  const raw = await db('review').where({ issue_id: issueId, reviewer_id: reviewerId, type: REVIEW_TYPE.pending }).orderBy('id', 'desc').first();
  return raw ? toReview(raw) : undefined;
}

export async function codeCommentsOf(db: Db, reviewIds: number[]): Promise<CodeCommentRow[]> {
  if (reviewIds.length === 0) return [];
  const rows = await db('comment').whereIn('review_id', reviewIds).where('type', COMMENT_TYPE.code).orderBy('id', 'asc');
  return rows.map(toCodeComment);
}

/** Minimal Team JSON (Gitea's ToTeams without organizations, as in requested_reviewers_teams). */
export function teamToApi(raw: Record<string, unknown>): Record<string, unknown> {
  const team = normalizeTeam(raw);
  let unitsMap: Record<string, string> = {};
  try {
    unitsMap = JSON.parse(team.units_map) as Record<string, string>;
  } catch {
    unitsMap = {};
  }
  return {
    id: team.id, name: team.name, description: team.description, organization: null, includes_all_repositories: team.includes_all_repositories,
    permission: ACCESS_MODES[team.authorize] ?? 'none', units: TEAM_UNITS.filter((u) => unitsMap[u] && unitsMap[u] !== 'none'), units_map: unitsMap,
    can_create_org_repo: team.can_create_org_repo,
  };
}

/**
 * Requested reviewers of pull requests (the pull-json extension point): review rows of type
 * request, users in request order, then teams.
 */
export async function loadRequestedReviewers(
  deps: KernelServices, db: Db, pulls: { issueId: number; pullId: number }[], viewer: Principal | null,
): Promise<Map<number, RequestedReviewers>> {
  const out = new Map<number, RequestedReviewers>();
  const rows = (await db('review').whereIn('issue_id', pulls.map((p) => p.issueId)).where('type', REVIEW_TYPE.request).orderBy('id', 'asc')).map(toReview);
  if (rows.length === 0) return out;
  const userJson = new Map<number, Record<string, unknown> | null>();
  for (const id of new Set(rows.filter((r) => r.reviewer_id).map((r) => r.reviewer_id))) {
    const u = await deps.users.byId(id);
    userJson.set(id, u ? deps.users.toApi(u, viewer) : null);
  }
  const teamIds = [...new Set(rows.filter((r) => r.reviewer_team_id).map((r) => r.reviewer_team_id))];
  const teams = new Map<number, Record<string, unknown>>();
  if (teamIds.length) for (const t of await db('teams').whereIn('id', teamIds)) teams.set(Number(t.id), teamToApi(t));
  for (const r of rows) {
    if (!out.has(r.issue_id)) out.set(r.issue_id, { users: [], teams: [] });
    const entry = out.get(r.issue_id)!;
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
  deps: KernelServices, rows: ReviewRow[], links: ReviewLinks, headCommit: string, viewer: Principal | null,
): Promise<Record<string, unknown>[]> {
  const { db, users } = deps;
  const ids = rows.map((r) => r.id);
  const counts = new Map<number, number>();
  const timeline = new Map<number, number>();
  if (ids.length) {
    for (const c of (await db('comment').whereIn('review_id', ids).where('type', COMMENT_TYPE.code).groupBy('review_id').select('review_id').count({ n: '*' })) as any[]) {
      counts.set(Number(c.review_id), Number(c.n));
    }
    for (const c of await db('comment').whereIn('review_id', ids).where('type', COMMENT_TYPE.review).select('id', 'review_id')) timeline.set(Number(c.review_id), Number(c.id));
  }
  const userJson = new Map<number, Record<string, unknown> | null>();
  for (const id of new Set(rows.map((r) => r.reviewer_id).filter(Boolean))) {
    const u = await users.byId(id);
    userJson.set(id, u ? users.toApi(u, viewer) : null);
  }
  const teamIds = [...new Set(rows.map((r) => r.reviewer_team_id).filter(Boolean))];
  const teams = new Map<number, Record<string, unknown>>();
  if (teamIds.length) for (const t of await db('teams').whereIn('id', teamIds)) teams.set(Number(t.id), teamToApi(t));
  return rows.map((r) => {
    const commentId = timeline.get(r.id);
    const judged = r.type === REVIEW_TYPE.approve || r.type === REVIEW_TYPE.reject || r.type === REVIEW_TYPE.comment;
    return {
      id: r.id,
      user: r.reviewer_id ? userJson.get(r.reviewer_id) ?? null : null,
      team: r.reviewer_team_id ? teams.get(r.reviewer_team_id) ?? null : null,
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
export async function reviewCommentJsons(deps: KernelServices, rows: CodeCommentRow[], links: ReviewLinks, viewer: Principal | null): Promise<Record<string, unknown>[]> {
  const userJson = new Map<number, Record<string, unknown> | null>();
  for (const id of new Set(rows.map((r) => r.poster_id))) {
    const u = await deps.users.byId(id);
    userJson.set(id, u ? deps.users.toApi(u, viewer) : null);
  }
  return rows.map((c) => ({
    id: c.id,
    body: c.content,
    user: userJson.get(c.poster_id) ?? null,
    resolver: null,
    pull_request_review_id: c.review_id,
    created_at: unixToIso(c.created_unix),
    updated_at: unixToIso(c.updated_unix),
    path: c.tree_path,
    commit_id: c.commit_sha,
    original_commit_id: c.old_ref,
    diff_hunk: c.patch,
    position: c.line > 0 ? c.line : 0,
    original_position: c.line < 0 ? -c.line : 0,
    html_url: `${links.prHtml}/files#issuecomment-${c.id}`,
    pull_request_url: links.prHtml,
  }));
}

/**
 * Narrow a `comment` query to what a viewer may see of reviews: the code comments of somebody
 * else's pending review stay hidden until it is submitted (site admins see everything).
 */
export function hideOthersPendingReviewComments(q: Knex.QueryBuilder, viewer: Principal | null): Knex.QueryBuilder {
  if (viewer?.user.isAdmin) return q;
  const viewerId = viewer?.user.id ?? 0;
  return q.whereNotIn('review_id', (sub: Knex.QueryBuilder) => {
    sub.select('id').from('review').where('type', REVIEW_TYPE.pending).whereNot('reviewer_id', viewerId);
  });
}
