import { whereProfileVisible } from '../access/visible-profiles';
import {
  ApiError,
  created,
  noContent,
  ok,
  type ApiOperation,
  type ApiRequest,
  type HttpHelpers,
  type JsonSchema,
} from '@hearth/plugin-api';
import type { TokenService } from '../auth/token-service';
import { containsCondition } from '../db/like';
import { ownerOf } from '../access/operation-access';
import type { UserService } from './user-service';
import type { UserRow } from './models';
import { settingsEdit, settingsOf, type UserSettingsOptions } from './user-settings';

export interface UserRouteDeps {
  users: UserService;
  tokens: TokenService;
  http: HttpHelpers;
}

export const USERNAME_PARAM: JsonSchema = {
  type: 'object',
  properties: { username: { type: 'string', maxLength: 255, description: 'username of the user' } },
  required: ['username'],
};

/** The signed-in user's row (the principal was checked by `auth: 'required'`). */
async function self(users: UserService, req: ApiRequest): Promise<UserRow> {
  const row = await users.rowOf(req.principal!);
  if (!row) throw ApiError.unauthorized('the signed-in user no longer exists');
  return row;
}

/** The user a `{ user }` operation resolved; an organization's name is not a user here (404). */
export function userOf(req: ApiRequest<unknown, unknown, { username: string }>): UserRow {
  const row = ownerOf(req);
  if (row.type !== 0) throw ApiError.notFound(`user does not exist [name: ${req.params.username}]`);
  return row;
}

/** `/user`, `/users`, `/user/settings`, `/user/emails` and `/users/{username}/tokens` (section category: user). */
export function userOperations(deps: UserRouteDeps): ApiOperation[] {
  return [...userProfileOperations(deps), ...settingsOperations(deps), ...emailOperations(deps), ...tokenOperations(deps)];
}

/** One page of the user search (a keyword in the name or full name, or an id), among the profiles the caller may see. */
async function searchUsersPage(
  { users, http }: Pick<UserRouteDeps, 'users' | 'http'>,
  req: ApiRequest<unknown, { q?: string; uid?: number }>,
) {
  let query = users.query().where('type', 0);
  if (req.query.uid) query = query.where('id', req.query.uid);
  if (req.query.q) {
    const keyword = req.query.q;
    query = query.where((w) =>
      w.whereRaw(...containsCondition('lower_name', keyword)).orWhereRaw(...containsCondition('full_name', keyword)),
    );
  }
  query = whereProfileVisible(query, req.principal);
  const [rows, total] = await Promise.all([
    query.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit),
    query.clone().resultSize(),
  ]);
  return http.paged(
    req,
    rows.map((r) => users.toApi(r, req.principal)),
    total,
  );
}

/** The signed-in user, the user search and a user's profile. */
function userProfileOperations({ users, http }: UserRouteDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/user',
      operationId: 'userGetCurrent',
      tag: 'user',
      summary: 'Get the authenticated user',
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      responses: { 200: 'User' },
      handler: async (req) => ok(users.toApi(await self(users, req), req.principal)),
    },
    {
      method: 'get',
      path: '/users/search',
      operationId: 'userSearch',
      tag: 'user',
      summary: 'Search for users',
      scopes: ['user'],
      access: 'anyone',
      paged: true,
      query: {
        type: 'object',
        properties: {
          q: { type: 'string', description: 'keyword' },
          uid: { type: 'integer', description: 'ID of the user to search for' },
        },
      },
      responses: { 200: 'UserSearchResults' },
      handler: async (req: ApiRequest<unknown, { q?: string; uid?: number }>) => {
        const page = await searchUsersPage({ users, http }, req);
        return { ...page, body: { ok: true, data: page.body } };
      },
    },
    {
      method: 'get',
      path: '/users/{username}',
      operationId: 'userGet',
      tag: 'user',
      summary: 'Get a user',
      scopes: ['user'],
      access: { user: 'visible' },
      params: USERNAME_PARAM,
      responses: { 200: 'User' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => ok(users.toApi(userOf(req), req.principal)),
    },
  ];
}

/** The signed-in user's own settings: profile details, language, theme, diff view and privacy. */
function settingsOperations({ users }: UserRouteDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/user/settings',
      operationId: 'getUserSettings',
      tag: 'user',
      summary: 'Get user settings',
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      responses: { 200: 'UserSettings' },
      handler: async (req) => ok(settingsOf(await self(users, req))),
    },
    {
      method: 'patch',
      path: '/user/settings',
      operationId: 'updateUserSettings',
      tag: 'user',
      summary: 'Update user settings',
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      body: 'UserSettingsOptions',
      responses: { 200: 'UserSettings', 422: 'APIError' },
      handler: async (req: ApiRequest<UserSettingsOptions>) => {
        const edit = settingsEdit(req.body);
        return ok(settingsOf(await users.edit(await self(users, req), edit, req.principal!.user)));
      },
    },
  ];
}

/** The signed-in user's email addresses. */
function emailOperations({ users }: UserRouteDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/user/emails',
      operationId: 'userListEmails',
      tag: 'user',
      summary: "List the authenticated user's email addresses",
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      responses: { 200: { description: 'EmailList', schema: { type: 'array', items: { $ref: 'Email' } } } },
      handler: async (req) => {
        const row = await self(users, req);
        return ok((await users.emails(row.id)).map((e) => users.emailToApi(e, row)));
      },
    },
    {
      method: 'post',
      path: '/user/emails',
      operationId: 'userAddEmail',
      tag: 'user',
      summary: 'Add email addresses',
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      body: 'CreateEmailOption',
      bodyRequired: true,
      responses: { 201: { description: 'EmailList', schema: { type: 'array', items: { $ref: 'Email' } } } },
      handler: async (req: ApiRequest<{ emails: string[] }>) => {
        const row = await self(users, req);
        return created((await users.addEmails(row, req.body.emails)).map((e) => users.emailToApi(e, row)));
      },
    },
    {
      method: 'delete',
      path: '/user/emails',
      operationId: 'userDeleteEmail',
      tag: 'user',
      summary: 'Delete email addresses',
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      body: 'DeleteEmailOption',
      bodyRequired: true,
      responses: { 204: { description: 'deleted' } },
      handler: async (req: ApiRequest<{ emails: string[] }>) => {
        await users.deleteEmails(await self(users, req), req.body.emails);
        return noContent();
      },
    },
  ];
}

/** A user's access tokens, listed, created and deleted with basic authentication. */
function tokenOperations({ tokens, http }: UserRouteDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/users/{username}/tokens',
      operationId: 'userGetTokens',
      tag: 'user',
      summary: "List the user's access tokens",
      scopes: ['user'],
      access: { user: 'self-or-admin' },
      auth: 'basic',
      params: USERNAME_PARAM,
      paged: true,
      responses: { 200: { description: 'AccessTokenList', schema: { type: 'array', items: { $ref: 'AccessToken' } } } },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => {
        const owner = userOf(req);
        const { rows, total } = await tokens.list(owner, req.paging);
        return http.paged(
          req,
          rows.map((t) => tokens.toApi(t)),
          total,
        );
      },
    },
    {
      method: 'post',
      path: '/users/{username}/tokens',
      operationId: 'userCreateToken',
      tag: 'user',
      summary: 'Create an access token',
      scopes: ['user'],
      access: { user: 'self-or-admin' },
      auth: 'basic',
      params: USERNAME_PARAM,
      body: 'CreateAccessTokenOption',
      bodyRequired: true,
      responses: { 201: 'AccessToken', 400: 'APIError' },
      handler: async (req: ApiRequest<{ name: string; scopes?: string[] }, unknown, { username: string }>) => {
        const owner = userOf(req);
        const { row, token } = await tokens.create(owner, req.body.name, req.body.scopes ?? []);
        return created(tokens.toApi(row, token));
      },
    },
    {
      method: 'delete',
      path: '/users/{username}/tokens/{token}',
      operationId: 'userDeleteAccessToken',
      tag: 'user',
      summary: 'Delete an access token (by id or name)',
      scopes: ['user'],
      access: { user: 'self-or-admin' },
      auth: 'basic',
      params: {
        type: 'object',
        properties: {
          ...(USERNAME_PARAM.properties as object),
          token: { type: 'string', maxLength: 255, description: 'token id or name' },
        },
        required: ['username', 'token'],
      },
      responses: { 204: { description: 'deleted' } },
      handler: async (req: ApiRequest<unknown, unknown, { username: string; token: string }>) => {
        await tokens.delete(userOf(req), req.params.token);
        return noContent();
      },
    },
  ];
}
