import type { PushEvent, PushedCommit, RefUpdate } from '@hearth/plugin-api';
import { ZERO_ID, gitText } from './git';

/** Commits read per pushed ref: enough for closing keywords (Gitea reads a bounded number too). */
export const PUSHED_COMMITS_READ = 200;

const reads = new WeakMap<PushEvent, Map<string, Promise<{ commits: PushedCommit[]; total: number }>>>();

/**
 * The commits one ref update of a push brought, newest first (at most PUSHED_COMMITS_READ), and
 * how many there are. Read with one `git log` per ref and shared by every `push.received` tap
 * that asks for the same event (activity rows, closing keywords), so a push pays for it once.
 * A new branch counts only what was read, as Gitea does (its whole history would be costly).
 */
export function pushedCommits(event: PushEvent, update: RefUpdate, gitDir: string): Promise<{ commits: PushedCommit[]; total: number }> {
  let byRef = reads.get(event);
  if (!byRef) reads.set(event, (byRef = new Map()));
  const key = `${update.ref}\0${update.oldId}\0${update.newId}`;
  let read = byRef.get(key);
  if (!read) byRef.set(key, (read = readCommits(update, gitDir)));
  return read;
}

async function readCommits(update: RefUpdate, gitDir: string): Promise<{ commits: PushedCommit[]; total: number }> {
  if (update.newId === ZERO_ID) return { commits: [], total: 0 };
  const range = update.oldId === ZERO_ID ? [update.newId] : [`${update.oldId}..${update.newId}`];
  const log = await gitText(['log', `--max-count=${PUSHED_COMMITS_READ}`, '--format=%H%x00%an%x00%ae%x00%cI%x00%B%x1e', ...range, '--'], {
    gitDir,
  });
  const commits = log
    .split('\x1e')
    .map((entry) => entry.replace(/^\n/, ''))
    .filter((entry) => entry.trim())
    .map((entry) => {
      const [sha, authorName, authorEmail, timestamp, message] = entry.split('\x00');
      return { sha: sha.trim(), authorName, authorEmail, timestamp, message: (message ?? '').trimEnd() };
    });
  let total = commits.length;
  if (commits.length === PUSHED_COMMITS_READ && update.oldId !== ZERO_ID) {
    total = Number(await gitText(['rev-list', '--count', '--use-bitmap-index', ...range], { gitDir }));
  }
  return { commits, total };
}
