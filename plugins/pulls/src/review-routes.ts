import {
  actsAsAdmin,
  ApiError,
  noContent,
  nowUnix,
  ok,
  OWNER_REPO_PARAMS,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type OperationAccess,
} from '@hearth/plugin-api';
import type { PullDeps } from './pull-store';
import { INDEX_PARAMS, list, PULLS_READ, type PullService } from './pull-service';
import { codeCommentsOf, reviewById, reviewCommentJsons, reviewJsons, REVIEW_TYPE, toReview } from './review-store';
import { reviewActions, type IndexParams, type ReviewActions } from './review-actions';
import { reviewRequestActions, type ReviewRequestBody } from './review-requests';
import { reviewSubmissions, type CreateReviewBody, type ReviewParams, type SubmitReviewBody } from './review-submission';

type ReviewRequests = ReturnType<typeof reviewRequestActions>;

export { cutDiffAroundLine } from './review-actions';

interface DismissBody {
  message?: string;
  priors?: boolean;
}

const REVIEW_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    ...(INDEX_PARAMS.properties as object),
    id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the review' },
  },
  required: ['owner', 'repo', 'index', 'id'],
};
const base = { tag: 'repository', scopes: ['repository'] as ['repository'] };
/** Dismissing and undismissing reviews: admins of the pulls unit (Gitea's "Must be repo admin"). */
const PULLS_ADMIN: OperationAccess = { repo: { need: 'admin', unit: 'pulls' } };

/**
 * Pull request reviews (list, create with inline comments, get, submit a pending one, delete,
 * comments, dismiss/undismiss) and requested reviewers, after Gitea 1.20. A review is a `review`
 * row; submitting it records a type-22 timeline comment; inline comments are type-21 comment rows
 * with review_id. A pending review is visible to its author only (and site admins).
 */
export function reviewOperations(deps: PullDeps, svc: PullService): ApiOperation[] {
  const actions = reviewActions(deps, svc);
  const requests = reviewRequestActions(deps, svc, actions);
  return [...reviewEntryOperations(deps, svc, actions, requests), ...reviewChangeOperations(deps, actions, requests)];
}

/** Reviewers, and listing, creating, reading and submitting reviews. */
function reviewEntryOperations(deps: PullDeps, svc: PullService, actions: ReviewActions, requests: ReviewRequests): ApiOperation[] {
  const { db, http } = deps;
  const { links, requireReview, one, loadItem } = actions;
  const { createReview, submitPendingReview } = reviewSubmissions(deps, actions);
  return [
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/reviewers',
      operationId: 'repoGetReviewers',
      summary: 'Return all users that can be requested to review in this repo',
      params: OWNER_REPO_PARAMS,
      responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) =>
        ok(await requests.reviewerCandidates(await svc.open(req, 'read'), req.principal)),
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews',
      operationId: 'repoListPullReviews',
      summary: 'List all reviews for a pull request',
      params: INDEX_PARAMS,
      paged: true,
      responses: { 200: list('PullReview'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const { o, item } = await loadItem(req, 'read');
        const viewer = req.principal;
        let q = db('review').where('issue_id', item.issue.id);
        if (!actsAsAdmin(viewer)) q = q.where((w) => w.whereNot('type', REVIEW_TYPE.pending).orWhere('reviewer_id', viewer?.user.id ?? -1));
        const [rows, total] = await Promise.all([
          q.clone().orderBy('id', 'asc').offset(req.paging.offset).limit(req.paging.limit),
          q.clone().count({ n: '*' }).first(),
        ]);
        return http.paged(
          req as ApiRequest<any, any, any>,
          await reviewJsons(deps, rows.map(toReview), links(o, item.issue), item.pull.head_commit_id, viewer),
          Number(total?.n ?? 0),
        );
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews',
      operationId: 'repoCreatePullReview',
      summary: 'Create a review to an pull request',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'CreatePullReviewOptions',
      bodyRequired: true,
      responses: { 200: 'PullReview', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<CreateReviewBody, unknown, IndexParams>) => createReview(req),
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
      operationId: 'repoGetPullReview',
      summary: 'Get a specific review for a pull request',
      params: REVIEW_PARAMS,
      responses: { 200: 'PullReview', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'read');
        return ok(await one(o, item, await requireReview(item, req.params.id, req.principal), req.principal));
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
      operationId: 'repoSubmitPullReview',
      summary: 'Submit a pending review to an pull request',
      auth: 'required',
      params: REVIEW_PARAMS,
      body: 'SubmitPullReviewOptions',
      bodyRequired: true,
      responses: { 200: 'PullReview', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<SubmitReviewBody, unknown, ReviewParams>) => submitPendingReview(req),
    },
  ];
}

/** Deleting reviews, their comments, dismissals and review requests. */
function reviewChangeOperations(deps: PullDeps, actions: ReviewActions, requests: ReviewRequests): ApiOperation[] {
  const { db, attachments } = deps;
  const { links, requireReview, one, loadItem } = actions;
  return [
    {
      ...base,
      access: PULLS_READ,
      method: 'delete',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}',
      operationId: 'repoDeletePullReview',
      summary: 'Delete a specific review from a pull request',
      auth: 'required',
      params: REVIEW_PARAMS,
      responses: { 204: 'deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { item } = await loadItem(req, 'participate');
        const doer = req.principal!.user;
        const review = await requireReview(item, req.params.id, req.principal);
        if (review.type === REVIEW_TYPE.request)
          throw ApiError.unprocessable('a review request is removed through requested_reviewers, not deleted');
        if (!actsAsAdmin(req.principal) && review.reviewer_id !== doer.id)
          throw ApiError.forbidden('only the reviewer or a site admin may delete a review');
        const commentIds = (await deps.issues.reviewComments([review.id])).filter((c) => c.issueId === item.issue.id).map((c) => c.id);
        const files = commentIds.length ? await attachments.listOfComments(commentIds) : [];
        await db.transaction(async (trx) => {
          await deps.issues.removeComments(commentIds, trx);
          await trx('review').where('id', review.id).delete();
        });
        await attachments.remove(files);
        return noContent();
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments',
      operationId: 'repoGetPullReviewComments',
      summary: 'Get a specific review for a pull request',
      params: REVIEW_PARAMS,
      responses: { 200: list('PullReviewComment'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'read');
        const review = await requireReview(item, req.params.id, req.principal);
        return ok(await reviewCommentJsons(deps, await codeCommentsOf(deps, [review.id]), links(o, item.issue), req.principal));
      },
    },
    {
      ...base,
      access: PULLS_ADMIN,
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/dismissals',
      operationId: 'repoDismissPullReview',
      summary: 'Dismiss a review for a pull request',
      auth: 'required',
      params: REVIEW_PARAMS,
      body: 'DismissPullReviewOptions',
      responses: { 200: 'PullReview', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<DismissBody | undefined, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'participate');
        const doer = req.principal!.user;
        const review = await requireReview(item, req.params.id, req.principal);
        if (review.type !== REVIEW_TYPE.approve && review.type !== REVIEW_TYPE.reject) {
          throw ApiError.unprocessable('only an approval or a request for changes can be dismissed');
        }
        if (item.issue.isClosed || item.pull.has_merged)
          throw ApiError.unprocessable('the reviews of a closed pull request cannot be dismissed');
        const message = req.body?.message ?? '';
        await db.transaction(async (trx) => {
          let q = trx('review').where({ issue_id: item.issue.id, dismissed: false });
          q = req.body?.priors
            ? q
                .where('reviewer_id', review.reviewer_id)
                .where('id', '<=', review.id)
                .whereIn('type', [REVIEW_TYPE.approve, REVIEW_TYPE.reject])
            : q.where('id', review.id);
          await q.update({ dismissed: true, updated_unix: nowUnix() });
          await deps.issues.recordEvent(
            {
              repositoryId: o.r.id,
              issueId: item.issue.id,
              actorId: doer.id,
              type: 'dismiss_review',
              content: message,
              reviewId: review.id,
              assigneeId: review.reviewer_id,
            },
            trx,
          );
        });
        return ok(await one(o, item, (await reviewById(db, item.issue.id, review.id))!, req.principal));
      },
    },
    {
      ...base,
      access: PULLS_ADMIN,
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/undismissals',
      operationId: 'repoUnDismissPullReview',
      summary: 'Cancel to dismiss a review for a pull request',
      auth: 'required',
      params: REVIEW_PARAMS,
      responses: { 200: 'PullReview', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'participate');
        const review = await requireReview(item, req.params.id, req.principal);
        if (review.type !== REVIEW_TYPE.approve && review.type !== REVIEW_TYPE.reject) {
          throw ApiError.unprocessable('only an approval or a request for changes can be undismissed');
        }
        if (item.issue.isClosed || item.pull.has_merged)
          throw ApiError.unprocessable('the reviews of a closed pull request cannot be undismissed');
        await db('review').where('id', review.id).update({ dismissed: false, updated_unix: nowUnix() });
        return ok(await one(o, item, (await reviewById(db, item.issue.id, review.id))!, req.principal));
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers',
      operationId: 'repoCreatePullReviewRequests',
      summary: 'create review requests for a pull request',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'PullReviewRequestOptions',
      bodyRequired: true,
      responses: { 201: list('PullReview'), 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<ReviewRequestBody, unknown, IndexParams>) => requests.reviewRequests(req, true),
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'delete',
      path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers',
      operationId: 'repoDeletePullReviewRequests',
      summary: 'cancel review requests for a pull request',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'PullReviewRequestOptions',
      bodyRequired: true,
      responses: { 204: 'deleted', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<ReviewRequestBody, unknown, IndexParams>) => requests.reviewRequests(req, false),
    },
  ];
}
