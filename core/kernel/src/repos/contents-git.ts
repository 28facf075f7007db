import { ApiError } from '@hearth/plugin-api';
import { GitError, ZERO_ID, runGit, spawnGit, type GitOptions, type GitResult } from './git';
import { KeyedQueue } from '../db/retry';

/**
 * Git plumbing for the contents API: resolving refs, reading tree entries and blobs in batches,
 * last-commit lookups, and the compare-and-swap branch move every in-process commit ends with.
 * Every call sets GIT_LITERAL_PATHSPECS, so a file named `*` or `:(glob)x` is only ever itself.
 */

const LITERAL_ENV = { GIT_LITERAL_PATHSPECS: '1' };

export function git(gitDir: string, args: string[], options: Omit<GitOptions, 'gitDir'> = {}): Promise<GitResult> {
  return runGit(args, { ...options, gitDir, env: { ...LITERAL_ENV, ...options.env } });
}

// --- refs -------------------------------------------------------------------------------------------

/** Whether the repository has no branch at all (an empty repository). */
export async function hasNoBranches(gitDir: string): Promise<boolean> {
  const out = await git(gitDir, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/']);
  return out.stdout.length === 0;
}

// --- trees ------------------------------------------------------------------------------------------

export type ObjectType = 'blob' | 'tree' | 'commit';

export interface TreeEntry {
  mode: string;
  type: ObjectType;
  sha: string;
  /** Blob size; 0 for trees and submodules. */
  size: number;
  /** Full path from the repository root. */
  path: string;
  name: string;
}

/** Parse `ls-tree -z --long` output. */
export function parseLsTree(buf: Buffer, prefix = ''): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of buf.toString('utf8').split('\0')) {
    if (!record) continue;
    const tab = record.indexOf('\t');
    const [mode, type, sha, size] = record.slice(0, tab).split(/ +/);
    const path = prefix + record.slice(tab + 1);
    entries.push({
      mode,
      type: type as ObjectType,
      sha,
      size: size === '-' ? 0 : Number(size),
      path,
      name: path.slice(path.lastIndexOf('/') + 1),
    });
  }
  return entries;
}

/** The entry at `path` (a validated tree path) of a commit, or null. */
export async function entryAt(gitDir: string, commit: string, path: string): Promise<TreeEntry | null> {
  const out = await git(gitDir, ['ls-tree', '-z', '--long', '--full-tree', commit, '--', path]);
  return parseLsTree(out.stdout).find((e) => e.path === path) ?? null;
}

/** The entries of a directory (`''` for the root) in tree order. */
export async function listTree(gitDir: string, commit: string, dir: string): Promise<TreeEntry[]> {
  const args = dir
    ? ['ls-tree', '-z', '--long', '--full-tree', commit, '--', `${dir}/`]
    : ['ls-tree', '-z', '--long', '--full-tree', commit];
  return parseLsTree((await git(gitDir, args)).stdout);
}

export interface PathInfo {
  type: ObjectType;
  sha: string;
  size: number;
}

/**
 * What each path is in a commit (blob, tree, submodule commit) or undefined when missing — one
 * cat-file process for any number of paths, read from stdin (no argument-length limit).
 */
export async function lookupPaths(gitDir: string, commit: string | null, paths: string[]): Promise<Map<string, PathInfo>> {
  const found = new Map<string, PathInfo>();
  if (!commit || paths.length === 0) return found;
  const unique = [...new Set(paths)];
  const input = unique.map((p) => `${commit}:${p}\n`).join('');
  const out = (await git(gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], { input })).stdout.toString(
    'utf8',
  );
  const lines = out.split('\n');
  unique.forEach((p, i) => {
    const [sha, type, size] = (lines[i] ?? '').split(' ');
    if (type === 'blob' || type === 'tree' || type === 'commit') found.set(p, { type, sha, size: Number(size) || 0 });
  });
  // A submodule entry is a gitlink: cat-file cannot see it (the commit is not in this repository).
  const unresolved = unique.filter((p) => !found.has(p));
  if (unresolved.length)
    for (const e of await entriesOf(gitDir, commit, unresolved))
      if (e.type === 'commit') found.set(e.path, { type: 'commit', sha: e.sha, size: 0 });
  return found;
}

/**
 * Entries of exact paths none of which is a directory of another (`ls-tree` descends into a
 * directory that prefixes another argument), in chunks that keep the command line short.
 */
export async function entriesOf(gitDir: string, commit: string, paths: string[]): Promise<TreeEntry[]> {
  const wanted = new Set(paths);
  const entries: TreeEntry[] = [];
  for (let i = 0; i < paths.length;) {
    const chunk: string[] = [];
    let length = 0;
    while (i < paths.length && (chunk.length === 0 || length + paths[i].length < 64 * 1024)) {
      length += paths[i].length + 1;
      chunk.push(paths[i++]);
    }
    const out = await git(gitDir, ['ls-tree', '-z', '--long', '--full-tree', commit, '--', ...chunk]);
    entries.push(...parseLsTree(out.stdout).filter((e) => wanted.has(e.path)));
  }
  return entries;
}

// --- blobs ------------------------------------------------------------------------------------------

/**
 * Contents of blobs (ids or `commit:path` expressions) by one `cat-file --batch`; missing ones
 * and other objects (a directory named like the file asked for) are absent from the map. Only
 * for bounded sizes: the caller checks sizes first.
 */
export async function readBlobs(gitDir: string, exprs: string[]): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  const unique = [...new Set(exprs)];
  if (unique.length === 0) return result;
  const out = (await git(gitDir, ['cat-file', '--batch'], { input: unique.map((e) => `${e}\n`).join('') })).stdout;
  let pos = 0;
  for (const expr of unique) {
    const eol = out.indexOf(10, pos);
    if (eol < 0) break;
    const header = out.subarray(pos, eol).toString('utf8').split(' ');
    pos = eol + 1;
    if (header[1] === 'missing' || header[1] === 'ambiguous' || header.length < 3) continue;
    const size = Number(header[2]);
    if (header[1] === 'blob') result.set(expr, out.subarray(pos, pos + size));
    pos += size + 1;
  }
  return result;
}

/** Write a blob, returning its id. */
export async function writeBlob(gitDir: string, content: Buffer): Promise<string> {
  return (await git(gitDir, ['hash-object', '-w', '--stdin'], { input: content })).stdout.toString('utf8').trim();
}

// --- history ----------------------------------------------------------------------------------------

/** The last commit reachable from `commit` that changed `path` (Gitea's last_commit_sha). */
export async function lastCommitOf(gitDir: string, commit: string, path: string): Promise<string> {
  const args = ['log', '-1', '--format=%H', commit];
  return (await git(gitDir, path ? [...args, '--', path] : args)).stdout.toString('utf8').trim();
}

/**
 * Last commits of the entries `names` of directory `dir`, found by ONE history walk limited to
 * the directory that stops as soon as every entry is seen. Entries the walk cannot attribute
 * (changed only by a merge resolution) fall back to a per-entry lookup.
 */
export async function lastCommitsIn(gitDir: string, commit: string, dir: string, names: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const pending = new Set(names);
  if (pending.size === 0) return found;
  const prefix = dir ? `${dir}/` : '';
  const args = ['log', '--format=%x01%H', '--name-only', '-z', '--no-renames', commit, ...(dir ? ['--', dir] : [])];
  await new Promise<void>((resolve, reject) => {
    const child = spawnGit(args, { gitDir, env: LITERAL_ENV }, ['ignore', 'pipe', 'ignore']);
    let current = '';
    let rest = '';
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        resolve();
      }
    };
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      if (done) return;
      const tokens = (rest + chunk).split('\0');
      rest = tokens.pop() ?? '';
      for (let token of tokens) {
        if (token.startsWith('\n')) token = token.slice(1);
        if (token.startsWith('\x01')) {
          current = token.slice(1).trim();
          continue;
        }
        if (!token.startsWith(prefix)) continue;
        const rel = token.slice(prefix.length);
        const slash = rel.indexOf('/');
        const name = slash < 0 ? rel : rel.slice(0, slash);
        if (pending.delete(name)) found.set(name, current);
      }
      if (pending.size === 0) {
        child.kill();
        finish();
      }
    });
    child.once('error', (err) => (done ? undefined : ((done = true), reject(err))));
    child.once('close', finish);
  });
  for (const name of pending) found.set(name, await lastCommitOf(gitDir, commit, prefix + name));
  return found;
}

// --- writing ----------------------------------------------------------------------------------------

/**
 * Move a branch with compare-and-swap: `oldId` must still be its value (ZERO_ID: it must not
 * exist yet). A push or another writer that got there first turns into a 409 asking to retry;
 * their commit is never overwritten.
 */
export async function casUpdateRef(gitDir: string, ref: string, newId: string, oldId: string, reason: string): Promise<void> {
  try {
    await git(gitDir, ['update-ref', '-m', reason, ref, newId, oldId]);
  } catch (err) {
    if (err instanceof GitError) {
      throw ApiError.conflict(
        oldId === ZERO_ID
          ? `branch ${ref.replace(/^refs\/heads\//, '')} was created by someone else meanwhile; please retry`
          : `branch ${ref.replace(/^refs\/heads\//, '')} was updated by someone else meanwhile; nothing was changed, please retry`,
      );
    }
    throw err;
  }
}

const writers = new KeyedQueue();

/**
 * Run `fn` after every earlier `fn` for the same key finished (in-process writers of one
 * repository take turns, so concurrent API commits apply in order rather than racing to the
 * compare-and-swap; pushes and other processes are still caught by it).
 */
export function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return writers.run(key, fn);
}
