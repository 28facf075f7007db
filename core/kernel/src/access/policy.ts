import type { Knex } from 'knex';
import { ApiError, actsAsAdmin, type Principal } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import { VISIBILITY, type UserRow } from '../users/models';
import { RepositoryRow, type RepoUnit } from '../repos/models';
import { ACCESS_MODES, OWNER_MODE, isOrgMember, isOrgOwner } from '../orgs/org-store';

export { ACCESS_MODES, OWNER_MODE };

/** What a caller may do with a repository (Gitea's Permission object). */
export interface RepoPermission {
  admin: boolean;
  push: boolean;
  pull: boolean;
}

export type AccessNeed = 'read' | 'write' | 'admin';

/** A caller's level on one unit of a repository (unitPermission). */
export type UnitAccess = 'none' | 'read' | 'write' | 'admin';

/** A repository resolved for a caller: the row, its owner, the caller's permission and where it lives. */
export interface ResolvedRepo {
  repo: RepositoryRow;
  owner: UserRow;
  permission: RepoPermission;
  gitDir: string;
}

/** One of the caller's teams in a repository's organization, as factsFor reads it. */
interface TeamAccess {
  authorize: number;
  includes_all_repositories: unknown;
  units_map: string;
  team_repo_id: number | null;
}

interface RepoAccess {
  /** The repository-wide mode, 0–3. */
  mode: number;
  /** The caller's teams in the owning organization; null when not looked at (not an org, or decided before). */
  teams: TeamAccess[] | null;
  /** The collaborator's mode (0 when none). */
  collaboration: number;
  restricted: boolean;
}

const NONE: RepoAccess = { mode: 0, teams: null, collaboration: 0, restricted: false };

/** Whether a team gives access to the repository at all: the Owners team, all repositories, or listed in team_repos. */
function coversRepo(t: TeamAccess): boolean {
  return Number(t.authorize) >= OWNER_MODE || Boolean(t.includes_all_repositories) || Boolean(t.team_repo_id);
}

/**
 * A team's access mode (0–3) on one repository unit: admin and Owners teams have admin on every
 * unit; otherwise the unit's entry in units_map ("repo.code": "read", …; missing → none). A team
 * whose units_map names no unit at all (unreadable or empty) keeps its overall permission on every unit.
 */
export function teamUnitMode(team: { authorize: number; units_map: string }, unit: RepoUnit): number {
  const authorize = Math.min(Number(team.authorize), 3);
  if (authorize >= 3) return 3;
  let map: Record<string, unknown>;
  try {
    map = JSON.parse(team.units_map) as Record<string, unknown>;
  } catch {
    return authorize;
  }
  if (!map || typeof map !== 'object' || !Object.keys(map).some((k) => k.startsWith('repo.'))) return authorize;
  const mode = ACCESS_MODES.indexOf(map[`repo.${unit}`] as (typeof ACCESS_MODES)[number]);
  return mode > 0 ? Math.min(mode, 3) : 0;
}

/**
 * Refuse a package change the caller may not make: 401 when anonymous (with `challenge`, the
 * `WWW-Authenticate` header its client expects), 403 otherwise.
 */
export function assertPackageWrite(canWrite: boolean, principal: Principal | null, challenge: Record<string, string>): void {
  if (canWrite) return;
  if (!principal) throw new ApiError(401, 'authentication required to change packages', undefined, challenge);
  throw ApiError.forbidden('you may not change the packages of this owner');
}

/** Site administrators act as such only with a full credential: a public-only token sees what anyone sees. */
export { actsAsAdmin };

/** What AccessPolicy.factsFor reads about the caller and one repository. */
interface AccessFacts {
  collaboration: number;
  /** The caller is a member of the owning organization. */
  orgMember: boolean;
  /** The caller's teams in the owning organization (empty when the owner is a user). */
  teams: TeamAccess[];
}

export function permissionOf(mode: number): RepoPermission {
  return { admin: mode >= 3, push: mode >= 2, pull: mode >= 1 };
}

/** Owner visibility where no membership needs to be read; undefined when only membership of the organization decides. */
function ownerVisibleWithout(owner: Pick<UserRow, 'id' | 'type' | 'visibility'>, principal: Principal | null): boolean | undefined {
  if (!principal || principal.publicOnly) return owner.visibility === VISIBILITY.public;
  const user = principal.user;
  if (user.isAdmin || user.id === owner.id) return true;
  if (owner.visibility === VISIBILITY.private || user.isRestricted) return owner.type === 1 ? undefined : false;
  return true;
}

/** The repository rule where nothing needs to be read: anonymous and public-only callers, site admins, the owner. */
function accessWithout(repo: RepositoryRow, owner: UserRow, principal: Principal | null): RepoAccess | null {
  if (!principal || principal.publicOnly) return { ...NONE, mode: !repo.is_private && owner.visibility === VISIBILITY.public ? 1 : 0 };
  if (principal.user.isAdmin || principal.user.id === repo.owner_id) return { ...NONE, mode: 3 };
  return null;
}

/** The repository rule for a signed-in caller, given what was read about them. */
function decideAccess(repo: RepositoryRow, owner: UserRow, principal: Principal, facts: AccessFacts): RepoAccess {
  const user = principal.user;
  const { collaboration } = facts;
  const visible = ownerVisibleWithout(owner, principal) ?? (owner.type === 1 && facts.orgMember);
  // An outside collaborator reaches the repository even when its owner is hidden from them.
  if (collaboration === 0 && !visible) return NONE;
  let mode = collaboration;
  const teams = owner.type === 1 ? facts.teams : null;
  for (const t of teams ?? []) if (coversRepo(t)) mode = Math.max(mode, Math.min(Number(t.authorize), 3));
  if (!repo.is_private && !user.isRestricted) mode = Math.max(mode, 1);
  return { mode, teams, collaboration, restricted: user.isRestricted };
}

/** The level on one unit, from the repository-wide access: none when switched off; teams narrow it by units_map. */
function unitLevelOf(repo: RepositoryRow, access: RepoAccess, unit: RepoUnit): UnitAccess {
  const { mode, teams, collaboration, restricted } = access;
  if (!repo.unitMap()[unit] || mode <= 0) return 'none';
  if (mode >= 3 || !teams) return ACCESS_MODES[Math.min(mode, 3)] as UnitAccess;
  let unitMode = 0;
  for (const t of teams) if (coversRepo(t)) unitMode = Math.max(unitMode, teamUnitMode(t, unit));
  const granted = unitMode > 0;
  unitMode = Math.max(unitMode, collaboration);
  if (!granted && !repo.is_private && !restricted) unitMode = Math.max(unitMode, 1);
  return ACCESS_MODES[Math.min(unitMode, 3)] as UnitAccess;
}

/**
 * THE access rule of the forge (README, "Permissions"). Every route (through its declaration),
 * the git transport, raw files, attachments, archives and package registries ask it; listings use
 * its SQL twin in readable-repos.ts. Gitea 1.20's GetUserRepoPermission and HasOrgOrUserVisible:
 *
 * - an owner (user or organization) is visible to anonymous callers and public-only tokens when it
 *   is public; to signed-in callers when public or limited; private or not, to site admins, to
 *   itself and (organizations) to its members. A restricted user sees only owners they belong to;
 * - a repository is readable only when its owner is visible to the caller, or the caller
 *   collaborates on it (an outside collaborator of a private organization's repository);
 * - then: site admins and the owner have admin; a team covering the repository gives its level; a
 *   collaborator their level; a public repository gives read, except to restricted users;
 * - per unit: a team's units_map narrows its level; a public repository of an organization gives
 *   read on units no team of the caller defines (not to restricted users).
 */
export class AccessPolicy {
  constructor(
    private readonly db: Knex,
    private readonly users: UserService,
    private readonly gitDirOf: (ownerName: string, repoName: string) => string,
  ) {}

  // --- owners -----------------------------------------------------------------------------------

  isOrgMember(orgId: number, uid: number): Promise<boolean> {
    return isOrgMember(this.db, orgId, uid);
  }

  isOrgOwner(orgId: number, uid: number): Promise<boolean> {
    return isOrgOwner(this.db, orgId, uid);
  }

  /** Gitea's HasOrgOrUserVisible: may the caller see this owner's repositories (and the owner itself)? */
  async ownerVisible(owner: Pick<UserRow, 'id' | 'type' | 'visibility'>, principal: Principal | null): Promise<boolean> {
    const decided = ownerVisibleWithout(owner, principal);
    return decided ?? (owner.type === 1 && this.isOrgMember(owner.id, principal!.user.id));
  }

  /**
   * May the caller see this user's or organization's profile? Organizations follow ownerVisible.
   * Users (Gitea's IsUserVisibleToViewer): public to all; limited to signed-in, unrestricted
   * callers; private to themselves, site admins and members of an organization they share.
   */
  async profileVisible(target: UserRow, principal: Principal | null): Promise<boolean> {
    if (target.type === 1) return this.ownerVisible(target, principal);
    if (target.visibility === VISIBILITY.public) return true;
    if (!principal || principal.publicOnly) return false;
    const user = principal.user;
    if (user.isAdmin || user.id === target.id) return true;
    if (user.isRestricted) return false;
    if (target.visibility === VISIBILITY.limited) return true;
    const shared = await this.db('org_users as a')
      .join('org_users as b', 'a.org_id', 'b.org_id')
      .where('a.uid', target.id)
      .where('b.uid', user.id)
      .first('a.id');
    return Boolean(shared);
  }

  // --- repositories -----------------------------------------------------------------------------

  /** The repository-wide level (Gitea's Permission); `unitPermission` narrows it per unit. */
  async permission(repo: RepositoryRow, principal: Principal | null, owner?: UserRow): Promise<RepoPermission> {
    return permissionOf((await this.access(repo, principal, owner)).mode);
  }

  /** The caller's level on one unit: 'none' when the unit is off or the repository unreadable. */
  async unitPermission(repo: RepositoryRow, principal: Principal | null, unit: RepoUnit, owner?: UserRow): Promise<UnitAccess> {
    // A switched-off unit needs no access read.
    if (!repo.unitMap()[unit]) return 'none';
    return unitLevelOf(repo, await this.access(repo, principal, owner), unit);
  }

  private async access(repo: RepositoryRow, principal: Principal | null, owner?: UserRow): Promise<RepoAccess> {
    const ownerRow = owner ?? (await this.users.byId(repo.owner_id));
    if (!ownerRow) return NONE;
    const quick = accessWithout(repo, ownerRow, principal);
    if (quick) return quick;
    const facts = await this.factsFor([repo], new Map([[ownerRow.id, ownerRow]]), principal!.user.id);
    return decideAccess(repo, ownerRow, principal!, facts.get(repo.id)!);
  }

  /**
   * The repository-wide permissions of many repositories at once (a list page): the same rule, with
   * the caller's collaborations, memberships and teams read in three queries for the whole page.
   */
  async permissions(
    repos: readonly RepositoryRow[],
    owners: ReadonlyMap<number, UserRow>,
    principal: Principal | null,
  ): Promise<Map<number, RepoPermission>> {
    const out = new Map<number, RepoPermission>();
    const pending: RepositoryRow[] = [];
    for (const repo of repos) {
      const owner = owners.get(repo.owner_id);
      const quick = owner ? accessWithout(repo, owner, principal) : NONE;
      if (quick) out.set(repo.id, permissionOf(quick.mode));
      else pending.push(repo);
    }
    if (pending.length) {
      const facts = await this.factsFor(pending, owners, principal!.user.id);
      for (const repo of pending)
        out.set(repo.id, permissionOf(decideAccess(repo, owners.get(repo.owner_id)!, principal!, facts.get(repo.id)!).mode));
    }
    return out;
  }

  /** What the rule needs to know about the caller and each repository, in three queries whatever the count. */
  private async factsFor(
    repos: readonly RepositoryRow[],
    owners: ReadonlyMap<number, UserRow>,
    uid: number,
  ): Promise<Map<number, AccessFacts>> {
    const repoIds = repos.map((r) => r.id);
    const orgIds = [...new Set(repos.map((r) => r.owner_id).filter((id) => owners.get(id)?.type === 1))];
    const [collaborations, memberships, teams] = await Promise.all([
      this.db('collaborations').whereIn('repo_id', repoIds).where('user_id', uid).select('repo_id', 'mode'),
      orgIds.length ? this.db('org_users').whereIn('org_id', orgIds).where('uid', uid).select('org_id') : [],
      orgIds.length
        ? this.db('team_users as tu')
            .join('teams as t', 't.id', 'tu.team_id')
            .where('tu.uid', uid)
            .whereIn('tu.org_id', orgIds)
            .select('t.id', 'tu.org_id', 't.authorize', 't.includes_all_repositories', 't.units_map')
        : [],
    ]);
    const teamIds = teams.map((t: { id: number }) => t.id);
    const listed = teamIds.length
      ? await this.db('team_repos').whereIn('team_id', teamIds).whereIn('repo_id', repoIds).select('team_id', 'repo_id')
      : [];
    const listedKeys = new Set(listed.map((l: { team_id: number; repo_id: number }) => `${l.team_id}:${l.repo_id}`));
    const collab = new Map(collaborations.map((c: { repo_id: number; mode: number }) => [Number(c.repo_id), Number(c.mode)]));
    const memberOf = new Set(memberships.map((m: { org_id: number }) => Number(m.org_id)));
    const facts = new Map<number, AccessFacts>();
    for (const repo of repos) {
      facts.set(repo.id, {
        collaboration: collab.get(repo.id) ?? 0,
        orgMember: memberOf.has(repo.owner_id),
        teams: teams
          .filter((t: { org_id: number }) => Number(t.org_id) === repo.owner_id)
          .map((t: { id: number; authorize: number; includes_all_repositories: unknown; units_map: string }) => ({
            authorize: t.authorize,
            includes_all_repositories: t.includes_all_repositories,
            units_map: t.units_map,
            team_repo_id: listedKeys.has(`${t.id}:${repo.id}`) ? t.id : null,
          })),
      });
    }
    return facts;
  }

  /**
   * Find owner/repo and check the caller may `need` it (on `unit`, when given). A repository the
   * caller may not read, or a unit that is off or unreadable, is a 404 (existence is not
   * revealed); one it may read but not change is a 403; writes to an archived repository are 403.
   */
  async resolveRepo(
    ownerName: string,
    repoName: string,
    principal: Principal | null,
    need: AccessNeed,
    unit?: RepoUnit,
  ): Promise<ResolvedRepo> {
    const owner = await this.users.byName(ownerName);
    const repo = owner ? await RepositoryRow.query(this.db).findOne({ owner_id: owner.id, lower_name: repoName.toLowerCase() }) : undefined;
    if (!owner || !repo) throw ApiError.notFound(`repository does not exist [${ownerName}/${repoName}]`);
    return this.check(repo, owner, principal, need, unit);
  }

  /** As resolveRepo, for a repository row already loaded (by id, or a fork's parent). */
  async check(repo: RepositoryRow, owner: UserRow, principal: Principal | null, need: AccessNeed, unit?: RepoUnit): Promise<ResolvedRepo> {
    // The access is read once; the repository-wide and unit levels both come from it.
    const access = await this.access(repo, principal, owner);
    const permission = permissionOf(access.mode);
    if (!permission.pull) throw ApiError.notFound(`repository does not exist [${owner.name}/${repo.name}]`);
    const needed = ACCESS_MODES.indexOf(need);
    if (unit) {
      const level = ACCESS_MODES.indexOf(unitLevelOf(repo, access, unit));
      if (level < 1) throw ApiError.notFound(`the ${unit} unit of this repository is disabled or not readable`);
      if (level < needed)
        throw ApiError.forbidden(
          need === 'admin'
            ? 'you do not have admin access to this repository'
            : `you do not have ${need} access to the ${unit} unit of this repository`,
        );
    } else if (need === 'write' && !permission.push) {
      throw ApiError.forbidden('you do not have write access to this repository');
    }
    if (need === 'admin' && !permission.admin) throw ApiError.forbidden('you do not have admin access to this repository');
    if (need === 'write' && repo.is_archived) throw ApiError.forbidden('repository is archived');
    return { repo, owner, permission, gitDir: this.gitDirOf(owner.name, repo.name) };
  }

  // --- organizations, users, teams ---------------------------------------------------------------

  /** An organization the caller may see, with the role asked of them: 404 when invisible, 403 when the role is missing. */
  async resolveOrg(name: string, principal: Principal | null, role: 'visible' | 'member' | 'owner'): Promise<UserRow> {
    const org = await this.users.byName(name);
    if (!org || org.type !== 1 || !(await this.ownerVisible(org, principal)))
      throw ApiError.notFound(`organization does not exist [name: ${name}]`);
    if (role === 'visible' || actsAsAdmin(principal)) return org;
    const uid = principal && !principal.publicOnly ? principal.user.id : 0;
    if (role === 'member' && !(await this.isOrgMember(org.id, uid))) throw ApiError.forbidden('you must be a member of the organization');
    if (role === 'owner' && !(await this.isOrgOwner(org.id, uid))) throw ApiError.forbidden('you must be an owner of the organization');
    return org;
  }

  /** A user (or organization) by name (or id) as the caller may see it; `self-or-admin` then needs that user or a site admin (403). */
  async resolveUser(nameOrId: string | number, principal: Principal | null, need: 'visible' | 'self-or-admin'): Promise<UserRow> {
    const byId = typeof nameOrId === 'number';
    // An id that is not a positive integer names no one (the operation's schema should have refused it).
    const validId = byId && Number.isSafeInteger(nameOrId) && nameOrId > 0;
    const user = validId ? await this.users.byId(nameOrId as number) : byId ? undefined : await this.users.byName(String(nameOrId));
    if (!user || !(await this.profileVisible(user, principal)))
      throw ApiError.notFound(`user does not exist [${byId ? 'uid' : 'name'}: ${nameOrId}]`);
    if (need === 'self-or-admin' && !actsAsAdmin(principal) && principal?.user.id !== user.id) {
      throw ApiError.forbidden('you may only act on your own account');
    }
    return user;
  }

  /**
   * A team the caller may look at (`member`: site admins, organization owners and the team's
   * members; other organization members get 403, everyone else 404) or change (`owner`).
   */
  async resolveTeam(
    id: number,
    principal: Principal | null,
    need: 'member' | 'owner',
  ): Promise<{ team: Record<string, unknown>; org: UserRow }> {
    const team = await this.db('teams').where('id', id).first();
    const org = team ? await this.users.byId(Number(team.org_id)) : undefined;
    if (!team || !org || !(await this.ownerVisible(org, principal))) throw ApiError.notFound(`team does not exist [id: ${id}]`);
    if (actsAsAdmin(principal)) return { team, org };
    const uid = principal && !principal.publicOnly ? principal.user.id : 0;
    if (await this.isOrgOwner(org.id, uid)) return { team, org };
    if (need === 'member' && (await this.db('team_users').where({ team_id: team.id, uid }).first('id'))) return { team, org };
    if (await this.isOrgMember(org.id, uid))
      throw ApiError.forbidden(need === 'owner' ? 'you must be an owner of the organization' : 'you must be a member of the team');
    throw ApiError.notFound(`team does not exist [id: ${id}]`);
  }

  // --- packages ---------------------------------------------------------------------------------

  /** The owner named `name` of the packages the caller reaches, with whether it may change them: 404 when unknown or not visible. */
  async packageOwner(name: string, principal: Principal | null): Promise<{ owner: UserRow; canWrite: boolean }> {
    const owner = await this.users.byName(name);
    const permission = owner ? await this.packagePermission(owner, principal) : null;
    if (!owner || !permission?.canRead) throw ApiError.notFound(`user does not exist [name: ${name}]`);
    return { owner, canWrite: permission.canWrite };
  }

  /**
   * What the caller may do with an owner's packages: read when the owner is visible (a public-only
   * token: public owners only); write as the user themself, a site admin, or a member of a team
   * with write on the organization's packages unit.
   */
  async packagePermission(owner: UserRow, principal: Principal | null): Promise<{ canRead: boolean; canWrite: boolean }> {
    const canRead = await this.ownerVisible(owner, principal);
    if (!principal || principal.publicOnly || !canRead) return { canRead, canWrite: false };
    if (principal.user.isAdmin || principal.user.id === owner.id) return { canRead, canWrite: true };
    if (owner.type !== 1) return { canRead, canWrite: false };
    const teams = await this.db('team_users as tu')
      .join('teams as t', 't.id', 'tu.team_id')
      .where({ 'tu.org_id': owner.id, 'tu.uid': principal.user.id })
      .select('t.authorize', 't.units_map');
    const mode = teams.reduce((m: number, t: { authorize: number; units_map: string }) => Math.max(m, teamUnitMode(t, 'packages')), 0);
    return { canRead, canWrite: mode >= 2 };
  }
}
