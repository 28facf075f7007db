import type { Knex } from 'knex';
import {
  actsAsAdmin,
  ApiError,
  OWNER_REPO_PARAMS,
  rowReader,
  toNumber,
  unixToIso,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type Principal,
} from '@hearth/plugin-api';
import { list, loadRepos, whereReadable, type ActivityDeps } from './activity-context';
import { OP_TYPE_NAMES } from './recorder';

type RepoParams = { owner: string; repo: string };
type FeedQuery = { date?: string; 'only-performed-by'?: boolean };

const FEED_QUERY: JsonSchema = {
  type: 'object',
  properties: { date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the date of the activities to be found' } },
};
const USER_FEED_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    ...(FEED_QUERY.properties as object),
    'only-performed-by': { type: 'boolean', description: 'if true, only show actions performed by the requested user' },
  },
};
const USERNAME_PARAMS: JsonSchema = {
  type: 'object',
  properties: { username: { type: 'string', maxLength: 255, description: 'username of user' } },
  required: ['username'],
};
const ORG_PARAMS: JsonSchema = {
  type: 'object',
  properties: { org: { type: 'string', maxLength: 255, description: 'name of the org' } },
  required: ['org'],
};
const TEAM_PARAMS: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the team' } },
  required: ['id'],
};

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

/**
 * Activity feeds (user, organization, team, repository). Activity rows are stored once per event
 * (not once per interested user as Gitea does) and each feed selects and filters them at read
 * time, in SQL, by what the caller may read. The taps that write them: recorder.ts, activity-recorder.ts.
 */
export function feedOperations(deps: ActivityDeps): ApiOperation[] {
  const { db, users, http } = deps;

  const activityJsons = async (rows: ActivityRow[], feedUserId: number, viewer: Principal | null) => {
    const repoMap = await loadRepos(
      deps,
      rows.map((a) => a.repo_id),
    );
    const repoJson = new Map<number, Record<string, unknown>>();
    for (const [id, repo] of repoMap) repoJson.set(id, await deps.repositories.toApi(repo, viewer));
    const actors = new Map<number, Record<string, unknown> | null>();
    for (const id of new Set(rows.map((a) => a.act_user_id))) {
      const u = id ? await users.byId(id) : null;
      actors.set(id, u ? await users.toApi(u, viewer) : null);
    }
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
   * One page of a feed: `scope` narrows the activity rows (alias a) and must keep only
   * repositories the caller may read (`readableRepos`).
   */
  const feedPage = async (req: ApiRequest<any, FeedQuery, any>, scope: (q: Knex.QueryBuilder) => void, feedUserId: number) => {
    const q = db('activities as a');
    scope(q);
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

  return [
    {
      method: 'get',
      path: '/users/{username}/activities/feeds',
      operationId: 'userListActivityFeeds',
      tag: 'user',
      summary: "List a user's activity feeds",
      scopes: ['user'],
      access: { user: 'visible' },
      params: USERNAME_PARAMS,
      query: USER_FEED_QUERY,
      paged: true,
      responses: { 200: list('Activity'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, { username: string }>) => {
        const u = req.target.owner!;
        const self = Boolean(req.principal && !req.principal.publicOnly && req.principal.user.id === u.id);
        const priv = self || actsAsAdmin(req.principal);
        const watched = await deps.repositories.watchedBy(u.id);
        const acted = (w: Knex.QueryBuilder) =>
          w.where('a.act_user_id', u.id).whereIn(
            'a.repo_id',
            readableRepos(req, priv, () => undefined),
          );
        return feedPage(
          req,
          (q) => {
            if (req.query['only-performed-by']) acted(q);
            // The user's own actions, and what happens in repositories they own or watch: each
            // branch is on the activities table and can use its index (actor, repository).
            else
              q.where((w) =>
                w.where(acted).orWhereIn(
                  'a.repo_id',
                  readableRepos(req, priv, (s) => s.where((o) => o.where('s.owner_id', u.id).orWhereIn('s.id', watched))),
                ),
              );
          },
          u.id,
        );
      },
    },
    {
      method: 'get',
      path: '/orgs/{org}/activities/feeds',
      operationId: 'orgListActivityFeeds',
      tag: 'organization',
      summary: "List an organization's activity feeds",
      scopes: ['organization'],
      access: { org: 'visible' },
      params: ORG_PARAMS,
      query: FEED_QUERY,
      paged: true,
      responses: { 200: list('Activity'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, { org: string }>) => {
        const org = req.target.owner!;
        const member =
          actsAsAdmin(req.principal) ||
          Boolean(req.principal && !req.principal.publicOnly && (await deps.organizations.isMember(org.id, req.principal.user.id)));
        return feedPage(
          req,
          (q) =>
            q.whereIn(
              'a.repo_id',
              readableRepos(req, member, (s) => s.where('s.owner_id', org.id)),
            ),
          org.id,
        );
      },
    },
    {
      method: 'get',
      path: '/teams/{id}/activities/feeds',
      operationId: 'orgListTeamActivityFeeds',
      tag: 'organization',
      summary: "List a team's activity feeds",
      scopes: ['organization'],
      auth: 'required',
      access: { team: 'member' },
      params: TEAM_PARAMS,
      query: FEED_QUERY,
      paged: true,
      responses: { 200: list('Activity'), 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, { id: number }>) => {
        const team = req.target.team!;
        const org = req.target.owner!;
        const covered = await deps.organizations.teamRepositoryIds(team.id);
        return feedPage(
          req,
          (q) => {
            q.whereIn(
              'a.repo_id',
              readableRepos(req, true, (s) => {
                s.where('s.owner_id', org.id);
                if (covered) s.whereIn('s.id', covered);
              }),
            );
          },
          org.id,
        );
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/activities/feeds',
      operationId: 'repoListActivityFeeds',
      tag: 'repository',
      summary: "List a repository's activity feeds",
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      query: FEED_QUERY,
      paged: true,
      responses: { 200: list('Activity'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, RepoParams>) => {
        const r = req.target.repository!;
        // The access declaration checked read access to the one repository: no readable-repositories filter needed.
        return feedPage(req, (q) => q.where('a.repo_id', r.id), r.owner.id);
      },
    },
  ];
}
