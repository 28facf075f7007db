import { ApiError, isApiError, type Principal } from '@hearth/plugin-api';
import { nowUnix, type UserRow } from '../users/models';
import type { RepositoryRow } from '../repos/models';
import { isUniqueViolation } from '../db/errors';
import type { OrgDeps } from './org-deps';
import {
  ACCESS_MODES,
  OWNER_MODE,
  TEAM_UNITS,
  insertId,
  isOwnersTeam,
  normalizeTeam,
  syncOrgUsers,
  teamById,
  type TeamRow,
} from './org-store';

/** CreateTeamOption and EditTeamOption. */
export interface TeamBody {
  name?: string;
  description?: string;
  includes_all_repositories?: boolean;
  permission?: 'read' | 'write' | 'admin';
  units?: string[];
  units_map?: Record<string, string>;
  can_create_org_repo?: boolean;
}

const TEAM_NAME = /^[\w.-]+$/;

const teamExists = (name: string | undefined) => ApiError.unprocessable(`team already exists [name: ${name}]`);

/** Units and the overall permission of a team from Create/EditTeamOption (Gitea 1.20's rules). */
export function teamUnits(body: TeamBody, current?: TeamRow): { authorize: number; units_map: string } {
  let authorize = body.permission ? ACCESS_MODES.indexOf(body.permission) : (current?.authorize ?? -1);
  let map: Record<string, string>;
  if (body.units_map && Object.keys(body.units_map).length > 0) {
    for (const [unit, mode] of Object.entries(body.units_map)) {
      if (!TEAM_UNITS.includes(unit)) throw ApiError.unprocessable(`unknown unit [unit: ${unit}]`);
      if (!['none', 'read', 'write', 'admin'].includes(mode))
        throw ApiError.unprocessable(`invalid permission of unit ${unit} [permission: ${mode}]`);
    }
    map = Object.fromEntries(TEAM_UNITS.map((u) => [u, body.units_map![u] ?? 'none']));
    const modes = Object.values(map)
      .map((m) => ACCESS_MODES.indexOf(m as (typeof ACCESS_MODES)[number]))
      .filter((m) => m > 0);
    if (authorize < 3) authorize = modes.length ? Math.min(...modes) : 0;
  } else {
    if (authorize < 0) authorize = 0;
    const units =
      body.units ??
      (current ? TEAM_UNITS.filter((u) => (JSON.parse(current.units_map) as Record<string, string>)[u] !== 'none') : TEAM_UNITS);
    for (const unit of units) if (!TEAM_UNITS.includes(unit)) throw ApiError.unprocessable(`unknown unit [unit: ${unit}]`);
    map = Object.fromEntries(TEAM_UNITS.map((u) => [u, units.includes(u) ? ACCESS_MODES[authorize] : 'none']));
  }
  if (authorize >= 3) map = Object.fromEntries(TEAM_UNITS.map((u) => [u, ACCESS_MODES[authorize]]));
  return { authorize, units_map: JSON.stringify(map) };
}

export type TeamService = ReturnType<typeof teamService>;

/** Teams of organizations: creating, editing and deleting them (the Owners team keeps its powers). */
export function teamService(deps: OrgDeps) {
  const { db } = deps;

  async function createTeam(org: UserRow, b: TeamBody): Promise<TeamRow> {
    if (!b.name || !TEAM_NAME.test(b.name))
      throw ApiError.unprocessable(`team name is invalid [name: ${b.name}]: use letters, digits, '-', '_' and '.'`);
    const { authorize, units_map } = teamUnits(b);
    const now = nowUnix();
    let id: number;
    try {
      id = await db.transaction(async (trx) => {
        if (await trx('teams').where({ org_id: org.id, lower_name: b.name!.toLowerCase() }).first('id')) throw teamExists(b.name);
        return insertId(trx, 'teams', {
          org_id: org.id,
          lower_name: b.name!.toLowerCase(),
          name: b.name,
          description: b.description ?? '',
          authorize,
          includes_all_repositories: b.includes_all_repositories ?? false,
          can_create_org_repo: b.can_create_org_repo ?? false,
          units_map,
          created_unix: now,
          updated_unix: now,
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw teamExists(b.name);
      throw err;
    }
    return (await teamById(db, id))!;
  }

  /** The columns EditTeamOption changes; the Owners team keeps its name, its owner permission and every repository. */
  async function teamPatch(team: TeamRow, org: UserRow, b: TeamBody): Promise<Record<string, unknown>> {
    const patch: Record<string, unknown> = { updated_unix: nowUnix() };
    if (b.description !== undefined) patch.description = b.description;
    if (isOwnersTeam(team)) {
      if (b.name !== undefined && b.name !== team.name) throw ApiError.unprocessable('the Owners team cannot be renamed');
      if (
        b.permission !== undefined ||
        b.includes_all_repositories === false ||
        b.can_create_org_repo === false ||
        b.units ||
        b.units_map
      ) {
        throw ApiError.unprocessable("the Owners team's permissions cannot be changed");
      }
      return patch;
    }
    if (b.name !== undefined && b.name !== team.name) {
      if (!TEAM_NAME.test(b.name)) throw ApiError.unprocessable(`team name is invalid [name: ${b.name}]`);
      if (
        b.name.toLowerCase() !== team.lower_name &&
        (await db('teams').where({ org_id: org.id, lower_name: b.name.toLowerCase() }).first('id'))
      ) {
        throw teamExists(b.name);
      }
      patch.name = b.name;
      patch.lower_name = b.name.toLowerCase();
    }
    if (b.includes_all_repositories !== undefined) patch.includes_all_repositories = b.includes_all_repositories;
    if (b.can_create_org_repo !== undefined) patch.can_create_org_repo = b.can_create_org_repo;
    if (b.permission !== undefined || b.units !== undefined || b.units_map !== undefined) Object.assign(patch, teamUnits(b, team));
    return patch;
  }

  async function editTeam(team: TeamRow, org: UserRow, b: TeamBody): Promise<TeamRow> {
    const patch = await teamPatch(team, org, b);
    try {
      await db('teams').where('id', team.id).update(patch);
    } catch (err) {
      if (isUniqueViolation(err)) throw teamExists(b.name);
      throw err;
    }
    return (await teamById(db, team.id))!;
  }

  async function deleteTeam(team: TeamRow, org: UserRow): Promise<void> {
    if (isOwnersTeam(team)) throw ApiError.unprocessable('the Owners team cannot be deleted');
    await db.transaction(async (trx) => {
      const uids = (await trx('team_users').where('team_id', team.id).select('uid')).map((r: { uid: number }) => Number(r.uid));
      await trx('team_users').where('team_id', team.id).delete();
      await trx('team_repos').where('team_id', team.id).delete();
      await trx('teams').where('id', team.id).delete();
      await syncOrgUsers(trx, org.id, uids);
    });
  }

  /** The teams a user sits on. */
  const teamsOfUser = (uid: number) => db('teams').whereIn('id', (s) => s.select('team_id').from('team_users').where('uid', uid));

  /** The teams of an organization with access to a repository (every repository, owners, or linked). */
  async function teamsOfRepo(owner: UserRow, repo: RepositoryRow): Promise<TeamRow[]> {
    const rows = await db('teams')
      .where('org_id', owner.id)
      .where((w) =>
        w
          .where('includes_all_repositories', true)
          .orWhere('authorize', OWNER_MODE)
          .orWhereIn('id', (s) => s.select('team_id').from('team_repos').where('repo_id', repo.id)),
      )
      .orderBy('id');
    return rows.map(normalizeTeam);
  }

  return { createTeam, editTeam, deleteTeam, teamsOfUser, teamsOfRepo };
}

export type TeamSeatService = ReturnType<typeof teamSeatService>;

/** Who sits on a team (team members) and which repositories it reaches (team repositories). */
export function teamSeatService(deps: OrgDeps) {
  const { db, users, repos } = deps;

  const isTeamMember = async (team: TeamRow, uid: number): Promise<boolean> =>
    Boolean(await db('team_users').where({ team_id: team.id, uid }).first('id'));

  async function addMember(team: TeamRow, org: UserRow, user: UserRow): Promise<void> {
    try {
      await db.transaction(async (trx) => {
        if (!(await trx('team_users').where({ team_id: team.id, uid: user.id }).first('id')))
          await trx('team_users').insert({ org_id: org.id, team_id: team.id, uid: user.id });
        if (!(await trx('org_users').where({ org_id: org.id, uid: user.id }).first('id')))
          await trx('org_users').insert({ org_id: org.id, uid: user.id, is_public: false });
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err; // a concurrent identical request got there first
    }
  }

  async function removeMember(team: TeamRow, org: UserRow, user: UserRow): Promise<void> {
    await db.transaction(async (trx) => {
      const seat = await trx('team_users').where({ team_id: team.id, uid: user.id }).first('id');
      if (!seat) throw ApiError.notFound('user is not a member of the team');
      if (isOwnersTeam(team)) {
        const [{ n }] = await trx('team_users').where('team_id', team.id).count<{ n: number }[]>({ n: '*' });
        if (Number(n) <= 1) throw ApiError.unprocessable('the last member of the Owners team cannot be removed');
      }
      await trx('team_users').where('id', seat.id).delete();
      await syncOrgUsers(trx, org.id, [user.id]);
    });
  }

  const teamRepoQuery = (team: TeamRow) =>
    team.includes_all_repositories || team.authorize === OWNER_MODE
      ? repos.query().where('owner_id', team.org_id)
      : repos
          .query()
          .where('owner_id', team.org_id)
          .whereIn('id', (s) => s.select('repo_id').from('team_repos').where('team_id', team.id));

  /**
   * The team whose repositories the caller changes: organization owners may, and (Gitea's
   * repo_admin_change_team_access) so may members of the organization who administer the
   * repository, which the operation's access declaration has already required.
   */
  const teamForRepoChange = async (id: number, p: Principal | null): Promise<{ team: TeamRow; org: UserRow }> => {
    try {
      const { team, org } = await repos.access.resolveTeam(id, p, 'owner');
      return { team: normalizeTeam(team), org };
    } catch (err) {
      // A 403 means the team exists and the caller is a member of its organization.
      if (!(isApiError(err) && err.status === 403)) throw err;
      const team = (await teamById(db, id))!;
      const settings = await db('org_settings').where('org_id', team.org_id).first('repo_admin_change_team_access');
      if (!settings?.repo_admin_change_team_access) throw err;
      return { team, org: (await users.byId(team.org_id))! };
    }
  };

  /** Link a repository of the team's organization to the team (`present`) or unlink it. */
  async function setTeamRepo(teamId: number, p: Principal | null, repo: RepositoryRow, present: boolean): Promise<void> {
    const { team, org } = await teamForRepoChange(teamId, p);
    if (repo.owner_id !== org.id) throw ApiError.unprocessable("the repository does not belong to the team's organization");
    if (!present) {
      await db('team_repos').where({ team_id: team.id, repo_id: repo.id }).delete();
      return;
    }
    if (await db('team_repos').where({ team_id: team.id, repo_id: repo.id }).first('id')) return;
    try {
      await db('team_repos').insert({ org_id: org.id, team_id: team.id, repo_id: repo.id });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }

  return { isTeamMember, addMember, removeMember, teamRepoQuery, setTeamRepo };
}
