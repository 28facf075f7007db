import { parseTime, type ApiOperation, type ApiRequest, type Principal } from '@hearth/plugin-api';
import { INDEX_PARAMS, list, type IssueContext, type IssueDeps, type OpenedRepo } from './issue-context';
import { toComment, toLabel, toMilestone } from './issue-store';
import { REF_ACTION_NAMES } from './issue-actions';
import { timelineTypeName } from './timeline';
import { base, issuesAnywhere, type IndexParams } from './interaction-common';

const TIME_RANGE = {
  since: { type: 'string', maxLength: 64, description: 'if provided, only comments updated since the provided time are returned.' },
  before: { type: 'string', maxLength: 64, description: 'if provided, only comments updated before the provided time are returned.' },
};

/** The timeline of an issue: its comments and events, as the viewer may see them. */
export function timelineOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, http } = deps;

  const timelineJsons = async (o: OpenedRepo, raws: any[], viewer: Principal | null) => {
    const rows = raws.map((raw) => ({ row: toComment(raw), raw }));
    const basics = await ctx.commentJsons(
      o.r,
      rows.map((x) => x.row),
      viewer,
    );
    const n = (v: unknown) => Number(v ?? 0);
    const labelIds = [...new Set(raws.map((r) => n(r.label_id)).filter(Boolean))];
    const labels = new Map(
      (labelIds.length ? (await db('label').whereIn('id', labelIds)).map(toLabel) : []).map((l) => [l.id, ctx.labelJson(o.r, l)]),
    );
    const milestoneIds = [...new Set(raws.flatMap((r) => [n(r.milestone_id), n(r.old_milestone_id)]).filter(Boolean))];
    const milestones = new Map(
      (await ctx.milestoneJsons(milestoneIds.length ? (await db('milestone').whereIn('id', milestoneIds)).map(toMilestone) : [])).map(
        (m) => [m.id, m],
      ),
    );
    const assignees = await ctx.userJsons(raws.map((r) => n(r.assignee_id)).filter(Boolean), viewer);
    const issues = await issuesAnywhere(
      deps,
      ctx,
      raws.flatMap((r) => [n(r.ref_issue_id), n(r.dependent_issue_id)]).filter(Boolean),
      viewer,
      o.r,
    );
    const refCommentIds = [...new Set(raws.map((r) => n(r.ref_comment_id)).filter(Boolean))];
    const refComments = new Map<number, Record<string, unknown>>();
    for (const c of refCommentIds.length ? (await db('comment').whereIn('id', refCommentIds)).map(toComment) : []) {
      const ref = [...issues.values()].find((i) => i.id === c.issue_id);
      if (ref && c.repo_id === o.r.id) refComments.set(c.id, (await ctx.commentJsons(o.r, [c], viewer))[0]);
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
        id: b.id,
        type: timelineTypeName(n(raw.type)),
        html_url: b.html_url,
        pull_request_url: b.pull_request_url,
        issue_url: b.issue_url,
        user: b.user,
        body: b.body,
        created_at: b.created_at,
        updated_at: b.updated_at,
        old_project_id: 0,
        project_id: 0,
        old_title: raw.old_title ?? '',
        new_title: raw.new_title ?? '',
        old_ref: raw.old_ref ?? '',
        new_ref: raw.new_ref ?? '',
        ref_issue: refIssue ?? null,
        ref_comment: n(raw.ref_comment_id) ? (refComments.get(n(raw.ref_comment_id)) ?? null) : null,
        ref_action: REF_ACTION_NAMES[n(raw.ref_action)] ?? '',
        ref_commit_sha: raw.commit_sha ?? '',
        review_id: n(raw.review_id),
        label: n(raw.label_id) ? (labels.get(n(raw.label_id)) ?? null) : null,
        assignee: n(raw.assignee_id) ? (assignees.get(n(raw.assignee_id)) ?? null) : null,
        assignee_team: null,
        removed_assignee: raw.removed_assignee === true || n(raw.removed_assignee) === 1,
        resolve_doer: null,
        dependent_issue: dependent ?? null,
        milestone: n(raw.milestone_id) ? (milestones.get(n(raw.milestone_id)) ?? null) : null,
        old_milestone: n(raw.old_milestone_id) ? (milestones.get(n(raw.old_milestone_id)) ?? null) : null,
        tracked_time: null,
      });
    });
    return out;
  };

  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issues/{index}/timeline',
      operationId: 'issueGetCommentsAndTimeline',
      access: { repo: { need: 'read', unit: 'issues' } },
      summary: 'List all comments and events on an issue',
      params: INDEX_PARAMS,
      query: { type: 'object', properties: TIME_RANGE },
      paged: true,
      responses: { 200: list('TimelineComment'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { since?: string; before?: string }, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const q = db('comment').where('issue_id', issue.id);
        // The code comments of somebody else's pending review stay hidden until it is submitted (the pull requests feature says whose).
        const hidden = deps.pulls.link ? await deps.pulls.link.hiddenReviewIds(issue.id, req.principal) : [];
        if (hidden.length) q.whereNotIn('review_id', hidden);
        if (req.query.since) q.where('updated_unix', '>=', parseTime(req.query.since, 'since'));
        if (req.query.before) q.where('updated_unix', '<=', parseTime(req.query.before, 'before'));
        const [{ n }] = await q.clone().count({ n: '*' });
        const raws = await q
          .clone()
          .orderBy([
            { column: 'created_unix', order: 'asc' },
            { column: 'id', order: 'asc' },
          ])
          .offset(req.paging.offset)
          .limit(req.paging.limit);
        return http.paged(req as ApiRequest<any, any, any>, await timelineJsons(o, raws, req.principal), Number(n));
      },
    },
  ];
}
