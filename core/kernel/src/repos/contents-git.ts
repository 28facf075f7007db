import { ApiError } from '@hearth/plugin-api';
import { GitError, ZERO_ID, runGit, spawnGit, type GitOptions, type GitResult } from './git';
import { isObjectId, isValidRefName } from './names';

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

export type RefType = 'branch' | 'tag' | 'commit';

export interface ResolvedRef {
  /** The full commit id. */
  commit: string;
  refType: RefType;
  /** The branch or tag name, or the full commit id for a commit (as Gitea puts it in URLs). */
  name: string;
}

/**
 * A branch, tag or commit id (full or at least 4 hex digits), in Gitea's order: branch first,
 * then tag, then commit. `refs/heads/x` and `refs/tags/x` are accepted too. Anything that is
 * neither a valid ref name nor an object id never reaches git. Null when nothing matches.
 */
export async function resolveRef(gitDir: string, ref: string): Promise<ResolvedRef | null> {
  const candidates: Array<{ expr: string; refType: RefType; name: string }> = [];
  if (ref.startsWith('refs/heads/') && isValidRefName(ref)) candidates.push({ expr: ref, refType: 'branch', name: ref.slice(11) });
  else if (ref.startsWith('refs/tags/') && isValidRefName(ref)) candidates.push({ expr: ref, refType: 'tag', name: ref.slice(10) });
  else if (isValidRefName(ref)) {
    candidates.push({ expr: `refs/heads/${ref}`, refType: 'branch', name: ref });
    candidates.push({ expr: `refs/tags/${ref}`, refType: 'tag', name: ref });
  }
  if (isObjectId(ref)) candidates.push({ expr: ref.toLowerCase(), refType: 'commit', name: '' });
  if (candidates.length === 0) return null;
  const ids = await peelCommits(gitDir, candidates.map((c) => c.expr));
  for (let i = 0; i < candidates.length; i++) {
    const id = ids[i];
    if (id) return { commit: id, refType: candidates[i].refType, name: candidates[i].refType === 'commit' ? id : candidates[i].name };
  }
  return null;
}

/** The current commit of a branch, or null. */
export async function branchCommit(gitDir: string, branch: string): Promise<string | null> {
  if (!isValidRefName(branch)) return null;
  return (await peelCommits(gitDir, [`refs/heads/${branch}`]))[0];
}

/** Commit ids of validated revision expressions (one cat-file process), null where none. */
async function peelCommits(gitDir: string, exprs: string[]): Promise<Array<string | null>> {
  const input = exprs.map((e) => `${e}^{commit}\n`).join('');
  const out = (await git(gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input })).stdout.toString('utf8');
  return out.split('\n').slice(0, exprs.length).map((line) => {
    const [id, type] = line.split(' ');
    return type === 'commit' && /^[0-9a-f]{40,64}$/.test(id) ? id : null;
  });
}

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
    entries.push({ mode, type: type as ObjectType, sha, size: size === '-' ? 0 : Number(size), path, name: path.slice(path.lastIndexOf('/') + 1) });
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
  const args = dir ? ['ls-tree', '-z', '--long', '--full-tree', commit, '--', `${dir}/`] : ['ls-tree', '-z', '--long', '--full-tree', commit];
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
  const out = (await git(gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], { input })).stdout.toString('utf8');
  const lines = out.split('\n');
  unique.forEach((p, i) => {
    const [sha, type, size] = (lines[i] ?? '').split(' ');
    if (type === 'blob' || type === 'tree' || type === 'commit') found.set(p, { type, sha, size: Number(size) || 0 });
  });
  // A submodule entry is a gitlink: cat-file cannot see it (the commit is not in this repository).
  const unresolved = unique.filter((p) => !found.has(p));
  if (unresolved.length) for (const e of await entriesOf(gitDir, commit, unresolved)) if (e.type === 'commit') found.set(e.path, { type: 'commit', sha: e.sha, size: 0 });
  return found;
}

/**
 * Entries of exact paths none of which is a directory of another (`ls-tree` descends into a
 * directory that prefixes another argument), in chunks that keep the command line short.
 */
export async function entriesOf(gitDir: string, commit: string, paths: string[]): Promise<TreeEntry[]> {
  const wanted = new Set(paths);
  const entries: TreeEntry[] = [];
  for (let i = 0; i < paths.length; ) {
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

const locks = new Map<string, Promise<void>>();

/**
 * Run `fn` after every earlier `fn` for the same key finished (in-process writers of one
 * repository take turns, so concurrent API commits apply in order rather than racing to the
 * compare-and-swap; pushes and other processes are still caught by it).
 */
export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  locks.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(key) === tail) locks.delete(key);
  }
}
