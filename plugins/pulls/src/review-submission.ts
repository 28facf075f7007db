import { ApiError, nowUnix, ok, type ApiRequest } from '@hearth/plugin-api';
import type { PullDeps } from './pull-store';
import { codeCommentsOf, pendingReviewOf, reviewById, reviewTypeOf, REVIEW_TYPE } from './review-store';
import type { IndexParams, ReviewActions, ReviewCommentBody } from './review-actions';

export type ReviewParams = IndexParams & { id: number };

export interface CreateReviewBody {
  body?: string;
  event?: string;
  commit_id?: string;
  comments?: ReviewCommentBody[];
}
export interface SubmitReviewBody {
  body?: string;
  event?: string;
}

/** Creating a review (submitted or pending, with inline comments) and submitting a pending one. */
export function reviewSubmissions(deps: PullDeps, actions: ReviewActions) {
  const { db } = deps;
  const { requireReview, one, validateComments, checkSubmit, addComments, submit, verdictIsOfficial, emitReviewed, newReview, loadItem } =
    actions;

  const createReview = async (req: ApiRequest<CreateReviewBody, unknown, IndexParams>) => {
    const { o, item } = await loadItem(req, 'participate');
    const doer = req.principal!.user;
    const type = reviewTypeOf(req.body.event);
    if (type === null)
      throw ApiError.unprocessable(`unknown review event "${req.body.event}": use APPROVED, REQUEST_CHANGES, COMMENT or PENDING`);
    const comments = req.body.comments ?? [];
    validateComments(comments);
    const body = req.body.body ?? '';
    const commit = (req.body.commit_id || '').trim() || item.pull.head_commit_id;
    // As Gitea, a submitted review takes over the caller's pending review (its drafted comments
    // are submitted with it). Comments flagged pending_review stay drafts: they start (or join)
    // the caller's pending review instead of being submitted with this one.
    const drafts = type === REVIEW_TYPE.pending ? comments : comments.filter((c) => c.pending_review);
    const direct = type === REVIEW_TYPE.pending ? [] : comments.filter((c) => !c.pending_review);
    const current = await pendingReviewOf(db, item.issue.id, doer.id);
    if (type !== REVIEW_TYPE.pending) {
      const drafted = current ? (await codeCommentsOf(deps, [current.id])).length : 0;
      checkSubmit(item, type, body, direct.length + drafted, doer);
    }

    const isOfficial = await verdictIsOfficial(o, item, type, doer);
    let reviewId = 0;
    await db.transaction(async (trx) => {
      const pending = await pendingReviewOf(trx, item.issue.id, doer.id);
      if (type === REVIEW_TYPE.pending) {
        reviewId = pending?.id ?? (await newReview(trx, o, item, REVIEW_TYPE.pending, doer, body, commit));
        if (pending && body) await trx('review').where('id', reviewId).update({ content: body, updated_unix: nowUnix() });
        await addComments(trx, o, item, reviewId, commit, drafts, doer);
        return;
      }
      reviewId = pending?.id ?? (await newReview(trx, o, item, REVIEW_TYPE.pending, doer, body, commit));
      await addComments(trx, o, item, reviewId, commit, direct, doer);
      await submit(trx, o, item, reviewId, type, body, commit, doer, isOfficial);
      if (drafts.length) {
        const draftId = await newReview(trx, o, item, REVIEW_TYPE.pending, doer, '', commit);
        await addComments(trx, o, item, draftId, commit, drafts, doer);
      }
    });
    if (type !== REVIEW_TYPE.pending) await emitReviewed(o, item, type, body, doer);
    return ok(await one(o, item, (await reviewById(db, item.issue.id, reviewId))!, req.principal));
  };

  const submitPendingReview = async (req: ApiRequest<SubmitReviewBody, unknown, ReviewParams>) => {
    const { o, item } = await loadItem(req, 'participate');
    const doer = req.principal!.user;
    const review = await requireReview(item, req.params.id, req.principal);
    if (review.type !== REVIEW_TYPE.pending) throw ApiError.unprocessable('only a pending review can be submitted');
    if (review.reviewer_id !== doer.id) throw ApiError.forbidden('only the author of a pending review may submit it');
    const type = reviewTypeOf(req.body.event);
    if (type === null || type === REVIEW_TYPE.pending)
      throw ApiError.unprocessable('submitting a review needs an event: APPROVED, REQUEST_CHANGES or COMMENT');
    const body = req.body.body ?? review.content;
    const commentCount = (await codeCommentsOf(deps, [review.id])).length;
    checkSubmit(item, type, body, commentCount, doer);
    const isOfficial = await verdictIsOfficial(o, item, type, doer);
    await db.transaction(async (trx) => {
      await submit(trx, o, item, review.id, type, body, item.pull.head_commit_id || review.commit_id, doer, isOfficial);
    });
    await emitReviewed(o, item, type, body, doer);
    return ok(await one(o, item, (await reviewById(db, item.issue.id, review.id))!, req.principal));
  };

  return { createReview, submitPendingReview };
}
