import { ApiError, isApiError, created, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type Principal } from '@hearth/plugin-api';
import { UserRow, VISIBILITY_NAMES, nowUnix } from '../users/models';
import { userOf } from '../users/user-routes';
import { whereProfileVisible } from '../access/visible-profiles';
import { RepositoryRow } from '../repos/models';
import { isUniqueViolation } from '../db/errors';
import { containsCondition } from '../db/like';
import { actsAsAdmin } from '../access/policy';
import { ownerOf, repoOf, teamOf } from '../access/operation-access';
import { principalOf, readableRepoIds } from '../access/readable-repos';
import type { OrgDeps } from './org-deps';
import {
  ACCESS_MODES, OWNER_MODE, TEAM_UNITS, createOrg, insertId, isOrgMember, isOrgOwner, isOwnersTeam, maxTeamMode, normalizeTeam,
  canCreateOrgRepo, syncOrgUsers, teamById, type CreateOrgInput, type TeamRow,
} from './org-store';

const str = (name: string): JsonSchema => ({ type: 'object', properties: { [name]: { type: 'string', maxLength: 255 } }, required: [name] });
const strs = (...names: string[]): JsonSchema => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string', maxLength: 255 }])), required: names });
const TEAM_ID: JsonSchema = { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] };
const teamIdAnd = (...names: string[]): JsonSchema => ({
  type: 'object', properties: { id: { type: 'integer', minimum: 1 }, ...Object.fromEntries(names.map((n) => [n, { type: 'string', maxLength: 255 }])) }, required: ['id', ...names],
});
const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });
const TEAM_NAME = /^[\w.-]+$/;

interface TeamBody {
  name?: string;
  description?: string;
  includes_all_repositories?: boolean;
  permission?: 'read' | 'write' | 'admin';
  units?: string[];
  units_map?: Record<string, string>;
  can_create_org_repo?: boolean;
}

type EditOrgBody = Omit<CreateOrgInput, 'username'>;

/** Organizations, members, teams and collaborators (section category: organization; collaborators: repository). */
export function orgOperations(deps: OrgDeps): ApiOperation[] {
  const { db, users, repos, http } = deps;

  // --- JSON -----------------------------------------------------------------------------------

  const orgJson = async (org: UserRow): Promise<Record<string, unknown>> => {
    const settings = await db('org_settings').where('org_id', org.id).first('repo_admin_change_team_access');
    return {
      id: org.id, name: org.name, full_name: org.full_name, avatar_url: users.avatarUrl(org.email || `${org.lower_name}@org`),
      description: org.description, website: org.website, location: org.location, visibility: VISIBILITY_NAMES[org.visibility] ?? 'public',
      repo_admin_change_team_access: Boolean(settings?.repo_admin_change_team_access), username: org.name,
    };
  };

  const teamJson = async (team: TeamRow, org?: UserRow): Promise<Record<string, unknown>> => {
    const owner = org ?? (await users.byId(team.org_id))!;
    const unitsMap = JSON.parse(team.units_map) as Record<string, string>;
    return {
      id: team.id, name: team.name, description: team.description, organization: await orgJson(owner),
      includes_all_repositories: team.includes_all_repositories, permission: ACCESS_MODES[team.authorize] ?? 'none',
      units: TEAM_UNITS.filter((u) => unitsMap[u] && unitsMap[u] !== 'none'), units_map: unitsMap, can_create_org_repo: team.can_create_org_repo,
    };
  };

  const userPage = async (req: ApiRequest<any, any, any>, query: ReturnType<typeof users.query>) => {
    const [rows, total] = await Promise.all([query.clone().orderBy('users.id').offset(req.paging.offset).limit(req.paging.limit), query.clone().resultSize()]);
    return http.paged(req, rows.map((r) => users.toApi(r, req.principal)), total);
  };

  const orgPage = async (req: ApiRequest<any, any, any>, query: ReturnType<typeof users.query>) => {
    const [rows, total] = await Promise.all([query.clone().orderBy('users.id').offset(req.paging.offset).limit(req.paging.limit), query.clone().resultSize()]);
    const items = [];
    for (const r of rows) items.push(await orgJson(r));
    return http.paged(req, items, total);
  };

  // --- checks beyond the declared access ----------------------------------------------------------

  /** Members of the organization (and site admins) also see its concealed members. */
  const seesConcealedMembers = async (org: UserRow, p: Principal | null): Promise<boolean> =>
    actsAsAdmin(p) || (p !== null && !p.publicOnly && (await isOrgMember(db, org.id, p.user.id)));

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

  /** Units and the overall permission of a team from Create/EditTeamOption (Gitea 1.20's rules). */
  const teamUnits = (body: TeamBody, current?: TeamRow): { authorize: number; units_map: string } => {
    let authorize = body.permission ? ACCESS_MODES.indexOf(body.permission) : current?.authorize ?? -1;
    let map: Record<string, string>;
    if (body.units_map && Object.keys(body.units_map).length > 0) {
      for (const [unit, mode] of Object.entries(body.units_map)) {
        if (!TEAM_UNITS.includes(unit)) throw ApiError.unprocessable(`unknown unit [unit: ${unit}]`);
        if (!['none', 'read', 'write', 'admin'].includes(mode)) throw ApiError.unprocessable(`invalid permission of unit ${unit} [permission: ${mode}]`);
      }
      map = Object.fromEntries(TEAM_UNITS.map((u) => [u, body.units_map![u] ?? 'none']));
      const modes = Object.values(map).map((m) => ACCESS_MODES.indexOf(m as (typeof ACCESS_MODES)[number])).filter((m) => m > 0);
      if (authorize < 3) authorize = modes.length ? Math.min(...modes) : 0;
    } else {
      if (authorize < 0) authorize = 0;
      const units = body.units ?? (current ? TEAM_UNITS.filter((u) => (JSON.parse(current.units_map) as Record<string, string>)[u] !== 'none') : TEAM_UNITS);
      for (const unit of units) if (!TEAM_UNITS.includes(unit)) throw ApiError.unprocessable(`unknown unit [unit: ${unit}]`);
      map = Object.fromEntries(TEAM_UNITS.map((u) => [u, units.includes(u) ? ACCESS_MODES[authorize] : 'none']));
    }
    if (authorize >= 3) map = Object.fromEntries(TEAM_UNITS.map((u) => [u, ACCESS_MODES[authorize]]));
    return { authorize, units_map: JSON.stringify(map) };
  };

  /** A user's access mode to a repository, as Gitea names it (the repository's owner and org owners are `owner`). */
  const modeOf = async (repo: RepositoryRow, owner: UserRow, user: UserRow): Promise<string> => {
    if (user.id === repo.owner_id) return 'owner';
    if (owner.type === 1 && (await isOrgOwner(db, owner.id, user.id))) return 'owner';
    const perm = await repos.access.permission(repo, principalOf(users.toInfo(user)), owner);
    return perm.admin ? 'admin' : perm.push ? 'write' : perm.pull ? 'read' : 'none';
  };

  const createOrgFor = async (req: ApiRequest<CreateOrgInput>, owner: UserRow) => {
    const org = await createOrg(db, req.body, owner.id);
    return created(await orgJson(org));
  };

  /** Organizations a user belongs to, as far as the caller may see them; `all` includes concealed memberships (the user themself, site admins). */
  const memberOrgs = (uid: number, viewer: Principal | null, all: boolean) =>
    whereProfileVisible(users.query().where('users.type', 1).whereIn('users.id', (s) => {
      s.select('org_id').from('org_users').where('uid', uid);
      if (!all) s.where('is_public', true);
    }), viewer);

  const teamRepoQuery = (team: TeamRow) =>
    team.includes_all_repositories || team.authorize === OWNER_MODE
      ? repos.query().where('owner_id', team.org_id)
      : repos.query().where('owner_id', team.org_id).whereIn('id', (s) => s.select('repo_id').from('team_repos').where('team_id', team.id));

  return [
    // --- organizations ----------------------------------------------------------------------------
    {
      method: 'post', path: '/orgs', operationId: 'orgCreate', tag: 'organization', summary: 'Create an organization',
      scopes: ['organization'], access: 'caller', auth: 'required', body: 'CreateOrgOption', bodyRequired: true, responses: { 201: 'Organization', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateOrgInput>) => {
        const me = (await users.rowOf(req.principal!))!;
        if (!me.is_admin && (!me.allow_create_organization || me.is_restricted)) throw ApiError.forbidden('you may not create organizations');
        return createOrgFor(req, me);
      },
    },
    {
      method: 'get', path: '/orgs', operationId: 'orgGetAll', tag: 'organization', summary: 'Get list of organizations',
      scopes: ['organization'], access: 'anyone', paged: true, responses: { 200: list('Organization') },
      handler: async (req) => orgPage(req, whereProfileVisible(users.query().where('users.type', 1), req.principal)),
    },
    {
      method: 'get', path: '/admin/orgs', operationId: 'adminGetAllOrgs', tag: 'admin', summary: 'List all organizations',
      scopes: ['admin'], access: 'site-admin', auth: 'siteAdmin', paged: true, responses: { 200: list('Organization') },
      handler: async (req) => orgPage(req, users.query().where('type', 1)),
    },
    {
      method: 'post', path: '/admin/users/{username}/orgs', operationId: 'adminCreateOrg', tag: 'admin', summary: 'Create an organization',
      scopes: ['admin'], access: 'site-admin', auth: 'siteAdmin', params: str('username'), body: 'CreateOrgOption', bodyRequired: true, responses: { 201: 'Organization', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateOrgInput, unknown, { username: string }>) => createOrgFor(req, await users.require(req.params.username)),
    },
    {
      method: 'get', path: '/orgs/{org}', operationId: 'orgGet', tag: 'organization', summary: 'Get an organization',
      scopes: ['organization'], access: { org: 'visible' }, params: str('org'), responses: { 200: 'Organization', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => ok(await orgJson(ownerOf(req))),
    },
    {
      method: 'patch', path: '/orgs/{org}', operationId: 'orgEdit', tag: 'organization', summary: 'Edit an organization',
      scopes: ['organization'], access: { org: 'owner' }, auth: 'required', params: str('org'), body: 'EditOrgOption', bodyRequired: true, responses: { 200: 'Organization' },
      handler: async (req: ApiRequest<EditOrgBody, unknown, { org: string }>) => {
        const org = ownerOf(req);
        const b = req.body;
        const patch: Partial<UserRow> = { updated_unix: nowUnix() };
        if (b.full_name !== undefined) patch.full_name = b.full_name;
        if (b.description !== undefined) patch.description = b.description;
        if (b.website !== undefined) patch.website = b.website;
        if (b.location !== undefined) patch.location = b.location;
        if (b.visibility !== undefined) patch.visibility = VISIBILITY_NAMES.indexOf(b.visibility);
        await db.transaction(async (trx) => {
          await UserRow.query(trx).patch(patch).where('id', org.id);
          if (b.repo_admin_change_team_access !== undefined) await trx('org_settings').where('org_id', org.id).update({ repo_admin_change_team_access: b.repo_admin_change_team_access });
        });
        return ok(await orgJson((await users.byId(org.id))!));
      },
    },
    {
      method: 'delete', path: '/orgs/{org}', operationId: 'orgDelete', tag: 'organization', summary: 'Delete an organization',
      scopes: ['organization'], access: { org: 'owner' }, auth: 'required', params: str('org'), responses: { 204: 'deleted', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        const owned = await repos.query().where('owner_id', org.id).resultSize();
        if (owned > 0) throw ApiError.unprocessable(`organization still owns ${owned} repositories; delete or transfer them first`);
        // An organization is an account: its deletion runs the same hooks (packages refuse, features clean up).
        await users.delete(org, false, req.principal!.user);
        return noContent();
      },
    },

    {
      method: 'get', path: '/orgs/{org}/repos', operationId: 'orgListRepos', tag: 'organization', summary: "List an organization's repos",
      scopes: ['organization'], access: { org: 'visible' }, params: str('org'), paged: true, responses: { 200: list('Repository') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        let q = repos.query().where('owner_id', org.id);
        const readable = readableRepoIds(db, req.principal);
        if (readable) q = q.whereIn('id', readable);
        const [rows, total] = await Promise.all([q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit), q.clone().resultSize()]);
        return http.paged(req as ApiRequest<any, any, any>, await repos.toApiPage(rows, req.principal), total);
      },
    },

    // --- members ------------------------------------------------------------------------------------
    {
      method: 'get', path: '/orgs/{org}/members', operationId: 'orgListMembers', tag: 'organization', summary: "List an organization's members",
      scopes: ['organization'], access: { org: 'visible' }, params: str('org'), paged: true, responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        const all = await seesConcealedMembers(org, req.principal);
        return userPage(req, users.query().whereIn('users.id', (s) => {
          s.select('uid').from('org_users').where('org_id', org.id);
          if (!all) s.where('is_public', true);
        }));
      },
    },
    {
      method: 'get', path: '/orgs/{org}/members/{username}', operationId: 'orgIsMember', tag: 'organization', summary: 'Check if a user is a member of an organization',
      scopes: ['organization'], access: { org: 'visible' }, params: strs('org', 'username'), responses: { 204: 'user is a member', 404: 'user is not a member' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        const row = await db('org_users').where({ org_id: org.id, uid: user.id }).first('is_public');
        if (!row || (!row.is_public && !(await seesConcealedMembers(org, req.principal)))) throw ApiError.notFound('user is not a member of the organization');
        return noContent();
      },
    },
    {
      method: 'delete', path: '/orgs/{org}/members/{username}', operationId: 'orgDeleteMember', tag: 'organization', summary: 'Remove a member from an organization',
      scopes: ['organization'], access: { org: 'owner' }, auth: 'required', params: strs('org', 'username'), responses: { 204: 'member removed', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        await db.transaction(async (trx) => {
          if (await isOrgOwner(trx, org.id, user.id)) {
            const owners = await trx('team_users as tu').join('teams as t', 't.id', 'tu.team_id').where({ 'tu.org_id': org.id, 't.authorize': OWNER_MODE }).count<{ n: number }[]>({ n: '*' });
            if (Number(owners[0].n) <= 1) throw ApiError.unprocessable('the last member of the Owners team cannot be removed');
          }
          await trx('team_users').where({ org_id: org.id, uid: user.id }).delete();
          await trx('org_users').where({ org_id: org.id, uid: user.id }).delete();
        });
        return noContent();
      },
    },
    {
      method: 'get', path: '/orgs/{org}/public_members', operationId: 'orgListPublicMembers', tag: 'organization', summary: "List an organization's public members",
      scopes: ['organization'], access: { org: 'visible' }, params: str('org'), paged: true, responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        return userPage(req, users.query().whereIn('users.id', (s) => s.select('uid').from('org_users').where({ org_id: org.id, is_public: true })));
      },
    },
    {
      method: 'get', path: '/orgs/{org}/public_members/{username}', operationId: 'orgIsPublicMember', tag: 'organization', summary: 'Check if a user is a public member of an organization',
      scopes: ['organization'], access: { org: 'visible' }, params: strs('org', 'username'), responses: { 204: 'user is a public member', 404: 'user is not a public member' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        if (!(await db('org_users').where({ org_id: org.id, uid: user.id, is_public: true }).first('id'))) throw ApiError.notFound('user is not a public member of the organization');
        return noContent();
      },
    },
    ...(['put', 'delete'] as const).map((method): ApiOperation => ({
      method, path: '/orgs/{org}/public_members/{username}', operationId: method === 'put' ? 'orgPublicizeMember' : 'orgConcealMember', tag: 'organization',
      summary: method === 'put' ? "Publicize a user's membership" : "Conceal a user's membership",
      scopes: ['organization'], access: { org: 'visible' }, auth: 'required', params: strs('org', 'username'), responses: { 204: 'done', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        if (req.principal!.user.id !== user.id) throw ApiError.forbidden(`you cannot ${method === 'put' ? 'publicize' : 'conceal'} another member's membership`);
        const updated = await db('org_users').where({ org_id: org.id, uid: user.id }).update({ is_public: method === 'put' });
        if (!updated) throw ApiError.notFound('user is not a member of the organization');
        return noContent();
      },
    })),

    // --- user-organization routes ---------------------------------------------------------------
    {
      method: 'get', path: '/user/orgs', operationId: 'orgListCurrentUserOrgs', tag: 'organization', summary: "List the current user's organizations",
      scopes: ['user', 'organization'], access: 'caller', auth: 'required', paged: true, responses: { 200: list('Organization') },
      handler: async (req) => orgPage(req, memberOrgs(req.principal!.user.id, req.principal, true)),
    },
    {
      method: 'get', path: '/users/{username}/orgs', operationId: 'orgListUserOrgs', tag: 'organization', summary: "List a user's organizations",
      scopes: ['user', 'organization'], access: { user: 'visible' }, auth: 'required', params: str('username'), paged: true, responses: { 200: list('Organization') },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => {
        const user = userOf(req);
        const p = req.principal!;
        return orgPage(req, memberOrgs(user.id, p, actsAsAdmin(p) || (!p.publicOnly && p.user.id === user.id)));
      },
    },
    {
      method: 'get', path: '/users/{username}/orgs/{org}/permissions', operationId: 'orgGetUserPermissions', tag: 'organization', summary: "Get a user's permissions in an organization",
      scopes: ['user', 'organization'], access: { user: 'visible' }, auth: 'required', params: strs('username', 'org'), responses: { 200: 'OrganizationPermissions' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string; org: string }>) => {
        const user = userOf(req);
        const org = await repos.access.resolveOrg(req.params.org, req.principal, 'visible');
        const level = await maxTeamMode(db, org.id, user.id);
        return ok({ is_owner: level >= 4, is_admin: level >= 3, can_write: level >= 2, can_read: level >= 1, can_create_repository: await canCreateOrgRepo(db, org.id, user.id) });
      },
    },

    // --- teams ------------------------------------------------------------------------------------
    {
      method: 'get', path: '/orgs/{org}/teams', operationId: 'orgListTeams', tag: 'organization', summary: "List an organization's teams",
      scopes: ['organization'], access: { org: 'member' }, auth: 'required', params: str('org'), paged: true, responses: { 200: list('Team') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        const q = db('teams').where('org_id', org.id);
        const [rows, [{ n }]] = await Promise.all([q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit), q.clone().count<{ n: number }[]>({ n: '*' })]);
        const items = [];
        for (const r of rows) items.push(await teamJson(normalizeTeam(r), org));
        return http.paged(req, items, Number(n));
      },
    },
    {
      method: 'get', path: '/orgs/{org}/teams/search', operationId: 'teamSearch', tag: 'organization', summary: 'Search for teams within an organization',
      scopes: ['organization'], access: { org: 'member' }, auth: 'required', params: str('org'), paged: true,
      query: { type: 'object', properties: { q: { type: 'string', maxLength: 255 }, include_desc: { type: 'boolean' } } },
      responses: { 200: { description: 'SearchResults of teams', schema: { type: 'object', properties: { ok: { type: 'boolean' }, data: { type: 'array', items: { $ref: 'Team' } } } } } },
      handler: async (req: ApiRequest<unknown, { q?: string; include_desc?: boolean }, { org: string }>) => {
        const org = ownerOf(req);
        let q = db('teams').where('org_id', org.id);
        const keyword = req.query.q;
        if (keyword) {
          q = q.where((w) => {
            w.whereRaw(...containsCondition('lower_name', keyword));
            if (req.query.include_desc !== false) w.orWhereRaw(...containsCondition('description', keyword));
          });
        }
        const [rows, [{ n }]] = await Promise.all([q.clone().orderBy('lower_name').offset(req.paging.offset).limit(req.paging.limit), q.clone().count<{ n: number }[]>({ n: '*' })]);
        const items = [];
        for (const r of rows) items.push(await teamJson(normalizeTeam(r), org));
        const page = http.paged(req, items, Number(n));
        return { ...page, body: { ok: true, data: page.body } };
      },
    },
    {
      method: 'post', path: '/orgs/{org}/teams', operationId: 'orgCreateTeam', tag: 'organization', summary: 'Create a team',
      scopes: ['organization'], access: { org: 'owner' }, auth: 'required', params: str('org'), body: 'CreateTeamOption', bodyRequired: true, responses: { 201: 'Team', 422: 'APIError' },
      handler: async (req: ApiRequest<TeamBody, unknown, { org: string }>) => {
        const org = ownerOf(req);
        const b = req.body;
        if (!b.name || !TEAM_NAME.test(b.name)) throw ApiError.unprocessable(`team name is invalid [name: ${b.name}]: use letters, digits, '-', '_' and '.'`);
        const { authorize, units_map } = teamUnits(b);
        const now = nowUnix();
        let id: number;
        try {
          id = await db.transaction(async (trx) => {
            if (await trx('teams').where({ org_id: org.id, lower_name: b.name!.toLowerCase() }).first('id')) throw ApiError.unprocessable(`team already exists [name: ${b.name}]`);
            return insertId(trx, 'teams', {
              org_id: org.id, lower_name: b.name!.toLowerCase(), name: b.name, description: b.description ?? '', authorize,
              includes_all_repositories: b.includes_all_repositories ?? false, can_create_org_repo: b.can_create_org_repo ?? false, units_map, created_unix: now, updated_unix: now,
            });
          });
        } catch (err) {
          if (isUniqueViolation(err)) throw ApiError.unprocessable(`team already exists [name: ${b.name}]`);
          throw err;
        }
        return created(await teamJson((await teamById(db, id))!, org));
      },
    },
    {
      method: 'get', path: '/teams/{id}', operationId: 'orgGetTeam', tag: 'organization', summary: 'Get a team',
      scopes: ['organization'], access: { team: 'member' }, auth: 'required', params: TEAM_ID, responses: { 200: 'Team', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const { team, org } = teamOf(req);
        return ok(await teamJson(team, org));
      },
    },
    {
      method: 'patch', path: '/teams/{id}', operationId: 'orgEditTeam', tag: 'organization', summary: 'Edit a team',
      scopes: ['organization'], access: { team: 'owner' }, auth: 'required', params: TEAM_ID, body: 'EditTeamOption', bodyRequired: true, responses: { 200: 'Team', 422: 'APIError' },
      handler: async (req: ApiRequest<TeamBody, unknown, { id: number }>) => {
        const { team, org } = teamOf(req);
        const b = req.body;
        const patch: Record<string, unknown> = { updated_unix: nowUnix() };
        if (b.description !== undefined) patch.description = b.description;
        if (isOwnersTeam(team)) {
          // The Owners team keeps its name, its owner permission and every repository.
          if (b.name !== undefined && b.name !== team.name) throw ApiError.unprocessable('the Owners team cannot be renamed');
          if ((b.permission !== undefined) || b.includes_all_repositories === false || b.can_create_org_repo === false || b.units || b.units_map) {
            throw ApiError.unprocessable("the Owners team's permissions cannot be changed");
          }
        } else {
          if (b.name !== undefined && b.name !== team.name) {
            if (!TEAM_NAME.test(b.name)) throw ApiError.unprocessable(`team name is invalid [name: ${b.name}]`);
            if (b.name.toLowerCase() !== team.lower_name && (await db('teams').where({ org_id: org.id, lower_name: b.name.toLowerCase() }).first('id'))) {
              throw ApiError.unprocessable(`team already exists [name: ${b.name}]`);
            }
            patch.name = b.name;
            patch.lower_name = b.name.toLowerCase();
          }
          if (b.includes_all_repositories !== undefined) patch.includes_all_repositories = b.includes_all_repositories;
          if (b.can_create_org_repo !== undefined) patch.can_create_org_repo = b.can_create_org_repo;
          if (b.permission !== undefined || b.units !== undefined || b.units_map !== undefined) Object.assign(patch, teamUnits(b, team));
        }
        try {
          await db('teams').where('id', team.id).update(patch);
        } catch (err) {
          if (isUniqueViolation(err)) throw ApiError.unprocessable(`team already exists [name: ${b.name}]`);
          throw err;
        }
        return ok(await teamJson((await teamById(db, team.id))!, org));
      },
    },
    {
      method: 'delete', path: '/teams/{id}', operationId: 'orgDeleteTeam', tag: 'organization', summary: 'Delete a team',
      scopes: ['organization'], access: { team: 'owner' }, auth: 'required', params: TEAM_ID, responses: { 204: 'deleted', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const { team, org } = teamOf(req);
        if (isOwnersTeam(team)) throw ApiError.unprocessable('the Owners team cannot be deleted');
        await db.transaction(async (trx) => {
          const uids = (await trx('team_users').where('team_id', team.id).select('uid')).map((r: { uid: number }) => Number(r.uid));
          await trx('team_users').where('team_id', team.id).delete();
          await trx('team_repos').where('team_id', team.id).delete();
          await trx('teams').where('id', team.id).delete();
          await syncOrgUsers(trx, org.id, uids);
        });
        return noContent();
      },
    },
    {
      method: 'get', path: '/teams/{id}/members', operationId: 'orgListTeamMembers', tag: 'organization', summary: "List a team's members",
      scopes: ['organization'], access: { team: 'member' }, auth: 'required', params: TEAM_ID, paged: true, responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const { team } = teamOf(req);
        return userPage(req, users.query().whereIn('users.id', (s) => s.select('uid').from('team_users').where('team_id', team.id)));
      },
    },
    {
      method: 'get', path: '/teams/{id}/members/{username}', operationId: 'orgListTeamMember', tag: 'organization', summary: 'Get a member of a team',
      scopes: ['organization'], access: { team: 'member' }, auth: 'required', params: teamIdAnd('username'), responses: { 200: 'User', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; username: string }>) => {
        const { team } = teamOf(req);
        const user = await users.require(req.params.username);
        if (!(await db('team_users').where({ team_id: team.id, uid: user.id }).first('id'))) throw ApiError.notFound('user is not a member of the team');
        return ok(users.toApi(user, req.principal));
      },
    },
    {
      method: 'put', path: '/teams/{id}/members/{username}', operationId: 'orgAddTeamMember', tag: 'organization', summary: 'Add a team member',
      scopes: ['organization'], access: { team: 'owner' }, auth: 'required', params: teamIdAnd('username'), responses: { 204: 'added' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; username: string }>) => {
        const { team, org } = teamOf(req);
        const user = await users.require(req.params.username);
        try {
          await db.transaction(async (trx) => {
            if (!(await trx('team_users').where({ team_id: team.id, uid: user.id }).first('id'))) await trx('team_users').insert({ org_id: org.id, team_id: team.id, uid: user.id });
            if (!(await trx('org_users').where({ org_id: org.id, uid: user.id }).first('id'))) await trx('org_users').insert({ org_id: org.id, uid: user.id, is_public: false });
          });
        } catch (err) {
          if (!isUniqueViolation(err)) throw err; // a concurrent identical request got there first
        }
        return noContent();
      },
    },
    {
      method: 'delete', path: '/teams/{id}/members/{username}', operationId: 'orgRemoveTeamMember', tag: 'organization', summary: 'Remove a team member',
      scopes: ['organization'], access: { team: 'owner' }, auth: 'required', params: teamIdAnd('username'), responses: { 204: 'removed', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; username: string }>) => {
        const { team, org } = teamOf(req);
        const user = await users.require(req.params.username);
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
        return noContent();
      },
    },
    {
      method: 'get', path: '/teams/{id}/repos', operationId: 'orgListTeamRepos', tag: 'organization', summary: "List a team's repositories",
      scopes: ['organization'], access: { team: 'member' }, auth: 'required', params: TEAM_ID, paged: true, responses: { 200: list('Repository') },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const { team } = teamOf(req);
        const q = teamRepoQuery(team);
        const [rows, total] = await Promise.all([q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit), q.clone().resultSize()]);
        return http.paged(req as ApiRequest<any, any, any>, await repos.toApiPage(rows, req.principal), total);
      },
    },
    {
      method: 'get', path: '/teams/{id}/repos/{org}/{repo}', operationId: 'orgListTeamRepo', tag: 'organization', summary: 'Get a repository of a team',
      scopes: ['organization'], access: { team: 'member' }, auth: 'required', params: teamIdAnd('org', 'repo'), responses: { 200: 'Repository', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; org: string; repo: string }>) => {
        const { team, org } = teamOf(req);
        const resolved = await repos.access.resolveRepo(req.params.org, req.params.repo, req.principal, 'read');
        const has = await teamRepoQuery(team).where('id', resolved.repo.id).first();
        if (!has) throw ApiError.notFound('the repository is not a repository of the team');
        return ok(await repos.toApi(resolved.repo, org, req.principal));
      },
    },
    ...(['put', 'delete'] as const).map((method): ApiOperation => ({
      method, path: '/teams/{id}/repos/{org}/{repo}', operationId: method === 'put' ? 'orgAddTeamRepository' : 'orgRemoveTeamRepository', tag: 'organization',
      summary: method === 'put' ? 'Add a repository to a team' : 'Remove a repository from a team',
      scopes: ['organization'], access: { repo: { need: 'admin' }, params: { owner: 'org', repo: 'repo' } }, auth: 'required', params: teamIdAnd('org', 'repo'),
      responses: { 204: 'done', 403: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number; org: string; repo: string }>) => {
        const resolved = repoOf(req);
        const { team, org } = await teamForRepoChange(Number(req.params.id), req.principal);
        if (resolved.repo.owner_id !== org.id) throw ApiError.unprocessable('the repository does not belong to the team\'s organization');
        if (method === 'put') {
          if (!(await db('team_repos').where({ team_id: team.id, repo_id: resolved.repo.id }).first('id'))) {
            try {
              await db('team_repos').insert({ org_id: org.id, team_id: team.id, repo_id: resolved.repo.id });
            } catch (err) {
              if (!isUniqueViolation(err)) throw err;
            }
          }
        } else {
          await db('team_repos').where({ team_id: team.id, repo_id: resolved.repo.id }).delete();
        }
        return noContent();
      },
    })),
    {
      method: 'get', path: '/user/teams', operationId: 'userListTeams', tag: 'user', summary: "List all the teams a user belongs to",
      scopes: ['user', 'organization'], access: 'caller', auth: 'required', paged: true, responses: { 200: list('Team') },
      handler: async (req) => {
        const q = db('teams').whereIn('id', (s) => s.select('team_id').from('team_users').where('uid', req.principal!.user.id));
        const [rows, [{ n }]] = await Promise.all([q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit), q.clone().count<{ n: number }[]>({ n: '*' })]);
        const items = [];
        for (const r of rows) items.push(await teamJson(normalizeTeam(r)));
        return http.paged(req, items, Number(n));
      },
    },
    {
      method: 'get', path: '/repos/{owner}/{repo}/teams', operationId: 'repoListTeams', tag: 'repository', summary: "List a repository's teams",
      scopes: ['repository'], access: { repo: { need: 'read' } }, params: strs('owner', 'repo'), responses: { 200: list('Team') },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { repo, owner } = repoOf(req);
        if (owner.type !== 1) throw ApiError.notFound('the repository is not owned by an organization');
        const rows = await db('teams').where('org_id', owner.id)
          .where((w) => w.where('includes_all_repositories', true).orWhere('authorize', OWNER_MODE).orWhereIn('id', (s) => s.select('team_id').from('team_repos').where('repo_id', repo.id)))
          .orderBy('id');
        const items = [];
        for (const r of rows) items.push(await teamJson(normalizeTeam(r), owner));
        return ok(items);
      },
    },

    // --- collaborators ------------------------------------------------------------------------------
    {
      method: 'get', path: '/repos/{owner}/{repo}/collaborators', operationId: 'repoListCollaborators', tag: 'repository', summary: "List a repository's collaborators",
      scopes: ['repository'], access: { repo: { need: 'read' } }, params: strs('owner', 'repo'), paged: true, responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { repo } = repoOf(req);
        return userPage(req, users.query().whereIn('users.id', (s) => s.select('user_id').from('collaborations').where('repo_id', repo.id)));
      },
    },
    {
      method: 'get', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoCheckCollaborator', tag: 'repository', summary: 'Check if a user is a collaborator of a repository',
      scopes: ['repository'], access: { repo: { need: 'read' } }, params: strs('owner', 'repo', 'collaborator'), responses: { 204: 'user is a collaborator', 404: 'user is not a collaborator', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string; collaborator: string }>) => {
        const { repo } = repoOf(req);
        const user = await users.byName(req.params.collaborator);
        if (!user || user.type !== 0) throw ApiError.unprocessable(`user does not exist [name: ${req.params.collaborator}]`);
        if (!(await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).first('id'))) throw ApiError.notFound('user is not a collaborator');
        return noContent();
      },
    },
    {
      method: 'put', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoAddCollaborator', tag: 'repository', summary: 'Add a collaborator to a repository',
      scopes: ['repository'], access: { repo: { need: 'admin' } }, auth: 'required', params: strs('owner', 'repo', 'collaborator'), body: 'AddCollaboratorOption', responses: { 204: 'added', 422: 'APIError' },
      handler: async (req: ApiRequest<{ permission?: 'read' | 'write' | 'admin' } | undefined, unknown, { owner: string; repo: string; collaborator: string }>) => {
        const { repo } = repoOf(req);
        const user = await users.byName(req.params.collaborator);
        if (!user || user.type !== 0) throw ApiError.unprocessable(`user does not exist [name: ${req.params.collaborator}]`);
        if (user.id === repo.owner_id) throw ApiError.unprocessable('the owner of a repository cannot be its collaborator');
        const mode = ACCESS_MODES.indexOf(req.body?.permission ?? 'write');
        const now = nowUnix();
        const existing = await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).first('id');
        if (existing) await db('collaborations').where('id', existing.id).update({ mode, updated_unix: now });
        else {
          try {
            await db('collaborations').insert({ repo_id: repo.id, user_id: user.id, mode, created_unix: now, updated_unix: now });
          } catch (err) {
            if (!isUniqueViolation(err)) throw err;
            await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).update({ mode, updated_unix: now });
          }
        }
        return noContent();
      },
    },
    {
      method: 'delete', path: '/repos/{owner}/{repo}/collaborators/{collaborator}', operationId: 'repoDeleteCollaborator', tag: 'repository', summary: 'Remove a collaborator from a repository',
      scopes: ['repository'], access: { repo: { need: 'admin' } }, auth: 'required', params: strs('owner', 'repo', 'collaborator'), responses: { 204: 'removed', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string; collaborator: string }>) => {
        const { repo } = repoOf(req);
        const user = await users.byName(req.params.collaborator);
        if (!user || user.type !== 0) throw ApiError.unprocessable(`user does not exist [name: ${req.params.collaborator}]`);
        await db('collaborations').where({ repo_id: repo.id, user_id: user.id }).delete();
        return noContent();
      },
    },
    {
      method: 'get', path: '/repos/{owner}/{repo}/collaborators/{collaborator}/permission', operationId: 'repoGetRepoPermissions', tag: 'repository', summary: 'Get repository permissions for a user',
      scopes: ['repository'], access: { repo: { need: 'read' } }, auth: 'required', params: strs('owner', 'repo', 'collaborator'), responses: { 200: 'RepoCollaboratorPermission', 403: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string; collaborator: string }>) => {
        const resolved = repoOf(req);
        const user = await users.byName(req.params.collaborator);
        if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [name: ${req.params.collaborator}]`);
        const p = req.principal!;
        if (!actsAsAdmin(p) && p.user.id !== user.id && !resolved.permission.admin) {
          throw ApiError.forbidden('only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own');
        }
        const permission = await modeOf(resolved.repo, resolved.owner, user);
        return ok({ permission, role_name: permission, user: users.toApi(user, req.principal) });
      },
    },
  ];
}
