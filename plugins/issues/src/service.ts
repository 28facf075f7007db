import { createServiceRef, type Principal, type RepositoryInfo, type RepositoryTarget, type UserInfo } from '@hearth/plugin-api';
import type { Knex } from 'knex';

/**
 * The issues service (`issues.issues`): the one write path of issues — also of the issue half of
 * pull requests — and the reads other features need. Methods take and return plain data. A few
 * take a transaction (`trx`) or hand one to a callback (`within`), so that a feature's own rows
 * (a pull request's) are written in the same transaction as the issue's, as `issue.mutate` and
 * `repository.deleting` taps get theirs.
 */

/** An issue (or the issue half of a pull request). */
export interface Issue {
  id: number;
  repositoryId: number;
  /** The number in its repository (shared by issues and pull requests). */
  index: number;
  posterId: number;
  title: string;
  body: string;
  ref: string;
  milestoneId: number;
  isClosed: boolean;
  isPull: boolean;
  isLocked: boolean;
  deadlineUnix: number;
  createdUnix: number;
  updatedUnix: number;
  closedUnix: number;
  /** 0 = not pinned, 1 = first. */
  pinOrder: number;
}

/** What a create stores (after the caller's checks: labels and milestone of the repository, assignees that may be assigned). */
export interface NewIssue {
  repositoryId: number;
  title: string;
  body: string;
  ref: string;
  milestoneId: number;
  deadlineUnix: number;
  closed: boolean;
  isPull: boolean;
  /** From `resolveLabels`, in request order. */
  labelIds: number[];
  assigneeIds: number[];
}

/** What an edit changes (undefined: unchanged), as the `edit` changes `issue.mutate` sees. */
export interface IssueChanges {
  title?: string;
  body?: string;
  ref?: string;
  state?: 'open' | 'closed';
  milestoneId?: number;
  deadlineUnix?: number;
  assigneeIds?: number[];
  /** The complete resulting list (from `resolveLabels`). */
  labelIds?: number[];
}

/** One event to emit after a create or an edit committed: Gitea's event name (by isPull) and action. */
export interface IssueNotice {
  event:
    | 'issues'
    | 'issue_assign'
    | 'issue_label'
    | 'issue_milestone'
    | 'pull_request'
    | 'pull_request_assign'
    | 'pull_request_label'
    | 'pull_request_milestone';
  action: string;
  changes?: Record<string, unknown>;
  assigneeId?: number;
}

/** The timeline event types (Gitea's comment types by name). */
export type TimelineEventType =
  | 'comment'
  | 'reopen'
  | 'close'
  | 'issue_ref'
  | 'commit_ref'
  | 'comment_ref'
  | 'pull_ref'
  | 'label'
  | 'milestone'
  | 'assignees'
  | 'change_title'
  | 'delete_branch'
  | 'added_deadline'
  | 'modified_deadline'
  | 'removed_deadline'
  | 'add_dependency'
  | 'remove_dependency'
  | 'code'
  | 'review'
  | 'lock'
  | 'unlock'
  | 'change_target_branch'
  | 'review_request'
  | 'merge_pull'
  | 'pull_push'
  | 'dismiss_review'
  | 'change_issue_ref'
  | 'pin'
  | 'unpin';

/** One timeline event of an issue; the optional fields are the event's details. */
export interface TimelineEvent {
  repositoryId: number;
  issueId: number;
  actorId: number;
  type: TimelineEventType;
  content?: string;
  oldRef?: string;
  newRef?: string;
  commitSha?: string;
  reviewId?: number;
  assigneeId?: number;
  assigneeTeamId?: number;
  removedAssignee?: boolean;
}

/** A code comment of a review (Gitea's comment type 21) to store. */
export interface NewReviewComment {
  repositoryId: number;
  issueId: number;
  posterId: number;
  reviewId: number;
  body: string;
  /** The file, and the line (negative: old side). */
  treePath: string;
  line: number;
  /** The diff hunk the comment is about. */
  patch: string;
  /** The commit the comment was made on. */
  commitSha: string;
}

/** A comment that belongs to a review: its code comments (`code`) and its timeline entry (`review`). */
export interface ReviewComment {
  id: number;
  type: 'code' | 'review';
  issueId: number;
  posterId: number;
  reviewId: number;
  body: string;
  treePath: string;
  line: number;
  patch: string;
  commitSha: string;
  oldRef: string;
  createdUnix: number;
  updatedUnix: number;
}

/** What the issue list of `list` selects and how it orders. */
export interface IssueListQuery {
  repositoryId: number;
  isPull?: boolean;
  state?: 'open' | 'closed' | 'all';
  milestoneId?: number;
  /** Issues carrying every one of these labels. */
  labelIds?: number[];
  /** Pinned issues only, in pin order (`sort` is then ignored). */
  pinned?: boolean;
  sort?: 'newest' | 'oldest' | 'recentupdate' | 'leastupdate' | 'mostcomment' | 'leastcomment' | 'priority';
  offset: number;
  limit: number;
}

/** What a notification is about: an issue or pull request, and who takes part in it. */
export interface IssueAudience {
  issueId: number;
  isPull: boolean;
  posterId: number;
  /** Those who commented (comments, code comments, reviews). */
  commenterIds: number[];
  assigneeIds: number[];
  /** Those who subscribed to the issue, and those who unsubscribed from it. */
  subscriberIds: number[];
  unsubscribedIds: number[];
}

/** What a notification thread shows of its issue. */
export interface IssueSubject {
  index: number;
  title: string;
  isClosed: boolean;
  isPull: boolean;
  merged: boolean;
  /** The id of the newest plain comment, 0 when none. */
  latestCommentId: number;
}

/** How the pull requests feature links into issues (registered once, by the plugin that owns pull requests). */
export interface PullRequestLink {
  /** Merge state of the pull requests of issue ids, by issue id (the Issue JSON's `pull_request`). */
  meta(issueIds: readonly number[]): Promise<Map<number, { merged: boolean; mergedUnix: number }>>;
  /** Reviews of the issue whose comments `viewer` may not see in the timeline (others' pending reviews). */
  hiddenReviewIds(issueId: number, viewer: Principal | null): Promise<number[]>;
  /** The issue ids the issue search's `review_requested` (requests to the user or their teams) or `reviewed` filter keeps. */
  reviewFilter(kind: 'review_requested' | 'reviewed', userId: number): Promise<number[]>;
  /** Inside the deletion transaction of pull request issues: delete the pull requests' own rows. */
  removing(issueIds: readonly number[], trx: Knex.Transaction): Promise<void>;
}

/** The issues service; errors are ApiErrors. */
export interface IssuesService {
  byId(id: number): Promise<Issue | null>;
  byIds(ids: readonly number[]): Promise<Map<number, Issue>>;
  byIndex(repositoryId: number, index: number): Promise<Issue | null>;
  /** A page of a repository's issues (or pull requests) and how many there are. */
  list(query: IssueListQuery): Promise<{ issues: Issue[]; total: number }>;
  /** Gitea's `Issue` JSON of issues of `repository` as `viewer` sees them, in order. */
  toApi(repository: RepositoryInfo, issues: readonly Issue[], viewer: Principal | null): Promise<Record<string, unknown>[]>;

  /**
   * Labels an API request names (ids, or names) for an issue of `repository`: its own and its
   * organization's; 422 for others. In request order.
   */
  resolveLabels(repository: RepositoryInfo, refs: ReadonlyArray<number | string>): Promise<number[]>;
  /** 422 unless `milestoneId` is a milestone of the repository. */
  assertMilestone(repositoryId: number, milestoneId: number): Promise<void>;
  /** User ids of a request's `assignee`/`assignees`; each must have write access to the unit (422). */
  resolveAssignees(
    repository: RepositoryTarget,
    isPull: boolean,
    assignee: string | undefined,
    assignees: string[] | undefined,
  ): Promise<number[]>;

  /**
   * Create an issue: number, `issue.mutate` (kind `create`) once, the row, labels, timeline,
   * assignees, references and mentions, in one transaction; `within` runs last inside it.
   * Returns the issue and the events to emit once the caller's rows are written too.
   */
  create(
    input: NewIssue,
    actor: UserInfo,
    viewer: Principal | null,
    within?: (trx: Knex.Transaction, issue: Issue) => Promise<void>,
  ): Promise<{ issue: Issue; notices: IssueNotice[] }>;
  /**
   * Edit an issue under its repository's pin lock: `issue.mutate` (kind `edit`) once, then the row
   * and the timeline; `within` runs last inside the transaction, with the issue as it was before.
   * `extraChanges` join the `edited` notice's changes (a pull request's base).
   */
  edit(
    issueId: number,
    changes: IssueChanges,
    options: {
      actor: UserInfo;
      viewer: Principal | null;
      extraChanges?: Record<string, unknown>;
      within?: (trx: Knex.Transaction, before: Issue) => Promise<void>;
    },
  ): Promise<{ issue: Issue; notices: IssueNotice[] }>;
  /** Run `issue.mutate` once for a change of `kind` inside `trx` (a veto throws); returns the changes the taps left. */
  mutate(
    trx: Knex.Transaction,
    issueId: number,
    kind: string,
    changes: Record<string, unknown>,
    actor: UserInfo | null,
  ): Promise<Record<string, unknown>>;
  /** Close the issue of a merged pull request at `closedUnix` (its `issue.mutate` ran in the merge's claim), with a merge_pull event. */
  closeMerged(issueId: number, actor: UserInfo, commitSha: string, closedUnix: number): Promise<Issue>;
  /** Mark the issue updated now (in `trx` when given). */
  touch(issueId: number, trx?: Knex.Transaction): Promise<number>;
  /** Record one timeline event (in `trx` when given); returns its id. */
  recordEvent(event: TimelineEvent, trx?: Knex.Transaction): Promise<number>;

  /** Store a code comment of a review (in `trx` when given); returns its id. */
  addReviewComment(comment: NewReviewComment, trx?: Knex.Transaction): Promise<number>;
  /** The comments of reviews (their code comments and timeline entries), oldest first. */
  reviewComments(reviewIds: readonly number[]): Promise<ReviewComment[]>;
  /** Delete comments with their reactions (in `trx` when given); their attachments are the caller's. */
  removeComments(commentIds: readonly number[], trx?: Knex.Transaction): Promise<void>;

  /** Gitea's `Comment` JSON of comments of any repository, by comment id (for feeds). */
  commentsToApi(commentIds: readonly number[], viewer: Principal | null): Promise<Map<number, Record<string, unknown>>>;
  /** Who a notification about issue `index` of a repository goes to; null when there is no such issue. */
  audience(repositoryId: number, index: number): Promise<IssueAudience | null>;
  /** What notification threads show of issues, by issue id. */
  subjects(issueIds: readonly number[]): Promise<Map<number, IssueSubject>>;
  /** The individual users a text mentions with `@name`. */
  mentionedUserIds(text: string): Promise<number[]>;

  /** Link the pull requests feature (once). */
  linkPullRequests(link: PullRequestLink): void;
}

/** The reference to the issues service: `requires: [issuesRef]` or `optional: [issuesRef]`, then `ctx.services.get(issuesRef)`. */
export const issuesRef = createServiceRef<IssuesService>('issues.issues');
