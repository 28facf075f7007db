import { ApiError, created, nowUnix, ok, unixToIso, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { INDEX_PARAMS, list, type IssueContext, type IssueDeps } from './issue-context';
import type { IssueRow } from './issue-store';
import { base, CONVERSATION_TYPES, withProps, type IndexParams } from './interaction-common';

const USER_PARAMS = withProps(INDEX_PARAMS, { user: { type: 'string', maxLength: 255, description: 'user to subscribe' } }, ['user']);

/** Subscriptions to issues (Gitea's issue watches). */
export function subscriptionOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, users, http } = deps;

  /** Gitea's CheckIssueWatch: an explicit watch row decides; then watching the repository; otherwise the poster and commenters watch. */
  const watching = async (userId: number, issue: IssueRow): Promise<boolean> => {
    const row = await db('issue_watch').where({ issue_id: issue.id, user_id: userId }).first('is_watching');
    if (row) return row.is_watching === true || Number(row.is_watching) === 1;
    if (issue.poster_id === userId) return true;
    // Repository watches (mode 1 normal, 3 auto watch).
    if ((await deps.repositories.watcherIds(issue.repo_id)).includes(userId)) return true;
    return !!(await db('comment').where({ issue_id: issue.id, poster_id: userId }).whereIn('type', CONVERSATION_TYPES).first('id'));
  };
  const setWatch = async (req: ApiRequest<unknown, unknown, IndexParams & { user: string }>, watch: boolean) => {
    const o = await ctx.open(req);
    if (!req.principal) throw ApiError.unauthorized();
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const user = await users.byName(req.params.user);
    if (!user) throw ApiError.notFound(`user does not exist [name: ${req.params.user}]`);
    if (user.id !== req.principal.user.id && !req.principal.user.isAdmin) {
      throw ApiError.forbidden(`${req.principal.user.name} is not permitted to change subscriptions for ${user.name}`);
    }
    if ((await watching(user.id, issue)) === watch) return ok(undefined);
    const now = nowUnix();
    await db('issue_watch')
      .insert({ issue_id: issue.id, user_id: user.id, is_watching: watch, created_unix: now, updated_unix: now })
      .onConflict(['issue_id', 'user_id'])
      .merge({ is_watching: watch, updated_unix: now });
    return created(undefined);
  };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/subscriptions',
      operationId: 'issueSubscriptions',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get users who subscribed on an issue.',
      params: INDEX_PARAMS,
      paged: true,
      responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const q = db('issue_watch as w')
          .join('users as u', 'u.id', 'w.user_id')
          .where({ 'w.issue_id': issue.id, 'w.is_watching': true, 'u.is_active': true });
        const [{ n }] = await q.clone().count({ n: '*' });
        const ids = (await q.clone().orderBy('w.id').offset(req.paging.offset).limit(req.paging.limit).select('w.user_id')).map(
          (r: { user_id: unknown }) => Number(r.user_id),
        );
        const json = await ctx.userJsons(ids, req.principal);
        return http.paged(
          req as ApiRequest<any, any, any>,
          ids.map((id) => json.get(id)),
          Number(n),
        );
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/check',
      operationId: 'issueCheckSubscription',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Check if user is subscribed to an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 200: 'WatchInfo', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const subscribed = await watching(req.principal!.user.id, issue);
        const urls = ctx.repoUrls(o.r);
        return ok({
          subscribed,
          ignored: !subscribed,
          reason: null,
          created_at: unixToIso(issue.created_unix),
          url: `${urls.api}/issues/${issue.index}/subscriptions`,
          repository_url: urls.api,
        });
      },
    },
    {
      ...base,
      method: 'put',
      path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}',
      operationId: 'issueAddSubscription',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Subscribe user to issue',
      auth: 'required',
      params: USER_PARAMS,
      responses: { 200: 'Already subscribed', 201: 'Successfully Subscribed', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams & { user: string }>) => setWatch(req, true),
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}',
      operationId: 'issueDeleteSubscription',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Unsubscribe user from issue',
      auth: 'required',
      params: USER_PARAMS,
      responses: { 200: 'Already unsubscribed', 201: 'Successfully Unsubscribed', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams & { user: string }>) => setWatch(req, false),
    },
  ];
}
