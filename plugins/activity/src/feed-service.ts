import type { Knex } from 'knex';
import { actsAsAdmin, ApiError, rowReader, toNumber, unixToIso, type ApiRequest, type Principal } from '@hearth/plugin-api';
import { repositoryJsons, whereReadable, type ActivityDeps } from './activity-context';
import { OP_TYPE_NAMES } from './recorder';

export type FeedQuery = { date?: string; 'only-performed-by'?: boolean };

interface ActivityRow {
  id: number;
  op_type: number;
  act_user_id: number;
  repo_id: number;
  comment_id: number;
  ref_name: string;
  is_private: boolean;
  content: string;
  created_unix: number;
}

const toActivity = rowReader<ActivityRow>({
  numbers: ['id', 'op_type', 'act_user_id', 'repo_id', 'comment_id', 'created_unix'],
  booleans: ['is_private'],
  strings: ['ref_name', 'content'],
});

/** What the feed routes share: a page of activity rows as Activity JSON, and the readable-repositories subquery. */
export function feedService(deps: ActivityDeps) {
  const { db, users, http } = deps;

  const activityJsons = async (rows: ActivityRow[], feedUserId: number, viewer: Principal | null) => {
    const repoJson = await repositoryJsons(
      deps,
      rows.map((a) => a.repo_id),
      viewer,
    );
    const actors = await users.toApiByIds(
      rows.map((a) => a.act_user_id),
      viewer,
    );
    const commentIds = [...new Set(rows.map((a) => a.comment_id).filter((id) => id > 0))];
    // Comment JSON comes from the issues feature (none while it is disabled).
    const comments =
      commentIds.length && deps.issues ? await deps.issues.commentsToApi(commentIds, viewer) : new Map<number, Record<string, unknown>>();
    return rows.map((a) => ({
      id: a.id,
      user_id: feedUserId,
      op_type: OP_TYPE_NAMES[a.op_type] ?? String(a.op_type),
      act_user_id: a.act_user_id,
      act_user: actors.get(a.act_user_id) ?? null,
      repo_id: a.repo_id,
      repo: repoJson.get(a.repo_id) ?? null,
      comment_id: comments.has(a.comment_id) ? a.comment_id : 0,
      comment: comments.get(a.comment_id) ?? null,
      ref_name: a.ref_name,
      is_private: a.is_private,
      content: a.content,
      created: unixToIso(a.created_unix),
    }));
  };

  /**
   * Gitea's "hide activity" (`keep_activity_private`): what such a user did is left out of every
   * feed, except for the user and site administrators.
   */
  const hideKeptPrivate = (q: Knex.QueryBuilder, viewer: Principal | null) => {
    if (actsAsAdmin(viewer)) return;
    const hidden = db('users').select('id').where('keep_activity_private', true);
    if (viewer && !viewer.publicOnly) hidden.whereNot('id', viewer.user.id);
    q.whereNotIn('a.act_user_id', hidden);
  };

  /**
   * One page of a feed: `scope` narrows the activity rows (alias a) and must keep only
   * repositories the caller may read (`readableRepos`).
   */
  const feedPage = async (req: ApiRequest<any, FeedQuery, any>, scope: (q: Knex.QueryBuilder) => void, feedUserId: number) => {
    const q = db('activities as a');
    scope(q);
    hideKeptPrivate(q, req.principal);
    if (req.query.date) {
      const start = Date.parse(`${req.query.date}T00:00:00Z`);
      if (Number.isNaN(start)) throw ApiError.unprocessable('date is not a valid date (YYYY-MM-DD)');
      q.where('a.created_unix', '>=', start / 1000).where('a.created_unix', '<', start / 1000 + 86400);
    }
    const [rows, counted] = await Promise.all([
      q
        .clone()
        .select('a.*')
        .orderBy([
          { column: 'a.created_unix', order: 'desc' },
          { column: 'a.id', order: 'desc' },
        ])
        .offset(req.paging.offset)
        .limit(req.paging.limit),
      q.clone().count({ n: '*' }),
    ]);
    const items = await activityJsons(rows.map(toActivity), feedUserId, req.principal);
    return http.paged(req as ApiRequest, items, toNumber((counted as any[])[0]?.n));
  };

  /**
   * Ids of the repositories (alias s) that `narrow` selects and the caller may read, as one
   * subquery, so `a.repo_id IN (…)` drives the (repo_id, created_unix) index. `includePrivate`
   * false leaves private repositories out altogether (Gitea: a user's feed shows private activity
   * only to the user and site admins, an organization's only to its members).
   */
  const readableRepos = (
    req: ApiRequest<any, any, any>,
    includePrivate: boolean,
    narrow: (s: Knex.QueryBuilder) => void,
  ): Knex.QueryBuilder => {
    const s = db('repositories as s').select('s.id');
    narrow(s);
    if (!includePrivate) s.where('s.is_private', false);
    return whereReadable(deps, s, 's.id', req.principal);
  };

  return { activityJsons, feedPage, readableRepos };
}

export type FeedService = ReturnType<typeof feedService>;
