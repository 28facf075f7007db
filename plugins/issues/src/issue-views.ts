import { unixToIso, type AttachmentInfo, type Principal, type RepositoryInfo } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import type { IssueDeps } from './issue-context';
import { toLabel, toMilestone, type CommentRow, type IssueRow, type LabelRow, type MilestoneRow } from './issue-store';

const GHOST = (id: number) => ({
  id: -1,
  login: 'Ghost',
  login_name: '',
  full_name: '',
  email: '',
  avatar_url: '',
  language: '',
  is_admin: false,
  last_login: '0001-01-01T00:00:00Z',
  created: '0001-01-01T00:00:00Z',
  restricted: false,
  active: false,
  prohibit_login: false,
  location: '',
  website: '',
  description: '',
  visibility: 'public',
  followers_count: 0,
  following_count: 0,
  starred_repos_count: 0,
  username: 'Ghost',
  _former_id: id,
});

/** The `pull_request` field of an issue that is a pull request (Gitea's PullRequestMeta); null for issues. */
const pullMeta = (p: { merged: boolean; mergedUnix: number } | undefined) =>
  p ? { merged: p.merged, merged_at: p.merged && p.mergedUnix ? unixToIso(p.mergedUnix) : null } : null;

/** The parts of the issue and comment JSON: users, repository URLs, labels, assignees and milestones. */
export function issuePartViews(deps: IssueDeps) {
  const { db, users } = deps;
  const root = () => deps.forge.appUrl;

  /** Assignees of issues (user ids, in assignment order), by issue id. */
  const assigneeIdsOf = async (issueIds: number[], q: Knex | Knex.Transaction = db): Promise<Map<number, number[]>> => {
    const out = new Map<number, number[]>();
    for (const id of issueIds) out.set(id, []);
    if (issueIds.length === 0) return out;
    const rows = await q('issue_assignees').whereIn('issue_id', issueIds).orderBy('id').select('issue_id', 'assignee_id');
    for (const row of rows as any[]) out.get(Number(row.issue_id))?.push(Number(row.assignee_id));
    return out;
  };

  const repoUrls = (r: RepositoryInfo) => {
    const full = `${r.ownerName}/${r.name}`;
    return { api: `${root()}api/v1/repos/${full}`, html: `${root()}${full}`, full };
  };

  const userJsons = async (ids: number[], viewer: Principal | null): Promise<Map<number, Record<string, unknown>>> => {
    const found = await users.toApiByIds(ids, viewer);
    return new Map([...new Set(ids)].map((id) => [id, found.get(id) ?? GHOST(id)]));
  };

  const labelJson = (r: RepositoryInfo, l: LabelRow) => ({
    id: l.id,
    name: l.name,
    exclusive: l.exclusive,
    color: l.color.replace(/^#/, ''),
    description: l.description,
    url: l.org_id > 0 ? `${root()}api/v1/orgs/${encodeURIComponent(r.ownerName)}/labels/${l.id}` : `${repoUrls(r).api}/labels/${l.id}`,
  });

  /** open/closed issue counts of milestones. */
  const milestoneCounts = async (ids: number[]): Promise<Map<number, { open: number; closed: number }>> => {
    const out = new Map<number, { open: number; closed: number }>();
    for (const id of ids) out.set(id, { open: 0, closed: 0 });
    if (ids.length === 0) return out;
    const rows = await db('issue')
      .whereIn('milestone_id', ids)
      .groupBy('milestone_id', 'is_closed')
      .select('milestone_id', 'is_closed')
      .count({ n: '*' });
    for (const row of rows as any[]) {
      const c = out.get(Number(row.milestone_id));
      if (!c) continue;
      const closed = row.is_closed === true || Number(row.is_closed) === 1;
      if (closed) c.closed += Number(row.n);
      else c.open += Number(row.n);
    }
    return out;
  };

  const milestoneJsons = async (rows: MilestoneRow[]) => {
    const counts = await milestoneCounts(rows.map((m) => m.id));
    return rows.map((m) => {
      const c = counts.get(m.id) ?? { open: 0, closed: 0 };
      return {
        id: m.id,
        title: m.name,
        description: m.content ?? '',
        state: m.is_closed ? 'closed' : 'open',
        open_issues: c.open,
        closed_issues: c.closed,
        created_at: unixToIso(m.created_unix),
        updated_at: unixToIso(m.updated_unix),
        closed_at: m.is_closed && m.closed_date_unix ? unixToIso(m.closed_date_unix) : null,
        due_on: m.deadline_unix ? unixToIso(m.deadline_unix) : null,
      };
    });
  };

  /** Labels of issues, by issue id, sorted by name as Gitea does. */
  const labelsOf = async (issueIds: number[], q: Knex | Knex.Transaction = db): Promise<Map<number, LabelRow[]>> => {
    const out = new Map<number, LabelRow[]>();
    for (const id of issueIds) out.set(id, []);
    if (issueIds.length === 0) return out;
    const rows = await q('issue_label as il')
      .join('label as l', 'l.id', 'il.label_id')
      .whereIn('il.issue_id', issueIds)
      .orderBy([
        { column: 'l.name', order: 'asc' },
        { column: 'l.id', order: 'asc' },
      ])
      .select('l.*', 'il.issue_id as issue_id_of');
    for (const row of rows as any[]) out.get(Number(row.issue_id_of))?.push(toLabel(row));
    return out;
  };

  return { assigneeIdsOf, repoUrls, userJsons, labelJson, milestoneJsons, labelsOf };
}

export type IssuePartViews = ReturnType<typeof issuePartViews>;

/** Issues and comments as Gitea's Issue and Comment JSON. */
export function issueJsonViews(deps: IssueDeps, parts: IssuePartViews) {
  const { db, attachments } = deps;
  const { assigneeIdsOf, repoUrls, userJsons, labelJson, milestoneJsons, labelsOf } = parts;
  const assetsBy = (rows: AttachmentInfo[], key: 'issueId' | 'commentId') => {
    const out = new Map<number, Record<string, unknown>[]>();
    for (const a of rows) {
      const k = a[key];
      if (!out.has(k)) out.set(k, []);
      out.get(k)!.push(attachments.toApi(a));
    }
    return out;
  };

  /** Merge state of the pull requests among issues, from the pull requests feature (none while it is disabled). */
  const pullsOf = async (rows: IssueRow[]) => {
    const ids = rows.filter((i) => i.is_pull).map((i) => i.id);
    const link = deps.pulls.link;
    return link && ids.length ? link.meta(ids) : new Map<number, { merged: boolean; mergedUnix: number }>();
  };

  const issueJsons = async (r: RepositoryInfo, rows: IssueRow[], viewer: Principal | null): Promise<Record<string, unknown>[]> => {
    const ids = rows.map((i) => i.id);
    const labels = await labelsOf(ids);
    const milestoneIds = [...new Set(rows.map((i) => i.milestone_id).filter((m) => m > 0))];
    const milestoneRows = milestoneIds.length ? (await db('milestone').whereIn('id', milestoneIds)).map(toMilestone) : [];
    const milestones = new Map((await milestoneJsons(milestoneRows)).map((m) => [m.id, m]));
    const commentCounts = new Map<number, number>();
    if (ids.length) {
      const counts = await db('comment').whereIn('issue_id', ids).where('type', 0).groupBy('issue_id').select('issue_id').count({ n: '*' });
      for (const c of counts as any[]) commentCounts.set(Number(c.issue_id), Number(c.n));
    }
    const assigneeIds = await assigneeIdsOf(ids);
    const posters = await userJsons([...rows.map((i) => i.poster_id), ...[...assigneeIds.values()].flat()], viewer);
    const assets = assetsBy(ids.length ? await attachments.listOfIssues(ids) : [], 'issueId');
    const pulls = await pullsOf(rows);
    const urls = repoUrls(r);
    return rows.map((i) => ({
      id: i.id,
      url: `${urls.api}/issues/${i.index}`,
      html_url: `${urls.html}/issues/${i.index}`,
      number: i.index,
      user: posters.get(i.poster_id),
      original_author: i.original_author,
      original_author_id: i.original_author_id,
      title: i.name,
      body: i.content ?? '',
      ref: i.ref,
      assets: assets.get(i.id) ?? [],
      labels: (labels.get(i.id) ?? []).map((l) => labelJson(r, l)),
      milestone: milestones.get(i.milestone_id) ?? null,
      assignee: assigneeIds.get(i.id)?.length ? posters.get(assigneeIds.get(i.id)![0]) : null,
      assignees: assigneeIds.get(i.id)?.length ? assigneeIds.get(i.id)!.map((a) => posters.get(a)) : null,
      state: i.is_closed ? 'closed' : 'open',
      is_locked: i.is_locked,
      comments: commentCounts.get(i.id) ?? 0,
      created_at: unixToIso(i.created_unix),
      updated_at: unixToIso(i.updated_unix),
      closed_at: i.is_closed && i.closed_unix ? unixToIso(i.closed_unix) : null,
      due_date: i.deadline_unix ? unixToIso(i.deadline_unix) : null,
      pull_request: i.is_pull ? pullMeta(pulls.get(i.id)) : null,
      repository: { id: r.id, name: r.name, owner: r.ownerName, full_name: urls.full },
      pin_order: i.pin_order,
    }));
  };

  const commentJsons = async (r: RepositoryInfo, rows: CommentRow[], viewer: Principal | null): Promise<Record<string, unknown>[]> => {
    const issueIds = [...new Set(rows.map((c) => c.issue_id))];
    const indexes = new Map<number, { index: number; isPull: boolean }>();
    if (issueIds.length) {
      for (const i of await db('issue').whereIn('id', issueIds).select('id', 'index', 'is_pull')) {
        indexes.set(Number(i.id), { index: Number(i.index), isPull: i.is_pull === true || Number(i.is_pull) === 1 });
      }
    }
    const posters = await userJsons(
      rows.map((c) => c.poster_id),
      viewer,
    );
    const assets = assetsBy(rows.length ? await attachments.listOfComments(rows.map((c) => c.id)) : [], 'commentId');
    const urls = repoUrls(r);
    return rows.map((c) => {
      const issue = indexes.get(c.issue_id);
      const htmlIssue = `${urls.html}/${issue?.isPull ? 'pulls' : 'issues'}/${issue?.index ?? 0}`;
      return {
        id: c.id,
        html_url: `${htmlIssue}#issuecomment-${c.id}`,
        pull_request_url: issue?.isPull ? `${urls.html}/pulls/${issue.index}` : '',
        issue_url: issue?.isPull ? '' : `${urls.html}/issues/${issue?.index ?? 0}`,
        user: posters.get(c.poster_id),
        original_author: c.original_author,
        original_author_id: c.original_author_id,
        body: c.content ?? '',
        assets: assets.get(c.id) ?? [],
        created_at: unixToIso(c.created_unix),
        updated_at: unixToIso(c.updated_unix),
      };
    });
  };

  return { issueJsons, commentJsons };
}
