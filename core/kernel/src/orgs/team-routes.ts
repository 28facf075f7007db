import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { containsCondition } from '../db/like';
import { ownerOf, repoOf, teamOf } from '../access/operation-access';
import type { OrgDeps } from './org-deps';
import { TEAM_ID, list, str, strs } from './org-schemas';
import { orgViews } from './org-views';
import { teamService, type TeamBody } from './team-service';

const SEARCH_RESULTS = {
  description: 'SearchResults of teams',
  schema: { type: 'object', properties: { ok: { type: 'boolean' }, data: { type: 'array', items: { $ref: 'Team' } } } },
};

/** An organization's teams: listing, search, creating, reading, editing and deleting. */
export function teamOperations(deps: OrgDeps): ApiOperation[] {
  const { db } = deps;
  const { teamJson, teamPage } = orgViews(deps);
  const teams = teamService(deps);

  return [
    {
      method: 'get',
      path: '/orgs/{org}/teams',
      operationId: 'orgListTeams',
      tag: 'organization',
      summary: "List an organization's teams",
      scopes: ['organization'],
      access: { org: 'member' },
      auth: 'required',
      params: str('org'),
      paged: true,
      responses: { 200: list('Team') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        return teamPage(req, db('teams').where('org_id', org.id), 'id', org);
      },
    },
    {
      method: 'get',
      path: '/orgs/{org}/teams/search',
      operationId: 'teamSearch',
      tag: 'organization',
      summary: 'Search for teams within an organization',
      scopes: ['organization'],
      access: { org: 'member' },
      auth: 'required',
      params: str('org'),
      paged: true,
      query: { type: 'object', properties: { q: { type: 'string', maxLength: 255 }, include_desc: { type: 'boolean' } } },
      responses: { 200: SEARCH_RESULTS },
      handler: async (req: ApiRequest<unknown, { q?: string; include_desc?: boolean }, { org: string }>) => {
        const org = ownerOf(req);
        let q = db('teams').where('org_id', org.id);
        const keyword = req.query.q;
        if (keyword) {
          q = q.where((w) => {
            w.whereRaw(...containsCondition('lower_name', keyword));
            if (req.query.include_desc !== false) w.orWhereRaw(...containsCondition('description', keyword));
          });
        }
        const page = await teamPage(req, q, 'lower_name', org);
        return { ...page, body: { ok: true, data: page.body } };
      },
    },
    {
      method: 'post',
      path: '/orgs/{org}/teams',
      operationId: 'orgCreateTeam',
      tag: 'organization',
      summary: 'Create a team',
      scopes: ['organization'],
      access: { org: 'owner' },
      auth: 'required',
      params: str('org'),
      body: 'CreateTeamOption',
      bodyRequired: true,
      responses: { 201: 'Team', 422: 'APIError' },
      handler: async (req: ApiRequest<TeamBody, unknown, { org: string }>) => {
        const org = ownerOf(req);
        return created(await teamJson(await teams.createTeam(org, req.body), org));
      },
    },
    {
      method: 'get',
      path: '/teams/{id}',
      operationId: 'orgGetTeam',
      tag: 'organization',
      summary: 'Get a team',
      scopes: ['organization'],
      access: { team: 'member' },
      auth: 'required',
      params: TEAM_ID,
      responses: { 200: 'Team', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const { team, org } = teamOf(req);
        return ok(await teamJson(team, org));
      },
    },
    {
      method: 'patch',
      path: '/teams/{id}',
      operationId: 'orgEditTeam',
      tag: 'organization',
      summary: 'Edit a team',
      scopes: ['organization'],
      access: { team: 'owner' },
      auth: 'required',
      params: TEAM_ID,
      body: 'EditTeamOption',
      bodyRequired: true,
      responses: { 200: 'Team', 422: 'APIError' },
      handler: async (req: ApiRequest<TeamBody, unknown, { id: number }>) => {
        const { team, org } = teamOf(req);
        return ok(await teamJson(await teams.editTeam(team, org, req.body), org));
      },
    },
    {
      method: 'delete',
      path: '/teams/{id}',
      operationId: 'orgDeleteTeam',
      tag: 'organization',
      summary: 'Delete a team',
      scopes: ['organization'],
      access: { team: 'owner' },
      auth: 'required',
      params: TEAM_ID,
      responses: { 204: 'deleted', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const { team, org } = teamOf(req);
        await teams.deleteTeam(team, org);
        return noContent();
      },
    },
  ];
}

/** The teams of the caller and of a repository. */
export function teamListingOperations(deps: OrgDeps): ApiOperation[] {
  const { teamJson, teamPage } = orgViews(deps);
  const teams = teamService(deps);

  return [
    {
      method: 'get',
      path: '/user/teams',
      operationId: 'userListTeams',
      tag: 'user',
      summary: 'List all the teams a user belongs to',
      scopes: ['user', 'organization'],
      access: 'caller',
      auth: 'required',
      paged: true,
      responses: { 200: list('Team') },
      handler: async (req) => teamPage(req, teams.teamsOfUser(req.principal!.user.id), 'id'),
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/teams',
      operationId: 'repoListTeams',
      tag: 'repository',
      summary: "List a repository's teams",
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: strs('owner', 'repo'),
      responses: { 200: list('Team') },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { repo, owner } = repoOf(req);
        if (owner.type !== 1) throw ApiError.notFound('the repository is not owned by an organization');
        const items = [];
        for (const team of await teams.teamsOfRepo(owner, repo)) items.push(await teamJson(team, owner));
        return ok(items);
      },
    },
  ];
}
