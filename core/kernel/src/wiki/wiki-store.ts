import fs from 'node:fs';
import path from 'node:path';
import { ApiError, type KernelHooks } from '@hearth/plugin-api';
import { cloneBareRepository } from '../repos/repo-service';
import { ZERO_ID, runGit } from '../repos/git';
import { casUpdateRef, git, lastCommitsIn, listTree, readBlobs, withLock, writeBlob, type TreeEntry } from '../repos/contents-git';
import { writeHooks } from '../repos/server-hooks';
import { titleOfFile } from './wiki-names';

/**
 * The wiki's git repository: a bare repository beside the code, `<name>.wiki.git` (Gitea's
 * layout), created by the first page written. Pages are `.md` blobs in its root tree on the branch
 * HEAD names. Every change is one commit made without a work tree (`mktree` over the root tree, then
 * `commit-tree` and a compare-and-swap `update-ref`, under the wiki's lock — the same plumbing as
 * the contents API's changeFiles in repos/contents-files.ts).
 */

/** Where the wiki of a repository lives: `…/<name>.git` → `…/<name>.wiki.git`. */
export function wikiDirOf(repoGitDir: string): string {
  return repoGitDir.replace(/\.git[\\/]*$/i, '') + '.wiki.git';
}

/** Delete a repository's wiki (call after the repository's own directory is removed). */
export function removeWiki(repoGitDir: string): void {
  fs.rmSync(wikiDirOf(repoGitDir), { recursive: true, force: true });
}

/** Move a repository's wiki along with it (rename, transfer); nothing to do when it has none. */
export function moveWiki(fromGitDir: string, toGitDir: string): void {
  const from = wikiDirOf(fromGitDir);
  const to = wikiDirOf(toGitDir);
  if (from === to || !fs.existsSync(from)) return;
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.renameSync(from, to);
}

/**
 * The wiki's part of the repository lifecycle (one tap per hook, as `hearth:wiki`): a fork copies
 * its source's wiki, a deleted repository's wiki goes once the deletion committed, and the wiki
 * follows its repository on rename and transfer. `gitDirOf` is RepoService.gitDir.
 */
export function tapRepositoryLifecycle(hooks: KernelHooks, gitDirOf: (ownerName: string, repoName: string) => string): void {
  hooks.repository.created.tapPromise('hearth:wiki', async ({ plan, ownerName, name }) => {
    if (!plan.cloneFrom || !fs.existsSync(wikiDirOf(plan.cloneFrom))) return;
    await cloneBareRepository(wikiDirOf(plan.cloneFrom), wikiDirOf(gitDirOf(ownerName, name)));
  });
  hooks.repository.deleting.tapPromise('hearth:wiki', async ({ ownerName, name, afterCommit }) => {
    const gitDir = gitDirOf(ownerName, name);
    afterCommit(() => removeWiki(gitDir));
  });
  hooks.repository.renamed.tapPromise('hearth:wiki', async ({ ownerName, oldName, name }) => {
    moveWiki(gitDirOf(ownerName, oldName), gitDirOf(ownerName, name));
  });
  hooks.repository.transferred.tapPromise('hearth:wiki', async ({ oldOwnerName, ownerName, name }) => {
    moveWiki(gitDirOf(oldOwnerName, name), gitDirOf(ownerName, name));
  });
}

import type { Person } from '../repos/links';
export type { Person };

export interface WikiCommitInfo {
  sha: string;
  author: Person & { date: string };
  committer: Person & { date: string };
  message: string;
}

/**
 * The wiki's branch and its commit (null when the wiki has no commit yet): the branch HEAD names;
 * when that does not exist but others do (a wiki pushed from Gitea 1.20, whose wikis always use
 * `master`, into one created with another default), `master`, else the first branch.
 */
export async function wikiHead(wikiDir: string): Promise<{ branch: string; commit: string | null }> {
  const head = (await runGit(['symbolic-ref', '--short', '-q', 'HEAD'], { gitDir: wikiDir, okCodes: [1] })).stdout.toString('utf8').trim() || 'master';
  const out = await git(wikiDir, ['for-each-ref', '--format=%(objectname) %(refname:short)', 'refs/heads/']);
  const branches = new Map(out.stdout.toString('utf8').split('\n').filter(Boolean).map((l) => [l.slice(l.indexOf(' ') + 1), l.slice(0, l.indexOf(' '))] as const));
  const branch = branches.has(head) ? head : branches.has('master') ? 'master' : [...branches.keys()][0] ?? head;
  return { branch, commit: branches.get(branch) ?? null };
}

/** The wiki's current commit; 404 when the repository has no wiki yet (as Gitea). */
export async function requireWikiCommit(wikiDir: string): Promise<string> {
  if (!fs.existsSync(wikiDir)) throw ApiError.notFound('the wiki of this repository does not exist yet');
  const { commit } = await wikiHead(wikiDir);
  if (!commit) throw ApiError.notFound('the wiki of this repository does not exist yet');
  return commit;
}

/** Page files of the root tree (regular `.md` blobs with a decodable name), in tree order. */
export async function pageEntries(wikiDir: string, commit: string): Promise<Array<TreeEntry & { title: string }>> {
  const pages: Array<TreeEntry & { title: string }> = [];
  for (const e of await listTree(wikiDir, commit, '')) {
    if (e.type !== 'blob' || (e.mode !== '100644' && e.mode !== '100755')) continue;
    const title = titleOfFile(e.name);
    if (title !== null) pages.push({ ...e, title });
  }
  return pages;
}

/** The blob of a root-tree file, or null. */
export async function pageBlob(wikiDir: string, commit: string, file: string): Promise<TreeEntry | null> {
  const entries = await listTree(wikiDir, commit, '');
  return entries.find((e) => e.name === file && e.type === 'blob') ?? null;
}

export async function blobContent(wikiDir: string, sha: string): Promise<Buffer> {
  return (await readBlobs(wikiDir, [sha])).get(sha) ?? Buffer.alloc(0);
}

export { lastCommitsIn };

const SEP = '\x1f';

/** Author, committer and message of commits, in the order asked. */
export async function commitInfos(wikiDir: string, shas: string[]): Promise<Map<string, WikiCommitInfo>> {
  const found = new Map<string, WikiCommitInfo>();
  const unique = [...new Set(shas)];
  if (unique.length === 0) return found;
  const format = ['%H', '%an', '%ae', '%at', '%cn', '%ce', '%ct', '%B'].join(SEP) + '\x1e';
  const out = await git(wikiDir, ['log', '--no-walk=unsorted', `--format=${format}`, '--end-of-options', ...unique]);
  for (const record of out.stdout.toString('utf8').split('\x1e')) {
    const fields = record.replace(/^\n/, '').split(SEP);
    if (fields.length < 8) continue;
    const [sha, an, ae, at, cn, ce, ct, ...message] = fields;
    found.set(sha, { sha, author: { name: an, email: ae, date: isoOf(at) }, committer: { name: cn, email: ce, date: isoOf(ct) }, message: message.join(SEP) });
  }
  return found;
}

function isoOf(epoch: string): string {
  return new Date(Number(epoch) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The commits that changed a file, newest first, one page of them, and how many there are. */
export async function fileHistory(wikiDir: string, commit: string, file: string, offset: number, limit: number): Promise<{ shas: string[]; count: number }> {
  const count = Number((await git(wikiDir, ['rev-list', '--count', commit, '--', file])).stdout.toString('utf8').trim()) || 0;
  const out = await git(wikiDir, ['rev-list', `--skip=${offset}`, `--max-count=${limit}`, commit, '--', file]);
  return { shas: out.stdout.toString('utf8').split('\n').filter(Boolean), count };
}

/** One wiki commit: what it says, who makes it, and what it does to the root tree. */
export interface WikiChange {
  message: string;
  author: Person;
  /**
   * Given the root tree as it is under the lock (file name → entry), refuse the change with an
   * ApiError (the page must or must not exist…) or say which files go away and which are (re)written.
   */
  plan(files: Map<string, TreeEntry>): Promise<{ remove: string[]; write: Array<{ file: string; content: Buffer }> }>;
}

/**
 * Create the bare wiki repository unless it exists (the first page written, or the first push to
 * `<name>.wiki.git`). `initBare` in repos/repo-service.ts is its twin (private there).
 */
export function ensureWiki(wikiDir: string, defaultBranch: string): Promise<void> {
  return withLock(wikiDir, () => initWiki(wikiDir, defaultBranch));
}

/** (Under the wiki's lock.) */
async function initWiki(wikiDir: string, defaultBranch: string): Promise<void> {
  if (fs.existsSync(path.join(wikiDir, 'HEAD'))) return;
  fs.mkdirSync(path.dirname(wikiDir), { recursive: true });
  // --template= leaves out git's sample hooks; ours follow (the same pre-receive and post-receive as the code).
  await runGit(['init', '--bare', '--quiet', '--template=', `--initial-branch=${defaultBranch}`, '--end-of-options', wikiDir]);
  writeHooks(wikiDir);
}

/**
 * Apply one change as ONE commit on the wiki's branch (creating the wiki first when needed):
 * blobs by `hash-object`, the new root tree by `mktree` (sub-trees a push added are kept as they
 * are), `commit-tree` by the acting user (author and committer), then a compare-and-swap move of
 * the branch — a push that got there first is a 409, never overwritten.
 */
export async function commitChange(wikiDir: string, defaultBranch: string, change: WikiChange): Promise<string> {
  return withLock(wikiDir, async () => {
    await initWiki(wikiDir, defaultBranch);
    const { branch, commit: parent } = await wikiHead(wikiDir);
    const entries = parent ? await listTree(wikiDir, parent, '') : [];
    const files = new Map(entries.map((e) => [e.name, e]));
    const { remove, write } = await change.plan(files);
    for (const file of remove) files.delete(file);
    for (const w of write) {
      const sha = await writeBlob(wikiDir, w.content);
      const old = files.get(w.file);
      files.set(w.file, { mode: old?.mode === '100755' ? '100755' : '100644', type: 'blob', sha, size: w.content.length, path: w.file, name: w.file });
    }
    const input = [...files.values()].map((e) => `${e.mode} ${e.type} ${e.sha}\t${e.name}\0`).join('');
    const tree = (await git(wikiDir, ['mktree', '-z'], { input })).stdout.toString('utf8').trim();
    const { author } = change;
    const commit = (await git(wikiDir, ['commit-tree', '--no-gpg-sign', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], {
      input: change.message.endsWith('\n') ? change.message : `${change.message}\n`,
      env: { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: author.name, GIT_COMMITTER_EMAIL: author.email },
    })).stdout.toString('utf8').trim();
    await casUpdateRef(wikiDir, `refs/heads/${branch}`, commit, parent ?? ZERO_ID, `hearth: ${change.message.split('\n')[0]}`);
    return commit;
  });
}
