import { ApiError, noContent, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { repoOf, teamOf } from '../access/operation-access';
import type { OrgDeps } from './org-deps';
import { TEAM_ID, list, teamIdAnd } from './org-schemas';
import { orgViews } from './org-views';
import { teamSeatService } from './team-service';

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
  ];
}
