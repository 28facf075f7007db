import {
  ApiError,
  created,
  insertId,
  noContent,
  nowUnix,
  ok,
  OWNER_REPO_PARAMS,
  ownerRepoParams,
  parseTime,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type RepositoryInfo,
} from '@hearth/plugin-api';
import { list, type IssueContext, type IssueDeps, type RepoParams } from './issue-context';
import { toMilestone, type MilestoneRow } from './issue-store';
import { NO_DEADLINE_UNIX } from './milestone-document';

interface MilestoneBody {
  title?: string;
  description?: string;
  due_on?: string | null;
  state?: string;
}
type MsParams = RepoParams & { id: string };

const MS_PARAMS: JsonSchema = ownerRepoParams({
  id: { type: 'string', minLength: 1, maxLength: 255, description: 'the milestone to get, identified by ID and if not available by name' },
});

function state(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'open') return false;
  if (value === 'closed') return true;
  throw ApiError.unprocessable(`invalid state "${value}": open or closed`, {
    errors: [{ field: 'state', message: 'must be open or closed' }],
  });
}

/**
 * Milestones (`/repos/{owner}/{repo}/milestones…`): reading needs the issues unit, changes need
 * write on it. `open_issues`/`closed_issues` are counted from the issues; `closed_at` is set each
 * time the state becomes closed. A closed milestone can still be assigned to issues.
 */
export function milestoneOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const lookups = milestoneLookups(deps, ctx);
  return [...milestoneListOperations(deps, ctx, lookups), ...milestoneItemOperations(deps, ctx, lookups)];
}

const base = { tag: 'issue', scopes: ['issue'] as ['issue'] };

/** Finding a milestone of a repository and its JSON. */
function milestoneLookups(deps: IssueDeps, ctx: IssueContext) {
  const { db } = deps;

  /** By id, else by name (as Gitea). */
  const find = async (r: RepositoryInfo, ref: string): Promise<MilestoneRow> => {
    let row: unknown;
    if (/^\d{1,10}$/.test(ref))
      row = await db('milestone')
        .where({ repo_id: r.id, id: Number(ref) })
        .first();
    if (!row) row = await db('milestone').where({ repo_id: r.id, name: ref }).first();
    if (!row) throw ApiError.notFound(`milestone does not exist [${ref}]`);
    return toMilestone(row);
  };
  const one = async (id: number) => (await ctx.milestoneJsons([toMilestone(await db('milestone').where('id', id).first())]))[0];

  return { find, one };
}

type MilestoneLookups = ReturnType<typeof milestoneLookups>;

/** A repository's milestones: list, create. */
function milestoneListOperations(deps: IssueDeps, ctx: IssueContext, { one }: MilestoneLookups): ApiOperation[] {
  const { db, http } = deps;
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/milestones',
      operationId: 'issueGetMilestonesList',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: "Get all of a repository's opened milestones",
      params: OWNER_REPO_PARAMS,
      paged: true,
      query: {
        type: 'object',
        properties: {
          state: {
            type: 'string',
            enum: ['open', 'closed', 'all'],
            description: 'Milestone state, "open", "closed" or "all"; default "open"',
          },
          name: { type: 'string', maxLength: 255, description: 'filter by milestone name' },
        },
      },
      responses: { 200: list('Milestone') },
      handler: async (req: ApiRequest<unknown, { state?: string; name?: string }, RepoParams>) => {
        const o = await ctx.open(req);
        const q = db('milestone').where('repo_id', o.r.id);
        const st = req.query.state ?? 'open';
        if (st !== 'all') q.where('is_closed', st === 'closed');
        if (req.query.name) q.where('name', req.query.name);
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = (
          await q
            .clone()
            .orderBy([
              { column: 'deadline_unix', order: 'asc' },
              { column: 'id', order: 'asc' },
            ])
            .offset(req.paging.offset)
            .limit(req.paging.limit)
        ).map(toMilestone);
        return http.paged(req, await ctx.milestoneJsons(rows), Number(n));
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/milestones',
      operationId: 'issueCreateMilestone',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Create a milestone',
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      body: 'CreateMilestoneOption',
      bodyRequired: true,
      responses: { 201: 'Milestone', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<MilestoneBody, unknown, RepoParams>) => {
        const o = await ctx.open(req);
        const b = req.body;
        if (!b.title) throw ApiError.unprocessable('title is required', { errors: [{ field: 'title', message: 'required' }] });
        const now = nowUnix();
        const closed = state(b.state) ?? false;
        const id = await insertId(db, 'milestone', {
          repo_id: o.r.id,
          name: b.title,
          content: b.description ?? '',
          is_closed: closed,
          deadline_unix: deadlineOf(b.due_on) ?? 0,
          closed_date_unix: closed ? now : 0,
          created_unix: now,
          updated_unix: now,
        });
        return created(await one(id));
      },
    },
  ];
}

/** One milestone, by id or name: get, edit, delete. */
function milestoneItemOperations(deps: IssueDeps, ctx: IssueContext, { find, one }: MilestoneLookups): ApiOperation[] {
  const { db } = deps;
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/milestones/{id}',
      operationId: 'issueGetMilestone',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'Get a milestone',
      params: MS_PARAMS,
      responses: { 200: 'Milestone', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, MsParams>) => {
        const o = await ctx.open(req);
        return ok((await ctx.milestoneJsons([await find(o.r, req.params.id)]))[0]);
      },
    },
    {
      ...base,
      method: 'patch',
      path: '/repos/{owner}/{repo}/milestones/{id}',
      operationId: 'issueEditMilestone',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Update a milestone',
      auth: 'required',
      params: MS_PARAMS,
      body: 'EditMilestoneOption',
      bodyRequired: true,
      responses: { 200: 'Milestone', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<MilestoneBody, unknown, MsParams>) => {
        const o = await ctx.open(req);
        const m = await find(o.r, req.params.id);
        const b = req.body;
        const now = nowUnix();
        const patch: Record<string, unknown> = { updated_unix: now };
        if (b.title !== undefined) {
          if (!b.title) throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
          patch.name = b.title;
        }
        if (b.description !== undefined) patch.content = b.description;
        const deadline = deadlineOf(b.due_on);
        if (deadline !== undefined) patch.deadline_unix = deadline;
        const closed = state(b.state);
        if (closed !== undefined) {
          patch.is_closed = closed;
          if (closed && !m.is_closed) patch.closed_date_unix = now;
        }
        await db('milestone').where('id', m.id).update(patch);
        return ok(await one(m.id));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/milestones/{id}',
      operationId: 'issueDeleteMilestone',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Delete a milestone',
      auth: 'required',
      params: MS_PARAMS,
      responses: { 204: 'milestone deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, MsParams>) => {
        const o = await ctx.open(req);
        const m = await find(o.r, req.params.id);
        await db.transaction(async (trx) => {
          await trx('issue').where({ repo_id: o.r.id, milestone_id: m.id }).update({ milestone_id: 0 });
          await trx('milestone').where('id', m.id).delete();
        });
        return noContent();
      },
    },
  ];
}

/** Go's zero time (0001-01-01T00:00:00Z) in Unix seconds: what Gitea's clients send for "not set". */
const GO_ZERO_UNIX = -62135596800;

/**
 * The stored deadline a `due_on` asks for, as Gitea 1.20 reads it: absent or Go's zero time leave
 * the deadline as it is; a date in year 9999 or later is Gitea's "no due date" and clears it (0);
 * else the time.
 */
function deadlineOf(dueOn: string | null | undefined): number | undefined {
  if (!dueOn) return undefined;
  const unix = parseTime(dueOn, 'due_on');
  if (unix <= GO_ZERO_UNIX) return undefined;
  return unix >= NO_DEADLINE_UNIX - 366 * 86400 ? 0 : unix;
}
