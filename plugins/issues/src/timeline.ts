import type { Knex } from 'knex';
import { insertId, nowUnix } from '@hearth/plugin-api';

/** Gitea's comment types: a timeline event is a `comment` row of its type. */
export const COMMENT_TYPE = {
  comment: 0,
  reopen: 1,
  close: 2,
  issue_ref: 3,
  commit_ref: 4,
  comment_ref: 5,
  pull_ref: 6,
  label: 7,
  milestone: 8,
  assignees: 9,
  change_title: 10,
  delete_branch: 11,
  start_tracking: 12,
  stop_tracking: 13,
  cancel_tracking: 14,
  add_time_manual: 15,
  added_deadline: 16,
  modified_deadline: 17,
  removed_deadline: 18,
  add_dependency: 19,
  remove_dependency: 20,
  code: 21,
  review: 22,
  lock: 23,
  unlock: 24,
  change_target_branch: 25,
  delete_time_manual: 26,
  review_request: 27,
  merge_pull: 28,
  pull_push: 29,
  dismiss_review: 32,
  change_issue_ref: 33,
  pin: 36,
  unpin: 37,
} as const;

export type TimelineType = keyof typeof COMMENT_TYPE;

/** The `type` string the API shows for a stored comment type (Gitea's CommentType.String()). */
export function timelineTypeName(type: number): string {
  for (const [name, value] of Object.entries(COMMENT_TYPE)) if (value === type) return name;
  return 'comment';
}

/** The event columns of a `comment` row (0010_timeline_columns); all optional. */
export interface TimelineFields {
  content?: string;
  label_id?: number;
  old_milestone_id?: number;
  milestone_id?: number;
  assignee_id?: number;
  assignee_team_id?: number;
  removed_assignee?: boolean;
  old_title?: string;
  new_title?: string;
  old_ref?: string;
  new_ref?: string;
  commit_sha?: string;
  ref_repo_id?: number;
  ref_issue_id?: number;
  ref_comment_id?: number;
  ref_action?: number;
  ref_is_pull?: boolean;
  dependent_issue_id?: number;
  review_id?: number;
}

/**
 * Record one timeline event of an issue or pull request, inside the transaction that made the
 * change. Returns the new comment id.
 */
export async function recordIssueEvent(
  trx: Knex | Knex.Transaction,
  event: { repoId: number; issueId: number; actorId: number; type: TimelineType } & TimelineFields,
): Promise<number> {
  const { repoId, issueId, actorId, type, content, ...fields } = event;
  const now = nowUnix();
  return insertId(trx, 'comment', {
    type: COMMENT_TYPE[type],
    repo_id: repoId,
    issue_id: issueId,
    poster_id: actorId,
    content: content ?? '',
    created_unix: now,
    updated_unix: now,
    ...fields,
  });
}
