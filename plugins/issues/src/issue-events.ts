import type { RepositoryInfo, UserInfo } from '@hearth/plugin-api';
import type { IssueContext, IssueDeps } from './issue-context';
import { toComment, toIssue } from './issue-store';

/** The issue-kind events (Gitea's HookEventType). */
export type IssueEventKind = 'issues' | 'issue_assign' | 'issue_label' | 'issue_milestone';

export interface IssueEventOptions {
  changes?: Record<string, { from: string }>;
  /** The commit that caused the change (closing keywords); '' otherwise. */
  commitId?: string;
  /**
   * Hearth extension for `issue_assign`: the user assigned or unassigned by this event (Gitea's
   * payload has no such field; the notifications module notifies just that user).
   */
  assigneeId?: number;
}

/**
 * Emitters of the issue events of /work/briefs/events.md, called AFTER the change committed.
 * Payloads are built for an anonymous viewer (the webhooks module adds `repository` and `sender`).
 * Issue-kind events of pull requests (is_pull rows) are left to the pull requests module, which
 * owns the PullRequest JSON; comments on pull requests are sent as `pull_request_comment`.
 */
export function issueEvents(deps: IssueDeps, ctx: IssueContext) {
  const { db } = deps;

  const issueJson = async (r: RepositoryInfo, issueId: number): Promise<{ json: Record<string, unknown>; isPull: boolean } | null> => {
    const row = await db('issue').where('id', issueId).first();
    if (!row) return null;
    const issue = toIssue(row);
    return { json: (await ctx.issueJsons(r, [issue], null))[0], isPull: issue.is_pull };
  };

  /** `issues`, `issue_assign`, `issue_label`, `issue_milestone` with `{ action, number, changes?, issue, commit_id }`. */
  const issue = async (
    kind: IssueEventKind,
    r: RepositoryInfo,
    issueId: number,
    action: string,
    actor: UserInfo | null,
    options: IssueEventOptions = {},
  ): Promise<void> => {
    const found = await issueJson(r, issueId);
    if (!found || found.isPull) return;
    const payload: Record<string, unknown> = { action, number: found.json.number, issue: found.json, commit_id: options.commitId ?? '' };
    if (options.assigneeId) payload.assignee_id = options.assigneeId;
    if (options.changes) payload.changes = options.changes;
    await deps.emit({ event: kind, action, actor, ownerId: r.ownerId, repositoryId: r.id, payload });
  };

  /** A deleted issue: its JSON is built before the rows go, so the caller hands it in. */
  const deleted = async (r: RepositoryInfo, json: Record<string, unknown>, isPull: boolean, actor: UserInfo | null): Promise<void> => {
    if (isPull) return;
    await deps.emit({
      event: 'issues',
      action: 'deleted',
      actor,
      ownerId: r.ownerId,
      repositoryId: r.id,
      payload: { action: 'deleted', number: json.number, issue: json, commit_id: '' },
    });
  };

  /**
   * `issue_comment` (`pull_request_comment` on a pull request) with `{ action, issue, comment,
   * changes?, is_pull }`. For `deleted`, pass the comment JSON taken before the row went.
   */
  const comment = async (
    r: RepositoryInfo,
    issueId: number,
    commentIdOrJson: number | Record<string, unknown>,
    action: string,
    actor: UserInfo | null,
    changes?: Record<string, { from: string }>,
  ): Promise<void> => {
    const found = await issueJson(r, issueId);
    if (!found) return;
    let commentJson: Record<string, unknown>;
    if (typeof commentIdOrJson === 'number') {
      const row = await db('comment').where('id', commentIdOrJson).first();
      if (!row) return;
      commentJson = (await ctx.commentJsons(r, [toComment(row)], null))[0];
    } else commentJson = commentIdOrJson;
    const payload: Record<string, unknown> = { action, issue: found.json, comment: commentJson, is_pull: found.isPull };
    if (changes) payload.changes = changes;
    await deps.emit({
      event: found.isPull ? 'pull_request_comment' : 'issue_comment',
      action,
      actor,
      ownerId: r.ownerId,
      repositoryId: r.id,
      payload,
    });
  };

  return { issue, deleted, comment };
}

export type IssueEvents = ReturnType<typeof issueEvents>;
