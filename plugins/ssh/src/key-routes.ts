import {
  ApiError,
  ID_PARAM,
  OWNER_REPO_PARAMS,
  created,
  noContent,
  ok,
  ownerRepoParams,
  unixToIso,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type PluginContext,
  type Principal,
  type RepositoryTarget,
  type UserInfo,
} from '@hearth/plugin-api';
import type { KeyOwner, KeyRow, KeyStore } from './keys';

interface CreateKeyBody {
  title: string;
  key: string;
  read_only?: boolean;
}

/** The JSON shapes of Gitea's key API, registered for validation and the OpenAPI document. */
export const KEY_SCHEMAS: JsonSchema[] = [
  {
    $id: 'CreateKeyOption',
    type: 'object',
    description: 'CreateKeyOption options when creating a key',
    required: ['title', 'key'],
    properties: {
      title: { type: 'string', maxLength: 255, description: 'Title of the key to add' },
      key: { type: 'string', maxLength: 16384, description: 'An armored SSH key to add' },
      read_only: { type: 'boolean', description: 'Describe if the key has only read access or read/write' },
    },
  },
  {
    $id: 'PublicKey',
    type: 'object',
    description: 'PublicKey publickey is a user key to push code to repository',
    properties: {
      id: { type: 'integer' },
      key: { type: 'string' },
      url: { type: 'string' },
      title: { type: 'string' },
      fingerprint: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      read_only: { type: 'boolean' },
      key_type: { type: 'string' },
      user: { $ref: 'User' },
    },
  },
  {
    $id: 'DeployKey',
    type: 'object',
    description: 'DeployKey a deploy key',
    properties: {
      id: { type: 'integer' },
      key_id: { type: 'integer' },
      key: { type: 'string' },
      url: { type: 'string' },
      title: { type: 'string' },
      fingerprint: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      read_only: { type: 'boolean' },
      repository: { $ref: 'Repository' },
    },
  },
];

const FINGERPRINT = { type: 'string', maxLength: 100, description: 'fingerprint of the key' };
const FINGERPRINT_QUERY: JsonSchema = { type: 'object', properties: { fingerprint: FINGERPRINT } };
const ID_PARAMS: JsonSchema = { type: 'object', properties: { id: ID_PARAM }, required: ['id'] };
const USER_PARAMS: JsonSchema = { type: 'object', properties: { username: { type: 'string', maxLength: 255 } }, required: ['username'] };
const USER_ID_PARAMS: JsonSchema = {
  type: 'object',
  properties: { username: { type: 'string', maxLength: 255 }, id: ID_PARAM },
  required: ['username', 'id'],
};
const listOf = (ref: string) => ({ description: `${ref} list`, schema: { type: 'array', items: { $ref: ref } } });

/**
 * Gitea's key API: a user's SSH keys (`/user/keys`, `/users/{username}/keys`, the admin's
 * `/admin/users/{username}/keys`) and a repository's deploy keys (`/repos/{owner}/{repo}/keys`,
 * repository admins only).
 */
export function keyOperations(ctx: PluginContext, keys: KeyStore): ApiOperation[] {
  const userKeyJson = async (row: KeyRow, owner: UserInfo, viewer: Principal | null) => ({
    id: row.id,
    key: row.content,
    url: ctx.http.apiUrl(`/user/keys/${row.id}`),
    title: row.title,
    fingerprint: row.fingerprint,
    created_at: unixToIso(row.created_unix),
    read_only: false,
    key_type: 'user',
    user: await ctx.users.toApi(owner, viewer),
  });
  const deployKeyJson = async (row: KeyRow, repo: RepositoryTarget, viewer: Principal | null) => ({
    id: row.id,
    key_id: row.id,
    key: row.content,
    url: `${ctx.repositories.links(repo.owner.name, repo.name).api}/keys/${row.id}`,
    title: row.title,
    fingerprint: row.fingerprint,
    created_at: unixToIso(row.created_unix),
    read_only: row.read_only,
    repository: await ctx.repositories.toApi(repo, viewer),
  });
  const userList = async (req: ApiRequest<unknown, { fingerprint?: string }>, owner: UserInfo) => {
    const { rows, total } = await keys.list({ kind: 'user', userId: owner.id }, req.query, req.paging);
    return ctx.http.paged(req, await Promise.all(rows.map((r) => userKeyJson(r, owner, req.principal))), total);
  };
  const addUserKey = async (req: ApiRequest<CreateKeyBody>, owner: UserInfo) =>
    created(await userKeyJson(await keys.add({ kind: 'user', userId: owner.id }, req.body.title, req.body.key), owner, req.principal));
  const userKeyOf = async (id: number, owner: KeyOwner & { kind: 'user' }) => {
    const row = await keys.byId(id);
    if (!row || row.kind !== 'user') throw ApiError.notFound('the key does not exist');
    if (row.owner_id !== owner.userId) throw ApiError.forbidden('this key belongs to another user');
    return row;
  };
  const deployKeyOf = async (id: number, repo: RepositoryTarget) => {
    const row = await keys.byId(id);
    if (!row || row.kind !== 'deploy' || row.repo_id !== repo.id) throw ApiError.notFound('the deploy key does not exist');
    return row;
  };
  const self = { tag: 'user', scopes: ['user'] as ['user'], auth: 'required' as const, access: 'caller' as const };
  const admin = { tag: 'admin', scopes: ['admin'] as ['admin'], auth: 'siteAdmin' as const, access: 'site-admin' as const };
  const repoAdmin = { tag: 'repository', scopes: ['repository'] as ['repository'], auth: 'required' as const };
  const repoAccess = { repo: { need: 'admin' } } as const;
  const targetUser = async (name: string) => {
    const user = await ctx.users.byName(name);
    if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
    return user;
  };
  return [
    {
      ...self,
      method: 'get',
      path: '/user/keys',
      operationId: 'userCurrentListKeys',
      summary: 'List the authenticated user\u2019s public keys',
      query: FINGERPRINT_QUERY,
      paged: true,
      responses: { 200: listOf('PublicKey') },
      handler: (req) => userList(req, req.principal!.user),
    },
    {
      ...self,
      method: 'post',
      path: '/user/keys',
      operationId: 'userCurrentPostKey',
      summary: 'Create a public key',
      body: 'CreateKeyOption',
      bodyRequired: true,
      responses: { 201: 'PublicKey', 422: 'APIError' },
      handler: (req: ApiRequest<CreateKeyBody>) => addUserKey(req, req.principal!.user),
    },
    {
      ...self,
      method: 'get',
      path: '/user/keys/{id}',
      operationId: 'userCurrentGetKey',
      summary: 'Get a public key',
      params: ID_PARAMS,
      responses: { 200: 'PublicKey', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const user = req.principal!.user;
        const row = await keys.byId(req.params.id);
        // Someone else's key is as absent as a missing one here (Gitea answers 404 too).
        if (!row || row.kind !== 'user' || row.owner_id !== user.id) throw ApiError.notFound('the key does not exist');
        return ok(await userKeyJson(row, user, req.principal));
      },
    },
    {
      ...self,
      method: 'delete',
      path: '/user/keys/{id}',
      operationId: 'userCurrentDeleteKey',
      summary: 'Delete a public key',
      params: ID_PARAMS,
      responses: { 204: 'key deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const row = await userKeyOf(req.params.id, { kind: 'user', userId: req.principal!.user.id });
        await keys.remove(row.id);
        return noContent();
      },
    },
    {
      tag: 'user',
      scopes: ['user'],
      access: { user: 'visible' },
      method: 'get',
      path: '/users/{username}/keys',
      operationId: 'userListKeys',
      summary: 'List the given user\u2019s public keys',
      params: USER_PARAMS,
      query: FINGERPRINT_QUERY,
      paged: true,
      responses: { 200: listOf('PublicKey') },
      handler: async (req: ApiRequest<unknown, { fingerprint?: string }>) => userList(req, req.target.owner!),
    },
    {
      ...admin,
      method: 'post',
      path: '/admin/users/{username}/keys',
      operationId: 'adminCreatePublicKey',
      summary: 'Add a public key on behalf of a user',
      params: USER_PARAMS,
      body: 'CreateKeyOption',
      bodyRequired: true,
      responses: { 201: 'PublicKey', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateKeyBody, unknown, { username: string }>) =>
        addUserKey(req, await targetUser(req.params.username)),
    },
    {
      ...admin,
      method: 'delete',
      path: '/admin/users/{username}/keys/{id}',
      operationId: 'adminDeleteUserPublicKey',
      summary: "Delete a user's public key",
      params: USER_ID_PARAMS,
      responses: { 204: 'key deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string; id: number }>) => {
        const user = await targetUser(req.params.username);
        const row = await keys.byId(req.params.id);
        if (!row || row.kind !== 'user' || row.owner_id !== user.id) throw ApiError.notFound('the key does not exist');
        await keys.remove(row.id);
        return noContent();
      },
    },
    {
      ...repoAdmin,
      access: repoAccess,
      method: 'get',
      path: '/repos/{owner}/{repo}/keys',
      operationId: 'repoListKeys',
      summary: "List a repository's keys",
      params: OWNER_REPO_PARAMS,
      query: { type: 'object', properties: { fingerprint: FINGERPRINT, key_id: ID_PARAM } },
      paged: true,
      responses: { 200: listOf('DeployKey') },
      handler: async (req: ApiRequest<unknown, { fingerprint?: string; key_id?: number }>) => {
        const repo = req.target.repository!;
        const filter = { fingerprint: req.query.fingerprint, id: req.query.key_id };
        const { rows, total } = await keys.list({ kind: 'deploy', repositoryId: repo.id, readOnly: true }, filter, req.paging);
        return ctx.http.paged(req, await Promise.all(rows.map((r) => deployKeyJson(r, repo, req.principal))), total);
      },
    },
    {
      ...repoAdmin,
      access: repoAccess,
      method: 'post',
      path: '/repos/{owner}/{repo}/keys',
      operationId: 'repoCreateKey',
      summary: 'Add a key to a repository',
      params: OWNER_REPO_PARAMS,
      body: 'CreateKeyOption',
      bodyRequired: true,
      responses: { 201: 'DeployKey', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateKeyBody>) => {
        const repo = req.target.repository!;
        // Deploy keys read only unless asked otherwise (Gitea's form default).
        const owner: KeyOwner = { kind: 'deploy', repositoryId: repo.id, readOnly: req.body.read_only ?? true };
        return created(await deployKeyJson(await keys.add(owner, req.body.title, req.body.key), repo, req.principal));
      },
    },
    {
      ...repoAdmin,
      access: repoAccess,
      method: 'get',
      path: '/repos/{owner}/{repo}/keys/{id}',
      operationId: 'repoGetKey',
      summary: "Get a repository's key by id",
      params: ownerRepoParams({ id: ID_PARAM }),
      responses: { 200: 'DeployKey', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const repo = req.target.repository!;
        return ok(await deployKeyJson(await deployKeyOf(req.params.id, repo), repo, req.principal));
      },
    },
    {
      ...repoAdmin,
      access: repoAccess,
      method: 'delete',
      path: '/repos/{owner}/{repo}/keys/{id}',
      operationId: 'repoDeleteKey',
      summary: 'Delete a key from a repository',
      params: ownerRepoParams({ id: ID_PARAM }),
      responses: { 204: 'key deleted', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        const row = await deployKeyOf(req.params.id, req.target.repository!);
        await keys.remove(row.id);
        return noContent();
      },
    },
  ];
}
