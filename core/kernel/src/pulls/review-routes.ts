import type { Knex } from 'knex';
import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type OperationAccess, type Principal, type UserInfo } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { INDEX_PARAMS, list } from '../issues/issue-context';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import { recordIssueEvent, COMMENT_TYPE } from '../issues/timeline';
import type { IssueRow } from '../issues/issue-store';
import { insertId } from '../orgs/org-store';
import { runGit } from '../repos/git';
import { AttachmentStore } from '../attachments/attachment-store';
import { nowUnix } from '../users/models';
import { setRequestedReviewersLoader } from './pull-json';
import type { PullRow } from './pull-store';
import { actsAsAdmin } from '../access/policy';
import { PULLS_READ, type OpenedBase, type PullService } from './pull-service';
import { isOfficialReviewer, ruleForBranch } from '../protection/branch-protection-store';
import { principalOf } from '../access/readable-repos';
import {
  REVIEW_EVENT, REVIEW_TYPE, codeCommentsOf, loadRequestedReviewers, pendingReviewOf, reviewById, reviewCommentJsons, reviewJsons, reviewTypeOf,
  toReview, type ReviewLinks, type ReviewRow,
} from './review-store';

type IndexParams = { owner: string; repo: string; index: number };
type ReviewParams = IndexParams & { id: number };
type Item = { issue: IssueRow; pull: PullRow };

interface ReviewCommentBody {
  path?: string;
  body?: string;
  old_position?: number;
  new_position?: number;
  pending_review?: boolean;
}
interface CreateReviewBody {
  body?: string;
  event?: string;
  commit_id?: string;
  comments?: ReviewCommentBody[];
}
interface SubmitReviewBody {
  body?: string;
  event?: string;
}
interface DismissBody {
  message?: string;
  priors?: boolean;
}
interface ReviewRequestBody {
  reviewers?: string[];
  team_reviewers?: string[];
}

const REVIEW_PARAMS: JsonSchema = {
  type: 'object',
  properties: { ...(INDEX_PARAMS.properties as object), id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the review' } },
  required: ['owner', 'repo', 'index', 'id'],
};

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

/**
 * Pull request reviews (list, create with inline comments, get, submit a pending one, delete,
 * comments, dismiss/undismiss) and requested reviewers, after Gitea 1.20. A review is a `review`
 * row; submitting it records a type-22 timeline comment; inline comments are type-21 comment rows
 * with review_id. A pending review is visible to its author only (and site admins).
 */
export function reviewOperations(deps: KernelServices, svc: PullService): ApiOperation[] {
  const { db, users, repos, http } = deps;
  setRequestedReviewersLoader(loadRequestedReviewers);
  const attachments = new AttachmentStore(db, deps.config);
  const base = { tag: 'repository', scopes: ['repository'] as ['repository'] };
  /** Dismissing and undismissing reviews: admins of the pulls unit (Gitea's "Must be repo admin"). */
  const PULLS_ADMIN: OperationAccess = { repo: { need: 'admin', unit: 'pulls' } };

  const links = (o: OpenedBase, issue: IssueRow): ReviewLinks => ({
    prHtml: `${deps.config.server.ROOT_URL}${o.r.owner.name}/${o.r.repo.name}/pulls/${issue.index}`,
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
    const perm = await repos.access.unitPermission(o.r.repo, principalOf(users.toInfo(user)), 'code', o.r.owner);
    const hasWrite = perm === 'write' || perm === 'admin';
    const rule = await ruleForBranch(db, o.r.repo.id, pull.base_branch);
    return rule ? isOfficialReviewer(db, rule, userId, hasWrite) : hasWrite;
  };

  /** A code comment's diff hunk between the merge base and the reviewed commit. */
  const hunkFor = async (o: OpenedBase, pull: PullRow, commit: string, path: string, line: number): Promise<string> => {
    if (!pull.merge_base || !commit || !line) return '';
    const res = await runGit(['diff', '--no-color', '--no-ext-diff', '-U3', pull.merge_base, commit, '--', path], {
      gitDir: o.r.gitDir, okCodes: [1, 128], env: { GIT_LITERAL_PATHSPECS: '1' },
    });
    return res.code === 0 ? cutDiffAroundLine(res.stdout.toString('utf8'), line) : '';
  };

  const validateComments = (comments: ReviewCommentBody[]) => {
    for (const c of comments) {
      if (!c.path || !c.path.trim()) throw ApiError.unprocessable('a review comment needs a path', { errors: [{ field: 'comments.path', message: 'required' }] });
      if (!c.body || !c.body.trim()) throw ApiError.unprocessable('a review comment needs a body', { errors: [{ field: 'comments.body', message: 'required' }] });
      if ((c.new_position ?? 0) < 0 || (c.old_position ?? 0) < 0) throw ApiError.unprocessable('positions are line numbers (>= 0)');
    }
  };

  /** Gitea's checks of a review's type before it is submitted. */
  const checkSubmit = (item: Item, type: number, body: string, commentCount: number, doer: UserInfo) => {
    if ((type === REVIEW_TYPE.approve || type === REVIEW_TYPE.reject) && item.issue.poster_id === doer.id) {
      throw ApiError.unprocessable(type === REVIEW_TYPE.approve ? 'approve your own pull is not allowed' : 'reject your own pull is not allowed');
    }
    if ((type === REVIEW_TYPE.comment || type === REVIEW_TYPE.reject) && !body.trim() && commentCount === 0) {
      throw ApiError.unprocessable(`review event ${type === REVIEW_TYPE.comment ? 'COMMENT' : 'REQUEST_CHANGES'} requires a body or a comment`);
    }
    if ((type === REVIEW_TYPE.approve || type === REVIEW_TYPE.reject) && (item.issue.is_closed || item.pull.has_merged)) {
      throw ApiError.unprocessable("can't approve or request changes on a closed or merged pull request");
    }
  };

  /** Insert inline comments into a review (inside a transaction). */
  const addComments = async (trx: Knex.Transaction, o: OpenedBase, item: Item, reviewId: number, commit: string, comments: ReviewCommentBody[], doer: UserInfo) => {
    const now = nowUnix();
    for (const c of comments) {
      const line = c.new_position && c.new_position > 0 ? c.new_position : c.old_position && c.old_position > 0 ? -c.old_position : 0;
      const patch = await hunkFor(o, item.pull, commit, c.path!, line);
      await insertId(trx, 'comment', {
        type: COMMENT_TYPE.code, repo_id: o.r.repo.id, issue_id: item.issue.id, poster_id: doer.id, content: c.body, review_id: reviewId,
        tree_path: c.path, line, patch, commit_sha: commit, created_unix: now, updated_unix: now,
      });
    }
  };

  /**
   * Turn a review into a submitted one of `type` (it may be pending or new): content, commit,
   * official flag (computed before the transaction: clears the reviewer's earlier official
   * verdicts), the timeline comment, and the reviewer's open request is answered.
   */
  const submit = async (trx: Knex.Transaction, o: OpenedBase, item: Item, reviewId: number, type: number, body: string, commit: string, doer: UserInfo, isOfficial: boolean) => {
    if (isOfficial) {
      await trx('review').where({ issue_id: item.issue.id, reviewer_id: doer.id }).whereIn('type', [REVIEW_TYPE.approve, REVIEW_TYPE.reject]).update({ official: false });
    }
    await trx('review').where('id', reviewId).update({ type, content: body, commit_id: commit, official: isOfficial, updated_unix: nowUnix() });
    await trx('review').where({ issue_id: item.issue.id, reviewer_id: doer.id, type: REVIEW_TYPE.request }).delete();
    await recordIssueEvent(trx, { repoId: o.r.repo.id, issueId: item.issue.id, actorId: doer.id, type: 'review', content: body, review_id: reviewId, commit_sha: commit });
    await trx('issue').where('id', item.issue.id).update({ updated_unix: nowUnix() });
  };

  const verdictIsOfficial = async (o: OpenedBase, item: Item, type: number, doer: UserInfo): Promise<boolean> =>
    (type === REVIEW_TYPE.approve || type === REVIEW_TYPE.reject) && official(o, item.pull, doer.id);

  const emitReviewed = async (o: OpenedBase, item: Item, type: number, body: string, doer: UserInfo) => {
    const event = REVIEW_EVENT[type];
    if (!event) return;
    await svc.emit(o.r, 'reviewed', item, doer, { review: { type: event, content: body } }, event);
  };

  const newReview = async (trx: Knex.Transaction, o: OpenedBase, item: Item, type: number, doer: UserInfo, body: string, commit: string) => {
    const now = nowUnix();
    return insertId(trx, 'review', {
      type, reviewer_id: doer.id, reviewer_team_id: 0, repo_id: o.r.repo.id, issue_id: item.issue.id, content: body, official: false, commit_id: commit,
      stale: false, dismissed: false, created_unix: now, updated_unix: now,
    });
  };

  const loadItem = async (req: ApiRequest<any, any, IndexParams>, need: 'read' | 'participate') => {
    const o = await svc.open(req, need);
    return { o, item: await svc.load(o.r, req.params.index) };
  };

  // --- requested reviewers ------------------------------------------------------------------------

  /** The reviewer's latest review row of a pull request (request rows included). */
  const latestReviewOf = async (issueId: number, userId: number): Promise<ReviewRow | undefined> => {
    const raw = await db('review').where({ issue_id: issueId, reviewer_id: userId }).whereNot('type', REVIEW_TYPE.pending).orderBy('id', 'desc').first();
    return raw ? toReview(raw) : undefined;
  };

  const reviewRequests = async (req: ApiRequest<ReviewRequestBody, unknown, IndexParams>, add: boolean) => {
    const { o, item } = await loadItem(req, 'participate');
    const doer = req.principal!.user;
    const targets: { id: number; info: UserInfo; row: Awaited<ReturnType<typeof users.byId>> }[] = [];
    for (const name of new Set(req.body.reviewers ?? [])) {
      const row = await users.byName(name);
      if (!row || row.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
      targets.push({ id: row.id, info: users.toInfo(row), row });
    }
    const teams: { id: number; name: string }[] = [];
    if (o.r.owner.type === 1) {
      for (const name of new Set(req.body.team_reviewers ?? [])) {
        const t = await db('teams').where({ org_id: o.r.owner.id, lower_name: name.toLowerCase() }).first('id', 'name');
        if (!t) throw ApiError.notFound(`team does not exist [name: ${name}]`);
        teams.push({ id: Number(t.id), name: String(t.name) });
      }
    }
    // Validate everything before changing anything (Gitea's IsValidReviewRequest).
    for (const t of targets) {
      const latest = await latestReviewOf(item.issue.id, t.id);
      if (add) {
        const perm = await repos.access.unitPermission(o.r.repo, principalOf(t.info), 'pulls', o.r.owner);
        if (perm === 'none') throw ApiError.unprocessable(`reviewer cannot read the pull requests of this repository [name: ${t.info.name}]`);
        if (t.id === item.issue.poster_id) throw ApiError.unprocessable(`the poster of a pull request cannot be its reviewer [name: ${t.info.name}]`);
        const posterReRequest = doer.id === item.issue.poster_id && !!latest && latest.type !== REVIEW_TYPE.request;
        if (!o.canWrite && !posterReRequest) throw ApiError.unprocessable('you may not choose reviewers for this pull request');
      } else {
        const ownRequest = !!latest && latest.type === REVIEW_TYPE.request && t.id === doer.id;
        if (!o.canWrite && !ownRequest && doer.id !== item.issue.poster_id) throw ApiError.unprocessable('you may not remove reviewers of this pull request');
      }
    }
    if (teams.length && !o.canWrite) throw ApiError.unprocessable('you may not choose team reviewers for this pull request');

    const officialOf = new Map<number, boolean>();
    if (add) for (const t of targets) officialOf.set(t.id, await official(o, item.pull, t.id));
    const changed: UserInfo[] = [];
    const createdIds: number[] = [];
    await db.transaction(async (trx) => {
      const now = nowUnix();
      for (const t of targets) {
        const existing = await trx('review').where({ issue_id: item.issue.id, reviewer_id: t.id, type: REVIEW_TYPE.request }).first('id');
        if (add) {
          if (existing) continue;
          const isOfficial = officialOf.get(t.id) ?? false;
          createdIds.push(await insertId(trx, 'review', {
            type: REVIEW_TYPE.request, reviewer_id: t.id, reviewer_team_id: 0, repo_id: o.r.repo.id, issue_id: item.issue.id, content: '', official: isOfficial,
            commit_id: '', stale: false, dismissed: false, created_unix: now, updated_unix: now,
          }));
        } else {
          if (!existing) continue;
          await trx('review').where('id', Number(existing.id)).delete();
        }
        await recordIssueEvent(trx, { repoId: o.r.repo.id, issueId: item.issue.id, actorId: doer.id, type: 'review_request', assignee_id: t.id, removed_assignee: !add });
        changed.push(t.info);
      }
      for (const team of teams) {
        const existing = await trx('review').where({ issue_id: item.issue.id, reviewer_team_id: team.id, type: REVIEW_TYPE.request }).first('id');
        if (add) {
          if (existing) continue;
          createdIds.push(await insertId(trx, 'review', {
            type: REVIEW_TYPE.request, reviewer_id: 0, reviewer_team_id: team.id, repo_id: o.r.repo.id, issue_id: item.issue.id, content: '', official: true,
            commit_id: '', stale: false, dismissed: false, created_unix: now, updated_unix: now,
          }));
        } else {
          if (!existing) continue;
          await trx('review').where('id', Number(existing.id)).delete();
        }
        await recordIssueEvent(trx, { repoId: o.r.repo.id, issueId: item.issue.id, actorId: doer.id, type: 'review_request', assignee_team_id: team.id, removed_assignee: !add });
      }
    });
    for (const reviewer of changed) {
      const row = await users.byId(reviewer.id);
      await svc.emit(o.r, add ? 'review_requested' : 'review_request_removed', item, doer, { requested_reviewer: row ? users.toApi(row, null) : null }, 'pull_request_review_request');
    }
    if (!add) return noContent();
    const rows = createdIds.length ? (await db('review').whereIn('id', createdIds).orderBy('id')).map(toReview) : [];
    return created(await reviewJsons(deps, rows, links(o, item.issue), item.pull.head_commit_id, req.principal));
  };

  /**
   * Who may be asked for a review (Gitea's GetReviewers): the owner, collaborators, members of the
   * owning organization and (public repositories) watchers — whoever of them can read the pull
   * requests — sorted by name.
   */
  const reviewerCandidates = async (o: OpenedBase, viewer: Principal | null): Promise<Record<string, unknown>[]> => {
    const repo = o.r.repo;
    const ids = new Set<number>();
    if (o.r.owner.type === 0) ids.add(o.r.owner.id);
    for (const row of await db('collaborations').where('repo_id', repo.id).select('user_id')) ids.add(Number(row.user_id));
    if (o.r.owner.type === 1) for (const row of await db('org_users').where('org_id', o.r.owner.id).select('uid')) ids.add(Number(row.uid));
    if (!repo.is_private) {
      for (const row of await db('watch').where('repo_id', repo.id).whereIn('mode', [1, 3]).select('user_id')) ids.add(Number(row.user_id));
    }
    const out: { name: string; json: Record<string, unknown> }[] = [];
    for (const id of ids) {
      const row = await users.byId(id);
      if (!row || row.type !== 0) continue;
      const perm = await repos.access.unitPermission(repo, principalOf(users.toInfo(row)), 'pulls', o.r.owner);
      if (perm !== 'none') out.push({ name: row.name.toLowerCase(), json: users.toApi(row, viewer) });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((x) => x.json);
  };

  return [
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/reviewers', operationId: 'repoGetReviewers', summary: 'Return all users that can be requested to review in this repo',
      params: OWNER_REPO_PARAMS, responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => ok(await reviewerCandidates(await svc.open(req, 'read'), req.principal)),
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/reviews', operationId: 'repoListPullReviews', summary: 'List all reviews for a pull request',
      params: INDEX_PARAMS, paged: true, responses: { 200: list('PullReview'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const { o, item } = await loadItem(req, 'read');
        const viewer = req.principal;
        let q = db('review').where('issue_id', item.issue.id);
        if (!actsAsAdmin(viewer)) q = q.where((w) => w.whereNot('type', REVIEW_TYPE.pending).orWhere('reviewer_id', viewer?.user.id ?? -1));
        const [rows, total] = await Promise.all([
          q.clone().orderBy('id', 'asc').offset(req.paging.offset).limit(req.paging.limit),
          q.clone().count({ n: '*' }).first(),
        ]);
        return http.paged(req as ApiRequest<any, any, any>, await reviewJsons(deps, rows.map(toReview), links(o, item.issue), item.pull.head_commit_id, viewer), Number(total?.n ?? 0));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews', operationId: 'repoCreatePullReview', summary: 'Create a review to an pull request',
      auth: 'required', params: INDEX_PARAMS, body: 'CreatePullReviewOptions', bodyRequired: true, responses: { 200: 'PullReview', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateReviewBody, unknown, IndexParams>) => {
        const { o, item } = await loadItem(req, 'participate');
        const doer = req.principal!.user;
        const type = reviewTypeOf(req.body.event);
        if (type === null) throw ApiError.unprocessable(`unknown review event "${req.body.event}": use APPROVED, REQUEST_CHANGES, COMMENT or PENDING`);
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
          const drafted = current ? (await codeCommentsOf(db, [current.id])).length : 0;
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
      },
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', operationId: 'repoGetPullReview', summary: 'Get a specific review for a pull request',
      params: REVIEW_PARAMS, responses: { 200: 'PullReview', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'read');
        return ok(await one(o, item, await requireReview(item, req.params.id, req.principal), req.principal));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', operationId: 'repoSubmitPullReview', summary: 'Submit a pending review to an pull request',
      auth: 'required', params: REVIEW_PARAMS, body: 'SubmitPullReviewOptions', bodyRequired: true, responses: { 200: 'PullReview', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<SubmitReviewBody, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'participate');
        const doer = req.principal!.user;
        const review = await requireReview(item, req.params.id, req.principal);
        if (review.type !== REVIEW_TYPE.pending) throw ApiError.unprocessable('only a pending review can be submitted');
        if (review.reviewer_id !== doer.id) throw ApiError.forbidden('only the author of a pending review may submit it');
        const type = reviewTypeOf(req.body.event);
        if (type === null || type === REVIEW_TYPE.pending) throw ApiError.unprocessable('submitting a review needs an event: APPROVED, REQUEST_CHANGES or COMMENT');
        const body = req.body.body ?? review.content;
        const commentCount = (await codeCommentsOf(db, [review.id])).length;
        checkSubmit(item, type, body, commentCount, doer);
        const isOfficial = await verdictIsOfficial(o, item, type, doer);
        await db.transaction(async (trx) => {
          await submit(trx, o, item, review.id, type, body, item.pull.head_commit_id || review.commit_id, doer, isOfficial);
        });
        await emitReviewed(o, item, type, body, doer);
        return ok(await one(o, item, (await reviewById(db, item.issue.id, review.id))!, req.principal));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'delete', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}', operationId: 'repoDeletePullReview', summary: 'Delete a specific review from a pull request',
      auth: 'required', params: REVIEW_PARAMS, responses: { 204: 'deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { item } = await loadItem(req, 'participate');
        const doer = req.principal!.user;
        const review = await requireReview(item, req.params.id, req.principal);
        if (review.type === REVIEW_TYPE.request) throw ApiError.unprocessable('a review request is removed through requested_reviewers, not deleted');
        if (!actsAsAdmin(req.principal) && review.reviewer_id !== doer.id) throw ApiError.forbidden('only the reviewer or a site admin may delete a review');
        const commentIds = (await db('comment').where({ issue_id: item.issue.id, review_id: review.id }).whereIn('type', [COMMENT_TYPE.code, COMMENT_TYPE.review]).select('id'))
          .map((c: { id: number }) => Number(c.id));
        const files = await attachments.listOf('comment', commentIds);
        await db.transaction(async (trx) => {
          if (commentIds.length) {
            await trx('reaction').whereIn('comment_id', commentIds).delete();
            await trx('comment').whereIn('id', commentIds).delete();
          }
          await trx('review').where('id', review.id).delete();
        });
        await attachments.remove(files);
        return noContent();
      },
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments', operationId: 'repoGetPullReviewComments', summary: 'Get a specific review for a pull request',
      params: REVIEW_PARAMS, responses: { 200: list('PullReviewComment'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'read');
        const review = await requireReview(item, req.params.id, req.principal);
        return ok(await reviewCommentJsons(deps, await codeCommentsOf(db, [review.id]), links(o, item.issue), req.principal));
      },
    },
    {
      ...base, access: PULLS_ADMIN, method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/dismissals', operationId: 'repoDismissPullReview', summary: 'Dismiss a review for a pull request',
      auth: 'required', params: REVIEW_PARAMS, body: 'DismissPullReviewOptions', responses: { 200: 'PullReview', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<DismissBody | undefined, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'participate');
        const doer = req.principal!.user;
        const review = await requireReview(item, req.params.id, req.principal);
        if (review.type !== REVIEW_TYPE.approve && review.type !== REVIEW_TYPE.reject) {
          throw ApiError.unprocessable('only an approval or a request for changes can be dismissed');
        }
        if (item.issue.is_closed || item.pull.has_merged) throw ApiError.unprocessable('the reviews of a closed pull request cannot be dismissed');
        const message = req.body?.message ?? '';
        await db.transaction(async (trx) => {
          let q = trx('review').where({ issue_id: item.issue.id, dismissed: false });
          q = req.body?.priors
            ? q.where('reviewer_id', review.reviewer_id).where('id', '<=', review.id).whereIn('type', [REVIEW_TYPE.approve, REVIEW_TYPE.reject])
            : q.where('id', review.id);
          await q.update({ dismissed: true, updated_unix: nowUnix() });
          await recordIssueEvent(trx, { repoId: o.r.repo.id, issueId: item.issue.id, actorId: doer.id, type: 'dismiss_review', content: message, review_id: review.id, assignee_id: review.reviewer_id });
        });
        return ok(await one(o, item, (await reviewById(db, item.issue.id, review.id))!, req.principal));
      },
    },
    {
      ...base, access: PULLS_ADMIN, method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/undismissals', operationId: 'repoUnDismissPullReview', summary: 'Cancel to dismiss a review for a pull request',
      auth: 'required', params: REVIEW_PARAMS, responses: { 200: 'PullReview', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, ReviewParams>) => {
        const { o, item } = await loadItem(req, 'participate');
        const review = await requireReview(item, req.params.id, req.principal);
        if (review.type !== REVIEW_TYPE.approve && review.type !== REVIEW_TYPE.reject) {
          throw ApiError.unprocessable('only an approval or a request for changes can be undismissed');
        }
        if (item.issue.is_closed || item.pull.has_merged) throw ApiError.unprocessable('the reviews of a closed pull request cannot be undismissed');
        await db('review').where('id', review.id).update({ dismissed: false, updated_unix: nowUnix() });
        return ok(await one(o, item, (await reviewById(db, item.issue.id, review.id))!, req.principal));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers', operationId: 'repoCreatePullReviewRequests', summary: 'create review requests for a pull request',
      auth: 'required', params: INDEX_PARAMS, body: 'PullReviewRequestOptions', bodyRequired: true, responses: { 201: list('PullReview'), 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<ReviewRequestBody, unknown, IndexParams>) => reviewRequests(req, true),
    },
    {
      ...base, access: PULLS_READ, method: 'delete', path: '/repos/{owner}/{repo}/pulls/{index}/requested_reviewers', operationId: 'repoDeletePullReviewRequests', summary: 'cancel review requests for a pull request',
      auth: 'required', params: INDEX_PARAMS, body: 'PullReviewRequestOptions', bodyRequired: true, responses: { 204: 'deleted', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<ReviewRequestBody, unknown, IndexParams>) => reviewRequests(req, false),
    },
  ];
}
