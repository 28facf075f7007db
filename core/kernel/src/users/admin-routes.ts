import { created, noContent, ok, type ApiOperation, type ApiRequest, type Visibility } from '@hearth/plugin-api';
import { USERNAME_PARAM, type UserRouteDeps } from './user-routes';
import { containsCondition } from '../db/like';
import { UserEmailRow } from './models';

interface CreateUserBody {
  username: string;
  email: string;
  password: string;
  full_name?: string;
  login_name?: string;
  source_id?: number;
  must_change_password?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
  created_at?: string;
}

interface EditUserBody {
  source_id?: number;
  login_name?: string;
  email?: string;
  full_name?: string;
  password?: string;
  must_change_password?: boolean;
  website?: string;
  location?: string;
  description?: string;
  active?: boolean;
  admin?: boolean;
  allow_git_hook?: boolean;
  allow_import_local?: boolean;
  max_repo_creation?: number;
  prohibit_login?: boolean;
  allow_create_organization?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
}

/** `/admin/users…` and `/admin/emails…`: site administrators with the admin category. */
export function adminUserOperations(deps: Pick<UserRouteDeps, 'users' | 'http'>): ApiOperation[] {
  return [...adminAccountOperations(deps), ...adminEmailOperations(deps)];
}

/** What every admin operation declares. */
const ADMIN = { tag: 'admin', scopes: ['admin'] as ['admin'], access: 'site-admin' as const, auth: 'siteAdmin' as const };

/** The user service's input for a CreateUserOption body (must_change_password defaults to true). */
function createInputOf(b: CreateUserBody) {
  return {
    name: b.username,
    email: b.email,
    password: b.password,
    fullName: b.full_name,
    loginName: b.login_name,
    sourceId: b.source_id,
    mustChangePassword: b.must_change_password ?? true,
    restricted: b.restricted,
    visibility: b.visibility,
    createdAt: b.created_at ? new Date(b.created_at) : undefined,
  };
}

/** The user service's changes for an EditUserOption body (unset fields stay undefined: unchanged). */
function editInputOf(b: EditUserBody) {
  return {
    sourceId: b.source_id,
    loginName: b.login_name,
    email: b.email,
    fullName: b.full_name,
    password: b.password,
    mustChangePassword: b.must_change_password,
    website: b.website,
    location: b.location,
    description: b.description,
    active: b.active,
    admin: b.admin,
    allowGitHook: b.allow_git_hook,
    allowImportLocal: b.allow_import_local,
    maxRepoCreation: b.max_repo_creation,
    prohibitLogin: b.prohibit_login,
    allowCreateOrganization: b.allow_create_organization,
    restricted: b.restricted,
    visibility: b.visibility,
  };
}

/** Searching, creating, editing, deleting and renaming user accounts. */
function adminAccountOperations({ users, http }: Pick<UserRouteDeps, 'users' | 'http'>): ApiOperation[] {
  return [
    {
      ...ADMIN,
      method: 'get',
      path: '/admin/users',
      operationId: 'adminSearchUsers',
      summary: 'Search users by login name and authentication source',
      paged: true,
      query: {
        type: 'object',
        properties: {
          source_id: { type: 'integer', description: "ID of the user's login source" },
          login_name: { type: 'string', description: "user's login name" },
        },
      },
      responses: { 200: { description: 'UserList', schema: { type: 'array', items: { $ref: 'User' } } } },
      handler: async (req: ApiRequest<unknown, { source_id?: number; login_name?: string }>) => {
        let query = users.query().where('type', 0);
        if (req.query.source_id !== undefined) query = query.where('login_source', req.query.source_id);
        if (req.query.login_name) query = query.where('login_name', req.query.login_name);
        const [rows, total] = await Promise.all([
          query.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit),
          query.clone().resultSize(),
        ]);
        return http.paged(
          req,
          rows.map((r) => users.toApi(r, req.principal)),
          total,
        );
      },
    },
    {
      ...ADMIN,
      method: 'post',
      path: '/admin/users',
      operationId: 'adminCreateUser',
      summary: 'Create a user',
      body: 'CreateUserOption',
      bodyRequired: true,
      responses: { 201: 'User', 400: 'APIError' },
      handler: async (req: ApiRequest<CreateUserBody>) => {
        const row = await users.create(createInputOf(req.body), req.principal!.user);
        return created(users.toApi(row, req.principal));
      },
    },
    {
      ...ADMIN,
      method: 'patch',
      path: '/admin/users/{username}',
      operationId: 'adminEditUser',
      summary: 'Edit an existing user',
      params: USERNAME_PARAM,
      body: 'EditUserOption',
      responses: { 200: 'User' },
      handler: async (req: ApiRequest<EditUserBody, unknown, { username: string }>) => {
        const row = await users.edit(await users.require(req.params.username), editInputOf(req.body), req.principal!.user);
        return ok(users.toApi(row, req.principal));
      },
    },
    {
      ...ADMIN,
      method: 'delete',
      path: '/admin/users/{username}',
      operationId: 'adminDeleteUser',
      summary: 'Delete a user',
      params: USERNAME_PARAM,
      query: { type: 'object', properties: { purge: { type: 'boolean', description: 'purge the user from the system completely' } } },
      responses: { 204: { description: 'deleted' } },
      handler: async (req: ApiRequest<unknown, { purge?: boolean }, { username: string }>) => {
        await users.delete(await users.require(req.params.username), req.query.purge ?? false, req.principal!.user);
        return noContent();
      },
    },
    {
      ...ADMIN,
      method: 'post',
      path: '/admin/users/{username}/rename',
      operationId: 'adminRenameUser',
      summary: 'Rename a user',
      params: USERNAME_PARAM,
      body: 'RenameUserOption',
      bodyRequired: true,
      responses: { 204: { description: 'renamed' } },
      handler: async (req: ApiRequest<{ new_username: string }, unknown, { username: string }>) => {
        await users.rename(await users.require(req.params.username), req.body.new_username, req.principal!.user);
        return noContent();
      },
    },
  ];
}

/** Listing and searching every user's email addresses. */
function adminEmailOperations({ users, http }: Pick<UserRouteDeps, 'users' | 'http'>): ApiOperation[] {
  const emailList = { description: 'EmailList', schema: { type: 'array', items: { $ref: 'Email' } } };

  /** Emails joined with their owners' names, optionally filtered by a keyword. */
  const emailPage = async (req: ApiRequest, keyword?: string) => {
    let query = UserEmailRow.query(users.query().knex()).join('users', 'users.id', 'user_emails.uid').where('users.type', 0);
    if (keyword) query = query.whereRaw(...containsCondition('user_emails.lower_email', keyword));
    const [rows, total] = await Promise.all([
      query
        .clone()
        .select('user_emails.*', 'users.name as owner_name')
        .orderBy('user_emails.id')
        .offset(req.paging.offset)
        .limit(req.paging.limit),
      query.clone().resultSize(),
    ]);
    return http.paged(
      req,
      rows.map((e) => users.emailToApi(e, { id: e.uid, name: (e as unknown as { owner_name: string }).owner_name })),
      total,
    );
  };

  return [
    {
      ...ADMIN,
      method: 'get',
      path: '/admin/emails',
      operationId: 'adminGetAllEmails',
      summary: 'List all emails',
      paged: true,
      responses: { 200: emailList },
      handler: (req) => emailPage(req),
    },
    {
      ...ADMIN,
      method: 'get',
      path: '/admin/emails/search',
      operationId: 'adminSearchEmails',
      summary: 'Search all emails',
      paged: true,
      query: { type: 'object', properties: { q: { type: 'string', description: 'keyword' } } },
      responses: { 200: emailList },
      handler: (req: ApiRequest<unknown, { q?: string }>) => emailPage(req, req.query.q),
    },
  ];
}
