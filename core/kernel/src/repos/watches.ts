import { ApiError, noContent, ok, unixToIso, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { ownerOf, repoOf } from '../access/operation-access';
import type { ResolvedRepo } from '../access/policy';
import { OWNER_REPO_PARAMS } from './repo-routes';
import { followerLists, list, USERNAME_PARAMS, watchRepo, type FollowerListDeps } from './followers';

type RepoParams = { owner: string; repo: string };

/**
 * Watching repositories (Gitea's /repos/{owner}/{repo}/subscription, /subscribers,
 * /user/subscriptions, /users/{username}/subscriptions): a core part of repositories.
 */
export function watchOperations(deps: FollowerListDeps & { rootUrl(): string }): ApiOperation[] {
  const { db } = deps;
  const { repoPage, userPage } = followerLists(deps);
  const me = (req: ApiRequest<any, any, any>) => req.principal!.user.id;
  const watchInfo = (r: ResolvedRepo, createdUnix: number) => {
    const api = `${deps.rootUrl()}api/v1/repos/${r.owner.name}/${r.repo.name}`;
    return {
      subscribed: true,
      ignored: false,
      reason: null,
      created_at: unixToIso(createdUnix),
      url: `${api}/subscription`,
      repository_url: api,
    };
  };
  const createdOf = async (req: ApiRequest<any, any, any>, repoId: number) =>
    db('watch')
      .where({ user_id: me(req), repo_id: repoId })
      .first('created_unix');
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/subscription',
      operationId: 'userCurrentCheckSubscription',
      tag: 'repository',
      summary: 'Check if the current user is watching a repo',
      scopes: ['repository'],
      auth: 'required',
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'WatchInfo', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        const row = await createdOf(req, r.repo.id);
        if (!row) throw ApiError.notFound('you are not watching this repository');
        return ok(watchInfo(r, Number(row.created_unix ?? 0)));
      },
    },
    {
      method: 'put',
      path: '/repos/{owner}/{repo}/subscription',
      operationId: 'userCurrentPutSubscription',
      tag: 'repository',
      summary: 'Watch a repo',
      scopes: ['repository'],
      auth: 'required',
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'WatchInfo', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        await watchRepo(db, me(req), r.repo.id, true);
        const row = await createdOf(req, r.repo.id);
        return ok(watchInfo(r, Number(row?.created_unix ?? 0)));
      },
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}/subscription',
      operationId: 'userCurrentDeleteSubscription',
      tag: 'repository',
      summary: 'Unwatch a repo',
      scopes: ['repository'],
      auth: 'required',
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        await watchRepo(db, me(req), repoOf(req).repo.id, false);
        return noContent();
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/subscribers',
      operationId: 'repoListSubscribers',
      tag: 'repository',
      summary: "List a repo's watchers",
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => userPage(req, 'watch', 'user_id', repoOf(req).repo.id),
    },
    {
      method: 'get',
      path: '/user/subscriptions',
      operationId: 'userCurrentListSubscriptions',
      tag: 'user',
      summary: 'List repositories watched by the authenticated user',
      scopes: ['user', 'repository'],
      auth: 'required',
      access: 'caller',
      paged: true,
      responses: { 200: list('Repository') },
      handler: async (req) => repoPage(req, 'watch', 'user_id', me(req)),
    },
    {
      method: 'get',
      path: '/users/{username}/subscriptions',
      operationId: 'userListSubscriptions',
      tag: 'user',
      summary: 'List the repositories watched by a user',
      scopes: ['user', 'repository'],
      access: { user: 'visible' },
      params: USERNAME_PARAMS,
      paged: true,
      responses: { 200: list('Repository'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => repoPage(req, 'watch', 'user_id', ownerOf(req).id),
    },
  ];
}
