import { ApiError, noContent, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { ownerOf, repoOf } from '../access/operation-access';
import { OWNER_REPO_PARAMS } from './repo-routes';
import { followerLists, list, starRepo, USERNAME_PARAMS, type FollowerListDeps } from './followers';

type RepoParams = { owner: string; repo: string };

/**
 * Starring repositories (Gitea's /repos/{owner}/{repo}/stargazers, /user/starred…,
 * /users/{username}/starred): a core part of repositories.
 */
export function starOperations(deps: FollowerListDeps): ApiOperation[] {
  const { db } = deps;
  const { repoPage, userPage } = followerLists(deps);
  const me = (req: ApiRequest<any, any, any>) => req.principal!.user.id;
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/stargazers',
      operationId: 'repoListStargazers',
      tag: 'repository',
      summary: "List a repo's stargazers",
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => userPage(req, 'star', 'uid', repoOf(req).repo.id),
    },
    {
      method: 'get',
      path: '/user/starred',
      operationId: 'userCurrentListStarred',
      tag: 'user',
      summary: 'The repos that the authenticated user has starred',
      scopes: ['user', 'repository'],
      auth: 'required',
      access: 'caller',
      paged: true,
      responses: { 200: list('Repository') },
      handler: async (req) => repoPage(req, 'star', 'uid', me(req)),
    },
    {
      method: 'get',
      path: '/users/{username}/starred',
      operationId: 'userListStarred',
      tag: 'user',
      summary: 'The repos that the given user has starred',
      scopes: ['user', 'repository'],
      access: { user: 'visible' },
      params: USERNAME_PARAMS,
      paged: true,
      responses: { 200: list('Repository'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => repoPage(req, 'star', 'uid', ownerOf(req).id),
    },
    {
      method: 'get',
      path: '/user/starred/{owner}/{repo}',
      operationId: 'userCurrentCheckStarring',
      tag: 'user',
      summary: 'Whether the authenticated is starring the repo',
      scopes: ['user', 'repository'],
      auth: 'required',
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        if (
          !(await db('star')
            .where({ uid: me(req), repo_id: repoOf(req).repo.id })
            .first('id'))
        )
          throw ApiError.notFound('you have not starred this repository');
        return noContent();
      },
    },
    ...(['put', 'delete'] as const).map((method): ApiOperation => ({
      method,
      path: '/user/starred/{owner}/{repo}',
      operationId: method === 'put' ? 'userCurrentPutStar' : 'userCurrentDeleteStar',
      tag: 'user',
      summary: method === 'put' ? 'Star the given repo' : 'Unstar the given repo',
      scopes: ['user', 'repository'],
      auth: 'required',
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        await starRepo(db, me(req), repoOf(req).repo.id, method === 'put');
        return noContent();
      },
    })),
  ];
}
