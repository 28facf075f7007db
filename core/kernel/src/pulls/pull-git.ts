import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitError, gitText, runGit } from '../repos/git';
import type { Person } from '../repos/links';

/** The result of merging two commits without a work tree (git merge-tree --write-tree). */
export interface TestMerge {
  /** The merged tree (with conflict markers when `conflicts` is not empty). */
  tree: string;
  conflicts: string[];
}

const identityEnv = (author: Person, committer: Person, when?: { authorDate?: string }): NodeJS.ProcessEnv => ({
  GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email,
  ...(when?.authorDate ? { GIT_AUTHOR_DATE: when.authorDate } : {}),
});

/** The best common ancestor of two commits, '' when they share no history. */
export async function mergeBase(gitDir: string, a: string, b: string): Promise<string> {
  const res = await runGit(['merge-base', '--end-of-options', a, b], { gitDir, okCodes: [1] });
  return res.code === 0 ? res.stdout.toString('utf8').trim() : '';
}

/** Whether `ancestor` is an ancestor of (or equal to) `of`. */
export async function isAncestor(gitDir: string, ancestor: string, of: string): Promise<boolean> {
  const res = await runGit(['merge-base', '--is-ancestor', ancestor, of], { gitDir, okCodes: [1] });
  return res.code === 0;
}

/** Merge `theirs` into `ours` in the object store only; exit 1 of merge-tree means conflicts. */
export async function mergeTrees(gitDir: string, ours: string, theirs: string): Promise<TestMerge> {
  const res = await runGit(['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', '--allow-unrelated-histories', ours, theirs], { gitDir, okCodes: [1] });
  const parts = res.stdout.toString('utf8').split('\0');
  const tree = parts[0].trim();
  const conflicts = res.code === 1 ? [...new Set(parts.slice(1).filter((p) => p.length > 0))] : [];
  return { tree, conflicts };
}

/** Write a commit object; returns its id. */
export async function commitTree(gitDir: string, tree: string, parents: string[], message: string, author: Person, committer: Person, authorDate?: string): Promise<string> {
  const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])];
  return gitText(args, { gitDir, input: message, env: identityEnv(author, committer, { authorDate }) });
}

/** Point a ref at a commit (server-side refs such as refs/pull/N/head; no push is recorded). */
export async function setRef(gitDir: string, ref: string, sha: string): Promise<void> {
  await runGit(['update-ref', '--', ref, sha], { gitDir });
}

export async function deleteRef(gitDir: string, ref: string): Promise<void> {
  await runGit(['update-ref', '-d', '--', ref], { gitDir, okCodes: [1] });
}

/** Copy the commits of `ref` of another repository into `gitDir` as `target` (forced). */
export async function fetchInto(gitDir: string, fromGitDir: string, ref: string, target: string): Promise<void> {
  await runGit(['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', fromGitDir, `+${ref}:${target}`], { gitDir });
}

/** Commits of base..head, oldest first (first-parent not forced: every commit reachable from head only). */
export async function commitsBetween(gitDir: string, base: string, head: string): Promise<string[]> {
  const out = await gitText(['rev-list', '--reverse', `${base}..${head}`], { gitDir });
  return out ? out.split('\n') : [];
}

/**
 * Rebase the commits of `head` that are not in `onto` on top of `onto`, in a temporary shared
 * clone (git 2.39's merge-tree cannot replay single commits); the result's objects are fetched
 * back into `gitDir` under `tempRef` and the new tip returned. null when the rebase conflicts.
 */
export async function rebaseOnto(gitDir: string, onto: string, head: string, committer: Person, tempRef: string): Promise<string | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-rebase-'));
  const work = path.join(dir, 'w');
  const env = { GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email, GIT_AUTHOR_NAME: committer.name, GIT_AUTHOR_EMAIL: committer.email };
  try {
    await runGit(['clone', '--quiet', '--shared', '--no-checkout', gitDir, work]);
    const inWork = (args: string[], okCodes: number[] = []) => runGit(['-C', work, ...args], { env, okCodes });
    await inWork(['checkout', '--quiet', '-B', 'hearth-rebase', head]);
    const res = await inWork(['-c', 'rebase.autoStash=false', '-c', 'core.hooksPath=/dev/null', 'rebase', '--quiet', '--no-autosquash', onto], [1, 128]);
    if (res.code !== 0) return null;
    const tip = (await gitText(['-C', work, 'rev-parse', 'HEAD'])).trim();
    await runGit(['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', work, `+refs/heads/hearth-rebase:${tempRef}`], { gitDir });
    return tip;
  } catch (err) {
    if (err instanceof GitError) return null;
    throw err;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const tempRefName = () => `refs/hearth-tmp/${crypto.randomBytes(8).toString('hex')}`;

/** A changed file of a diff (Gitea's ChangedFile before URLs). */
export interface DiffFile {
  filename: string;
  previous_filename: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied' | 'changed';
  additions: number;
  deletions: number;
}

/**
 * Every file changed between `base` and `head` (a merge-base..head diff), in git's path order,
 * with line counts (binary files count 0). One `git diff --numstat --raw -z` run.
 */
export async function diffFiles(gitDir: string, base: string, head: string): Promise<DiffFile[]> {
  const out = (await runGit(['diff', '--no-color', '--raw', '--numstat', '-z', '-M', '--no-ext-diff', base, head, '--'], { gitDir })).stdout.toString('utf8');
  const tokens = out.split('\0');
  const files: DiffFile[] = [];
  let i = 0;
  // --raw records first: ":mode mode sha sha STATUS\0path\0[path2\0]"
  while (i < tokens.length && tokens[i].startsWith(':')) {
    const meta = tokens[i].split(' ');
    const code = meta[4]?.[0] ?? 'M';
    if (code === 'R' || code === 'C') {
      files.push({ filename: tokens[i + 2], previous_filename: tokens[i + 1], status: code === 'R' ? 'renamed' : 'copied', additions: 0, deletions: 0 });
      i += 3;
    } else {
      const status = code === 'A' ? 'added' : code === 'D' ? 'deleted' : code === 'M' ? 'modified' : 'changed';
      files.push({ filename: tokens[i + 1], previous_filename: '', status, additions: 0, deletions: 0 });
      i += 2;
    }
  }
  // then --numstat records in the same order: "add\tdel\tpath\0" or "add\tdel\t\0old\0new\0" for renames
  let n = 0;
  while (i < tokens.length && n < files.length) {
    const t = tokens[i];
    if (t === '') { i++; continue; }
    const [add, del, p] = t.split('\t');
    files[n].additions = add === '-' ? 0 : Number(add);
    files[n].deletions = del === '-' ? 0 : Number(del);
    i += p === '' ? 3 : 1;
    n++;
  }
  return files;
}
