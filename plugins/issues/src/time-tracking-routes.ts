import type { Knex } from 'knex';
import {
  ApiError,
  OWNER_REPO_PARAMS,
  ownerRepoParams,
  noContent,
  nowUnix,
  ok,
  parseTime,
  unixToIso,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type Principal,
  type RepositoryInfo,
} from '@hearth/plugin-api';
import { INDEX_PARAMS, list, type IssueContext, type IssueDeps, type OpenedRepo } from './issue-context';
import type { IssueRow } from './issue-store';
import { base, issuesAnywhere, withProps, type IndexParams } from './interaction-common';
import { recordIssueEvent } from './timeline';
import {
  addTrackedTime,
  deleteTrackedTimes,
  finishStopwatch,
  secToTime,
  toStopwatch,
  toTrackedTime,
  type TrackedTimeRow,
} from './time-tracking';

/**
 * Gitea 1.20's stopwatches and tracked times. Who may track time on an issue (CanUseTimetracker,
 * with "only contributors" always on here): writers of the issue's unit (issues or pull
 * requests), its poster and its assignees; the stopwatch also needs the writer (Gitea's
 * prepareIssueStopwatch). With `repository.ENABLE_TIME_TRACKING` off, an issue's time list is 404,
 * the other time operations 400 ("time tracking disabled") and the stopwatch 403, as Gitea answers.
 */
const TIME_QUERY = {
  since: {
    type: 'string',
    maxLength: 64,
    description: 'Only show times updated after the given time. This is a timestamp in RFC 3339 format',
  },
  before: {
    type: 'string',
    maxLength: 64,
    description: 'Only show times updated before the given time. This is a timestamp in RFC 3339 format',
  },
};
const USER_TIME_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    user: { type: 'string', maxLength: 255, description: 'optional filter by user (available for issue managers)' },
    ...TIME_QUERY,
  },
};
type TimeQuery = { user?: string; since?: string; before?: string };
const DISABLED = 'time tracking disabled';

export function timeTrackingOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const t = timeTrackingParts(deps, ctx);
  return [...stopwatchOperations(deps, ctx, t), ...issueTimeOperations(deps, ctx, t), ...listTimeOperations(deps, ctx, t)];
}

type Parts = ReturnType<typeof timeTrackingParts>;

function timeTrackingParts(deps: IssueDeps, ctx: IssueContext) {
  const { db } = deps;
  const enabled = () => deps.forge.raw.repository.ENABLE_TIME_TRACKING;

  /** Write access to the issue's own unit (pull requests for a pull request). */
  const writesIssue = async (o: OpenedRepo, issue: IssueRow, principal: Principal | null) => {
    if (!issue.is_pull) return o.canWrite;
    const level = await deps.access.unitLevel(o.r, principal, 'pulls');
    return (level === 'write' || level === 'admin') && !o.r.isArchived;
  };

  /** Gitea's CanUseTimetracker. */
  const mayTrack = async (o: OpenedRepo, issue: IssueRow, principal: Principal) => {
    if (!enabled()) return false;
    if (issue.poster_id === principal.user.id || (await writesIssue(o, issue, principal))) return true;
    return ((await ctx.assigneeIdsOf([issue.id])).get(issue.id) ?? []).includes(principal.user.id);
  };

  /** The issue of a time operation once the caller may track time on it (400 when disabled, 403 otherwise). */
  const trackable = async (req: ApiRequest<any, any, IndexParams>) => {
    const o = await ctx.open(req, 'participate');
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    if (!(await mayTrack(o, issue, req.principal!))) {
      if (!enabled()) throw ApiError.badRequest(DISABLED);
      throw ApiError.forbidden('you may not track time on this issue');
    }
    return { o, issue };
  };

  /** Gitea's TrackedTime JSON; `issue` only where the viewer may read it. */
  const timeJsons = async (rows: TrackedTimeRow[], viewer: Principal | null, known?: RepositoryInfo) => {
    const issues = await issuesAnywhere(
      deps,
      ctx,
      rows.map((r) => r.issue_id),
      viewer,
      known,
    );
    const names = new Map(
      (
        await deps
          .db('users')
          .whereIn('id', [...new Set(rows.map((r) => r.user_id))])
          .select('id', 'name')
      ).map((u: any) => [Number(u.id), String(u.name)]),
    );
    return rows.map((r) => ({
      id: r.id,
      created: unixToIso(r.created_unix),
      time: r.time,
      user_id: r.user_id,
      user_name: names.get(r.user_id) ?? 'Ghost',
      issue_id: r.issue_id,
      issue: issues.get(r.issue_id) ?? null,
    }));
  };

  /** A user named by a filter, or 404. */
  const userNamed = async (name: string) => {
    const user = await deps.users.byName(name);
    if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
    return user;
  };

  /** One page of tracked times (not deleted) matching `scope`, filtered by `since`/`before` on their creation. */
  const timePage = async (req: ApiRequest<any, TimeQuery, any>, scope: (q: Knex.QueryBuilder) => void, known?: RepositoryInfo) => {
    const q = db('tracked_time').where('tracked_time.deleted', false);
    scope(q);
    if (req.query.since) q.where('tracked_time.created_unix', '>=', parseTime(req.query.since, 'since'));
    if (req.query.before) q.where('tracked_time.created_unix', '<=', parseTime(req.query.before, 'before'));
    const [{ n }] = await q.clone().count({ n: '*' });
    const rows = (
      await q.clone().select('tracked_time.*').orderBy('tracked_time.id').offset(req.paging.offset).limit(req.paging.limit)
    ).map(toTrackedTime);
    return deps.http.paged(req, await timeJsons(rows, req.principal, known), Number(n));
  };

  /**
   * The user a list is about: a writer of the issues unit or a site admin may name anyone (or
   * nobody: everyone's times), others only themselves — without a name, their own times.
   */
  const listedUser = async (o: OpenedRepo, req: ApiRequest<any, TimeQuery, any>): Promise<number | null> => {
    const named = req.query.user ? (await userNamed(req.query.user)).id : null;
    const me = req.principal!.user;
    if (me.isAdmin || named === me.id || o.canWrite) return named;
    if (named === null) return me.id;
    throw ApiError.forbidden('query by user not allowed; not enough rights');
  };

  return { enabled, writesIssue, mayTrack, trackable, timeJsons, userNamed, timePage, listedUser };
}

/** Start, stop and cancel one's stopwatch on an issue, and list one's running stopwatches. */
function stopwatchOperations(deps: IssueDeps, ctx: IssueContext, t: Parts): ApiOperation[] {
  const { db } = deps;
  /** The issue once the caller may run a stopwatch on it, checking whether theirs runs (409 when not as expected). */
  const prepare = async (req: ApiRequest<unknown, unknown, IndexParams>, shouldRun: boolean) => {
    const o = await ctx.open(req, 'participate');
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const me = req.principal!;
    if (!(await t.writesIssue(o, issue, me)) || !(await t.mayTrack(o, issue, me))) {
      throw ApiError.forbidden('you may not use the stopwatch on this issue');
    }
    const running = await db('stopwatch').where({ user_id: me.user.id, issue_id: issue.id }).first();
    if (Boolean(running) !== shouldRun) {
      throw ApiError.conflict(
        shouldRun ? 'cannot stop/cancel a non existent stopwatch' : 'cannot start a stopwatch again if it already exists',
      );
    }
    return { issue, running: running ? toStopwatch(running) : null };
  };
  const op = (verb: 'start' | 'stop' | 'delete', operationId: string, summary: string): ApiOperation => ({
    ...base,
    method: verb === 'delete' ? 'delete' : 'post',
    path: `/repos/{owner}/{repo}/issues/{index}/stopwatch/${verb}`,
    operationId,
    access: { repo: { need: 'read', unit: 'issues' as const } },
    summary,
    auth: 'required',
    params: INDEX_PARAMS,
    responses: { [verb === 'delete' ? 204 : 201]: 'empty', 403: 'APIError', 404: 'APIError', 409: 'APIError' },
    handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
      const { issue, running } = await prepare(req, verb !== 'start');
      const userId = req.principal!.user.id;
      await db.transaction(async (trx) => {
        if (verb === 'stop') return finishStopwatch(trx, issue, running!);
        if (verb === 'delete') {
          await trx('stopwatch').where('id', running!.id).delete();
          await recordIssueEvent(trx, { repoId: issue.repo_id, issueId: issue.id, actorId: userId, type: 'cancel_tracking' });
          return;
        }
        // As Gitea: one stopwatch at a time; one running on another issue is finished first.
        for (const other of (await trx('stopwatch').where('user_id', userId)).map(toStopwatch)) {
          const otherIssue = await trx('issue').where('id', other.issue_id).first();
          if (otherIssue)
            await finishStopwatch(trx, { ...otherIssue, id: Number(otherIssue.id), repo_id: Number(otherIssue.repo_id) }, other);
          else await trx('stopwatch').where('id', other.id).delete();
        }
        await trx('stopwatch').insert({ issue_id: issue.id, user_id: userId, created_unix: nowUnix() });
        await recordIssueEvent(trx, { repoId: issue.repo_id, issueId: issue.id, actorId: userId, type: 'start_tracking' });
      });
      return verb === 'delete' ? noContent() : { status: 201 };
    },
  });
  return [
    op('start', 'issueStartStopWatch', 'Start stopwatch on an issue.'),
    op('stop', 'issueStopStopWatch', "Stop an issue's existing stopwatch."),
    op('delete', 'issueDeleteStopWatch', "Delete an issue's existing stopwatch."),
    {
      method: 'get',
      path: '/user/stopwatches',
      operationId: 'userGetStopWatches',
      tag: 'user',
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      summary: 'Get list of all existing stopwatches',
      paged: true,
      responses: { 200: list('StopWatch') },
      handler: async (req) => {
        const q = db('stopwatch')
          .join('issue', 'issue.id', 'stopwatch.issue_id')
          .join('repositories', 'repositories.id', 'issue.repo_id')
          .where('stopwatch.user_id', req.principal!.user.id);
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = await q
          .clone()
          .select('stopwatch.created_unix', 'issue.index', 'issue.name', 'repositories.owner_name', 'repositories.name as repo_name')
          .orderBy('stopwatch.id')
          .offset(req.paging.offset)
          .limit(req.paging.limit);
        const now = nowUnix();
        const body = rows.map((r: any) => {
          const seconds = Math.max(0, now - Number(r.created_unix));
          return {
            created: unixToIso(Number(r.created_unix)),
            seconds,
            duration: secToTime(seconds),
            issue_index: Number(r.index),
            issue_title: r.name,
            repo_owner_name: r.owner_name,
            repo_name: r.repo_name,
          };
        });
        return deps.http.paged(req, body, Number(n));
      },
    },
  ];
}

type AddTime = { time: number; created?: string; user_name?: string };

/** An issue's tracked times: list, add, reset one's own, delete one. */
function issueTimeOperations(deps: IssueDeps, ctx: IssueContext, t: Parts): ApiOperation[] {
  const { db } = deps;
  const ID_PARAMS = withProps(INDEX_PARAMS, { id: { type: 'integer', minimum: 1, description: 'id of time to delete' } }, ['id']);
  const access = { repo: { need: 'read' as const, unit: 'issues' as const } };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/times',
      operationId: 'issueTrackedTimes',
      access,
      summary: "List an issue's tracked times",
      auth: 'required',
      params: INDEX_PARAMS,
      query: USER_TIME_QUERY,
      paged: true,
      responses: { 200: list('TrackedTime'), 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, TimeQuery, IndexParams>) => {
        if (!t.enabled()) throw ApiError.notFound('Timetracker is disabled');
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const userId = await t.listedUser(o, req);
        return t.timePage(
          req,
          (q) => {
            q.where('tracked_time.issue_id', issue.id);
            if (userId !== null) q.where('tracked_time.user_id', userId);
          },
          o.r,
        );
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/times',
      operationId: 'issueAddTime',
      access,
      summary: 'Add tracked time to a issue',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'AddTimeOption',
      bodyRequired: true,
      responses: { 200: 'TrackedTime', 400: 'APIError', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<AddTime, unknown, IndexParams>) => {
        const { o, issue } = await t.trackable(req);
        const me = req.principal!.user;
        // As Gitea: a repository admin or a site admin may book the time for another user; others book it for themselves.
        let userId = me.id;
        if (req.body.user_name && ((o.r.permission.admin && req.body.user_name !== me.name) || me.isAdmin)) {
          userId = (await t.userNamed(req.body.user_name)).id;
        }
        const createdUnix = req.body.created ? parseTime(req.body.created, 'created') : nowUnix();
        const row = await db.transaction((trx) => addTrackedTime(trx, issue, userId, req.body.time, createdUnix));
        return ok((await t.timeJsons([row], req.principal, o.r))[0]);
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/times',
      operationId: 'issueResetTime',
      access,
      summary: 'Reset a tracked time of an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 204: 'empty', 400: 'APIError', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const { issue } = await t.trackable(req);
        const me = req.principal!.user.id;
        await db.transaction(async (trx) => {
          const rows = (await trx('tracked_time').where({ issue_id: issue.id, user_id: me, deleted: false })).map(toTrackedTime);
          if (!rows.length) throw ApiError.notFound('you have no tracked time on this issue');
          await deleteTrackedTimes(trx, issue, me, rows);
        });
        return noContent();
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/times/{id}',
      operationId: 'issueDeleteTime',
      access,
      summary: 'Delete specific tracked time',
      auth: 'required',
      params: ID_PARAMS,
      responses: { 204: 'empty', 400: 'APIError', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams & { id: number }>) => {
        const { issue } = await t.trackable(req);
        const me = req.principal!.user;
        await db.transaction(async (trx) => {
          // Stricter than Gitea, which finds the time by id alone: it must be one of this issue's.
          const raw = await trx('tracked_time').where({ id: req.params.id, issue_id: issue.id }).first();
          const row = raw ? toTrackedTime(raw) : null;
          if (!row || row.deleted)
            throw ApiError.notFound(row ? 'tracked time was already deleted' : `tracked time does not exist [id: ${req.params.id}]`);
          if (!me.isAdmin && row.user_id !== me.id)
            throw ApiError.forbidden('only the user who tracked the time or a site admin may delete it');
          await deleteTrackedTimes(trx, issue, me.id, [row]);
        });
        return noContent();
      },
    },
  ];
}

/** A repository's tracked times, a user's in a repository, and the caller's own. */
function listTimeOperations(deps: IssueDeps, ctx: IssueContext, t: Parts): ApiOperation[] {
  const inRepo = (repoId: number) => (q: Knex.QueryBuilder) =>
    q.join('issue', 'issue.id', 'tracked_time.issue_id').where('issue.repo_id', repoId);
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/times',
      operationId: 'repoTrackedTimes',
      tag: 'repository',
      scopes: ['issue'],
      access: { repo: { need: 'read', unit: 'issues' as const } },
      summary: "List a repo's tracked times",
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      query: USER_TIME_QUERY,
      paged: true,
      responses: { 200: list('TrackedTime'), 400: 'APIError', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, TimeQuery, { owner: string; repo: string }>) => {
        if (!t.enabled()) throw ApiError.badRequest(DISABLED);
        const o = await ctx.open(req);
        const userId = await t.listedUser(o, req);
        return t.timePage(
          req,
          (q) => {
            inRepo(o.r.id)(q);
            if (userId !== null) q.where('tracked_time.user_id', userId);
          },
          o.r,
        );
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/times/{user}',
      operationId: 'userTrackedTimes',
      tag: 'repository',
      scopes: ['issue'],
      access: { repo: { need: 'read', unit: 'issues' as const } },
      summary: "List a user's tracked times in a repo (deprecated)",
      auth: 'required',
      params: ownerRepoParams({ user: { type: 'string', maxLength: 255, description: 'username of user' } }),
      paged: true,
      responses: { 200: list('TrackedTime'), 400: 'APIError', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, TimeQuery, { owner: string; repo: string; user: string }>) => {
        if (!t.enabled()) throw ApiError.badRequest(DISABLED);
        const o = await ctx.open(req);
        const user = await t.userNamed(req.params.user);
        const me = req.principal!.user;
        if (!o.r.permission.admin && !me.isAdmin && me.id !== user.id)
          throw ApiError.forbidden('query by user not allowed; not enough rights');
        return t.timePage(req, (q) => inRepo(o.r.id)(q).where('tracked_time.user_id', user.id), o.r);
      },
    },
    {
      method: 'get',
      path: '/user/times',
      operationId: 'userCurrentTrackedTimes',
      tag: 'user',
      scopes: ['user'],
      access: 'caller',
      auth: 'required',
      summary: "List the current user's tracked times",
      query: { type: 'object', properties: TIME_QUERY },
      paged: true,
      responses: { 200: list('TrackedTime') },
      handler: async (req: ApiRequest<unknown, TimeQuery>) =>
        t.timePage(req, (q) => q.where('tracked_time.user_id', req.principal!.user.id)),
    },
  ];
}
