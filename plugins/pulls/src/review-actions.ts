import type { Knex } from 'knex';
import { ApiError, actsAsAdmin, insertId, nowUnix, principalOf, type ApiRequest, type Principal, type UserInfo } from '@hearth/plugin-api';
import type { Issue } from '@hearth/plugin-issues';
import type { PullDeps, PullRow } from './pull-store';
import type { PullItem } from './pull-json';
import type { OpenedBase, PullService } from './pull-service';
import { REVIEW_EVENT, REVIEW_TYPE, reviewById, reviewJsons, type ReviewLinks, type ReviewRow } from './review-store';

export type IndexParams = { owner: string; repo: string; index: number };
type Item = PullItem;

/** An inline comment of a review request body (CreatePullReviewComment). */
export interface ReviewCommentBody {
  path?: string;
  body?: string;
  old_position?: number;
  new_position?: number;
  pending_review?: boolean;
}

/** Lines of context a review comment's diff hunk keeps up to the commented line (Gitea's default). */
const HUNK_LINES = 4;

/**
 * The diff hunk of a code comment, as Gitea's CutDiffAroundLine: the file header and up to
 * HUNK_LINES lines of the hunk ending at the commented line, with a recomputed hunk header.
 * `line` is positive for the new side, negative for the old; '' when the line is not in the diff.
 */
export function cutDiffAroundLine(diff: string, line: number): string {
  const lines = diff.split('\n');
  const header = lines.filter((l, i) => i < 6 && (l.startsWith('--- ') || l.startsWith('+++ ')));
  const target = Math.abs(line);
  const oldSide = line < 0;
  let hunkStart = -1;
  let oldNo = 0;
  let newNo = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l);
    if (h) {
      hunkStart = i + 1;
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      continue;
    }
    if (hunkStart < 0 || l.startsWith('\\')) continue;
    const kind = l[0];
    if (kind !== ' ' && kind !== '+' && kind !== '-') continue;
    const hit = oldSide ? kind !== '+' && oldNo === target : kind !== '-' && newNo === target;
    if (hit) {
      const from = Math.max(hunkStart, i - HUNK_LINES + 1);
      const taken = lines.slice(from, i + 1).filter((x) => !x.startsWith('\\'));
      // Line numbers at `from`: walk back from the current position.
      let o = oldNo;
      let n = newNo;
      for (let j = i - 1; j >= from; j--) {
        const k = lines[j][0];
        if (k === ' ' || k === '-') o--;
        if (k === ' ' || k === '+') n--;
      }
      const oc = taken.filter((x) => x[0] === ' ' || x[0] === '-').length;
      const nc = taken.filter((x) => x[0] === ' ' || x[0] === '+').length;
      return [...header, `@@ -${o},${oc} +${n},${nc} @@`, ...taken].join('\n');
    }
    if (kind === ' ' || kind === '-') oldNo++;
    if (kind === ' ' || kind === '+') newNo++;
  }
  return '';
}

/** Finding a pull request's reviews as the viewer may see them, their JSON, and whose verdicts count. */
function reviewLookups(deps: PullDeps, svc: PullService) {
  const { db, users } = deps;
  const links = (o: OpenedBase, issue: Issue): ReviewLinks => ({
    prHtml: `${deps.forge.appUrl}${o.r.owner.name}/${o.r.name}/pulls/${issue.index}`,
  });
  const visible = (review: ReviewRow, viewer: Principal | null): boolean =>
    review.type !== REVIEW_TYPE.pending || (!!viewer && (viewer.user.id === review.reviewer_id || actsAsAdmin(viewer)));
  const requireReview = async (item: Item, id: number, viewer: Principal | null): Promise<ReviewRow> => {
    const review = await reviewById(db, item.issue.id, id);
    if (!review || !visible(review, viewer)) throw ApiError.notFound(`review does not exist [id: ${id}]`);
    return review;
  };
  const one = async (o: OpenedBase, item: Item, review: ReviewRow, viewer: Principal | null) =>
    (await reviewJsons(deps, [review], links(o, item.issue), item.pull.head_commit_id, viewer))[0];

  /** Whether a user's approval or rejection counts (Gitea's IsOfficialReviewer). */
  const official = async (o: OpenedBase, pull: PullRow, userId: number): Promise<boolean> => {
    const user = await users.byId(userId);
    if (!user) return false;
    const perm = await deps.access.unitLevel(o.r, principalOf(user), 'code');
    const hasWrite = perm === 'write' || perm === 'admin';
    const rule = await deps.protection.ruleFor(o.r.id, pull.base_branch);
    return rule ? deps.protection.isOfficialReviewer(rule, userId, hasWrite) : hasWrite;
  };

  const loadItem = async (req: ApiRequest<any, any, IndexParams>, need: 'read' | 'participate') => {
    const o = await svc.open(req, need);
    return { o, item: await svc.load(o.r, req.params.index) };
  };

  return { links, visible, requireReview, one, official, loadItem };
}

/** Gitea's checks of a review, and the writes of reviews and their comments. */
function reviewWrites(deps: PullDeps, svc: PullService, official: ReviewLookups['official']) {
  /** A code comment's diff hunk between the merge base and the reviewed commit. */
  const hunkFor = async (o: OpenedBase, pull: PullRow, commit: string, path: string, line: number): Promise<string> => {
    if (!pull.merge_base || !commit || !line) return '';
    const res = await deps.git.run(o.r.gitDir, ['diff', '--no-color', '--no-ext-diff', '-U3', pull.merge_base, commit, '--', path], {
      okCodes: [1, 128],
      env: { GIT_LITERAL_PATHSPECS: '1' },
    });
    return res.code === 0 ? cutDiffAroundLine(res.stdout.toString('utf8'), line) : '';
  };

  const validateComments = (comments: ReviewCommentBody[]) => {
    for (const c of comments) {
      if (!c.path || !c.path.trim())
        throw ApiError.unprocessable('a review comment needs a path', { errors: [{ field: 'comments.path', message: 'required' }] });
      if (!c.body || !c.body.trim())
        throw ApiError.unprocessable('a review comment needs a body', { errors: [{ field: 'comments.body', message: 'required' }] });
      if ((c.new_position ?? 0) < 0 || (c.old_position ?? 0) < 0) throw ApiError.unprocessable('positions are line numbers (>= 0)');
    }
  };

  /** Gitea's checks of a review's type before it is submitted. */
  const checkSubmit = (item: Item, type: number, body: string, commentCount: number, doer: UserInfo) => {
    if ((type === REVIEW_TYPE.approve || type === REVIEW_TYPE.reject) && item.issue.posterId === doer.id) {
      throw ApiError.unprocessable(
        type === REVIEW_TYPE.approve ? 'approve your own pull is not allowed' : 'reject your own pull is not allowed',
      );
    }
    if ((type === REVIEW_TYPE.comment || type === REVIEW_TYPE.reject) && !body.trim() && commentCount === 0) {
      throw ApiError.unprocessable(
        `review event ${type === REVIEW_TYPE.comment ? 'COMMENT' : 'REQUEST_CHANGES'} requires a body or a comment`,
      );
    }
    if ((type === REVIEW_TYPE.approve || type === REVIEW_TYPE.reject) && (item.issue.isClosed || item.pull.has_merged)) {
      throw ApiError.unprocessable("can't approve or request changes on a closed or merged pull request");
    }
  };

  /** Insert inline comments into a review (inside a transaction). */
  const addComments = async (
    trx: Knex.Transaction,
    o: OpenedBase,
    item: Item,
    reviewId: number,
    commit: string,
    comments: ReviewCommentBody[],
    doer: UserInfo,
  ) => {
    for (const c of comments) {
      const line = c.new_position && c.new_position > 0 ? c.new_position : c.old_position && c.old_position > 0 ? -c.old_position : 0;
      const patch = await hunkFor(o, item.pull, commit, c.path!, line);
      await deps.issues.addReviewComment(
        {
          repositoryId: o.r.id,
          issueId: item.issue.id,
          posterId: doer.id,
          body: c.body!,
          reviewId,
          treePath: c.path!,
          line,
          patch,
          commitSha: commit,
        },
        trx,
      );
    }
  };

  /**
   * Turn a review into a submitted one of `type` (it may be pending or new): content, commit,
   * official flag (computed before the transaction: clears the reviewer's earlier official
   * verdicts), the timeline comment, and the reviewer's open request is answered.
   */
  const submit = async (
    trx: Knex.Transaction,
    o: OpenedBase,
    item: Item,
    reviewId: number,
    type: number,
    body: string,
    commit: string,
    doer: UserInfo,
    isOfficial: boolean,
  ) => {
    if (isOfficial) {
      await trx('review')
        .where({ issue_id: item.issue.id, reviewer_id: doer.id })
        .whereIn('type', [REVIEW_TYPE.approve, REVIEW_TYPE.reject])
        .update({ official: false });
    }
    await trx('review')
      .where('id', reviewId)
      .update({ type, content: body, commit_id: commit, official: isOfficial, updated_unix: nowUnix() });
    await trx('review').where({ issue_id: item.issue.id, reviewer_id: doer.id, type: REVIEW_TYPE.request }).delete();
    await deps.issues.recordEvent(
      { repositoryId: o.r.id, issueId: item.issue.id, actorId: doer.id, type: 'review', content: body, reviewId, commitSha: commit },
      trx,
    );
    await deps.issues.touch(item.issue.id, trx);
  };

  const verdictIsOfficial = async (o: OpenedBase, item: Item, type: number, doer: UserInfo): Promise<boolean> =>
    (type === REVIEW_TYPE.approve || type === REVIEW_TYPE.reject) && official(o, item.pull, doer.id);

  const emitReviewed = async (o: OpenedBase, item: Item, type: number, body: string, doer: UserInfo) => {
    const event = REVIEW_EVENT[type];
    if (!event) return;
    await svc.emit(o.r, 'reviewed', item, doer, { review: { type: event, content: body } }, event);
  };

  const newReview = async (
    trx: Knex.Transaction,
    o: OpenedBase,
    item: Item,
    type: number,
    doer: UserInfo,
    body: string,
    commit: string,
  ) => {
    const now = nowUnix();
    return insertId(trx, 'review', {
      type,
      reviewer_id: doer.id,
      reviewer_team_id: 0,
      repo_id: o.r.id,
      issue_id: item.issue.id,
      content: body,
      official: false,
      commit_id: commit,
      stale: false,
      dismissed: false,
      created_unix: now,
      updated_unix: now,
    });
  };

  return { hunkFor, validateComments, checkSubmit, addComments, submit, verdictIsOfficial, emitReviewed, newReview };
}

type ReviewLookups = ReturnType<typeof reviewLookups>;

/** What the review routes share: lookups, Gitea's checks, and the writes of reviews and their comments. */
export function reviewActions(deps: PullDeps, svc: PullService) {
  const { links, visible, requireReview, one, official, loadItem } = reviewLookups(deps, svc);
  const { hunkFor, validateComments, checkSubmit, addComments, submit, verdictIsOfficial, emitReviewed, newReview } = reviewWrites(
    deps,
    svc,
    official,
  );
  return {
    links,
    visible,
    requireReview,
    one,
    official,
    hunkFor,
    validateComments,
    checkSubmit,
    addComments,
    submit,
    verdictIsOfficial,
    emitReviewed,
    newReview,
    loadItem,
  };
}

export type ReviewActions = ReturnType<typeof reviewActions>;
