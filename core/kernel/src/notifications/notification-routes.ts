import { ApiError, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type Principal } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type { KernelServices } from '../kernel-services';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import type { RepositoryRow } from '../repos/models';
import type { ResolvedRepo } from '../repos/repo-service';
import { unixToIso, type UserRow } from '../users/models';
import { issueContext } from '../issues/issue-context';
import { toComment } from '../issues/issue-store';
import { parseTime } from '../issues/issue-context';
import { whereReadable } from '../access/readable-repos';
import { actsAsAdmin } from '../access/policy';
import { ownerOf, repoOf, teamOf } from '../access/operation-access';
import { OP_TYPE_NAMES, SOURCE, STATUS, starRepo, tapRecorder, watchRepo } from './recorder';

type RepoParams = { owner: string; repo: string };
type FeedQuery = { date?: string; 'only-performed-by'?: boolean };
type ListQuery = { all?: boolean; 'status-types'?: string[]; 'subject-type'?: string[]; since?: string; before?: string };
type ReadQuery = { all?: string; 'status-types'?: string[]; 'to-status'?: string; last_read_at?: string };

const num = (v: unknown): number => Number(v ?? 0);
const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });

const FEED_QUERY: JsonSchema = {
  type: 'object',
  properties: { date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the date of the activities to be found' } },
};
const USER_FEED_QUERY: JsonSchema = {
  type: 'object',
  properties: { ...(FEED_QUERY.properties as object), 'only-performed-by': { type: 'boolean', description: 'if true, only show actions performed by the requested user' } },
};
const STATUS_NAMES = ['unread', 'read', 'pinned'];
const STATUS_TYPES = { type: 'array', items: { type: 'string', enum: STATUS_NAMES }, description: 'notification statuses: unread, read and/or pinned' };
const LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    all: { type: 'boolean', description: 'If true, show notifications marked as read. Default value is false' },
    'status-types': { ...STATUS_TYPES, description: 'Show notifications with the provided status types. Options are: unread, read and/or pinned. Defaults to unread & pinned.' },
    'subject-type': { type: 'array', items: { type: 'string', enum: ['issue', 'pull', 'commit', 'repository'] }, description: 'filter notifications by subject type' },
    since: { type: 'string', maxLength: 64, description: 'Only show notifications updated after the given time. This is a timestamp in RFC 3339 format' },
    before: { type: 'string', maxLength: 64, description: 'Only show notifications updated before the given time. This is a timestamp in RFC 3339 format' },
  },
};
const READ_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    last_read_at: { type: 'string', maxLength: 64, description: 'Describes the last point that notifications were checked. Anything updated since this time will not be updated.' },
    all: { type: 'string', maxLength: 5, description: 'If true, mark all notifications on this repo. Default value is false' },
    'status-types': { ...STATUS_TYPES, description: 'Mark notifications with the provided status types. Options are: unread, read and/or pinned. Defaults to unread.' },
    'to-status': { type: 'string', enum: STATUS_NAMES, description: 'Status to mark notifications as, Defaults to read.' },
  },
};
const THREAD_PARAMS: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of notification thread' } },
  required: ['id'],
};
const USERNAME_PARAMS: JsonSchema = { type: 'object', properties: { username: { type: 'string', maxLength: 255, description: 'username of user' } }, required: ['username'] };
const ORG_PARAMS: JsonSchema = { type: 'object', properties: { org: { type: 'string', maxLength: 255, description: 'name of the org' } }, required: ['org'] };
const TEAM_PARAMS: JsonSchema = { type: 'object', properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the team' } }, required: ['id'] };

interface ActivityRow {
  id: number;
  op_type: number;
  act_user_id: number;
  repo_id: number;
  comment_id: number;
  ref_name: string;
  is_private: boolean;
  content: string;
  created_unix: number;
}

interface ThreadRow {
  id: number;
  user_id: number;
  repo_id: number;
  status: number;
  source: number;
  issue_id: number;
  commit_id: string;
  comment_id: number;
  updated_unix: number;
}

const toActivity = (r: any): ActivityRow => ({
  id: num(r.id), op_type: num(r.op_type), act_user_id: num(r.act_user_id), repo_id: num(r.repo_id), comment_id: num(r.comment_id), ref_name: String(r.ref_name ?? ''),
  is_private: bool(r.is_private), content: String(r.content ?? ''), created_unix: num(r.created_unix),
});
const toThread = (r: any): ThreadRow => ({
  id: num(r.id), user_id: num(r.user_id), repo_id: num(r.repo_id), status: num(r.status), source: num(r.source), issue_id: num(r.issue_id),
  commit_id: String(r.commit_id ?? ''), comment_id: num(r.comment_id), updated_unix: num(r.updated_unix),
});

/**
 * Activity feeds (user, organization, team, repository), repository watching and starring, and
 * notification threads. Activity rows are stored once per event (not once per interested user as
 * Gitea does) and each feed selects and filters them at read time, in SQL, by what the caller may
 * read. The event taps that write them live in recorder.ts.
 */
export function notificationOperations(deps: KernelServices): ApiOperation[] {
  tapRecorder(deps);
  const { db, repos, users, http, config } = deps;
  const issues = issueContext(deps);
  const root = () => config.server.ROOT_URL;
  const me = (req: ApiRequest<any, any, any>) => req.principal!.user.id;

  // --- shared converters ------------------------------------------------------------------------

  /** Repository rows and owners by id, for JSON of many rows pointing at few repositories. */
  const loadRepos = async (ids: number[]): Promise<Map<number, { repo: RepositoryRow; owner: UserRow }>> => {
    const out = new Map<number, { repo: RepositoryRow; owner: UserRow }>();
    for (const id of new Set(ids)) {
      const repo = await repos.byId(id);
      const owner = repo ? await users.byId(repo.owner_id) : undefined;
      if (repo && owner) out.set(id, { repo, owner });
    }
    return out;
  };
  const resolvedOf = (x: { repo: RepositoryRow; owner: UserRow }): ResolvedRepo => ({
    repo: x.repo, owner: x.owner, permission: { admin: false, push: false, pull: true }, gitDir: repos.gitDir(x.owner.name, x.repo.name),
  });

  const activityJsons = async (rows: ActivityRow[], feedUserId: (a: ActivityRow, repo?: RepositoryRow) => number, viewer: Principal | null) => {
    const repoMap = await loadRepos(rows.map((a) => a.repo_id));
    const repoJson = new Map<number, Record<string, unknown>>();
    for (const [id, x] of repoMap) repoJson.set(id, await repos.toApi(x.repo, x.owner, viewer));
    const actors = new Map<number, Record<string, unknown> | null>();
    for (const id of new Set(rows.map((a) => a.act_user_id))) {
      const u = id ? await users.byId(id) : undefined;
      actors.set(id, u ? users.toApi(u, viewer) : null);
    }
    const comments = new Map<number, Record<string, unknown>>();
    const commentIds = [...new Set(rows.map((a) => a.comment_id).filter((id) => id > 0))];
    if (commentIds.length) {
      const commentRows = (await db('comment').whereIn('id', commentIds)).map(toComment);
      for (const c of commentRows) {
        const x = repoMap.get(c.repo_id);
        if (x) comments.set(c.id, (await issues.commentJsons(resolvedOf(x), [c], viewer))[0]);
      }
    }
    return rows.map((a) => ({
      id: a.id,
      user_id: feedUserId(a, repoMap.get(a.repo_id)?.repo),
      op_type: OP_TYPE_NAMES[a.op_type] ?? String(a.op_type),
      act_user_id: a.act_user_id,
      act_user: actors.get(a.act_user_id) ?? null,
      repo_id: a.repo_id,
      repo: repoJson.get(a.repo_id) ?? null,
      comment_id: comments.has(a.comment_id) ? a.comment_id : 0,
      comment: comments.get(a.comment_id) ?? null,
      ref_name: a.ref_name,
      is_private: a.is_private,
      content: a.content,
      created: unixToIso(a.created_unix),
    }));
  };

  /**
   * One page of a feed: `scope` narrows the activity rows (alias a) and must keep only
   * repositories the caller may read (`readableRepos`).
   */
  const feedPage = async (req: ApiRequest<any, FeedQuery, any>, scope: (q: Knex.QueryBuilder) => void, feedUserId: (a: ActivityRow, repo?: RepositoryRow) => number) => {
    const q = db('activities as a');
    scope(q);
    if (req.query.date) {
      const start = Date.parse(`${req.query.date}T00:00:00Z`);
      if (Number.isNaN(start)) throw ApiError.unprocessable('date is not a valid date (YYYY-MM-DD)');
      q.where('a.created_unix', '>=', start / 1000).where('a.created_unix', '<', start / 1000 + 86400);
    }
    const [rows, counted] = await Promise.all([
      q.clone().select('a.*').orderBy([{ column: 'a.created_unix', order: 'desc' }, { column: 'a.id', order: 'desc' }]).offset(req.paging.offset).limit(req.paging.limit),
      q.clone().count({ n: '*' }),
    ]);
    const items = await activityJsons(rows.map(toActivity), feedUserId, req.principal);
    return http.paged(req as ApiRequest, items, num((counted as any[])[0]?.n));
  };

  /**
   * Ids of the repositories (alias s) that `narrow` selects and the caller may read, as one
   * subquery, so `a.repo_id IN (…)` drives the (repo_id, created_unix) index. `includePrivate`
   * false leaves private repositories out altogether (Gitea: a user's feed shows private activity
   * only to the user and site admins, an organization's only to its members).
   */
  const readableRepos = (req: ApiRequest<any, any, any>, includePrivate: boolean, narrow: (s: Knex.QueryBuilder) => void): Knex.QueryBuilder => {
    const s = db('repositories as s').select('s.id');
    narrow(s);
    if (!includePrivate) s.where('s.is_private', false);
    return whereReadable(db, s, 's.id', req.principal);
  };

  // --- watching ---------------------------------------------------------------------------------

  const watchInfo = (r: ResolvedRepo, createdUnix: number) => {
    const api = `${root()}api/v1/repos/${r.owner.name}/${r.repo.name}`;
    return { subscribed: true, ignored: false, reason: null, created_at: unixToIso(createdUnix), url: `${api}/subscription`, repository_url: api };
  };

  /** A page of repositories (`ids` a subquery of repository ids) as the caller may see them, in `order` of the join table. */
  const repoPage = async (req: ApiRequest<any, any, any>, table: 'watch' | 'star', userColumn: string, userId: number) => {
    const q = db(`${table} as w`).join('repositories as r', 'r.id', 'w.repo_id').where(`w.${userColumn}`, userId);
    whereReadable(db, q, 'w.repo_id', req.principal);
    const [rows, counted] = await Promise.all([
      q.clone().select('w.repo_id').orderBy('w.id', 'desc').offset(req.paging.offset).limit(req.paging.limit),
      q.clone().count({ n: '*' }),
    ]);
    const map = await loadRepos(rows.map((r: { repo_id: number }) => num(r.repo_id)));
    const page = rows.map((r: { repo_id: number }) => map.get(num(r.repo_id))?.repo).filter((x: RepositoryRow | undefined): x is RepositoryRow => Boolean(x));
    return http.paged(req as ApiRequest, await repos.toApiPage(page, req.principal), num((counted as any[])[0]?.n));
  };

  const userPage = async (req: ApiRequest<any, any, any>, table: 'watch' | 'star', userColumn: string, repoId: number) => {
    const q = db(`${table} as w`).join('users as u', 'u.id', `w.${userColumn}`).where('w.repo_id', repoId);
    const [rows, counted] = await Promise.all([
      q.clone().select(`w.${userColumn} as uid`).orderBy('w.id', 'asc').offset(req.paging.offset).limit(req.paging.limit),
      q.clone().count({ n: '*' }),
    ]);
    const items = [];
    for (const r of rows) {
      const u = await users.byId(num(r.uid));
      if (u) items.push(users.toApi(u, req.principal));
    }
    return http.paged(req as ApiRequest, items, num((counted as any[])[0]?.n));
  };

  // --- notifications ----------------------------------------------------------------------------

  const statusesOf = (names: string[] | undefined, fallback: string[]): number[] =>
    (names && names.length ? names : fallback).map((s) => STATUS[s as keyof typeof STATUS]).filter(Boolean);

  const threadJsons = async (rows: ThreadRow[], viewer: Principal | null) => {
    const repoMap = await loadRepos(rows.map((t) => t.repo_id));
    const repoJson = new Map<number, Record<string, unknown>>();
    for (const [id, x] of repoMap) {
      const json = await repos.toApi(x.repo, x.owner, viewer);
      delete json.permissions;
      if (json.parent && typeof json.parent === 'object') delete (json.parent as Record<string, unknown>).permissions;
      repoJson.set(id, json);
    }
    const issueIds = [...new Set(rows.map((t) => t.issue_id).filter((id) => id > 0))];
    const issueRows = new Map<number, any>();
    const lastComments = new Map<number, number>();
    const merged = new Set<number>();
    if (issueIds.length) {
      for (const i of await db('issue').whereIn('id', issueIds).select('id', 'index', 'name', 'is_closed', 'is_pull')) issueRows.set(num(i.id), i);
      const last = await db('comment').whereIn('issue_id', issueIds).where('type', 0).groupBy('issue_id').select('issue_id').max({ id: 'id' });
      for (const c of last as any[]) lastComments.set(num(c.issue_id), num(c.id));
      for (const p of await db('pull_request').whereIn('issue_id', issueIds).select('issue_id', 'has_merged')) if (bool(p.has_merged)) merged.add(num(p.issue_id));
    }
    return rows.map((t) => {
      const x = repoMap.get(t.repo_id);
      const full = x ? `${x.owner.name}/${x.repo.name}` : '';
      const api = `${root()}api/v1/repos/${full}`;
      const html = `${root()}${full}`;
      let subject: Record<string, unknown>;
      if (t.source === SOURCE.issue || t.source === SOURCE.pull) {
        const i = issueRows.get(t.issue_id);
        const isPull = t.source === SOURCE.pull;
        subject = { type: isPull ? 'Pull' : 'Issue', title: '', url: '', html_url: '', latest_comment_url: '', latest_comment_html_url: '', state: '' };
        if (i) {
          const htmlIssue = `${html}/${isPull ? 'pulls' : 'issues'}/${num(i.index)}`;
          const last = lastComments.get(t.issue_id);
          Object.assign(subject, {
            title: i.name, url: `${api}/issues/${num(i.index)}`, html_url: htmlIssue,
            state: merged.has(t.issue_id) ? 'merged' : bool(i.is_closed) ? 'closed' : 'open',
            latest_comment_url: last ? `${api}/issues/comments/${last}` : '',
            latest_comment_html_url: last ? `${htmlIssue}#issuecomment-${last}` : '',
          });
        }
      } else if (t.source === SOURCE.commit) {
        subject = { type: 'Commit', title: t.commit_id, url: `${api}/git/commits/${t.commit_id}`, html_url: `${html}/commit/${t.commit_id}`, latest_comment_url: '', latest_comment_html_url: '', state: '' };
      } else {
        subject = { type: 'Repository', title: full, url: api, html_url: html, latest_comment_url: '', latest_comment_html_url: '', state: '' };
      }
      return {
        id: t.id,
        repository: repoJson.get(t.repo_id) ?? null,
        subject,
        unread: t.status === STATUS.unread,
        pinned: t.status === STATUS.pinned,
        updated_at: unixToIso(t.updated_unix),
        url: `${root()}api/v1/notifications/threads/${t.id}`,
      };
    });
  };

  /** The caller's threads, of repositories they can still read. */
  const threadQuery = (req: ApiRequest<any, any, any>, repoId?: number) => {
    const q = db('notification as n').where('n.user_id', me(req));
    if (repoId) q.where('n.repo_id', repoId);
    return whereReadable(db, q, 'n.repo_id', req.principal);
  };

  const listThreads = async (req: ApiRequest<unknown, ListQuery, any>, repoId?: number) => {
    const f = req.query;
    const q = threadQuery(req, repoId);
    if (!f.all) q.whereIn('n.status', statusesOf(f['status-types'], ['unread', 'pinned']));
    if (f['subject-type'] && f['subject-type'].length) q.whereIn('n.source', f['subject-type'].map((s) => SOURCE[s as keyof typeof SOURCE]));
    if (f.since) q.where('n.updated_unix', '>=', parseTime(f.since, 'since'));
    if (f.before) q.where('n.updated_unix', '<=', parseTime(f.before, 'before'));
    const [rows, counted] = await Promise.all([
      q.clone().select('n.*').orderBy([{ column: 'n.updated_unix', order: 'desc' }, { column: 'n.id', order: 'desc' }]).offset(req.paging.offset).limit(req.paging.limit),
      q.clone().count({ n: '*' }),
    ]);
    return http.paged(req as ApiRequest, await threadJsons(rows.map(toThread), req.principal), num((counted as any[])[0]?.n));
  };

  const markThreads = async (req: ApiRequest<unknown, ReadQuery, any>, repoId?: number) => {
    const f = req.query;
    const q = threadQuery(req, repoId);
    if (f.last_read_at) q.where('n.updated_unix', '<=', parseTime(f.last_read_at, 'last_read_at'));
    if (f.all !== 'true') q.whereIn('n.status', statusesOf(f['status-types'], ['unread']));
    const target = STATUS[(f['to-status'] ?? 'read') as keyof typeof STATUS];
    const ids = (await q.select('n.id')).map((r: { id: number }) => num(r.id));
    // Marking changes the status only: the thread keeps its place (updated_unix) in the list.
    for (let i = 0; i < ids.length; i += 500) await db('notification').whereIn('id', ids.slice(i, i + 500)).update({ status: target });
    const rows = ids.length ? (await db('notification').whereIn('id', ids).orderBy([{ column: 'updated_unix', order: 'desc' }, { column: 'id', order: 'desc' }])).map(toThread) : [];
    return { status: 205, body: await threadJsons(rows, req.principal) };
  };

  const threadOf = async (req: ApiRequest<any, any, { id: number }>): Promise<ThreadRow> => {
    const row = await db('notification').where('id', req.params.id).first();
    const missing = () => ApiError.notFound(`notification thread does not exist [id: ${req.params.id}]`);
    if (!row) throw missing();
    const t = toThread(row);
    if (t.user_id !== me(req)) throw ApiError.forbidden('this notification thread belongs to another user');
    // A repository the caller can no longer read hides its threads.
    if (!(await whereReadable(db, db('repositories').where('id', t.repo_id), 'id', req.principal).first('id'))) throw missing();
    return t;
  };

  // --- operations -------------------------------------------------------------------------------

  const notification = { tag: 'notification', scopes: ['notification'] as ['notification'], auth: 'required' as const, access: 'caller' as const };
  return [
    // feeds
    {
      method: 'get', path: '/users/{username}/activities/feeds', operationId: 'userListActivityFeeds', tag: 'user', summary: "List a user's activity feeds",
      scopes: ['user'], access: { user: 'visible' }, params: USERNAME_PARAMS, query: USER_FEED_QUERY, paged: true, responses: { 200: list('Activity'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, { username: string }>) => {
        const u = ownerOf(req);
        const self = Boolean(req.principal && !req.principal.publicOnly && req.principal.user.id === u.id);
        const priv = self || actsAsAdmin(req.principal);
        const acted = (w: Knex.QueryBuilder) => w.where('a.act_user_id', u.id).whereIn('a.repo_id', readableRepos(req, priv, () => undefined));
        return feedPage(req, (q) => {
          if (req.query['only-performed-by']) acted(q);
          // The user's own actions, and what happens in repositories they own or watch: each
          // branch is on the activities table and can use its index (actor, repository).
          else q.where((w) => w.where(acted).orWhereIn('a.repo_id', readableRepos(req, priv, (s) => s.where((o) => o.where('s.owner_id', u.id).orWhereIn('s.id', db('watch').where('user_id', u.id).select('repo_id'))))));
        }, () => u.id);
      },
    },
    {
      method: 'get', path: '/orgs/{org}/activities/feeds', operationId: 'orgListActivityFeeds', tag: 'organization', summary: "List an organization's activity feeds",
      scopes: ['organization'], access: { org: 'visible' }, params: ORG_PARAMS, query: FEED_QUERY, paged: true, responses: { 200: list('Activity'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, { org: string }>) => {
        const org = ownerOf(req);
        const member = actsAsAdmin(req.principal) || Boolean(req.principal && !req.principal.publicOnly && (await repos.access.isOrgMember(org.id, req.principal.user.id)));
        return feedPage(req, (q) => q.whereIn('a.repo_id', readableRepos(req, member, (s) => s.where('s.owner_id', org.id))), () => org.id);
      },
    },
    {
      method: 'get', path: '/teams/{id}/activities/feeds', operationId: 'orgListTeamActivityFeeds', tag: 'organization', summary: "List a team's activity feeds",
      scopes: ['organization'], auth: 'required', access: { team: 'member' }, params: TEAM_PARAMS, query: FEED_QUERY, paged: true, responses: { 200: list('Activity'), 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, { id: number }>) => {
        const { team, org } = teamOf(req);
        return feedPage(req, (q) => {
          const all = team.includes_all_repositories || team.authorize >= 4;
          q.whereIn('a.repo_id', readableRepos(req, true, (s) => {
            s.where('s.owner_id', org.id);
            if (!all) s.whereIn('s.id', db('team_repos').where('team_id', team.id).select('repo_id'));
          }));
        }, () => org.id);
      },
    },
    {
      method: 'get', path: '/repos/{owner}/{repo}/activities/feeds', operationId: 'repoListActivityFeeds', tag: 'repository', summary: "List a repository's activity feeds",
      scopes: ['repository'], access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, query: FEED_QUERY, paged: true, responses: { 200: list('Activity'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, FeedQuery, RepoParams>) => {
        const r = repoOf(req);
        // The access declaration checked read access to the one repository: no readable-repositories filter needed.
        return feedPage(req, (q) => q.where('a.repo_id', r.repo.id), () => r.owner.id);
      },
    },

    // watching
    {
      method: 'get', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentCheckSubscription', tag: 'repository', summary: 'Check if the current user is watching a repo',
      scopes: ['repository'], auth: 'required', access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, responses: { 200: 'WatchInfo', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        const row = await db('watch').where({ user_id: me(req), repo_id: r.repo.id }).first('created_unix');
        if (!row) throw ApiError.notFound('you are not watching this repository');
        return ok(watchInfo(r, num(row.created_unix)));
      },
    },
    {
      method: 'put', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentPutSubscription', tag: 'repository', summary: 'Watch a repo',
      scopes: ['repository'], auth: 'required', access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, responses: { 200: 'WatchInfo', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        await watchRepo(db, me(req), r.repo.id, true);
        const row = await db('watch').where({ user_id: me(req), repo_id: r.repo.id }).first('created_unix');
        return ok(watchInfo(r, num(row?.created_unix)));
      },
    },
    {
      method: 'delete', path: '/repos/{owner}/{repo}/subscription', operationId: 'userCurrentDeleteSubscription', tag: 'repository', summary: 'Unwatch a repo',
      scopes: ['repository'], auth: 'required', access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        await watchRepo(db, me(req), r.repo.id, false);
        return noContent();
      },
    },
    {
      method: 'get', path: '/repos/{owner}/{repo}/subscribers', operationId: 'repoListSubscribers', tag: 'repository', summary: "List a repo's watchers",
      scopes: ['repository'], access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, paged: true, responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => userPage(req, 'watch', 'user_id', repoOf(req).repo.id),
    },
    {
      method: 'get', path: '/user/subscriptions', operationId: 'userCurrentListSubscriptions', tag: 'user', summary: 'List repositories watched by the authenticated user',
      scopes: ['user', 'repository'], auth: 'required', access: 'caller', paged: true, responses: { 200: list('Repository') },
      handler: async (req) => repoPage(req, 'watch', 'user_id', me(req)),
    },
    {
      method: 'get', path: '/users/{username}/subscriptions', operationId: 'userListSubscriptions', tag: 'user', summary: 'List the repositories watched by a user',
      scopes: ['user', 'repository'], access: { user: 'visible' }, params: USERNAME_PARAMS, paged: true, responses: { 200: list('Repository'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => repoPage(req, 'watch', 'user_id', ownerOf(req).id),
    },

    // stars
    {
      method: 'get', path: '/repos/{owner}/{repo}/stargazers', operationId: 'repoListStargazers', tag: 'repository', summary: "List a repo's stargazers",
      scopes: ['repository'], access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, paged: true, responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => userPage(req, 'star', 'uid', repoOf(req).repo.id),
    },
    {
      method: 'get', path: '/user/starred', operationId: 'userCurrentListStarred', tag: 'user', summary: 'The repos that the authenticated user has starred',
      scopes: ['user', 'repository'], auth: 'required', access: 'caller', paged: true, responses: { 200: list('Repository') },
      handler: async (req) => repoPage(req, 'star', 'uid', me(req)),
    },
    {
      method: 'get', path: '/users/{username}/starred', operationId: 'userListStarred', tag: 'user', summary: 'The repos that the given user has starred',
      scopes: ['user', 'repository'], access: { user: 'visible' }, params: USERNAME_PARAMS, paged: true, responses: { 200: list('Repository'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => repoPage(req, 'star', 'uid', ownerOf(req).id),
    },
    {
      method: 'get', path: '/user/starred/{owner}/{repo}', operationId: 'userCurrentCheckStarring', tag: 'user', summary: 'Whether the authenticated is starring the repo',
      scopes: ['user', 'repository'], auth: 'required', access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        if (!(await db('star').where({ uid: me(req), repo_id: r.repo.id }).first('id'))) throw ApiError.notFound('you have not starred this repository');
        return noContent();
      },
    },
    ...(['put', 'delete'] as const).map((method): ApiOperation => ({
      method, path: '/user/starred/{owner}/{repo}', operationId: method === 'put' ? 'userCurrentPutStar' : 'userCurrentDeleteStar', tag: 'user',
      summary: method === 'put' ? 'Star the given repo' : 'Unstar the given repo',
      scopes: ['user', 'repository'], auth: 'required', access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = repoOf(req);
        await starRepo(db, me(req), r.repo.id, method === 'put');
        return noContent();
      },
    })),

    // notifications
    {
      ...notification, method: 'get', path: '/notifications', operationId: 'notifyGetList', summary: "List users's notification threads",
      query: LIST_QUERY, paged: true, responses: { 200: list('NotificationThread') },
      handler: async (req: ApiRequest<unknown, ListQuery>) => listThreads(req),
    },
    {
      ...notification, method: 'put', path: '/notifications', operationId: 'notifyReadList', summary: 'Mark notification threads as read, pinned or unread',
      query: READ_QUERY, responses: { 205: list('NotificationThread') },
      handler: async (req: ApiRequest<unknown, ReadQuery>) => markThreads(req),
    },
    {
      ...notification, method: 'get', path: '/notifications/new', operationId: 'notifyNewAvailable', summary: 'Check if unread notifications exist',
      responses: { 200: 'NotificationCount' },
      handler: async (req) => {
        const [{ n }] = await threadQuery(req).where('n.status', STATUS.unread).count({ n: '*' });
        return ok({ new: num(n) });
      },
    },
    {
      ...notification, method: 'get', path: '/notifications/threads/{id}', operationId: 'notifyGetThread', summary: 'Get notification thread by ID',
      params: THREAD_PARAMS, responses: { 200: 'NotificationThread', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => ok((await threadJsons([await threadOf(req)], req.principal))[0]),
    },
    {
      ...notification, method: 'patch', path: '/notifications/threads/{id}', operationId: 'notifyReadThread', summary: 'Mark notification thread as read by ID',
      params: THREAD_PARAMS, query: { type: 'object', properties: { 'to-status': { type: 'string', enum: STATUS_NAMES, default: 'read', description: 'Status to mark notifications as' } } },
      responses: { 205: 'NotificationThread', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { 'to-status'?: string }, { id: number }>) => {
        const t = await threadOf(req);
        const status = STATUS[(req.query['to-status'] ?? 'read') as keyof typeof STATUS];
        await db('notification').where('id', t.id).update({ status });
        return { status: 205, body: (await threadJsons([{ ...t, status }], req.principal))[0] };
      },
    },
    {
      ...notification, scopes: ['notification', 'repository'], method: 'get', path: '/repos/{owner}/{repo}/notifications', operationId: 'notifyGetRepoList',
      summary: "List users's notification threads on a specific repo", access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, query: LIST_QUERY, paged: true,
      responses: { 200: list('NotificationThread'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, ListQuery, RepoParams>) => listThreads(req, repoOf(req).repo.id),
    },
    {
      ...notification, scopes: ['notification', 'repository'], method: 'put', path: '/repos/{owner}/{repo}/notifications', operationId: 'notifyReadRepoList',
      summary: 'Mark notification threads as read, pinned or unread on a specific repo', access: { repo: { need: 'read' } }, params: OWNER_REPO_PARAMS, query: READ_QUERY,
      responses: { 205: list('NotificationThread'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, ReadQuery, RepoParams>) => markThreads(req, repoOf(req).repo.id),
    },
  ];
}
