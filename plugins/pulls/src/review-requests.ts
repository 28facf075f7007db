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
import type { PullDeps } from './pull-store';
import type { OpenedBase, PullService } from './pull-service';
import { REVIEW_TYPE, reviewJsons, toReview, type ReviewRow } from './review-store';
import type { IndexParams, ReviewActions } from './review-actions';

interface ReviewRequestBody {
  reviewers?: string[];
  team_reviewers?: string[];
}

/** Requested reviewers (Gitea's review requests: review rows of type request) and who may be asked. */
export function reviewRequestActions(deps: PullDeps, svc: PullService, actions: ReviewActions) {
  const { db, users } = deps;
  const { loadItem, official, links } = actions;

  const latestReviewOf = async (issueId: number, userId: number): Promise<ReviewRow | undefined> => {
    const raw = await db('review')
      .where({ issue_id: issueId, reviewer_id: userId })
      .whereNot('type', REVIEW_TYPE.pending)
      .orderBy('id', 'desc')
      .first();
    return raw ? toReview(raw) : undefined;
  };

  const reviewRequests = async (req: ApiRequest<ReviewRequestBody, unknown, IndexParams>, add: boolean) => {
    const { o, item } = await loadItem(req, 'participate');
    const doer = req.principal!.user;
    const targets: { id: number; info: UserInfo }[] = [];
    for (const name of new Set(req.body.reviewers ?? [])) {
      const user = await users.byName(name);
      if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
      targets.push({ id: user.id, info: user });
    }
    const teams: { id: number; name: string }[] = [];
    if (o.r.owner.type === 1) {
      for (const name of new Set(req.body.team_reviewers ?? [])) {
        const t = await deps.organizations.teamByName(o.r.owner.id, name);
        if (!t) throw ApiError.notFound(`team does not exist [name: ${name}]`);
        teams.push({ id: t.id, name: t.name });
      }
    }
    // Validate everything before changing anything (Gitea's IsValidReviewRequest).
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
          createdIds.push(
            await insertId(trx, 'review', {
              type: REVIEW_TYPE.request,
              reviewer_id: t.id,
              reviewer_team_id: 0,
              repo_id: o.r.id,
              issue_id: item.issue.id,
              content: '',
              official: isOfficial,
              commit_id: '',
              stale: false,
              dismissed: false,
              created_unix: now,
              updated_unix: now,
            }),
          );
        } else {
          if (!existing) continue;
          await trx('review').where('id', Number(existing.id)).delete();
        }
        await deps.issues.recordEvent(
          {
            repositoryId: o.r.id,
            issueId: item.issue.id,
            actorId: doer.id,
            type: 'review_request',
            assigneeId: t.id,
            removedAssignee: !add,
          },
          trx,
        );
        changed.push(t.info);
      }
      for (const team of teams) {
        const existing = await trx('review')
          .where({ issue_id: item.issue.id, reviewer_team_id: team.id, type: REVIEW_TYPE.request })
          .first('id');
        if (add) {
          if (existing) continue;
          createdIds.push(
            await insertId(trx, 'review', {
              type: REVIEW_TYPE.request,
              reviewer_id: 0,
              reviewer_team_id: team.id,
              repo_id: o.r.id,
              issue_id: item.issue.id,
              content: '',
              official: true,
              commit_id: '',
              stale: false,
              dismissed: false,
              created_unix: now,
              updated_unix: now,
            }),
          );
        } else {
          if (!existing) continue;
          await trx('review').where('id', Number(existing.id)).delete();
        }
        await deps.issues.recordEvent(
          {
            repositoryId: o.r.id,
            issueId: item.issue.id,
            actorId: doer.id,
            type: 'review_request',
            assigneeTeamId: team.id,
            removedAssignee: !add,
          },
          trx,
        );
      }
    });
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
