import type { Knex } from 'knex';
import { actsAsAdmin, OWNER_REPO_PARAMS, type ApiOperation, type ApiRequest, type JsonSchema } from '@hearth/plugin-api';
import { list, type ActivityDeps } from './activity-context';
import { feedService, type FeedQuery } from './feed-service';

type RepoParams = { owner: string; repo: string };

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

/**
 * Activity feeds (user, organization, team, repository). Activity rows are stored once per event
 * (not once per interested user as Gitea does) and each feed selects and filters them at read
 * time, in SQL, by what the caller may read. The taps that write them: recorder.ts, activity-recorder.ts.
 */
export function feedOperations(deps: ActivityDeps): ApiOperation[] {
  const { feedPage, readableRepos } = feedService(deps);

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
