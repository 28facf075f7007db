import { created, noContent, nowUnix, parseTime, unixToIso, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { INDEX_PARAMS, type IssueContext, type IssueDeps } from './issue-context';
import { toIssue } from './issue-store';
import { mutateIssue, recordDeadlineEvent } from './issue-actions';
import { recordIssueEvent } from './timeline';
import { base, type IndexParams } from './interaction-common';

/** Deadlines and locked conversations. */
export function lockAndDeadlineOperations(deps: IssueDeps, ctx: IssueContext): ApiOperation[] {
  const { db, hooks } = deps;
  /** Lock or unlock through issue.mutate (kind `lock`, changes `{ locked, lockReason? }`). */
  const setLock = async (req: ApiRequest<{ lock_reason?: string } | undefined, unknown, IndexParams>, locked: boolean) => {
    const o = await ctx.open(req);
    const issue = await ctx.issueByIndex(o.r, req.params.index);
    await db.transaction(async (trx) => {
      const fresh = toIssue(await trx('issue').where('id', issue.id).first());
      const c = await mutateIssue(
        hooks,
        trx,
        fresh,
        'lock',
        locked ? { locked, lockReason: req.body?.lock_reason ?? '' } : { locked },
        req.principal!.user,
      );
      const want = Boolean(c.locked);
      const changed = await trx('issue').where({ id: issue.id, is_locked: !want }).update({ is_locked: want, updated_unix: nowUnix() });
      if (Number(changed) > 0) {
        await recordIssueEvent(trx, {
          repoId: o.r.id,
          issueId: issue.id,
          actorId: req.principal!.user.id,
          type: want ? 'lock' : 'unlock',
          content: want ? String(c.lockReason ?? '') : '',
        });
      }
    });
    return noContent();
  };
  return [
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/issues/{index}/deadline',
      operationId: 'issueEditIssueDeadline',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary:
        'Set an issue deadline. If set to null, the deadline is deleted. ' +
        'If using deadline only the date will be taken into account, and time of day ignored.',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'EditDeadlineOption',
      bodyRequired: true,
      responses: { 201: 'IssueDeadline', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<{ due_date: string }, unknown, IndexParams>) => {
        const o = await ctx.open(req);
        const issue = await ctx.issueByIndex(o.r, req.params.index);
        const t = parseTime(req.body.due_date, 'due_date');
        // As Gitea: the end (23:59:59) of the given day; the zero time removes the deadline.
        let deadline =
          t <= -62135596800
            ? 0
            : Math.floor(
                Date.UTC(
                  new Date(t * 1000).getUTCFullYear(),
                  new Date(t * 1000).getUTCMonth(),
                  new Date(t * 1000).getUTCDate(),
                  23,
                  59,
                  59,
                ) / 1000,
              );
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
      ...base,
      method: 'put',
      path: '/repos/{owner}/{repo}/issues/{index}/lock',
      operationId: 'issueLockIssue',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Lock an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'LockIssueOption',
      responses: { 204: 'locked', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<{ lock_reason?: string } | undefined, unknown, IndexParams>) => setLock(req, true),
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/issues/{index}/lock',
      operationId: 'issueUnlockIssue',
      access: { repo: { need: 'write', unit: 'issues' } },
      summary: 'Unlock an issue',
      auth: 'required',
      params: INDEX_PARAMS,
      responses: { 204: 'unlocked', 403: 'APIError', 404: 'APIError' },
      handler: (req: ApiRequest<undefined, unknown, IndexParams>) => setLock(req, false),
    },
  ];
}
