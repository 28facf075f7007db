import { ApiError, type Principal, type UserInfo } from '@hearth/plugin-api';
import type { UserRow } from '../users/models';
import { whereProfileVisible } from '../access/visible-profiles';
import { actsAsAdmin } from '../access/policy';
import type { OrgDeps } from './org-deps';
import { canCreateOrgRepo, isOrgMember, maxTeamMode } from './org-store';

export type OrgService = ReturnType<typeof orgService>;

/** Organizations beyond their rows: who sees their members, a user's organizations and permissions, deletion. */
export function orgService(deps: OrgDeps) {
  const { db, users, repos } = deps;

  /** Members of the organization (and site admins) also see its concealed members. */
  const seesConcealedMembers = async (org: UserRow, p: Principal | null): Promise<boolean> =>
    actsAsAdmin(p) || (p !== null && !p.publicOnly && (await isOrgMember(db, org.id, p.user.id)));

  /**
   * Organizations a user belongs to, as far as the caller may see them; `all` includes concealed
   * memberships (the user themself, site admins).
   */
  const memberOrgs = (uid: number, viewer: Principal | null, all: boolean) =>
    whereProfileVisible(
      users
        .query()
        .where('users.type', 1)
        .whereIn('users.id', (s) => {
          s.select('org_id').from('org_users').where('uid', uid);
          if (!all) s.where('is_public', true);
        }),
      viewer,
    );

  /** The members of an organization, concealed ones included when `all`. */
  const members = (orgId: number, all: boolean) =>
    users.query().whereIn('users.id', (s) => {
      s.select('uid').from('org_users').where('org_id', orgId);
      if (!all) s.where('is_public', true);
    });

  /** Gitea's OrganizationPermissions of a user: from the highest mode of their teams. */
  const permissions = async (org: UserRow, user: UserRow) => {
    const level = await maxTeamMode(db, org.id, user.id);
    return {
      is_owner: level >= 4,
      is_admin: level >= 3,
      can_write: level >= 2,
      can_read: level >= 1,
      can_create_repository: await canCreateOrgRepo(db, org.id, user.id),
    };
  };

  /** Delete an organization that owns no repositories. */
  const deleteOrg = async (org: UserRow, actor: UserInfo | null) => {
    const owned = await repos.query().where('owner_id', org.id).resultSize();
    if (owned > 0) throw ApiError.unprocessable(`organization still owns ${owned} repositories; delete or transfer them first`);
    // An organization is an account: its deletion runs the same hooks (packages refuse, features clean up).
    await users.delete(org, false, actor);
  };

  return { seesConcealedMembers, memberOrgs, members, permissions, deleteOrg };
}
