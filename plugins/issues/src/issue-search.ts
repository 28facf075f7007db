import { ApiError, parseTime, type ApiOperation, type ApiRequest, type JsonSchema, type Principal } from '@hearth/plugin-api';
import type { Knex } from 'knex';
import { list, type IssueContext, type IssueDeps } from './issue-context';
import { toIssue, type IssueRow } from './issue-store';
import { whereIssueText } from './text-search';

const names = (s: string | undefined) =>
  (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

interface SearchQuery {
  state?: 'open' | 'closed' | 'all';
  labels?: string;
  milestones?: string;
  q?: string;
  priority_repo_id?: number;
  type?: 'issues' | 'pulls';
  since?: string;
  before?: string;
  assigned?: boolean;
  created?: boolean;
  mentioned?: boolean;
  review_requested?: boolean;
  reviewed?: boolean;
  owner?: string;
  team?: string;
}

/**
 * Ids of the repositories whose issues `viewer` may search, as a subquery (never loaded into
 * memory): those they may read (readableRepoIds) with the issues unit switched on.
 */
function searchableRepoIds(deps: IssueDeps, viewer: Principal | null): Knex.QueryBuilder {
  const q = deps.db('repositories as vr').select('vr.id').whereNot('vr.units', 'like', '%"issues":false%');
  const readable = deps.access.readableRepositoryIds(viewer);
  return readable ? q.whereIn('vr.id', readable) : q;
}

export function issueSearchOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, users, http } = deps;
  const bool = { type: 'boolean' };
  const query: JsonSchema = {
    type: 'object',
    properties: {
      state: { type: 'string', enum: ['open', 'closed', 'all'], description: 'whether issue is open or closed' },
      labels: {
        type: 'string',
        maxLength: 4096,
        description: 'comma separated list of labels. Fetch only issues that have any of this labels. Non existent labels are discarded',
      },
      milestones: {
        type: 'string',
        maxLength: 4096,
        description:
          'comma separated list of milestone names. Fetch only issues that have any of this milestones. Non existent are discarded',
      },
      q: { type: 'string', maxLength: 255, description: 'search string' },
      priority_repo_id: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'repository to prioritize in the results' },
      type: { type: 'string', enum: ['issues', 'pulls'], description: 'filter by type (issues / pulls) if set' },
      since: {
        type: 'string',
        maxLength: 64,
        description: 'Only show notifications updated after the given time. This is a timestamp in RFC 3339 format',
      },
      before: {
        type: 'string',
        maxLength: 64,
        description: 'Only show notifications updated before the given time. This is a timestamp in RFC 3339 format',
      },
      assigned: { ...bool, description: 'filter (issues / pulls) assigned to you, default is false' },
      created: { ...bool, description: 'filter (issues / pulls) created by you, default is false' },
      mentioned: { ...bool, description: 'filter (issues / pulls) mentioning you, default is false' },
      review_requested: { ...bool, description: 'filter pulls requesting your review, default is false' },
      reviewed: { ...bool, description: 'filter pulls reviewed by you, default is false' },
      owner: { type: 'string', maxLength: 255, description: 'filter by owner' },
      team: { type: 'string', maxLength: 255, description: 'filter by team (requires organization owner parameter to be provided)' },
    },
  };

  return [
    {
      method: 'get',
      path: '/repos/issues/search',
      operationId: 'issueSearchIssues',
      access: 'anyone',
      tag: 'issue',
      scopes: ['issue'],
      summary: 'Search for issues across the repositories that the user has access to',
      query,
      paged: true,
      responses: { 200: list('Issue'), 400: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, SearchQuery>) => {
        const f = req.query;
        const viewer = req.principal;
        const repoIds = searchableRepoIds(deps, viewer);
        if (f.owner) {
          const owner = await users.byName(f.owner);
          if (!owner) throw ApiError.badRequest(`Owner not found [name: ${f.owner}]`);
          repoIds.where('vr.owner_id', owner.id);
          if (f.team) {
            if (owner.type !== 1) throw ApiError.badRequest('Owner organisation is required for filtering on team');
            const team = await deps.organizations.teamByName(owner.id, f.team);
            if (!team) throw ApiError.badRequest(`Team not found [name: ${f.team}]`);
            const covered = await deps.organizations.teamRepositoryIds(team.id);
            if (covered) repoIds.whereIn('vr.id', covered);
          }
        } else if (f.team) {
          throw ApiError.badRequest('Owner organisation is required for filtering on team');
        }

        const q = db('issue').whereIn('repo_id', repoIds);
        const st = f.state ?? 'open';
        if (st !== 'all') q.where('is_closed', st === 'closed');
        if (f.type) q.where('is_pull', f.type === 'pulls');
        // Issues carrying every named label (by name, in whichever repository or organization it is defined).
        for (const name of new Set(names(f.labels))) {
          q.whereIn('id', db('issue_label as il').join('label as l', 'l.id', 'il.label_id').where('l.name', name).select('il.issue_id'));
        }
        const milestoneNames = names(f.milestones);
        if (milestoneNames.length) q.whereIn('milestone_id', db('milestone').whereIn('name', milestoneNames).select('id'));
        if (f.q) whereIssueText(db, q, f.q);
        if (f.since) q.where('updated_unix', '>=', parseTime(f.since, 'since'));
        if (f.before) q.where('updated_unix', '<=', parseTime(f.before, 'before'));
        // As Gitea: the "my" filters apply to signed-in callers and are ignored otherwise.
        if (viewer) {
          if (f.created) q.where('poster_id', viewer.user.id);
          if (f.assigned) q.whereIn('id', db('issue_assignees').where('assignee_id', viewer.user.id).select('issue_id'));
          if (f.mentioned) q.whereIn('id', db('issue_mention').where('user_id', viewer.user.id).select('issue_id'));
          // Review requests to the caller or to a team the caller is in; reviews the caller submitted.
          // (the pull requests feature says which; none while it is disabled).
          const link = deps.pulls.link;
          if (f.review_requested) q.whereIn('id', link ? await link.reviewFilter('review_requested', viewer.user.id) : []);
          if (f.reviewed) q.whereIn('id', link ? await link.reviewFilter('reviewed', viewer.user.id) : []);
        }

        const [{ n }] = await q.clone().count({ n: '*' });
        const ordered = q.clone();
        if (f.priority_repo_id) ordered.orderByRaw('CASE WHEN repo_id = ? THEN 0 ELSE 1 END', [f.priority_repo_id]);
        const rows = (
          await ordered
            .orderBy([
              { column: 'created_unix', order: 'desc' },
              { column: 'id', order: 'desc' },
            ])
            .offset(req.paging.offset)
            .limit(req.paging.limit)
        ).map(toIssue);
        return http.paged(req, await issueJsonsAcrossRepos(ctx, rows, viewer), Number(n));
      },
    },
  ];

  /**
   * Issue JSON for rows of several repositories, in the rows' order. The visibility subquery works
   * at repository level; the issues unit is re-checked per repository here (a team may grant a
   * repository without its issues unit), and issues of a repository failing it are left out.
   */
  async function issueJsonsAcrossRepos(c: IssueContext, rows: IssueRow[], viewer: Principal | null): Promise<Record<string, unknown>[]> {
    const byRepo = new Map<number, IssueRow[]>();
    for (const row of rows) byRepo.set(row.repo_id, [...(byRepo.get(row.repo_id) ?? []), row]);
    const jsons = new Map<number, Record<string, unknown>>();
    for (const [repoId, issues] of byRepo) {
      const repo = await deps.repositories.byId(repoId);
      if (!repo || !(await users.byId(repo.ownerId))) continue;
      const readable = await deps.access.repository(repo.ownerName, repo.name, viewer, 'read', 'issues').catch(() => null);
      if (!readable) continue;
      const out = await c.issueJsons(repo, issues, viewer);
      issues.forEach((issue, i) => jsons.set(issue.id, out[i]));
    }
    return rows.map((row) => jsons.get(row.id)).filter((j): j is Record<string, unknown> => !!j);
  }
}
