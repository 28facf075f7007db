import { ApiError, noContent, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { teamOf } from '../access/operation-access';
import type { OrgDeps } from './org-deps';
import { TEAM_ID, list, teamIdAnd } from './org-schemas';
import { orgViews } from './org-views';
import { teamSeatService } from './team-service';

/** A team's members: listing, checking, adding and removing (the Owners team keeps one). */
export function teamMemberOperations(deps: OrgDeps): ApiOperation[] {
  const { users } = deps;
  const { userPage } = orgViews(deps);
  const seats = teamSeatService(deps);

  return [
    {
      method: 'get',
      path: '/teams/{id}/members',
      operationId: 'orgListTeamMembers',
      tag: 'organization',
      summary: "List a team's members",
      scopes: ['organization'],
      access: { team: 'member' },
      auth: 'required',
      params: TEAM_ID,
      paged: true,
      responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const { team } = teamOf(req);
        return userPage(
          req,
          users.query().whereIn('users.id', (s) => s.select('uid').from('team_users').where('team_id', team.id)),
        );
      },
    },
    {
      method: 'get',
      path: '/teams/{id}/members/{username}',
      operationId: 'orgListTeamMember',
      tag: 'organization',
      summary: 'Get a member of a team',
      scopes: ['organization'],
      access: { team: 'member' },
      auth: 'required',
      params: teamIdAnd('username'),
      responses: { 200: 'User', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; username: string }>) => {
        const { team } = teamOf(req);
        const user = await users.require(req.params.username);
        if (!(await seats.isTeamMember(team, user.id))) throw ApiError.notFound('user is not a member of the team');
        return ok(users.toApi(user, req.principal));
      },
    },
    {
      method: 'put',
      path: '/teams/{id}/members/{username}',
      operationId: 'orgAddTeamMember',
      tag: 'organization',
      summary: 'Add a team member',
      scopes: ['organization'],
      access: { team: 'owner' },
      auth: 'required',
      params: teamIdAnd('username'),
      responses: { 204: 'added' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; username: string }>) => {
        const { team, org } = teamOf(req);
        await seats.addMember(team, org, await users.require(req.params.username));
        return noContent();
      },
    },
    {
      method: 'delete',
      path: '/teams/{id}/members/{username}',
      operationId: 'orgRemoveTeamMember',
      tag: 'organization',
      summary: 'Remove a team member',
      scopes: ['organization'],
      access: { team: 'owner' },
      auth: 'required',
      params: teamIdAnd('username'),
      responses: { 204: 'removed', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; username: string }>) => {
        const { team, org } = teamOf(req);
        await seats.removeMember(team, org, await users.require(req.params.username));
        return noContent();
      },
    },
  ];
}
