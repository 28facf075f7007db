import { ApiError, type OrganizationDirectory } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { ACCESS_MODES, OWNER_MODE, TEAM_UNITS, isOrgMember, normalizeTeam, teamById, type TeamRow } from '../orgs/org-store';
import { teamSeatService } from '../orgs/team-service';

/** Minimal Team JSON (Gitea's ToTeams without organizations, as in requested_reviewers_teams). */
function teamToApi(team: TeamRow): Record<string, unknown> {
  let unitsMap: Record<string, string> = {};
  try {
    unitsMap = JSON.parse(team.units_map) as Record<string, string>;
  } catch {
    unitsMap = {};
  }
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    organization: null,
    includes_all_repositories: team.includes_all_repositories,
    permission: ACCESS_MODES[team.authorize] ?? 'none',
    units: TEAM_UNITS.filter((u) => unitsMap[u] && unitsMap[u] !== 'none'),
    units_map: unitsMap,
    can_create_org_repo: team.can_create_org_repo,
  };
}

/** Organizations as the plugin API offers them (`ctx.organizations`): plain data over the core's membership tables. */
export function organizationDirectory(services: KernelServices): OrganizationDirectory {
  const { db, users } = services;
  // Seats change through the same service as the team member API routes (org membership rows included).
  const seats = teamSeatService(services);
  const seat = async (teamId: number, userId: number) => {
    const team = await teamById(db, teamId);
    if (!team) throw ApiError.notFound(`team does not exist [id: ${teamId}]`);
    const [org, user] = await Promise.all([users.byId(team.org_id), users.byId(userId)]);
    if (!org) throw ApiError.notFound(`organization does not exist [id: ${team.org_id}]`);
    if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [id: ${userId}]`);
    return { team, org, user, seated: await seats.isTeamMember(team, user.id) };
  };
  return {
    addTeamMember: async (teamId, userId) => {
      const { team, org, user, seated } = await seat(teamId, userId);
      if (seated) return false;
      await seats.addMember(team, org, user);
      return true;
    },
    removeTeamMember: async (teamId, userId) => {
      const { team, org, user, seated } = await seat(teamId, userId);
      if (!seated) return false;
      await seats.removeMember(team, org, user);
      return true;
    },
    isMember: (orgId, userId) => isOrgMember(db, orgId, userId),
    memberIds: async (orgId) =>
      (await db('org_users').where('org_id', orgId).orderBy('id').select('uid')).map((r: { uid: unknown }) => Number(r.uid)),
    teamByName: async (orgId, name) => {
      const row = await db('teams').where({ org_id: orgId, lower_name: name.toLowerCase() }).first('id', 'org_id', 'name');
      return row ? { id: Number(row.id), orgId: Number(row.org_id), name: String(row.name) } : null;
    },
    teamIdsOf: async (userId) =>
      (await db('team_users').where('uid', userId).select('team_id')).map((r: { team_id: unknown }) => Number(r.team_id)),
    teamRepositoryIds: async (teamId) => {
      const raw = await db('teams').where('id', teamId).first();
      if (!raw) return [];
      const team = normalizeTeam(raw);
      if (team.includes_all_repositories || team.authorize >= OWNER_MODE) return null;
      return (await db('team_repos').where('team_id', teamId).select('repo_id')).map((r: { repo_id: unknown }) => Number(r.repo_id));
    },
    teamsToApi: async (teamIds) => {
      const out = new Map<number, Record<string, unknown>>();
      if (teamIds.length)
        for (const raw of await db('teams').whereIn('id', [...new Set(teamIds)])) out.set(Number(raw.id), teamToApi(normalizeTeam(raw)));
      return out;
    },
  };
}
