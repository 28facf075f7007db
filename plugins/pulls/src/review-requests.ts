import {
  ApiError,
  created,
  insertId,
  noContent,
  nowUnix,
  principalOf,
  type ApiRequest,
  type Principal,
  type UserInfo,
} from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type { PullDeps } from './pull-store';
import type { PullItem } from './pull-json';
import type { OpenedBase, PullService } from './pull-service';
import { REVIEW_TYPE, reviewJsons, toReview, type ReviewRow } from './review-store';
import type { IndexParams, ReviewActions } from './review-actions';

interface ReviewRequestBody {
  reviewers?: string[];
  team_reviewers?: string[];
}

/** The reviewers and teams a request names. */
interface Requested {
  targets: { id: number; info: UserInfo }[];
  teams: { id: number; name: string }[];
}

/** Who a review request names, and Gitea's checks of it. */
function requestChecks(deps: PullDeps) {
  const { db, users } = deps;

  const latestReviewOf = async (issueId: number, userId: number): Promise<ReviewRow | undefined> => {
    const raw = await db('review')
      .where({ issue_id: issueId, reviewer_id: userId })
      .whereNot('type', REVIEW_TYPE.pending)
      .orderBy('id', 'desc')
      .first();
    return raw ? toReview(raw) : undefined;
  };

  /** The users and (organization repositories) teams a request body names; 404 for an unknown one. */
  const requestedOf = async (o: OpenedBase, body: ReviewRequestBody) => {
    const targets: { id: number; info: UserInfo }[] = [];
    for (const name of new Set(body.reviewers ?? [])) {
      const user = await users.byName(name);
      if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
      targets.push({ id: user.id, info: user });
    }
    const teams: { id: number; name: string }[] = [];
    if (o.r.owner.type === 1) {
      for (const name of new Set(body.team_reviewers ?? [])) {
        const t = await deps.organizations.teamByName(o.r.owner.id, name);
        if (!t) throw ApiError.notFound(`team does not exist [name: ${name}]`);
        teams.push({ id: t.id, name: t.name });
      }
    }
    return { targets, teams };
  };

  /** Validate everything before changing anything (Gitea's IsValidReviewRequest). */
  const checkRequested = async (o: OpenedBase, item: PullItem, doer: UserInfo, requested: Requested, add: boolean) => {
    const { targets, teams } = requested;
    for (const t of targets) {
      const latest = await latestReviewOf(item.issue.id, t.id);
      if (add) {
        const perm = await deps.access.unitLevel(o.r, principalOf(t.info), 'pulls');
        if (perm === 'none')
          throw ApiError.unprocessable(`reviewer cannot read the pull requests of this repository [name: ${t.info.name}]`);
        if (t.id === item.issue.posterId)
          throw ApiError.unprocessable(`the poster of a pull request cannot be its reviewer [name: ${t.info.name}]`);
        const posterReRequest = doer.id === item.issue.posterId && !!latest && latest.type !== REVIEW_TYPE.request;
        if (!o.canWrite && !posterReRequest) throw ApiError.unprocessable('you may not choose reviewers for this pull request');
      } else {
        const ownRequest = !!latest && latest.type === REVIEW_TYPE.request && t.id === doer.id;
        if (!o.canWrite && !ownRequest && doer.id !== item.issue.posterId)
          throw ApiError.unprocessable('you may not remove reviewers of this pull request');
      }
    }
    if (teams.length && !o.canWrite) throw ApiError.unprocessable('you may not choose team reviewers for this pull request');
  };

  return { requestedOf, checkRequested };
}

/** The writes of review requests: their rows and timeline events. */
function requestWrites(deps: PullDeps, actions: ReviewActions) {
  const { db } = deps;
  const { official } = actions;

  /**
   * Add (when missing) or remove (when present) the request row of a reviewer or a team; a new
   * row's id goes to `createdIds`. Whether anything changed.
   */
  const toggleRequest = async (
    trx: Knex.Transaction,
    o: OpenedBase,
    item: PullItem,
    who: { reviewer_id: number } | { reviewer_team_id: number },
    change: { add: boolean; isOfficial: boolean; now: number; createdIds: number[] },
  ): Promise<boolean> => {
    const existing = await trx('review')
      .where({ issue_id: item.issue.id, ...who, type: REVIEW_TYPE.request })
      .first('id');
    if (change.add) {
      if (existing) return false;
      change.createdIds.push(
        await insertId(trx, 'review', {
          type: REVIEW_TYPE.request,
          reviewer_id: 0,
          reviewer_team_id: 0,
          ...who,
          repo_id: o.r.id,
          issue_id: item.issue.id,
          content: '',
          official: change.isOfficial,
          commit_id: '',
          stale: false,
          dismissed: false,
          created_unix: change.now,
          updated_unix: change.now,
        }),
      );
    } else {
      if (!existing) return false;
      await trx('review').where('id', Number(existing.id)).delete();
    }
    return true;
  };

  /** The review_request timeline event of a reviewer or a team being asked (or no longer). */
  const recordRequestEvent = (
    trx: Knex.Transaction,
    o: OpenedBase,
    item: PullItem,
    doer: UserInfo,
    who: { assigneeId: number } | { assigneeTeamId: number },
    add: boolean,
  ) =>
    deps.issues.recordEvent(
      {
        repositoryId: o.r.id,
        issueId: item.issue.id,
        actorId: doer.id,
        type: 'review_request',
        ...who,
        removedAssignee: !add,
      },
      trx,
    );

  /** Change the request rows and their timeline events in one transaction: the users changed and the rows created. */
  const applyRequested = async (o: OpenedBase, item: PullItem, doer: UserInfo, requested: Requested, add: boolean) => {
    const officialOf = new Map<number, boolean>();
    if (add) for (const t of requested.targets) officialOf.set(t.id, await official(o, item.pull, t.id));
    const changed: UserInfo[] = [];
    const createdIds: number[] = [];
    await db.transaction(async (trx) => {
      const now = nowUnix();
      for (const t of requested.targets) {
        const isOfficial = officialOf.get(t.id) ?? false;
        if (!(await toggleRequest(trx, o, item, { reviewer_id: t.id }, { add, isOfficial, now, createdIds }))) continue;
        await recordRequestEvent(trx, o, item, doer, { assigneeId: t.id }, add);
        changed.push(t.info);
      }
      for (const team of requested.teams) {
        if (!(await toggleRequest(trx, o, item, { reviewer_team_id: team.id }, { add, isOfficial: true, now, createdIds }))) continue;
        await recordRequestEvent(trx, o, item, doer, { assigneeTeamId: team.id }, add);
      }
    });
    return { changed, createdIds };
  };

  return { applyRequested };
}

/** Requested reviewers (Gitea's review requests: review rows of type request) and who may be asked. */
export function reviewRequestActions(deps: PullDeps, svc: PullService, actions: ReviewActions) {
  const { db, users } = deps;
  const { loadItem, links } = actions;
  const { requestedOf, checkRequested } = requestChecks(deps);
  const { applyRequested } = requestWrites(deps, actions);

  const reviewRequests = async (req: ApiRequest<ReviewRequestBody, unknown, IndexParams>, add: boolean) => {
    const { o, item } = await loadItem(req, 'participate');
    const doer = req.principal!.user;
    const requested = await requestedOf(o, req.body);
    await checkRequested(o, item, doer, requested, add);
    const { changed, createdIds } = await applyRequested(o, item, doer, requested, add);
    for (const reviewer of changed) {
      const user = await users.byId(reviewer.id);
      await svc.emit(
        o.r,
        add ? 'review_requested' : 'review_request_removed',
        item,
        doer,
        { requested_reviewer: user ? await users.toApi(user, null) : null },
        'pull_request_review_request',
      );
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
    const repo = o.r;
    const ids = new Set<number>();
    if (o.r.owner.type === 0) ids.add(o.r.owner.id);
    for (const id of await deps.repositories.collaboratorIds(repo.id)) ids.add(id);
    if (o.r.owner.type === 1) for (const id of await deps.organizations.memberIds(o.r.owner.id)) ids.add(id);
    if (!repo.isPrivate) for (const id of await deps.repositories.watcherIds(repo.id)) ids.add(id);
    const out: { name: string; json: Record<string, unknown> }[] = [];
    for (const id of ids) {
      const user = await users.byId(id);
      if (!user || user.type !== 0) continue;
      const perm = await deps.access.unitLevel(repo, principalOf(user), 'pulls');
      if (perm !== 'none') out.push({ name: user.name.toLowerCase(), json: await users.toApi(user, viewer) });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((x) => x.json);
  };

  return { reviewRequests, reviewerCandidates };
}

export type { ReviewRequestBody };
