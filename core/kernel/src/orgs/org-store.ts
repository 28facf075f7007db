import type { Knex } from 'knex';
import { ApiError, insertId } from '@hearth/plugin-api';
import { isUniqueViolation } from '../db/errors';
import { UserRow, VISIBILITY_NAMES, nowUnix } from '../users/models';
import { assertValidUserName } from '../users/names';

/** Gitea's access modes, by their API names (index = mode). */
export const ACCESS_MODES = ['none', 'read', 'write', 'admin', 'owner'] as const;
export const OWNER_MODE = 4;
/** Gitea 1.20's repository unit names as teams name them. */
export const TEAM_UNITS = [
  'repo.code',
  'repo.issues',
  'repo.ext_issues',
  'repo.wiki',
  'repo.ext_wiki',
  'repo.pulls',
  'repo.releases',
  'repo.projects',
  'repo.packages',
  'repo.actions',
];
export const OWNERS_TEAM = 'Owners';

export interface TeamRow {
  id: number;
  org_id: number;
  lower_name: string;
  name: string;
  description: string;
  authorize: number;
  includes_all_repositories: boolean;
  can_create_org_repo: boolean;
  units_map: string;
}

type Db = Knex | Knex.Transaction;

export function normalizeTeam(raw: Record<string, unknown>): TeamRow {
  return {
    id: Number(raw.id),
    org_id: Number(raw.org_id),
    lower_name: String(raw.lower_name),
    name: String(raw.name),
    description: String(raw.description ?? ''),
    authorize: Number(raw.authorize),
    includes_all_repositories: Boolean(raw.includes_all_repositories),
    can_create_org_repo: Boolean(raw.can_create_org_repo),
    units_map: String(raw.units_map ?? '{}'),
  };
}

export function isOwnersTeam(team: TeamRow): boolean {
  return team.authorize === OWNER_MODE;
}

export async function teamById(db: Db, id: number): Promise<TeamRow | undefined> {
  const raw = await db('teams').where('id', id).first();
  return raw ? normalizeTeam(raw) : undefined;
}

export async function isOrgMember(db: Db, orgId: number, uid: number): Promise<boolean> {
  return Boolean(await db('org_users').where({ org_id: orgId, uid }).first('id'));
}

export async function isOrgOwner(db: Db, orgId: number, uid: number): Promise<boolean> {
  const row = await db('team_users as tu')
    .join('teams as t', 't.id', 'tu.team_id')
    .where({ 'tu.org_id': orgId, 'tu.uid': uid, 't.authorize': OWNER_MODE })
    .first('tu.id');
  return Boolean(row);
}

/** The highest access mode of `uid`'s teams in the organization (0 when not a member). */
export async function maxTeamMode(db: Db, orgId: number, uid: number): Promise<number> {
  const rows = await db('team_users as tu')
    .join('teams as t', 't.id', 'tu.team_id')
    .where({ 'tu.org_id': orgId, 'tu.uid': uid })
    .select('t.authorize');
  return rows.reduce((m: number, r: { authorize: number }) => Math.max(m, Number(r.authorize)), 0);
}

/**
 * Whether `userId` may create repositories in organization `orgId`: a member of the Owners team or
 * of a team with can_create_org_repo. (Site admins are the caller's to allow.)
 */
export async function canCreateOrgRepo(db: Db, orgId: number, userId: number): Promise<boolean> {
  const row = await db('team_users as tu')
    .join('teams as t', 't.id', 'tu.team_id')
    .where({ 'tu.org_id': orgId, 'tu.uid': userId })
    .where((w) => w.where('t.authorize', OWNER_MODE).orWhere('t.can_create_org_repo', true))
    .first('tu.id');
  return Boolean(row);
}

/** Drop org_users rows of users in `uids` who are no longer in any team of the organization. */
export async function syncOrgUsers(trx: Db, orgId: number, uids: number[]): Promise<void> {
  for (const uid of uids) {
    const still = await trx('team_users').where({ org_id: orgId, uid }).first('id');
    if (!still) await trx('org_users').where({ org_id: orgId, uid }).delete();
  }
}

/**
 * Refuse to delete a user who is the only member of some organization's Owners team (the
 * organization would be left without owners), naming the organization.
 */
export async function assertNotLastOwner(trx: Db, userId: number): Promise<void> {
  const ownerSeats = await trx('team_users as tu')
    .join('teams as t', 't.id', 'tu.team_id')
    .where({ 'tu.uid': userId, 't.authorize': OWNER_MODE })
    .select('tu.team_id', 'tu.org_id');
  for (const seat of ownerSeats) {
    const others = await trx('team_users').where('team_id', seat.team_id).whereNot('uid', userId).first('id');
    if (!others) {
      const org = await trx('users').where('id', seat.org_id).first('name');
      throw ApiError.unprocessable(
        `user is the last owner of organization ${org?.name ?? seat.org_id}; add another owner or delete the organization first`,
      );
    }
  }
}

/** Call inside the deletion transaction of an organization: its teams, their seats and repositories, members and settings. */
export async function removeOrganization(trx: Db, orgId: number): Promise<void> {
  await trx('team_repos').where('org_id', orgId).delete();
  await trx('team_users').where('org_id', orgId).delete();
  await trx('teams').where('org_id', orgId).delete();
  await trx('org_users').where('org_id', orgId).delete();
  await trx('org_settings').where('org_id', orgId).delete();
}

/** Call inside the user-deletion transaction (purge): memberships, team seats and collaborations of the user. */
export async function removeUserMemberships(trx: Db, userId: number): Promise<void> {
  await trx('team_users').where('uid', userId).delete();
  await trx('org_users').where('uid', userId).delete();
  await trx('collaborations').where('user_id', userId).delete();
}

/** Call inside a repository's deletion transaction (and for every purged repository): team links and collaborations. */
export async function removeRepoAccess(trx: Db, repoId: number | number[]): Promise<void> {
  const ids = Array.isArray(repoId) ? repoId : [repoId];
  if (ids.length === 0) return;
  await trx('team_repos').whereIn('repo_id', ids).delete();
  await trx('collaborations').whereIn('repo_id', ids).delete();
}

export interface CreateOrgInput {
  username: string;
  full_name?: string;
  description?: string;
  website?: string;
  location?: string;
  visibility?: 'public' | 'limited' | 'private';
  repo_admin_change_team_access?: boolean;
}

/** An organization row, its settings, and the Owners team with `ownerId` as its first member. */
export async function createOrg(db: Knex, input: CreateOrgInput, ownerId: number): Promise<UserRow> {
  assertValidUserName(input.username);
  const now = nowUnix();
  try {
    return await db.transaction(async (trx) => {
      const taken = await trx('users').where('lower_name', input.username.toLowerCase()).first('id');
      if (taken) throw ApiError.unprocessable(`user already exists [name: ${input.username}]`);
      const org = await UserRow.query(trx).insertAndFetch({
        lower_name: input.username.toLowerCase(),
        name: input.username,
        full_name: input.full_name ?? '',
        email: '',
        description: input.description ?? '',
        website: input.website ?? '',
        location: input.location ?? '',
        type: 1,
        visibility: VISIBILITY_NAMES.indexOf(input.visibility ?? 'public'),
        allow_create_organization: false,
        created_unix: now,
        updated_unix: now,
      } as Partial<UserRow>);
      await trx('org_settings').insert({ org_id: org.id, repo_admin_change_team_access: input.repo_admin_change_team_access ?? false });
      const teamId = await insertId(trx, 'teams', {
        org_id: org.id,
        lower_name: OWNERS_TEAM.toLowerCase(),
        name: OWNERS_TEAM,
        description: '',
        authorize: OWNER_MODE,
        includes_all_repositories: true,
        can_create_org_repo: true,
        units_map: JSON.stringify(Object.fromEntries(TEAM_UNITS.map((u) => [u, 'owner']))),
        created_unix: now,
        updated_unix: now,
      });
      await trx('team_users').insert({ org_id: org.id, team_id: teamId, uid: ownerId });
      await trx('org_users').insert({ org_id: org.id, uid: ownerId, is_public: false });
      return org;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw ApiError.unprocessable(`user already exists [name: ${input.username}]`);
    throw err;
  }
}

export { insertId };

/** EditOrgOption: the fields of an organization that may change. */
export type EditOrgInput = Omit<CreateOrgInput, 'username'>;

/** Apply EditOrgOption to an organization and its settings. */
export async function updateOrg(db: Knex, orgId: number, b: EditOrgInput): Promise<void> {
  const patch: Partial<UserRow> = { updated_unix: nowUnix() };
  if (b.full_name !== undefined) patch.full_name = b.full_name;
  if (b.description !== undefined) patch.description = b.description;
  if (b.website !== undefined) patch.website = b.website;
  if (b.location !== undefined) patch.location = b.location;
  if (b.visibility !== undefined) patch.visibility = VISIBILITY_NAMES.indexOf(b.visibility);
  await db.transaction(async (trx) => {
    await UserRow.query(trx).patch(patch).where('id', orgId);
    if (b.repo_admin_change_team_access !== undefined) {
      await trx('org_settings').where('org_id', orgId).update({ repo_admin_change_team_access: b.repo_admin_change_team_access });
    }
  });
}

/** Remove a user from an organization (every team seat and the membership); its last owner stays. */
export async function removeOrgMember(db: Knex, orgId: number, uid: number): Promise<void> {
  await db.transaction(async (trx) => {
    if (await isOrgOwner(trx, orgId, uid)) {
      const owners = await trx('team_users as tu')
        .join('teams as t', 't.id', 'tu.team_id')
        .where({ 'tu.org_id': orgId, 't.authorize': OWNER_MODE })
        .count<{ n: number }[]>({ n: '*' });
      if (Number(owners[0].n) <= 1) throw ApiError.unprocessable('the last member of the Owners team cannot be removed');
    }
    await trx('team_users').where({ org_id: orgId, uid }).delete();
    await trx('org_users').where({ org_id: orgId, uid }).delete();
  });
}
