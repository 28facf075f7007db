import type { Knex } from 'knex';
import { ApiError, noContent, type ApiOperation, type ApiRequest, type HttpHelpers, type JsonSchema } from '@hearth/plugin-api';
import { whereProfileVisible } from '../access/visible-profiles';
import type { AccessPolicy } from '../access/policy';
import { isFollowing, setFollowing } from './follows';
import { USERNAME_PARAM, userOf } from './user-routes';
import type { UserService } from './user-service';
import type { UserRow } from './models';

export interface FollowRouteDeps {
  db: Knex;
  users: UserService;
  access: AccessPolicy;
  http: HttpHelpers;
}

const USER_LIST = { description: 'UserList', schema: { type: 'array', items: { $ref: 'User' } } } as const;
const TARGET_PARAM: JsonSchema = {
  type: 'object',
  properties: {
    ...(USERNAME_PARAM.properties as object),
    target: { type: 'string', maxLength: 255, description: 'username of the followed user' },
  },
  required: ['username', 'target'],
};

type Side = 'followers' | 'following';

/**
 * One page of a user's followers or of those they follow, among the profiles the caller may see
 * (Gitea 1.20 filters both lists the same way, and counts the filtered rows for X-Total-Count).
 */
async function followPage(deps: FollowRouteDeps, req: ApiRequest, user: UserRow, side: Side) {
  const [mine, theirs] = side === 'followers' ? ['follow_id', 'user_id'] : ['user_id', 'follow_id'];
  const query = whereProfileVisible(
    deps.users.query().join('follow', `follow.${theirs}`, 'users.id').where(`follow.${mine}`, user.id),
    req.principal,
  );
  const [rows, total] = await Promise.all([
    query.clone().select('users.*').orderBy('follow.id').offset(req.paging.offset).limit(req.paging.limit),
    query.clone().resultSize(),
  ]);
  return deps.http.paged(
    req,
    rows.map((r) => deps.users.toApi(r, req.principal)),
    total,
  );
}

/** The signed-in user's row. */
async function caller(users: UserService, req: ApiRequest): Promise<UserRow> {
  const row = await users.rowOf(req.principal!);
  if (!row) throw ApiError.unauthorized('the signed-in user no longer exists');
  return row;
}

/** An individual the caller may see, by name; 404 otherwise (organizations are not followed here). */
async function visibleUser(access: AccessPolicy, req: ApiRequest, name: string): Promise<UserRow> {
  const row = await access.resolveUser(name, req.principal, 'visible');
  if (row.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
  return row;
}

/** 204 when following, 404 otherwise, as Gitea answers both checks. */
async function followingAnswer(db: Knex, user: UserRow, target: UserRow) {
  if (!(await isFollowing(db, user.id, target.id))) throw ApiError.notFound(`${user.name} does not follow ${target.name}`);
  return noContent();
}

/** Gitea's follower operations: `/user/followers`, `/user/following[/{username}]`, `/users/{username}/followers|following[/{target}]`. */
export function followOperations(deps: FollowRouteDeps): ApiOperation[] {
  const { db, users, access } = deps;
  const list = (side: Side, mine: boolean): ApiOperation => ({
    method: 'get',
    path: mine ? `/user/${side}` : `/users/{username}/${side}`,
    operationId: `${mine ? 'userCurrentList' : 'userList'}${side === 'followers' ? 'Followers' : 'Following'}`,
    tag: 'user',
    summary:
      side === 'followers'
        ? `List the ${mine ? "authenticated user's" : "given user's"} followers`
        : `List the users that the ${mine ? 'authenticated' : 'given'} user is following`,
    scopes: ['user'],
    ...(mine ? { access: 'caller' as const, auth: 'required' as const } : { access: { user: 'visible' as const }, params: USERNAME_PARAM }),
    paged: true,
    responses: { 200: USER_LIST },
    handler: async (req: ApiRequest<unknown, unknown, { username: string }>) =>
      followPage(deps, req, mine ? await caller(users, req) : userOf(req), side),
  });
  const mineTarget = (method: 'get' | 'put' | 'delete', operationId: string, summary: string): ApiOperation => ({
    method,
    path: '/user/following/{username}',
    operationId,
    tag: 'user',
    summary,
    scopes: ['user'],
    access: 'caller',
    auth: 'required',
    params: USERNAME_PARAM,
    responses: { 204: 'empty', 404: 'APIError' },
    handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => {
      const me = await caller(users, req);
      const target = await visibleUser(access, req, req.params.username);
      if (method === 'get') return followingAnswer(db, me, target);
      await setFollowing(db, me.id, target.id, method === 'put');
      return noContent();
    },
  });
  return [
    list('followers', true),
    list('following', true),
    list('followers', false),
    list('following', false),
    mineTarget('get', 'userCurrentCheckFollowing', 'Check whether a user is followed by the authenticated user'),
    mineTarget('put', 'userCurrentPutFollow', 'Follow a user'),
    mineTarget('delete', 'userCurrentDeleteFollow', 'Unfollow a user'),
    {
      method: 'get',
      path: '/users/{username}/following/{target}',
      operationId: 'userCheckFollowing',
      tag: 'user',
      summary: 'Check if one user is following another user',
      scopes: ['user'],
      access: { user: 'visible' },
      params: TARGET_PARAM,
      responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string; target: string }>) =>
        followingAnswer(db, userOf(req), await visibleUser(access, req, req.params.target)),
    },
  ];
}
