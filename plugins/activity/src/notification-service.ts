import { ApiError, parseTime, rowReader, toNumber, unixToIso, type ApiRequest, type Principal } from '@hearth/plugin-api';
import type { IssueSubject } from '@hearth/plugin-issues';
import { repositoryJsons, whereReadable, type ActivityDeps } from './activity-context';
import { SOURCE, STATUS } from './recorder';

export type ListQuery = { all?: boolean; 'status-types'?: string[]; 'subject-type'?: string[]; since?: string; before?: string };
export type ReadQuery = { all?: string; 'status-types'?: string[]; 'to-status'?: string; last_read_at?: string };

const num = toNumber;

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

const toThread = rowReader<ThreadRow>({
  numbers: ['id', 'user_id', 'repo_id', 'status', 'source', 'issue_id', 'comment_id', 'updated_unix'],
  strings: ['commit_id'],
});

/** The `subject` of a thread: its issue or pull request (as far as the issues feature knows it), commit or repository. */
function threadSubject(
  t: ThreadRow,
  i: IssueSubject | undefined,
  urls: { api: string; html: string; full: string },
): Record<string, unknown> {
  const { api, html, full } = urls;
  let subject: Record<string, unknown>;
  if (t.source === SOURCE.issue || t.source === SOURCE.pull) {
    const isPull = t.source === SOURCE.pull;
    subject = {
      type: isPull ? 'Pull' : 'Issue',
      title: '',
      url: '',
      html_url: '',
      latest_comment_url: '',
      latest_comment_html_url: '',
      state: '',
    };
    if (i) {
      const htmlIssue = `${html}/${isPull ? 'pulls' : 'issues'}/${i.index}`;
      const last = i.latestCommentId;
      Object.assign(subject, {
        title: i.title,
        url: `${api}/issues/${i.index}`,
        html_url: htmlIssue,
        state: i.merged ? 'merged' : i.isClosed ? 'closed' : 'open',
        latest_comment_url: last ? `${api}/issues/comments/${last}` : '',
        latest_comment_html_url: last ? `${htmlIssue}#issuecomment-${last}` : '',
      });
    }
  } else if (t.source === SOURCE.commit) {
    subject = {
      type: 'Commit',
      title: t.commit_id,
      url: `${api}/git/commits/${t.commit_id}`,
      html_url: `${html}/commit/${t.commit_id}`,
      latest_comment_url: '',
      latest_comment_html_url: '',
      state: '',
    };
  } else {
    subject = {
      type: 'Repository',
      title: full,
      url: api,
      html_url: html,
      latest_comment_url: '',
      latest_comment_html_url: '',
      state: '',
    };
  }
  return subject;
}

/** The caller's notification threads: queries, marking, and their NotificationThread JSON. */
export function notificationService(deps: ActivityDeps) {
  const { db, http } = deps;
  const root = () => deps.forge.appUrl;
  const me = (req: ApiRequest<any, any, any>) => req.principal!.user.id;

  const statusesOf = (names: string[] | undefined, fallback: string[]): number[] =>
    (names && names.length ? names : fallback).map((s) => STATUS[s as keyof typeof STATUS]).filter(Boolean);

  const threadJsons = async (rows: ThreadRow[], viewer: Principal | null) => {
    const repoJson = await repositoryJsons(
      deps,
      rows.map((t) => t.repo_id),
      viewer,
    );
    for (const json of repoJson.values()) {
      delete json.permissions;
      if (json.parent && typeof json.parent === 'object') delete (json.parent as Record<string, unknown>).permissions;
    }
    const issueIds = [...new Set(rows.map((t) => t.issue_id).filter((id) => id > 0))];
    // What the threads show of their issues comes from the issues feature (nothing while it is disabled).
    const subjects = issueIds.length && deps.issues ? await deps.issues.subjects(issueIds) : new Map();
    return rows.map((t) => {
      const repository = repoJson.get(t.repo_id);
      const full = repository ? String(repository.full_name) : '';
      const api = `${root()}api/v1/repos/${full}`;
      const html = `${root()}${full}`;
      const subject = threadSubject(t, subjects.get(t.issue_id), { api, html, full });
      return {
        id: t.id,
        repository: repository ?? null,
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
    return whereReadable(deps, q, 'n.repo_id', req.principal);
  };

  const listThreads = async (req: ApiRequest<unknown, ListQuery, any>, repoId?: number) => {
    const f = req.query;
    const q = threadQuery(req, repoId);
    if (!f.all) q.whereIn('n.status', statusesOf(f['status-types'], ['unread', 'pinned']));
    if (f['subject-type'] && f['subject-type'].length)
      q.whereIn(
        'n.source',
        f['subject-type'].map((s) => SOURCE[s as keyof typeof SOURCE]),
      );
    if (f.since) q.where('n.updated_unix', '>=', parseTime(f.since, 'since'));
    if (f.before) q.where('n.updated_unix', '<=', parseTime(f.before, 'before'));
    const [rows, counted] = await Promise.all([
      q
        .clone()
        .select('n.*')
        .orderBy([
          { column: 'n.updated_unix', order: 'desc' },
          { column: 'n.id', order: 'desc' },
        ])
        .offset(req.paging.offset)
        .limit(req.paging.limit),
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
    for (let i = 0; i < ids.length; i += 500)
      await db('notification')
        .whereIn('id', ids.slice(i, i + 500))
        .update({ status: target });
    const rows = ids.length
      ? (
          await db('notification')
            .whereIn('id', ids)
            .orderBy([
              { column: 'updated_unix', order: 'desc' },
              { column: 'id', order: 'desc' },
            ])
        ).map(toThread)
      : [];
    return { status: 205, body: await threadJsons(rows, req.principal) };
  };

  const threadOf = async (req: ApiRequest<any, any, { id: number }>): Promise<ThreadRow> => {
    const row = await db('notification').where('id', req.params.id).first();
    const missing = () => ApiError.notFound(`notification thread does not exist [id: ${req.params.id}]`);
    if (!row) throw missing();
    const t = toThread(row);
    if (t.user_id !== me(req)) throw ApiError.forbidden('this notification thread belongs to another user');
    // A repository the caller can no longer read hides its threads.
    if (!(await whereReadable(deps, db('repositories').where('id', t.repo_id), 'id', req.principal).first('id'))) throw missing();
    return t;
  };

  return { threadJsons, threadQuery, listThreads, markThreads, threadOf };
}
