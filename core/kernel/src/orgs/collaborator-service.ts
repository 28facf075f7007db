import { ApiError, type Principal } from '@hearth/plugin-api';
import { nowUnix, type UserRow } from '../users/models';
import type { RepositoryRow } from '../repos/models';
import { isUniqueViolation } from '../db/errors';
import { actsAsAdmin } from '../access/policy';
import { principalOf } from '../access/readable-repos';
import type { OrgDeps } from './org-deps';
import { ACCESS_MODES, isOrgOwner } from './org-store';

export type CollaboratorService = ReturnType<typeof collaboratorService>;

/** A repository's collaborators and the access mode of a user to it. */
export function collaboratorService(deps: OrgDeps) {
  const { db, users, repos } = deps;

  /** The individual user named by `name` (422, or `missing` when given, otherwise). */
  async function collaboratorUser(name: string, missing = (message: string) => ApiError.unprocessable(message)): Promise<UserRow> {
    const user = await users.byName(name);
    if (!user || user.type !== 0) throw missing(`user does not exist [name: ${name}]`);
    return user;
  }

  const isCollaborator = async (repo: RepositoryRow, user: UserRow): Promise<boolean> =>
    Boolean(await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).first('id'));

  /** Add a collaborator or change their permission (`write` unless named). */
  async function setCollaborator(repo: RepositoryRow, user: UserRow, permission: 'read' | 'write' | 'admin' | undefined): Promise<void> {
    if (user.id === repo.owner_id) throw ApiError.unprocessable('the owner of a repository cannot be its collaborator');
    const mode = ACCESS_MODES.indexOf(permission ?? 'write');
    const now = nowUnix();
    const existing = await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).first('id');
    if (existing) {
      await db('collaborations').where('id', existing.id).update({ mode, updated_unix: now });
      return;
    }
    try {
      await db('collaborations').insert({ repo_id: repo.id, user_id: user.id, mode, created_unix: now, updated_unix: now });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).update({ mode, updated_unix: now });
    }
  }

  const removeCollaborator = async (repo: RepositoryRow, user: UserRow): Promise<void> => {
    await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).delete();
  };

  /** A user's access mode to a repository, as Gitea names it (the repository's owner and org owners are `owner`). */
  const modeOf = async (repo: RepositoryRow, owner: UserRow, user: UserRow): Promise<string> => {
    if (user.id === repo.owner_id) return 'owner';
    if (owner.type === 1 && (await isOrgOwner(db, owner.id, user.id))) return 'owner';
    const perm = await repos.access.permission(repo, principalOf(users.toInfo(user)), owner);
    return perm.admin ? 'admin' : perm.push ? 'write' : perm.pull ? 'read' : 'none';
  };

  /**
   * RepoCollaboratorPermission of `user`: site admins and the repository's admins may ask about
   * anyone, other callers only about themselves.
   */
  async function permissionOf(
    resolved: { repo: RepositoryRow; owner: UserRow; permission: { admin: boolean } },
    user: UserRow,
    p: Principal,
  ) {
    if (!actsAsAdmin(p) && p.user.id !== user.id && !resolved.permission.admin) {
      throw ApiError.forbidden(
        'only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own',
      );
    }
    const permission = await modeOf(resolved.repo, resolved.owner, user);
    return { permission, role_name: permission, user: users.toApi(user, p) };
  }

  return { collaboratorUser, isCollaborator, setCollaborator, removeCollaborator, permissionOf };
}
