import { ApiError, noContent, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { repoOf, teamOf } from '../access/operation-access';
import type { OrgDeps } from './org-deps';
import { TEAM_ID, list, teamIdAnd } from './org-schemas';
import { orgViews } from './org-views';
import { normalizeTeam, type TeamRow } from './org-store';
import { teamSeatService, teamService } from './team-service';

/** A team's repositories: listing, checking, adding and removing. */
export function teamRepoOperations(deps: OrgDeps): ApiOperation[] {
  const { repos } = deps;
  const { repoPage } = orgViews(deps);
  const seats = teamSeatService(deps);

  return [
    {
      method: 'get',
      path: '/teams/{id}/repos',
      operationId: 'orgListTeamRepos',
      tag: 'organization',
      summary: "List a team's repositories",
      scopes: ['organization'],
      access: { team: 'member' },
      auth: 'required',
      params: TEAM_ID,
      paged: true,
      responses: { 200: list('Repository') },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => repoPage(req, seats.teamRepoQuery(teamOf(req).team)),
    },
    {
      method: 'get',
      path: '/teams/{id}/repos/{org}/{repo}',
      operationId: 'orgListTeamRepo',
      tag: 'organization',
      summary: 'Get a repository of a team',
      scopes: ['organization'],
      access: { team: 'member' },
      auth: 'required',
      params: teamIdAnd('org', 'repo'),
      responses: { 200: 'Repository', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; org: string; repo: string }>) => {
        const { team, org } = teamOf(req);
        const resolved = await repos.access.resolveRepo(req.params.org, req.params.repo, req.principal, 'read');
        const has = await seats.teamRepoQuery(team).where('id', resolved.repo.id).first();
        if (!has) throw ApiError.notFound('the repository is not a repository of the team');
        return ok(await repos.toApi(resolved.repo, org, req.principal));
      },
    },
    ...(['put', 'delete'] as const).map((method): ApiOperation => ({
      method,
      path: '/teams/{id}/repos/{org}/{repo}',
      operationId: method === 'put' ? 'orgAddTeamRepository' : 'orgRemoveTeamRepository',
      tag: 'organization',
      summary: method === 'put' ? 'Add a repository to a team' : 'Remove a repository from a team',
      scopes: ['organization'],
      access: { repo: { need: 'admin' }, params: { owner: 'org', repo: 'repo' } },
      auth: 'required',
      params: teamIdAnd('org', 'repo'),
      responses: { 204: 'done', 403: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; org: string; repo: string }>) => {
        await seats.setTeamRepo(Number(req.params.id), req.principal, repoOf(req).repo, method === 'put');
        return noContent();
      },
    })),
    ...repoTeamOperations(deps),
  ];
}

type RepoTeamParams = { owner: string; repo: string; team: string };

/**
 * Gitea 1.20's team ↔ repository operations from the repository's side: `GET` (is the team one
 * of the repository's? readers), `PUT`/`DELETE` (repository admins who own the organization, or
 * any repository admin under repo_admin_change_team_access — the same rule as
 * `/teams/{id}/repos/…`). 405 for a repository of a user, as Gitea; 422 when the team already
 * has (or does not have) the repository.
 */
function repoTeamOperations(deps: OrgDeps): ApiOperation[] {
  const { db } = deps;
  const { teamJson } = orgViews(deps);
  const teams = teamService(deps);
  const seats = teamSeatService(deps);
  const params = {
    type: 'object',
    properties: {
      owner: { type: 'string', maxLength: 255 },
      repo: { type: 'string', maxLength: 255 },
      team: { type: 'string', maxLength: 255, description: 'team name' },
    },
    required: ['owner', 'repo', 'team'],
  };
  /** The named team of the repository's organization, and whether it has the repository. */
  const lookup = async (req: ApiRequest<unknown, unknown, RepoTeamParams>) => {
    const { repo, owner } = repoOf(req);
    if (owner.type !== 1) throw new ApiError(405, 'repo is not owned by an organization');
    const raw = await db('teams').where({ org_id: owner.id, lower_name: req.params.team.toLowerCase() }).first();
    if (!raw) throw ApiError.notFound(`team does not exist [name: ${req.params.team}]`);
    const team: TeamRow = normalizeTeam(raw);
    const has = (await teams.teamsOfRepo(owner, repo)).some((t) => t.id === team.id);
    return { repo, owner, team, has };
  };
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/teams/{team}',
      operationId: 'repoCheckTeam',
      tag: 'repository',
      summary: 'Check if a team is assigned to a repository',
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      auth: 'required',
      params,
      responses: { 200: 'Team', 404: 'APIError', 405: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoTeamParams>) => {
        const { team, owner, has } = await lookup(req);
        if (!has) throw ApiError.notFound(`team '${team.name}' is not assigned to the repository`);
        return ok(await teamJson(team, owner));
      },
    },
    ...(['put', 'delete'] as const).map((method): ApiOperation => ({
      method,
      path: '/repos/{owner}/{repo}/teams/{team}',
      operationId: method === 'put' ? 'repoAddTeam' : 'repoDeleteTeam',
      tag: 'repository',
      summary: method === 'put' ? 'Add a team to a repository' : 'Delete a team from a repository',
      scopes: ['repository'],
      access: { repo: { need: 'admin' } },
      auth: 'required',
      params,
      responses: { 204: 'done', 403: 'APIError', 404: 'APIError', 405: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoTeamParams>) => {
        const { repo, team, has } = await lookup(req);
        if (method === 'put' && has) throw ApiError.unprocessable(`team '${team.name}' is already added to repo`);
        if (method === 'delete' && !has) throw ApiError.unprocessable(`team '${team.name}' was not added to repo`);
        await seats.setTeamRepo(team.id, req.principal, repo, method === 'put');
        return noContent();
      },
    })),
  ];
}
