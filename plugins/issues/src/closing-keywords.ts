import { withConflictRetry, ZERO_ID, principalOf, type PushEvent, type PushedCommit, type RepositoryTarget } from '@hearth/plugin-api';
import type { IssueDeps } from './issue-context';
import { toIssue } from './issue-store';
import { changeStateMutating, findReferences, REF_ACTION, withPinLock } from './issue-actions';
import type { IssueEvents } from './issue-events';
import { COMMENT_TYPE, recordIssueEvent } from './timeline';

/** At most this many new commits of one push are read for references. */

/**
 * Commits pushed to a repository's default branch that reference issues (`#N`, `owner/repo#N`)
 * leave a commit_ref event on them; with a keyword (`closes`, `fixes`, `resolves` and their forms;
 * `reopens`) they close or reopen the issue as the pusher, when the pusher may write the issues of
 * its repository. The `issues` event then carries the commit id. Pull requests are not closed this way.
 */
export function tapClosingKeywords(deps: IssueDeps, events: IssueEvents): void {
  const { db, hooks } = deps;
  hooks.push.received.tapPromise('issues', async (ev: PushEvent) => {
    const repo = await deps.repositories.byId(ev.repositoryId);
    if (!repo || !ev.actor) return;
    const branch = `refs/heads/${repo.defaultBranch}`;
    const actor = ev.actor;
    const principal = principalOf(actor);
    for (const u of ev.updates) {
      if (u.ref !== branch || u.newId === ZERO_ID) continue;
      // Oldest first, so a later "reopens" wins over an earlier "closes".
      const { commits } = await deps.repositories.pushedCommits(ev, u).catch(() => ({ commits: [] as PushedCommit[] }));
      for (const { sha, message } of [...commits].reverse()) {
        for (const ref of findReferences(message ?? '')) {
          let r: RepositoryTarget;
          try {
            const owner = ref.owner ?? repo.ownerName;
            const name = ref.repo ?? repo.name;
            r = await deps.access.repository(owner, name, principal, 'read', 'issues');
          } catch {
            continue;
          }
          const row = await db('issue').where({ repo_id: r.id, index: ref.index }).first();
          if (!row) continue;
          const issue = toIssue(row);
          if (await db('comment').where({ issue_id: issue.id, type: COMMENT_TYPE.commit_ref, commit_sha: sha }).first('id')) continue;
          await recordIssueEvent(db, {
            repoId: issue.repo_id,
            issueId: issue.id,
            actorId: actor.id,
            type: 'commit_ref',
            content: (message ?? '').trim(),
            commit_sha: sha,
            ref_repo_id: repo.id,
            ref_action: ref.action,
          });
          if (ref.action === REF_ACTION.none || issue.is_pull) continue;
          const level = await deps.access.unitLevel(r, principal, 'issues');
          if (level !== 'write' && level !== 'admin') continue;
          const close = ref.action === REF_ACTION.closes;
          let changed = false;
          try {
            changed = await withConflictRetry(() =>
              withPinLock(db, issue, (trx, fresh) => changeStateMutating(hooks, trx, fresh, close, actor, sha)),
            );
          } catch (err) {
            // Open dependencies (412) or a veto of an issue.mutate tap: the issue keeps its state,
            // and the push (already done) does not fail.
            const status = (err as { status?: number }).status;
            if (status === 412) continue;
            if (typeof status === 'number' && status >= 400 && status < 500) {
              deps.log.info(
                { issueId: issue.id, commit: sha, status, err: (err as Error).message },
                'closing keyword refused by issue.mutate',
              );
              continue;
            }
            throw err;
          }
          if (changed) await events.issue('issues', r, issue.id, close ? 'closed' : 'reopened', actor, { commitId: sha });
        }
      }
    }
  });
}
