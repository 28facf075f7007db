import { OWNER_REPO_PARAMS, ok, parseTime, type ApiOperation, type ApiRequest, type JsonSchema } from '@hearth/plugin-api';
import { INDEX_PARAMS, issueContext, list, TIME_RANGE, type IssueContext, type IssueDeps, type RepoParams } from './issue-context';
import { toIssue } from './issue-store';
import { labelOperations } from './label-routes';
import { usableLabels } from './org-labels';
import { milestoneOperations } from './milestone-routes';
import { issueEvents, type IssueEvents } from './issue-events';
import { pinnedListOperations } from './pins';
import { commentOperations } from './comment-routes';
import { issueWriteService, type CreateIssueBody, type EditIssueBody } from './issue-write-service';
import { whereIssueText } from './text-search';

type IndexParams = RepoParams & { index: number };

interface ListQuery {
  state?: 'open' | 'closed' | 'all';
  labels?: string;
  q?: string;
  type?: 'issues' | 'pulls';
  milestones?: string;
  since?: string;
  before?: string;
  created_by?: string;
  assigned_by?: string;
  mentioned_by?: string;
}

const LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: ['closed', 'open', 'all'], description: 'whether issue is open or closed' },
    labels: {
      type: 'string',
      maxLength: 4096,
      description: 'comma separated list of labels. Fetch only issues that have any of this labels. Non existent labels are discarded',
    },
    q: { type: 'string', maxLength: 255, description: 'search string' },
    type: { type: 'string', enum: ['issues', 'pulls'], description: 'filter by type (issues / pulls) if set' },
    milestones: {
      type: 'string',
      maxLength: 4096,
      description:
        'comma separated list of milestone names or ids. It uses names and fall back to ids. ' +
        'Fetch only issues that have any of this milestones. Non existent milestones are discarded',
    },
    ...TIME_RANGE,
    created_by: { type: 'string', maxLength: 255, description: 'Only show items which were created by the the given user' },
    assigned_by: { type: 'string', maxLength: 255, description: 'Only show items for which the given user is assigned' },
    mentioned_by: { type: 'string', maxLength: 255, description: 'Only show items in which the given user was mentioned' },
  },
};

/**
 * Issues (Gitea's /repos/{owner}/{repo}/issues…), their comments, repository labels and milestones.
 * Every route needs the issues unit (404 when off or unreadable). Any signed-in reader may open
 * an issue and comment; the poster may edit (title, body, ref, state) their own issue; labels,
 * milestones, due dates and others' issues need write on the unit; deleting an issue needs admin.
 * Creates, edits and label changes pass through `issue.mutate` inside their transaction (the other
 * kinds — state, pin, lock, deadline — through mutateIssue in issue-actions.ts).
 */
export function issueOperations(deps: IssueDeps): ApiOperation[] {
  const ctx = issueContext(deps);
  const events = issueEvents(deps, ctx);
  return [
    ...pinnedListOperations(deps, ctx),
    ...commentOperations(deps, ctx, events),
    ...issueCrud(deps, ctx, events),
    ...labelOperations(deps, ctx),
    ...milestoneOperations(deps, ctx),
  ];
}

function issueCrud(deps: IssueDeps, ctx: IssueContext, events: IssueEvents): ApiOperation[] {
  const { one, createIssue, editIssue, deleteIssue } = issueWriteService(deps, ctx, events);
  const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues',
      operationId: 'issueListIssues',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: "List a repository's issues",
      params: OWNER_REPO_PARAMS,
      query: LIST_QUERY,
      paged: true,
      responses: { 200: list('Issue') },
      handler: (req: ApiRequest<unknown, ListQuery, RepoParams>) => listIssues(deps, ctx, req),
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues',
      operationId: 'issueCreateIssue',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Create an issue',
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      body: 'CreateIssueOption',
      bodyRequired: true,
      responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<CreateIssueBody, unknown, RepoParams>) => createIssue(req),
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}',
      operationId: 'issueGetIssue',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get an issue',
      params: INDEX_PARAMS,
      responses: { 200: 'Issue', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        return ok(await one(o, await ctx.issueByIndex(o.r, req.params.index), req));
      },
    },
    {
      ...base,
      method: 'patch',
      path: '/repos/{owner}/{repo}/issues/{index}',
      operationId: 'issueEditIssue',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Edit an issue. If using deadline only the date will be taken into account, and time of day ignored.',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'EditIssueOption',
      bodyRequired: true,
      responses: { 201: 'Issue', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<EditIssueBody, unknown, IndexParams>) => editIssue(req),
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}',
      operationId: 'issueDelete',
      access: { repo: { need: 'admin', unit: 'issues' } },
      summary: 'Delete an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 204: 'issue deleted', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<unknown, unknown, IndexParams>) => deleteIssue(req),
    },
  ];
}

/** A page of a repository's issues (and pull requests), with Gitea's filters. */
async function listIssues(deps: IssueDeps, ctx: IssueContext, req: ApiRequest<unknown, ListQuery, RepoParams>) {
  const { db, users, http } = deps;
  const o = await ctx.open(req);
  const f = req.query;
  const q = db('issue').where('repo_id', o.r.id);
  const st = f.state ?? 'open';
  if (st !== 'all') q.where('is_closed', st === 'closed');
  if (f.type) q.where('is_pull', f.type === 'pulls');
  let empty = false;
  const names = (s: string | undefined) =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  if (names(f.labels).length) {
    const wanted = names(f.labels);
    const rows = await usableLabels(db('label'), o.r).whereIn('name', wanted).select('id', 'name');
    // Every named label must exist and be on the issue (an unknown label matches nothing).
    if (wanted.some((n) => !rows.some((r: { name: string }) => r.name === n))) empty = true;
    // A correlated EXISTS per label: the issue index is walked in number order and each issue probes
    // issue_label's (issue_id, label_id) index — no list of all labelled issues, no sort (bench/issues.js).
    for (const id of new Set(rows.map((r: { id: number }) => Number(r.id)))) {
      q.whereExists(db('issue_label as il').select(db.raw('1')).whereRaw('?? = ??', ['il.issue_id', 'issue.id']).where('il.label_id', id));
    }
  }
  if (names(f.milestones).length) {
    const refs = names(f.milestones);
    const all = await db('milestone').where('repo_id', o.r.id).select('id', 'name');
    const ids = new Set<number>();
    for (const ref of refs) {
      const byName = all.filter((m: { name: string }) => m.name === ref);
      if (byName.length) byName.forEach((m: { id: number }) => ids.add(Number(m.id)));
      else if (/^\d+$/.test(ref) && all.some((m: { id: number }) => Number(m.id) === Number(ref))) ids.add(Number(ref));
    }
    if (ids.size === 0) empty = true;
    else q.whereIn('milestone_id', [...ids]);
  }
  if (f.q) whereIssueText(db, q, f.q);
  if (f.since) q.where('updated_unix', '>=', parseTime(f.since, 'since'));
  if (f.before) q.where('updated_unix', '<=', parseTime(f.before, 'before'));
  if (f.created_by) {
    const u = await users.byName(f.created_by);
    if (!u) empty = true;
    else q.where('poster_id', u.id);
  }
  // Gitea 1.20's assigned_by and mentioned_by: an unknown user matches nothing.
  for (const [name, table, column] of [
    [f.assigned_by, 'issue_assignees', 'assignee_id'],
    [f.mentioned_by, 'issue_mention', 'user_id'],
  ] as const) {
    if (!name) continue;
    const u = await users.byName(name);
    if (!u) empty = true;
    else q.whereIn('id', db(table).where(column, u.id).select('issue_id'));
  }
  if (empty) return http.paged(req, [], 0);
  const [{ n }] = await q.clone().count({ n: '*' });
  const rows = (
    await q
      .clone()
      .orderBy([{ column: 'index', order: 'desc' }])
      .offset(req.paging.offset)
      .limit(req.paging.limit)
  ).map(toIssue);
  return http.paged(req, await ctx.issueJsons(o.r, rows, req.principal), Number(n));
}
