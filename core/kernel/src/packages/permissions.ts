import type { Principal } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import type { UserRow } from '../users/models';

/** What a caller may do with an owner's packages. */
export interface PackagePermission {
  canRead: boolean;
  canWrite: boolean;
}

/**
 * THE rule for package permissions, used by the registry routes and /api/v1/packages alike.
 * Read: anyone who can see the owner (public owners: everyone; limited: signed-in callers;
 * private: the owner and site admins; public-only tokens: public owners only). Write (publish,
 * delete): the owner themself and site admins.
 * TODO(organizations): members of an organization's teams with package write access.
 */
export async function packagePermission(users: UserService, owner: UserRow, principal: Principal | null): Promise<PackagePermission> {
  // A public-only token reaches public owners only, even its own user's private packages.
  const canRead = users.canSee(owner, principal) && !(principal?.publicOnly && owner.visibility !== 0);
  if (!principal || !canRead) return { canRead, canWrite: false };
  const canWrite = principal.user.id === owner.id || (principal.user.isAdmin && !principal.publicOnly);
  return { canRead, canWrite };
}
