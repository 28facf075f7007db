import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type Principal, type PushEvent } from '@hearth/plugin-api';
import { hideOthersPendingReviewComments } from '../pulls/review-store';
import type { KernelServices } from '../kernel-services';
import type { ResolvedRepo } from '../repos/repo-service';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import { repoOf } from '../access/operation-access';
import { ZERO_ID } from '../repos/git';
import { withConflictRetry } from '../db/retry';
import { isUniqueViolation } from '../db/errors';
import { attachmentToApi, type AttachmentRow } from '../attachments/attachment-store';
import { nowUnix, unixToIso } from '../users/models';
import { INDEX_PARAMS, ID_PARAMS, issueContext, list, parseTime, type IssueContext, type OpenedRepo, type RepoParams } from './issue-context';
import { toComment, toIssue, toLabel, toMilestone, type CommentRow, type IssueRow } from './issue-store';
import { changeStateMutating, findReferences, moveLocked, mutateIssue, newPinAllowed, pinLocked, recordDeadlineEvent, REF_ACTION, REF_ACTION_NAMES, unpinLocked, withPinLock } from './issue-actions';
import { issueEvents, type IssueEvents } from './issue-events';
import { COMMENT_TYPE, recordIssueEvent, timelineTypeName } from './timeline';
import { pushedCommits, type PushedCommit } from '../repos/pushed-commits';
import { principalOf } from '../access/readable-repos';

type IndexParams = RepoParams & { index: number };
type IdParams = RepoParams & { id: number };

const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };
/** Comment types that are conversation entries (reactions and attachments allowed): comments and review comments. */
const CONVERSATION_TYPES = [COMMENT_TYPE.comment, COMMENT_TYPE.code, COMMENT_TYPE.review];
const DEFAULT_REACTIONS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'];

const withProps = (schema: JsonSchema, props: Record<string, unknown>, required: string[]): JsonSchema => ({
  type: 'object',
  properties: { ...(schema.properties as object), ...props },
  required: [...((schema.required as string[]) ?? []), ...required],
});
const POSITION_PARAMS = withProps(INDEX_PARAMS, { position: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'the new position' } }, ['position']);
const USER_PARAMS = withProps(INDEX_PARAMS, { user: { type: 'string', maxLength: 255, description: 'user to subscribe' } }, ['user']);
const ASSET_PARAMS = withProps(INDEX_PARAMS, { attachment_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the attachment' } }, ['attachment_id']);
const COMMENT_ASSET_PARAMS = withProps(ID_PARAMS, { attachment_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the attachment' } }, ['attachment_id']);
const TIME_RANGE = {
  since: { type: 'string', maxLength: 64, description: 'if provided, only comments updated since the provided time are returned.' },
  before: { type: 'string', maxLength: 64, description: 'if provided, only comments updated before the provided time are returned.' },
};
const ATTACHMENT_LIST = { description: 'AttachmentList', schema: { type: 'array', items: { $ref: 'Attachment' } } };
const NAME_QUERY = { type: 'object', properties: { name: { type: 'string', maxLength: 255, description: 'name of the attachment' } } };

/**
 * The pinned lists. They are registered ahead of `/issues/{index}` (issue-routes.ts), so that
 * `issues/pinned` is not read as an index.
 */
export function pinnedListOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db } = deps;
  /** Pinned issues need the issues unit, pinned pull requests the pulls unit (each route declares its own). */
  const pinned = async (req: ApiRequest<unknown, unknown, RepoParams>, isPull: boolean) => {
    const r = repoOf(req);
    const rows = (await db('issue').where({ repo_id: r.repo.id, is_pull: isPull }).where('pin_order', '>', 0).orderBy('pin_order')).map(toIssue);
    return ok(await ctx.issueJsons(r, rows, req.principal));
  };
  return [
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/pinned', operationId: 'repoListPinnedIssues', access: { repo: { need: 'read', unit: 'issues' } }, summary: "List a repo's pinned issues",
      params: OWNER_REPO_PARAMS, responses: { 200: list('Issue'), 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, RepoParams>) => pinned(req, false),
    },
    {
      ...base, tag: 'repository', method: 'get', path: '/repos/{owner}/{repo}/pulls/pinned', operationId: 'repoListPinnedPullRequests', access: { repo: { need: 'read', unit: 'pulls' } }, summary: "List a repo's pinned pull requests",
      scopes: ['repository'] as ['repository'], params: OWNER_REPO_PARAMS, responses: { 200: list('Issue'), 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, RepoParams>) => pinned(req, true),
    },
  ];
}

/** Assignees, pins, locking, deadlines, subscriptions, dependencies, reactions, timeline, comment attachments; closing keywords of pushes. */
export function issueInteractionOperations(deps: KernelServices): ApiOperation[] {
  const ctx = issueContext(deps);
  const events = issueEvents(deps, ctx);
  tapClosingKeywords(deps, ctx, events);
  return [
    ...pinOperations(deps, ctx),
    ...stateOperations(deps, ctx),
    ...subscriptionOperations(deps, ctx),
    ...dependencyOperations(deps, ctx),
    ...reactionOperations(deps, ctx),
    ...assetOperations(deps, ctx),
    ...timelineOperations(deps, ctx),
  ];
}

// --- shared ------------------------------------------------------------------------------------

/** The Issue JSON of issues of any repository the viewer may read (others are left out), by issue id. */
async function issuesAnywhere(deps: KernelServices, ctx: IssueContext, ids: number[], viewer: Principal | null, known?: ResolvedRepo): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  if (ids.length === 0) return out;
  const rows = (await deps.db('issue').whereIn('id', [...new Set(ids)])).map(toIssue);
  const resolved = new Map<number, ResolvedRepo | null>();
  if (known) resolved.set(known.repo.id, known);
  for (const row of rows) {
    if (!resolved.has(row.repo_id)) {
      const repo = await deps.repos.byId(row.repo_id);
      const owner = repo ? await deps.users.byId(repo.owner_id) : undefined;
      resolved.set(row.repo_id, repo && owner ? await deps.repos.access.check(repo, owner, viewer, 'read', 'issues').catch(() => null) : null);
    }
    const r = resolved.get(row.repo_id);
    if (r) out.set(row.id, (await ctx.issueJsons(r, [row], viewer))[0]);
  }
  return out;
}

// --- pins --------------------------------------------------------------------------------------

function pinOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, config, hooks } = deps;
  /** Pin, unpin or move through issue.mutate (kind `pin`, changes `{ pinned }` or `{ position }`). */
  const pinChange = async (req: ApiRequest<any, any, IndexParams>, changes: { pinned: boolean } | { position: number }) => {
    const o = await ctx.open(req);
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const actor = req.principal!.user;
    await withConflictRetry(() => withPinLock(db, issue, async (trx, fresh) => {
      const c = await mutateIssue(hooks, trx, fresh, 'pin', { ...changes }, actor);
      if (c.position !== undefined) await moveLocked(trx, fresh, Number(c.position));
      else if (c.pinned) await pinLocked(trx, config, fresh, actor.id);
      else await unpinLocked(trx, fresh, actor.id);
    }));
    return noContent();
  };
  return [
    {
      ...base, tag: 'repository', scopes: ['repository'] as ['repository'], method: 'get', path: '/repos/{owner}/{repo}/new_pin_allowed', operationId: 'repoNewPinAllowed', access: { repo: { need: 'read' } },
      summary: 'Returns if new Issue Pins are allowed', params: OWNER_REPO_PARAMS, responses: { 200: 'NewIssuePinsAllowed', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const { repo } = repoOf(req);
        return ok({ issues: await newPinAllowed(db, config, repo.id, false), pull_requests: await newPinAllowed(db, config, repo.id, true) });
      },
    },
    {
      ...base, method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/pin', operationId: 'pinIssue', access: { repo: { need: 'write', unit: 'issues' } }, summary: 'Pin an Issue', auth: 'required',
      params: INDEX_PARAMS, responses: { 204: 'pinned', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => pinChange(req, { pinned: true }),
    },
    {
      ...base, method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/pin', operationId: 'unpinIssue', access: { repo: { need: 'write', unit: 'issues' } }, summary: 'Unpin an Issue', auth: 'required',
      params: INDEX_PARAMS, responses: { 204: 'unpinned', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => pinChange(req, { pinned: false }),
    },
    {
      ...base, method: 'patch', path: '/repos/{owner}/{repo}/issues/{index}/pin/{position}', operationId: 'moveIssuePin', access: { repo: { need: 'write', unit: 'issues' } }, summary: 'Moves the Pin to the given Position', auth: 'required',
      params: POSITION_PARAMS, responses: { 204: 'moved', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams & { position: number }>) => pinChange(req, { position: req.params.position }),
    },
  ];
}

// --- deadline, lock ------------------------------------------------------------------------------

function stateOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, hooks } = deps;
  /** Lock or unlock through issue.mutate (kind `lock`, changes `{ locked, lockReason? }`). */
  const setLock = async (req: ApiRequest<{ lock_reason?: string } | undefined, unknown, IndexParams>, locked: boolean) => {
    const o = await ctx.open(req);
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    await db.transaction(async (trx) => {
      const fresh = toIssue(await trx('issue').where('id', issue.id).first());
      const c = await mutateIssue(hooks, trx, fresh, 'lock', locked ? { locked, lockReason: req.body?.lock_reason ?? '' } : { locked }, req.principal!.user);
      const want = Boolean(c.locked);
      const changed = await trx('issue').where({ id: issue.id, is_locked: !want }).update({ is_locked: want, updated_unix: nowUnix() });
      if (Number(changed) > 0) {
        await recordIssueEvent(trx, { repoId: o.r.repo.id, issueId: issue.id, actorId: req.principal!.user.id, type: want ? 'lock' : 'unlock', content: want ? String(c.lockReason ?? '') : '' });
      }
    });
    return noContent();
  };
  return [
    {
      ...base, method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/deadline', operationId: 'issueEditIssueDeadline', access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Set an issue deadline. If set to null, the deadline is deleted. If using deadline only the date will be taken into account, and time of day ignored.', auth: 'required',
      params: INDEX_PARAMS, body: 'EditDeadlineOption', bodyRequired: true, responses: { 201: 'IssueDeadline', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ due_date: string }, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const t = parseTime(req.body.due_date, 'due_date');
        // As Gitea: the end (23:59:59) of the given day; the zero time removes the deadline.
        let deadline = t <= -62135596800 ? 0 : Math.floor(Date.UTC(new Date(t * 1000).getUTCFullYear(), new Date(t * 1000).getUTCMonth(), new Date(t * 1000).getUTCDate(), 23, 59, 59) / 1000);
        await db.transaction(async (trx) => {
          const before = toIssue(await trx('issue').where('id', issue.id).first());
          const c = await mutateIssue(hooks, trx, before, 'deadline', { deadlineUnix: deadline }, req.principal!.user);
          deadline = Number(c.deadlineUnix ?? 0);
          await trx('issue').where('id', issue.id).update({ deadline_unix: deadline, updated_unix: nowUnix() });
          await recordDeadlineEvent(trx, before, before.deadline_unix, deadline, req.principal!.user.id);
        });
        return created({ due_date: deadline ? unixToIso(deadline) : null });
      },
    },
    {
      ...base, method: 'put', path: '/repos/{owner}/{repo}/issues/{index}/lock', operationId: 'issueLockIssue', access: { repo: { need: 'write', unit: 'issues' } }, summary: 'Lock an issue', auth: 'required',
      params: INDEX_PARAMS, body: 'LockIssueOption', responses: { 204: 'locked', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<{ lock_reason?: string } | undefined, unknown, IndexParams>) => setLock(req, true),
    },
    {
      ...base, method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/lock', operationId: 'issueUnlockIssue', access: { repo: { need: 'write', unit: 'issues' } }, summary: 'Unlock an issue', auth: 'required',
      params: INDEX_PARAMS, responses: { 204: 'unlocked', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<undefined, unknown, IndexParams>) => setLock(req, false),
    },
  ];
}

// --- subscriptions -------------------------------------------------------------------------------

function subscriptionOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, users, http } = deps;

  /** Gitea's CheckIssueWatch: an explicit watch row decides; then watching the repository; otherwise the poster and commenters watch. */
  const watching = async (userId: number, issue: IssueRow): Promise<boolean> => {
    const row = await db('issue_watch').where({ issue_id: issue.id, user_id: userId }).first('is_watching');
    if (row) return row.is_watching === true || Number(row.is_watching) === 1;
    if (issue.poster_id === userId) return true;
    // Repository watches (mode 1 normal, 3 auto watch).
    if ((await db('watch').where({ user_id: userId, repo_id: issue.repo_id }).whereIn('mode', [1, 3]).first('id'))) return true;
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
    await db('issue_watch').insert({ issue_id: issue.id, user_id: user.id, is_watching: watch, created_unix: now, updated_unix: now })
      .onConflict(['issue_id', 'user_id']).merge({ is_watching: watch, updated_unix: now });
    return created(undefined);
  };
  return [
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions', operationId: 'issueSubscriptions', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Get users who subscribed on an issue.',
      params: INDEX_PARAMS, paged: true, responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const q = db('issue_watch as w').join('users as u', 'u.id', 'w.user_id').where({ 'w.issue_id': issue.id, 'w.is_watching': true, 'u.is_active': true });
        const [{ n }] = await q.clone().count({ n: '*' });
        const ids = (await q.clone().orderBy('w.id').offset(req.paging.offset).limit(req.paging.limit).select('w.user_id')).map((r: { user_id: unknown }) => Number(r.user_id));
        const json = await ctx.userJsons(ids, req.principal);
        return http.paged(req as ApiRequest<any, any, any>, ids.map((id) => json.get(id)), Number(n));
      },
    },
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/check', operationId: 'issueCheckSubscription', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Check if user is subscribed to an issue',
      auth: 'required', params: INDEX_PARAMS, responses: { 200: 'WatchInfo', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const subscribed = await watching(req.principal!.user.id, issue);
        const urls = ctx.repoUrls(o.r);
        return ok({ subscribed, ignored: !subscribed, reason: null, created_at: unixToIso(issue.created_unix), url: `${urls.api}/issues/${issue.index}/subscriptions`, repository_url: urls.api });
      },
    },
    {
      ...base, method: 'put', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}', operationId: 'issueAddSubscription', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Subscribe user to issue',
      auth: 'required', params: USER_PARAMS, responses: { 200: 'Already subscribed', 201: 'Successfully Subscribed', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams & { user: string }>) => setWatch(req, true),
    },
    {
      ...base, method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/subscriptions/{user}', operationId: 'issueDeleteSubscription', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Unsubscribe user from issue',
      auth: 'required', params: USER_PARAMS, responses: { 200: 'Already unsubscribed', 201: 'Successfully Unsubscribed', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams & { user: string }>) => setWatch(req, false),
    },
  ];
}

// --- dependencies --------------------------------------------------------------------------------

interface IssueMeta { index: number; owner?: string; repo?: string }

function dependencyOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, http } = deps;

  /** The issue an IssueMeta names (owner/repo default to the URL's repository), with the caller's access to it. */
  const metaIssue = async (req: ApiRequest<IssueMeta, unknown, IndexParams>): Promise<{ o: OpenedRepo; issue: IssueRow }> => {
    const owner = req.body.owner?.trim() || req.params.owner;
    const repo = req.body.repo?.trim() || req.params.repo;
    const o = await ctx.openOther(owner, repo, req.principal);
    return { o, issue: await ctx.issueByIndex(o.r, req.body.index) };
  };

  /** List the issues on the other side of the URL issue's dependencies: `blockers` (it depends on them) or `blocked` (they depend on it). */
  const listSide = async (req: ApiRequest<unknown, unknown, IndexParams>, side: 'blockers' | 'blocked') => {
    const o = await ctx.open(req);
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    const [mine, other] = side === 'blockers' ? ['issue_id', 'dependency_id'] : ['dependency_id', 'issue_id'];
    const q = db('issue_dependency').where(mine, issue.id);
    const [{ n }] = await q.clone().count({ n: '*' });
    const ids = (await q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit).select(other)).map((r: Record<string, unknown>) => Number(r[other]));
    const json = await issuesAnywhere(deps, ctx, ids, req.principal, o.r);
    return http.paged(req as ApiRequest<any, any, any>, ids.filter((id) => json.has(id)).map((id) => json.get(id)), Number(n));
  };

  /**
   * Make `target` depend on `dependency` (or remove that): write access to the target's issues,
   * read access to the dependency's; no self-dependency, no duplicate, no direct cycle. Records an
   * add/remove_dependency event on both issues.
   */
  const change = async (req: ApiRequest<any, any, any>, target: { o: OpenedRepo; issue: IssueRow }, dependency: { o: OpenedRepo; issue: IssueRow }, add: boolean) => {
    if (!req.principal) throw ApiError.unauthorized();
    if (!target.o.canWrite) throw ApiError.forbidden(`you do not have write access to the issues of ${target.o.r.owner.name}/${target.o.r.repo.name}`);
    if (target.issue.id === dependency.issue.id) throw ApiError.unprocessable('an issue cannot depend on itself');
    const actorId = req.principal.user.id;
    await db.transaction(async (trx) => {
      const existing = await trx('issue_dependency').where({ issue_id: target.issue.id, dependency_id: dependency.issue.id }).first('id');
      if (add) {
        if (existing) throw ApiError.unprocessable('the dependency already exists');
        if (await trx('issue_dependency').where({ issue_id: dependency.issue.id, dependency_id: target.issue.id }).first('id')) {
          throw ApiError.unprocessable('circular dependency: the other issue already depends on this one');
        }
        await trx('issue_dependency').insert({ user_id: actorId, issue_id: target.issue.id, dependency_id: dependency.issue.id, created_unix: nowUnix() });
      } else {
        if (!existing) throw ApiError.notFound('the dependency does not exist');
        await trx('issue_dependency').where('id', existing.id).delete();
      }
      const type = add ? 'add_dependency' : 'remove_dependency';
      await recordIssueEvent(trx, { repoId: target.issue.repo_id, issueId: target.issue.id, actorId, type, dependent_issue_id: dependency.issue.id });
      await recordIssueEvent(trx, { repoId: dependency.issue.repo_id, issueId: dependency.issue.id, actorId, type, dependent_issue_id: target.issue.id });
    }).catch((err: unknown) => {
      if (add && isUniqueViolation(err)) throw ApiError.unprocessable('the dependency already exists');
      throw err;
    });
  };
  const urlIssue = async (req: ApiRequest<any, any, IndexParams>) => {
    const o = await ctx.open(req);
    return { o, issue: await ctx.issueByIndex(o.r, req.params.index) };
  };
  const one = async (side: { o: OpenedRepo; issue: IssueRow }, req: ApiRequest<any, any, any>) => (await ctx.issueJsons(side.o.r, [await ctx.issueByIndex(side.o.r, side.issue.index)], req.principal))[0];

  const pageq = { type: 'object', properties: {} };
  return [
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/dependencies', operationId: 'issueListIssueDependencies', access: { repo: { need: 'read', unit: 'issues' } }, summary: "List an issue's dependencies, i.e all issues that block this issue.",
      params: INDEX_PARAMS, query: pageq, paged: true, responses: { 200: list('Issue'), 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => listSide(req, 'blockers'),
    },
    {
      ...base, method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/dependencies', operationId: 'issueCreateIssueDependencies', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Make the issue in the url depend on the issue in the form.',
      auth: 'required', params: INDEX_PARAMS, body: 'IssueMeta', bodyRequired: true, responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const target = await urlIssue(req);
        await change(req, target, await metaIssue(req), true);
        return created(await one(target, req));
      },
    },
    {
      ...base, method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/dependencies', operationId: 'issueRemoveIssueDependencies', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Remove an issue dependency',
      auth: 'required', params: INDEX_PARAMS, body: 'IssueMeta', bodyRequired: true, responses: { 200: 'Issue', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const target = await urlIssue(req);
        await change(req, target, await metaIssue(req), false);
        return ok(await one(target, req));
      },
    },
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/blocks', operationId: 'issueListBlocks', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'List issues that are blocked by this issue',
      params: INDEX_PARAMS, query: pageq, paged: true, responses: { 200: list('Issue'), 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => listSide(req, 'blocked'),
    },
    {
      ...base, method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/blocks', operationId: 'issueCreateIssueBlocking', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Block the issue given in the body by the issue in path',
      auth: 'required', params: INDEX_PARAMS, body: 'IssueMeta', bodyRequired: true, responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const dependency = await urlIssue(req);
        await change(req, await metaIssue(req), dependency, true);
        return created(await one(dependency, req));
      },
    },
    {
      ...base, method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/blocks', operationId: 'issueRemoveIssueBlocking', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Unblock the issue given in the body by the issue in path',
      auth: 'required', params: INDEX_PARAMS, body: 'IssueMeta', bodyRequired: true, responses: { 200: 'Issue', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<IssueMeta, unknown, IndexParams>) => {
        const dependency = await urlIssue(req);
        await change(req, await metaIssue(req), dependency, false);
        return ok(await one(dependency, req));
      },
    },
  ];
}

// --- reactions -----------------------------------------------------------------------------------

function reactionOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, config, http } = deps;
  const allowed = (): string[] => (Array.isArray(config.ui?.REACTIONS) ? (config.ui.REACTIONS as string[]) : DEFAULT_REACTIONS);

  const reactionJsons = async (rows: any[], viewer: Principal | null) => {
    const users = await ctx.userJsons(rows.map((r) => Number(r.user_id)), viewer);
    return rows.map((r) => ({ user: users.get(Number(r.user_id)), content: r.type, created_at: unixToIso(Number(r.created_unix)) }));
  };
  const commentOf = async (o: OpenedRepo, id: number): Promise<{ comment: CommentRow; issue: IssueRow }> => {
    const row = await db('comment').where({ repo_id: o.r.repo.id, id }).whereIn('type', CONVERSATION_TYPES).first();
    if (!row) throw ApiError.notFound(`comment does not exist [id: ${id}]`);
    const comment = toComment(row);
    return { comment, issue: toIssue(await db('issue').where('id', comment.issue_id).first()) };
  };
  /** Add or remove a reaction: signed in; a locked issue only for writers; the content must be an allowed reaction (403, as Gitea). */
  const react = async (req: ApiRequest<{ content: string }, any, any>, o: OpenedRepo, issue: IssueRow, commentId: number, add: boolean) => {
    if (issue.is_locked && !o.canWrite && !req.principal!.user.isAdmin) throw ApiError.forbidden('the issue is locked: only writers may react');
    const content = req.body.content;
    if (!allowed().includes(content)) throw ApiError.forbidden(`'${content}' is not an allowed reaction; allowed: ${allowed().join(', ')}`);
    const key = { issue_id: issue.id, comment_id: commentId, type: content, user_id: req.principal!.user.id };
    if (!add) {
      await db('reaction').where(key).delete();
      return ok(undefined);
    }
    const existing = await db('reaction').where(key).first();
    if (existing) return ok((await reactionJsons([existing], req.principal))[0]);
    await db('reaction').insert({ ...key, created_unix: nowUnix() }).onConflict(['issue_id', 'comment_id', 'type', 'user_id']).ignore();
    return created((await reactionJsons([await db('reaction').where(key).first()], req.principal))[0]);
  };
  const body = 'EditReactionOption';
  return [
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/reactions', operationId: 'issueGetIssueReactions', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Get a list reactions of an issue',
      params: INDEX_PARAMS, paged: true, responses: { 200: list('Reaction'), 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const q = db('reaction').where({ issue_id: issue.id, comment_id: 0 });
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = await q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit);
        return http.paged(req as ApiRequest<any, any, any>, await reactionJsons(rows, req.principal), Number(n));
      },
    },
    {
      ...base, method: 'post', path: '/repos/{owner}/{repo}/issues/{index}/reactions', operationId: 'issuePostIssueReaction', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Add a reaction to an issue', auth: 'required',
      params: INDEX_PARAMS, body, bodyRequired: true, responses: { 200: 'Reaction', 201: 'Reaction', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IndexParams>) => {
        const o = await ctx.open(req, 'participate');
        return react(req, o, await ctx.issueByIndex(o.r, req.params.index), 0, true);
      },
    },
    {
      ...base, method: 'delete', path: '/repos/{owner}/{repo}/issues/{index}/reactions', operationId: 'issueDeleteIssueReaction', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Remove a reaction from an issue', auth: 'required',
      params: INDEX_PARAMS, body, bodyRequired: true, responses: { 200: 'removed', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IndexParams>) => {
        const o = await ctx.open(req, 'participate');
        return react(req, o, await ctx.issueByIndex(o.r, req.params.index), 0, false);
      },
    },
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions', operationId: 'issueGetCommentReactions', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Get a list of reactions from a comment of an issue',
      params: ID_PARAMS, responses: { 200: list('Reaction'), 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IdParams>) => {
        const o = await ctx.open(req);
        const { comment } = await commentOf(o, req.params.id);
        return ok(await reactionJsons(await db('reaction').where({ comment_id: comment.id }).orderBy('id'), req.principal));
      },
    },
    {
      ...base, method: 'post', path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions', operationId: 'issuePostCommentReaction', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Add a reaction to a comment of an issue',
      auth: 'required', params: ID_PARAMS, body, bodyRequired: true, responses: { 200: 'Reaction', 201: 'Reaction', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IdParams>) => {
        const o = await ctx.open(req, 'participate');
        const { comment, issue } = await commentOf(o, req.params.id);
        return react(req, o, issue, comment.id, true);
      },
    },
    {
      ...base, method: 'delete', path: '/repos/{owner}/{repo}/issues/comments/{id}/reactions', operationId: 'issueDeleteCommentReaction', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'Remove a reaction from a comment of an issue',
      auth: 'required', params: ID_PARAMS, body, bodyRequired: true, responses: { 200: 'removed', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<{ content: string }, unknown, IdParams>) => {
        const o = await ctx.open(req, 'participate');
        const { comment, issue } = await commentOf(o, req.params.id);
        return react(req, o, issue, comment.id, false);
      },
    },
  ];
}

// --- attachments ---------------------------------------------------------------------------------

function assetOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, config } = deps;
  const store = ctx.attachments;
  const json = (row: AttachmentRow) => attachmentToApi(config, row);

  /** The issue or comment an attachment route is about; `write` needs its author or write access to the issues. */
  const target = async (req: ApiRequest<any, any, any>, of: 'issue' | 'comment', need: 'read' | 'write') => {
    const o = await ctx.open(req, need === 'read' ? 'read' : 'participate');
    let issue: IssueRow;
    let ownerId: number;
    let posterId: number;
    let commentId = 0;
    if (of === 'issue') {
      issue = await ctx.issueByIndex(o.r, req.params.index);
      ownerId = issue.id;
      posterId = issue.poster_id;
    } else {
      const row = await db('comment').where({ repo_id: o.r.repo.id, id: req.params.id }).whereIn('type', CONVERSATION_TYPES).first();
      if (!row) throw ApiError.notFound(`comment does not exist [id: ${req.params.id}]`);
      const comment = toComment(row);
      issue = toIssue(await db('issue').where('id', comment.issue_id).first());
      ownerId = comment.id;
      posterId = comment.poster_id;
      commentId = comment.id;
    }
    if (need === 'write' && !o.canWrite && posterId !== req.principal!.user.id) throw ApiError.forbidden(`only the author or a writer may change the attachments of this ${of}`);
    return { o, issue, ownerId, commentId };
  };
  const attachment = async (req: ApiRequest<any, any, any>, of: 'issue' | 'comment', need: 'read' | 'write') => {
    const t = await target(req, of, need);
    const row = await store.getOf(of, t.ownerId, req.params.attachment_id);
    if (!row) throw ApiError.notFound(`attachment does not exist [id: ${req.params.attachment_id}]`);
    return row;
  };

  const ops: ApiOperation[] = [];
  for (const of of ['issue', 'comment'] as const) {
    const prefix = of === 'issue' ? '/repos/{owner}/{repo}/issues/{index}/assets' : '/repos/{owner}/{repo}/issues/comments/{id}/assets';
    const Name = of === 'issue' ? 'Issue' : 'IssueComment';
    const params = of === 'issue' ? INDEX_PARAMS : ID_PARAMS;
    const itemParams = of === 'issue' ? ASSET_PARAMS : COMMENT_ASSET_PARAMS;
    ops.push(
      {
        ...base, method: 'get', path: prefix, operationId: `issueList${Name}Attachments`, access: { repo: { need: 'read', unit: 'issues' } }, summary: `List ${of} attachments`,
        params, responses: { 200: ATTACHMENT_LIST, 404: 'APIError' },
        handler: async (req: ApiRequest<unknown, unknown, any>) => {
          const t = await target(req, of, 'read');
          return ok((await store.listOf(of, [t.ownerId])).map(json));
        },
      },
      {
        ...base, method: 'post', path: prefix, operationId: `issueCreate${Name}Attachment`, access: { repo: { need: 'read', unit: 'issues' } }, summary: `Create an ${of} attachment (multipart/form-data, file field "attachment")`,
        auth: 'required', params, query: NAME_QUERY, responses: { 201: 'Attachment', 400: 'APIError', 403: 'APIError', 404: 'APIError', 413: 'APIError', 422: 'APIError' },
        handler: async (req: ApiRequest<unknown, { name?: string }, any>) => {
          const t = await target(req, of, 'write');
          const row = await store.upload(req.raw, { repoId: t.o.r.repo.id, issueId: t.issue.id, commentId: t.commentId, uploaderId: req.principal!.user.id, name: req.query.name });
          await db('issue').where('id', t.issue.id).update({ updated_unix: nowUnix() });
          return created(json(row));
        },
      },
      {
        ...base, method: 'get', path: `${prefix}/{attachment_id}`, operationId: `issueGet${Name}Attachment`, access: { repo: { need: 'read', unit: 'issues' } }, summary: `Get an ${of} attachment`,
        params: itemParams, responses: { 200: 'Attachment', 404: 'APIError' },
        handler: async (req: ApiRequest<unknown, unknown, any>) => ok(json(await attachment(req, of, 'read'))),
      },
      {
        ...base, method: 'patch', path: `${prefix}/{attachment_id}`, operationId: `issueEdit${Name}Attachment`, access: { repo: { need: 'read', unit: 'issues' } }, summary: `Edit an ${of} attachment`,
        auth: 'required', params: itemParams, body: 'EditAttachmentOptions', responses: { 201: 'Attachment', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
        handler: async (req: ApiRequest<{ name?: string } | undefined, unknown, any>) => {
          const row = await attachment(req, of, 'write');
          return created(json(req.body?.name ? await store.rename(row, req.body.name) : row)); // Gitea answers 201 here
        },
      },
      {
        ...base, method: 'delete', path: `${prefix}/{attachment_id}`, operationId: `issueDelete${Name}Attachment`, access: { repo: { need: 'read', unit: 'issues' } }, summary: `Delete an ${of} attachment`,
        auth: 'required', params: itemParams, responses: { 204: 'deleted', 403: 'APIError', 404: 'APIError' },
        handler: async (req: ApiRequest<unknown, unknown, any>) => {
          await store.remove([await attachment(req, of, 'write')]);
          return noContent();
        },
      },
    );
  }
  return ops;
}

// --- timeline ------------------------------------------------------------------------------------

function timelineOperations(deps: KernelServices, ctx: IssueContext): ApiOperation[] {
  const { db, http } = deps;

  const timelineJsons = async (o: OpenedRepo, raws: any[], viewer: Principal | null) => {
    const rows = raws.map((raw) => ({ row: toComment(raw), raw }));
    const basics = await ctx.commentJsons(o.r, rows.map((x) => x.row), viewer);
    const n = (v: unknown) => Number(v ?? 0);
    const labelIds = [...new Set(raws.map((r) => n(r.label_id)).filter(Boolean))];
    const labels = new Map((labelIds.length ? (await db('label').whereIn('id', labelIds)).map(toLabel) : []).map((l) => [l.id, ctx.labelJson(o.r, l)]));
    const milestoneIds = [...new Set(raws.flatMap((r) => [n(r.milestone_id), n(r.old_milestone_id)]).filter(Boolean))];
    const milestones = new Map((await ctx.milestoneJsons(milestoneIds.length ? (await db('milestone').whereIn('id', milestoneIds)).map(toMilestone) : [])).map((m) => [m.id, m]));
    const assignees = await ctx.userJsons(raws.map((r) => n(r.assignee_id)).filter(Boolean), viewer);
    const issues = await issuesAnywhere(deps, ctx, raws.flatMap((r) => [n(r.ref_issue_id), n(r.dependent_issue_id)]).filter(Boolean), viewer, o.r);
    const refCommentIds = [...new Set(raws.map((r) => n(r.ref_comment_id)).filter(Boolean))];
    const refComments = new Map<number, Record<string, unknown>>();
    for (const c of refCommentIds.length ? (await db('comment').whereIn('id', refCommentIds)).map(toComment) : []) {
      const ref = [...issues.values()].find((i) => i.id === c.issue_id);
      if (ref && c.repo_id === o.r.repo.id) refComments.set(c.id, (await ctx.commentJsons(o.r, [c], viewer))[0]);
      else if (ref) refComments.set(c.id, { id: c.id, body: c.content ?? '' });
    }
    const out: Record<string, unknown>[] = [];
    rows.forEach(({ raw }, i) => {
      const b = basics[i];
      const refIssue = n(raw.ref_issue_id) ? issues.get(n(raw.ref_issue_id)) : undefined;
      const dependent = n(raw.dependent_issue_id) ? issues.get(n(raw.dependent_issue_id)) : undefined;
      // As Gitea: an event pointing at an issue the viewer may not read is left out.
      if ((n(raw.ref_issue_id) && !refIssue) || (n(raw.dependent_issue_id) && !dependent)) return;
      out.push({
        id: b.id, type: timelineTypeName(n(raw.type)), html_url: b.html_url, pull_request_url: b.pull_request_url, issue_url: b.issue_url,
        user: b.user, body: b.body, created_at: b.created_at, updated_at: b.updated_at,
        old_project_id: 0, project_id: 0, old_title: raw.old_title ?? '', new_title: raw.new_title ?? '', old_ref: raw.old_ref ?? '', new_ref: raw.new_ref ?? '',
        ref_issue: refIssue ?? null, ref_comment: n(raw.ref_comment_id) ? refComments.get(n(raw.ref_comment_id)) ?? null : null,
        ref_action: REF_ACTION_NAMES[n(raw.ref_action)] ?? '', ref_commit_sha: raw.commit_sha ?? '', review_id: n(raw.review_id),
        label: n(raw.label_id) ? labels.get(n(raw.label_id)) ?? null : null,
        assignee: n(raw.assignee_id) ? assignees.get(n(raw.assignee_id)) ?? null : null, assignee_team: null,
        removed_assignee: raw.removed_assignee === true || n(raw.removed_assignee) === 1,
        resolve_doer: null, dependent_issue: dependent ?? null,
        milestone: n(raw.milestone_id) ? milestones.get(n(raw.milestone_id)) ?? null : null,
        old_milestone: n(raw.old_milestone_id) ? milestones.get(n(raw.old_milestone_id)) ?? null : null,
        tracked_time: null,
      });
    });
    return out;
  };

  return [
    {
      ...base, method: 'get', path: '/repos/{owner}/{repo}/issues/{index}/timeline', operationId: 'issueGetCommentsAndTimeline', access: { repo: { need: 'read', unit: 'issues' } }, summary: 'List all comments and events on an issue',
      params: INDEX_PARAMS, query: { type: 'object', properties: TIME_RANGE }, paged: true, responses: { 200: list('TimelineComment'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { since?: string; before?: string }, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const q = hideOthersPendingReviewComments(db('comment').where('issue_id', issue.id), req.principal);
        if (req.query.since) q.where('updated_unix', '>=', parseTime(req.query.since, 'since'));
        if (req.query.before) q.where('updated_unix', '<=', parseTime(req.query.before, 'before'));
        const [{ n }] = await q.clone().count({ n: '*' });
        const raws = await q.clone().orderBy([{ column: 'created_unix', order: 'asc' }, { column: 'id', order: 'asc' }]).offset(req.paging.offset).limit(req.paging.limit);
        return http.paged(req as ApiRequest<any, any, any>, await timelineJsons(o, raws, req.principal), Number(n));
      },
    },
  ];
}

// --- closing keywords ----------------------------------------------------------------------------

/** At most this many new commits of one push are read for references. */

/**
 * Commits pushed to a repository's default branch that reference issues (`#N`, `owner/repo#N`)
 * leave a commit_ref event on them; with a keyword (`closes`, `fixes`, `resolves` and their forms;
 * `reopens`) they close or reopen the issue as the pusher, when the pusher may write the issues of
 * its repository. The `issues` event then carries the commit id. Pull requests are not closed this way.
 */
function tapClosingKeywords(deps: KernelServices, ctx: IssueContext, events: IssueEvents): void {
  const { db, hooks, repos } = deps;
  const name = 'hearth:issue-closing-keywords';
  if (hooks.push.received.taps.some((t) => t.name === name)) return;
  hooks.push.received.tapPromise(name, async (ev: PushEvent) => {
    const repo = await repos.byId(ev.repositoryId);
    if (!repo || !ev.actor) return;
    const branch = `refs/heads/${repo.default_branch}`;
    const gitDir = repos.gitDir(repo.owner_name, repo.name);
    const actor = ev.actor;
    const principal = principalOf(actor);
    for (const u of ev.updates) {
      if (u.ref !== branch || u.newId === ZERO_ID) continue;
      // Oldest first, so a later "reopens" wins over an earlier "closes".
      const { commits } = await pushedCommits(ev, u, gitDir).catch(() => ({ commits: [] as PushedCommit[] }));
      for (const { sha, message } of [...commits].reverse()) {
        for (const ref of findReferences(message ?? '')) {
          let r: ResolvedRepo;
          try {
            const owner = ref.owner ?? repo.owner_name;
            const name = ref.repo ?? repo.name;
            r = await repos.access.resolveRepo(owner, name, principal, 'read', 'issues');
          } catch {
            continue;
          }
          const row = await db('issue').where({ repo_id: r.repo.id, index: ref.index }).first();
          if (!row) continue;
          const issue = toIssue(row);
          if (await db('comment').where({ issue_id: issue.id, type: COMMENT_TYPE.commit_ref, commit_sha: sha }).first('id')) continue;
          await recordIssueEvent(db, { repoId: issue.repo_id, issueId: issue.id, actorId: actor.id, type: 'commit_ref', content: (message ?? '').trim(), commit_sha: sha, ref_repo_id: repo.id, ref_action: ref.action });
          if (ref.action === REF_ACTION.none || issue.is_pull) continue;
          const level = await repos.access.unitPermission(r.repo, principal, 'issues', r.owner);
          if (level !== 'write' && level !== 'admin') continue;
          const close = ref.action === REF_ACTION.closes;
          let changed = false;
          try {
            changed = await withConflictRetry(() => withPinLock(db, issue, (trx, fresh) => changeStateMutating(hooks, trx, fresh, close, actor, sha)));
          } catch (err) {
            // Open dependencies (412) or a veto of an issue.mutate tap: the issue keeps its state,
            // and the push (already done) does not fail.
            const status = (err as { status?: number }).status;
            if (status === 412) continue;
            if (typeof status === 'number' && status >= 400 && status < 500) {
              deps.log.info({ issueId: issue.id, commit: sha, status, err: (err as Error).message }, 'closing keyword refused by issue.mutate');
              continue;
            }
            throw err;
          }
          if (changed) await events.issue('issues', r, issue.id, close ? 'closed' : 'reopened', actor, { commitId: sha });
        }
      }
    }
  });
}
