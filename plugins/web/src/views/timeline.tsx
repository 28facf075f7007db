/**
 * The conversation of an issue or a pull request: its opening post, comments and events, and the
 * comment form. Shared by the issue page and the pull request page.
 * (Owned by the issues pages; the pull request page only imports it.)
 */
import type { ComponentChildren } from 'preact';
import { Avatar, LabelChip, Rendered, repoHref, UserLink, When } from './common';
import { Csrf, signInHref, type PageKit } from './layout';

/** Gitea's Label JSON (colour without `#`). */
export interface LabelJson {
  id: number;
  name: string;
  color: string;
  description?: string;
  exclusive?: boolean;
}

/** Gitea's Milestone JSON, the fields pages use. */
export interface MilestoneJson {
  id: number;
  title: string;
  state?: 'open' | 'closed';
  description?: string;
  open_issues?: number;
  closed_issues?: number;
  due_on?: string | null;
}

/** Gitea's Issue JSON (also a pull request's issue part), the fields pages use. */
export interface IssueJson {
  id: number;
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  user: { login: string; avatar_url: string };
  labels: LabelJson[];
  milestone: { id: number; title: string } | null;
  assignees: Array<{ login: string; avatar_url: string }> | null;
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pull_request?: { merged: boolean; merged_at: string | null } | null;
  locked?: boolean;
  html_url?: string;
  repository?: { id: number; name: string; owner: string; full_name: string };
}

/** Gitea's TimelineComment JSON (`GET /repos/{owner}/{repo}/issues/{index}/timeline`). */
export interface TimelineEventJson {
  id: number;
  type: string;
  body: string;
  user: { login: string; avatar_url: string } | null;
  created_at: string;
  [field: string]: unknown;
}

/** Gitea's Reaction JSON. */
export interface ReactionJson {
  user: { login: string } | null;
  content: string;
  created_at?: string;
}

export interface TimelineProps {
  kit: PageKit;
  /** `owner/repo`. */
  repoFullName: string;
  issue: IssueJson;
  events: TimelineEventJson[];
  /** HTML of markdown text, rendered by the forge's renderer with the repository as context. */
  renderMarkdown(text: string): string;
  /** The viewer may comment (signed in, not locked or a writer). */
  canComment: boolean;
  /** The viewer may close/reopen. */
  canChangeState: boolean;
  /**
   * Where the comment form posts (the issue's or the pull request's URL + `/comments`). The form
   * sends `content` (markdown) and, from the close/reopen button, `status` = `close` | `reopen`.
   * `/{owner}/{repo}/issues/{index}/comments` serves pull requests too (it redirects back to `/pulls/{index}`).
   */
  commentAction: string;
  /** Reactions by comment id (0: the opening post). Absent: no reactions are shown. */
  reactions?: Map<number, ReactionJson[]>;
  /** The reactions the site allows (`GET /settings/ui`'s `allowed_reactions`). */
  allowedReactions?: string[];
  /**
   * Where reaction forms post, e.g. `/{owner}/{repo}/issues/{index}/reactions` (+ `/react` or
   * `/unreact`, fields `content` and `comment_id`). Absent: reactions are shown but not toggled.
   */
  reactionAction?: string;
  /** Renders an event type the pull request page knows better (reviews, code comments); undefined falls back. */
  renderEvent?(event: TimelineEventJson): ComponentChildren | undefined;
  /** What the timeline calls its subject in events ("this issue", "this pull request"). Default from `issue.pull_request`. */
  noun?: string;
  /** Shown after the last event and before the comment form (the pull request page's merge box, as Gitea places it). */
  beforeForm?: ComponentChildren;
}

const EMOJI: Record<string, string> = {
  '+1': '👍',
  '-1': '👎',
  laugh: '😄',
  hooray: '🎉',
  confused: '😕',
  heart: '❤️',
  rocket: '🚀',
  eyes: '👀',
};

/** Reactions under a post: one toggle button per reaction given, and the others to add (forms: no script needed). */
export function Reactions(props: { kit: PageKit; commentId: number; reactions: ReactionJson[]; allowed: string[]; action?: string }) {
  const { kit, commentId, reactions, allowed, action } = props;
  const me = kit.viewer.user?.name;
  const groups = new Map<string, string[]>();
  for (const r of reactions) groups.set(r.content, [...(groups.get(r.content) ?? []), r.user?.login ?? 'Ghost']);
  const canReact = Boolean(action && me);
  const toggle = (content: string, mine: boolean, children: ComponentChildren, label: string) => (
    <form method="post" action={`${action}/${mine ? 'unreact' : 'react'}`} class="inline">
      <Csrf kit={kit} />
      <input type="hidden" name="content" value={content} />
      <input type="hidden" name="comment_id" value={String(commentId)} />
      <button type="submit" class="reaction" aria-pressed={mine ? 'true' : 'false'} aria-label={label}>
        {children}
      </button>
    </form>
  );
  if (groups.size === 0 && !canReact) return null;
  return (
    <div class="reactions">
      {[...groups].map(([content, who]) => {
        const mine = Boolean(me && who.includes(me));
        const face = (
          <>
            <span aria-hidden="true">{EMOJI[content] ?? content}</span> {who.length}
          </>
        );
        const label = `${content}: ${who.join(', ')}${canReact ? (mine ? ' (remove yours)' : ' (add yours)') : ''}`;
        return canReact ? (
          toggle(content, mine, face, label)
        ) : (
          <span class="reaction" title={who.join(', ')} aria-label={label}>
            {face}
          </span>
        );
      })}
      {canReact && allowed.some((c) => !groups.has(c)) && (
        <details class="react-menu">
          <summary>Add reaction</summary>
          {allowed
            .filter((c) => !groups.has(c))
            .map((c) => toggle(c, false, <span aria-hidden="true">{EMOJI[c] ?? c}</span>, `React with ${c}`))}
        </details>
      )}
    </div>
  );
}

/** One post of the conversation: the opening post or a comment, its markdown body and reactions. */
function Post(props: TimelineProps & { id: string; commentId: number; user: IssueJson['user'] | null; at: string; body: string }) {
  const { kit, id, commentId, user, at, body } = props;
  return (
    <li class="post" id={id}>
      <article class="box">
        <header>
          <Avatar url={user?.avatar_url} name={user?.login ?? ''} /> <UserLink user={user} /> commented <When at={at} />
          {user && user.login === props.issue.user.login && commentId !== 0 && <span class="badge">Author</span>}
        </header>
        <div class="body">
          {body.trim() ? <Rendered html={props.renderMarkdown(body)} /> : <p class="empty">No description provided.</p>}
          {props.reactions && commentId >= 0 && (
            <Reactions
              kit={kit}
              commentId={commentId}
              reactions={props.reactions.get(commentId) ?? []}
              allowed={props.allowedReactions ?? []}
              action={props.reactionAction}
            />
          )}
        </div>
      </article>
    </li>
  );
}

/** A link to an issue or pull request another event names (`ref_issue`, `dependent_issue`). */
function IssueRef({ issue, repoFullName }: { issue: IssueJson | null | undefined; repoFullName: string }) {
  if (!issue) return <span>an issue</span>;
  const full = issue.repository?.full_name ?? repoFullName;
  const kind = issue.pull_request ? 'pulls' : 'issues';
  return (
    <a href={`${repoHref(full)}/${kind}/${issue.number}`}>
      {issue.title} {full === repoFullName ? '' : full}#{issue.number}
    </a>
  );
}

const milestoneTitle = (m: unknown) => (m && typeof m === 'object' ? String((m as MilestoneJson).title) : '');
const sha7 = (sha: unknown) => String(sha ?? '').slice(0, 10);
const commitAnchor = (repoFullName: string, sha: unknown) => (
  <a href={`${repoHref(repoFullName)}/commit/${encodeURIComponent(String(sha))}`}>{sha7(sha)}</a>
);

/** What an event (anything but a comment) says, after its actor's name. */
function eventText(e: TimelineEventJson, props: TimelineProps, noun: string): ComponentChildren {
  const ref = () => <IssueRef issue={e.ref_issue as IssueJson | null} repoFullName={props.repoFullName} />;
  const refAction = e.ref_action === 'closes' ? ' (merging it will close this)' : e.ref_action === 'reopens' ? ' (will reopen this)' : '';
  const assignee = e.assignee as { login: string } | null;
  const commitLink = (sha: unknown) => commitAnchor(props.repoFullName, sha);
  switch (e.type) {
    case 'reopen':
      return <>reopened {noun}</>;
    case 'close':
      return e.ref_commit_sha ? (
        <>
          closed {noun} in commit {commitLink(e.ref_commit_sha)}
        </>
      ) : (
        <>closed {noun}</>
      );
    case 'issue_ref':
      return (
        <>
          referenced {noun} from {ref()}
          {refAction}
        </>
      );
    case 'pull_ref':
      return (
        <>
          referenced {noun} from pull request {ref()}
          {refAction}
        </>
      );
    case 'comment_ref':
      return (
        <>
          referenced {noun} in a comment on {ref()}
          {refAction}
        </>
      );
    case 'commit_ref':
      return (
        <>
          referenced {noun} in commit {commitLink(e.ref_commit_sha)}
          {e.body && <span class="muted"> “{e.body.split('\n')[0]}”</span>}
        </>
      );
    case 'milestone': {
      const now = milestoneTitle(e.milestone);
      const before = milestoneTitle(e.old_milestone);
      if (now && before)
        return (
          <>
            modified the milestone from <strong>{before}</strong> to <strong>{now}</strong>
          </>
        );
      if (now)
        return (
          <>
            added this to the <strong>{now}</strong> milestone
          </>
        );
      return before ? (
        <>
          removed this from the <strong>{before}</strong> milestone
        </>
      ) : (
        <>removed this from a milestone</>
      );
    }
    case 'assignees':
      if (assignee && e.user && assignee.login === e.user.login)
        return e.removed_assignee ? <>removed their assignment</> : <>self-assigned {noun}</>;
      return e.removed_assignee ? (
        <>
          unassigned <UserLink user={assignee} />
        </>
      ) : (
        <>
          assigned <UserLink user={assignee} />
        </>
      );
    case 'change_title':
      return (
        <>
          changed the title from <del>{String(e.old_title)}</del> to <ins>{String(e.new_title)}</ins>
        </>
      );
    default:
      return moreEventText(e, props, noun);
  }
}

/** Branch, due date, dependency, lock, pin and pull request events. */
function moreEventText(e: TimelineEventJson, props: TimelineProps, noun: string): ComponentChildren {
  const assignee = e.assignee as { login: string } | null;
  switch (e.type) {
    case 'delete_branch':
      return (
        <>
          deleted branch <code>{String(e.old_ref)}</code>
        </>
      );
    case 'added_deadline':
      return <>added a due date of {e.body}</>;
    case 'modified_deadline': {
      const [now, before] = e.body.split('|');
      return (
        <>
          modified the due date from {before} to {now}
        </>
      );
    }
    case 'removed_deadline':
      return <>removed the due date {e.body}</>;
    case 'add_dependency':
      return (
        <>
          added a new dependency <IssueRef issue={e.dependent_issue as IssueJson | null} repoFullName={props.repoFullName} />
        </>
      );
    case 'remove_dependency':
      return (
        <>
          removed a dependency <IssueRef issue={e.dependent_issue as IssueJson | null} repoFullName={props.repoFullName} />
        </>
      );
    case 'lock':
      return e.body ? (
        <>
          locked as <em>{e.body}</em> and limited conversation to collaborators
        </>
      ) : (
        <>locked and limited conversation to collaborators</>
      );
    case 'unlock':
      return <>unlocked this conversation</>;
    case 'pin':
      return <>pinned {noun}</>;
    case 'unpin':
      return <>unpinned {noun}</>;
    case 'change_target_branch':
      return (
        <>
          changed the target branch from <code>{String(e.old_ref)}</code> to <code>{String(e.new_ref)}</code>
        </>
      );
    case 'change_issue_ref':
      return (
        <>
          changed the reference from <code>{String(e.old_ref) || 'none'}</code> to <code>{String(e.new_ref) || 'none'}</code>
        </>
      );
    case 'review_request':
      return e.removed_assignee ? (
        <>
          removed the review request for <UserLink user={assignee} />
        </>
      ) : (
        <>
          requested a review from <UserLink user={assignee} />
        </>
      );
    case 'merge_pull':
      return <>merged commit {commitAnchor(props.repoFullName, e.ref_commit_sha)}</>;
    case 'pull_push':
      return pushText(e.body);
    case 'dismiss_review':
      return e.body ? <>dismissed a review: {e.body}</> : <>dismissed a review</>;
    default:
      return <>{e.type.replace(/_/g, ' ')}</>;
  }
}

function pushText(body: string): ComponentChildren {
  let parsed: { is_force_push?: boolean; commit_ids?: string[] } = {};
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    // an unreadable body says nothing more than "pushed"
  }
  if (parsed.is_force_push) return <>force-pushed</>;
  const n = parsed.commit_ids?.length ?? 0;
  return n ? (
    <>
      added {n} commit{n === 1 ? '' : 's'}
    </>
  ) : (
    <>pushed</>
  );
}

/** Consecutive label events of one person within a minute read as one line, as Gitea shows them. */
function LabelEvents({ events, repoFullName }: { events: TimelineEventJson[]; repoFullName: string }) {
  const chip = (e: TimelineEventJson) => {
    const label = e.label as LabelJson | null;
    return label ? <LabelChip label={label} href={`${repoHref(repoFullName)}/issues?labels=${label.id}`} /> : <span>a deleted label</span>;
  };
  const added = events.filter((e) => e.body === '1');
  const removed = events.filter((e) => e.body !== '1');
  const list = (items: TimelineEventJson[]) =>
    items.map((e, i) => (
      <>
        {i > 0 && ' '}
        {chip(e)}
      </>
    ));
  const n = events.length;
  return (
    <>
      {added.length > 0 && <>added {list(added)}</>}
      {added.length > 0 && removed.length > 0 && ' and '}
      {removed.length > 0 && <>removed {list(removed)}</>} label{n === 1 ? '' : 's'}
    </>
  );
}

/** Events in order, label changes grouped. */
function groupEvents(events: TimelineEventJson[]): TimelineEventJson[][] {
  const out: TimelineEventJson[][] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    const prev = last?.[last.length - 1];
    const near = prev && Math.abs(Date.parse(prev.created_at) - Date.parse(e.created_at)) <= 60_000;
    if (e.type === 'label' && prev?.type === 'label' && prev.user?.login === e.user?.login && near) last.push(e);
    else out.push([e]);
  }
  return out;
}

function EventLine({ group, props, noun }: { group: TimelineEventJson[]; props: TimelineProps; noun: string }) {
  const e = group[0];
  return (
    <li class={`event event-${e.type}`} id={`issuecomment-${e.id}`}>
      <Avatar url={e.user?.avatar_url} name={e.user?.login ?? ''} size={20} /> <UserLink user={e.user} />{' '}
      {e.type === 'label' ? <LabelEvents events={group} repoFullName={props.repoFullName} /> : eventText(e, props, noun)}{' '}
      <When at={e.created_at} />
    </li>
  );
}

/** Comment-like events (reviews, code comments) with a body: a box, so their text stays readable. */
const POSTS = new Set(['comment', 'review', 'code']);

export function Timeline(props: TimelineProps) {
  const { issue } = props;
  const noun = props.noun ?? (issue.pull_request ? 'this pull request' : 'this issue');
  return (
    <section class="conversation" aria-label="Conversation">
      <ol class="timeline">
        <Post {...props} id={`issue-${issue.number}`} commentId={0} user={issue.user} at={issue.created_at} body={issue.body ?? ''} />
        {groupEvents(props.events).map((group) => {
          const e = group[0];
          const custom = props.renderEvent?.(e);
          if (custom !== undefined) return custom;
          if (e.type === 'comment' || (POSTS.has(e.type) && e.body?.trim())) {
            return (
              <Post
                {...props}
                id={`issuecomment-${e.id}`}
                commentId={e.type === 'comment' ? e.id : -1}
                user={e.user}
                at={e.created_at}
                body={e.body ?? ''}
              />
            );
          }
          if (POSTS.has(e.type)) {
            return (
              <li class="event" id={`issuecomment-${e.id}`}>
                <UserLink user={e.user} /> {e.type === 'review' ? 'reviewed' : 'commented on the code'} <When at={e.created_at} />
              </li>
            );
          }
          return <EventLine group={group} props={props} noun={noun} />;
        })}
      </ol>
      {props.beforeForm}
      <CommentForm {...props} />
    </section>
  );
}

/** The comment form: markdown with a preview, "Comment", and "Close"/"Reopen" (with comment) for those who may. */
export function CommentForm(props: TimelineProps) {
  const { kit, issue, canComment, canChangeState, commentAction, repoFullName } = props;
  if (!kit.viewer.user) {
    return (
      <p class="join">
        <a href={signInHref(kit.path)}>Sign in</a> to join this conversation.
      </p>
    );
  }
  if (!canComment && !canChangeState) {
    return (
      <p class="join muted">
        {issue.locked ? 'This conversation is locked: only collaborators can comment.' : 'Comments are closed here.'}
      </p>
    );
  }
  const closed = issue.state === 'closed';
  const verb = closed ? 'Reopen' : 'Close';
  return (
    <form method="post" action={commentAction} class="stacked comment-form">
      <Csrf kit={kit} />
      <h2 class="visually-hidden">Add a comment</h2>
      {canComment && (
        <>
          <label for="comment-content">Comment</label>
          <textarea id="comment-content" name="content" placeholder="Leave a comment (Markdown)" />
          <div id="comment-preview" class="markdown preview" hidden aria-live="polite" />
        </>
      )}
      <div class="actions">
        {canComment && (
          <button type="button" data-preview="comment-content" data-target="comment-preview" data-context={repoFullName} hidden>
            Preview
          </button>
        )}
        {canChangeState && (
          <button
            type="submit"
            name="status"
            value={closed ? 'reopen' : 'close'}
            data-state-button={verb}
            data-watch={canComment ? 'comment-content' : undefined}
          >
            {canComment ? `${verb} with comment` : verb}
          </button>
        )}
        {canComment && (
          <button type="submit" class="primary">
            Comment
          </button>
        )}
      </div>
    </form>
  );
}
