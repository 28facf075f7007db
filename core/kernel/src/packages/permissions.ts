import type { Knex } from 'knex';
import type { Principal } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import type { UserRow } from '../users/models';
import { canSeeOrg } from '../orgs/org-store';
import { teamUnitMode } from '../repos/repo-service';

/** What a caller may do with an owner's packages. */
export interface PackagePermission {
  canRead: boolean;
  canWrite: boolean;
}

const WRITE_MODE = 2;

/**
 * THE rule for package permissions, used by the registry routes and /api/v1/packages alike.
 * A user's packages: read by anyone who can see the user (public: everyone; limited: signed-in
 * callers; private: the user and site admins), written (publish, delete) by the user and site
 * admins. An organization's packages: read by anyone who can see the organization (private:
 * members), written by site admins and members of a team with write on the packages unit (the
 * Owners team, an admin team, or a team whose units_map gives `repo.packages` write), as Gitea.
 * A public-only token reaches public owners only, even its own user's private packages.
 */
export async function packagePermission(deps: { db: Knex; users: UserService }, owner: UserRow, principal: Principal | null): Promise<PackagePermission> {
  const isOrg = owner.type === 1;
  const visible = isOrg ? await canSeeOrg(deps.db, owner, principal) : deps.users.canSee(owner, principal);
  const canRead = visible && !(principal?.publicOnly && owner.visibility !== 0);
  if (!principal || !canRead) return { canRead, canWrite: false };
  if ((principal.user.isAdmin && !principal.publicOnly) || principal.user.id === owner.id) return { canRead, canWrite: true };
  if (!isOrg) return { canRead, canWrite: false };
  const teams = await deps.db('team_users as tu').join('teams as t', 't.id', 'tu.team_id')
    .where({ 'tu.org_id': owner.id, 'tu.uid': principal.user.id }).select('t.authorize', 't.units_map');
  const mode = teams.reduce((m: number, t: { authorize: number; units_map: string }) => Math.max(m, teamUnitMode(t, 'packages')), 0);
  return { canRead, canWrite: mode >= WRITE_MODE };
}
