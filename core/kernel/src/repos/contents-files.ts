import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GO_ZERO_TIME } from '../users/models';
import { ApiError, decodeBase64, type UserInfo } from '@hearth/plugin-api';
import type { UserRow } from '../users/models';
import { ZERO_ID } from './git';
import {
  casUpdateRef,
  entriesOf,
  git,
  hasNoBranches,
  lookupPaths,
  withLock,
  writeBlob,
  type PathInfo,
  type TreeEntry,
} from './contents-git';
import { branchCommit } from './revisions';
import { describe, type ContentsResponse } from './contents-read';
import { safeIdent, userIdentity, type Person, type RepoLinks } from './links';
import { assertValidRefName, assertValidTreePath } from './names';
import type { RepoService, ResolvedRepo } from './repo-service';

/** One operation of Gitea's ChangeFilesOptions. */
export interface FileOperation {
  operation: 'create' | 'update' | 'delete';
  path: string;
  /** Base64; absent means empty (as Gitea). */
  content?: string;
  sha?: string;
  from_path?: string;
}

export interface IdentityOption {
  name?: string;
  email?: string;
}

/** Gitea's ChangeFilesOptions: the one input of every file-changing call. */
export interface ChangeFilesInput {
  files: FileOperation[];
  branch?: string;
  new_branch?: string;
  message?: string;
  author?: IdentityOption;
  committer?: IdentityOption;
  dates?: { author?: string; committer?: string };
  signoff?: boolean;
}

export interface FileCommitResponse {
  url: string;
  sha: string;
  created: string;
  html_url: string;
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
  parents: Array<{ url: string; sha: string; created: string }>;
  message: string;
  tree: { url: string; sha: string; created: string };
}

export interface FilesResponse {
  files: Array<ContentsResponse | null>;
  commit: FileCommitResponse;
  verification: { verified: boolean; reason: string; signature: string; signer: null; payload: string };
}

export interface ChangeFilesDeps {
  repos: RepoService;
  urls: RepoLinks;
  maxBlobSize: number;
  noReplyAddress: string;
}

/**
 * A client-supplied path inside the repository: relative (a leading '/' is refused, not
 * stripped), no '.', '..' or empty segments, no control characters, and no segment that any
 * clone could take for `.git` (case-insensitively, as Gitea, plus git's NTFS/HFS rules).
 */
export function clientTreePath(raw: string): string {
  if (raw.startsWith('/')) throw ApiError.unprocessable(`invalid file path [path: ${raw}]`);
  return assertValidTreePath(raw);
}

/** (The plugin API's, shared with the wiki.) */
export { decodeBase64 };

/** Gitea's default commit message: `Add 'a', Update 'b', Delete 'c'` by kind, one line each. */
export function defaultMessage(files: Array<{ operation: string; path: string }>): string {
  const names = (op: string) =>
    files
      .filter((f) => f.operation === op)
      .map((f) => f.path)
      .join(', ');
  const lines = [];
  if (names('create')) lines.push(`Add '${names('create')}'`);
  if (names('update')) lines.push(`Update '${names('update')}'`);
  if (names('delete')) lines.push(`Delete '${names('delete')}'`);
  return lines.join('\n');
}

/**
 * Gitea's GetAuthorAndCommitterUsers: an identity counts when it has an email; one given serves
 * for both; none means the caller (with their full name, and their no-reply address when they keep
 * their email private).
 */
function people(
  input: ChangeFilesInput,
  doer: UserInfo,
  doerRow: UserRow | undefined,
  noReply: string,
): { author: Person; committer: Person } {
  const self = userIdentity(doer, doerRow, noReply);
  const doerEmail = self.email;
  const pick = (id: IdentityOption | undefined): Person | null => {
    if (!id?.email?.trim()) return null;
    const email = id.email.trim();
    if (email.toLowerCase() === doer.email.toLowerCase()) return { name: id.name?.trim() || self.name, email: doerEmail };
    return { name: id.name?.trim() || email.split('@')[0], email };
  };
  const committerGiven = pick(input.committer);
  const author = pick(input.author) ?? committerGiven ?? self;
  const committer = committerGiven ?? author;
  const clean = (p: Person): Person => ({ name: safeIdent(p.name) || safeIdent(p.email) || `user-${doer.id}`, email: safeIdent(p.email) });
  return { author: clean(author), committer: clean(committer) };
}

/** A JSON date-time as git's `@<epoch> <±hhmm>`, keeping its zone; Go's zero time (and anything before 1970) means "now". */
function gitDate(value: string | undefined, now: Date): { git: string; iso: string } {
  const date = value ? new Date(value) : now;
  const usable = !Number.isNaN(date.getTime()) && date.getTime() >= 0 ? date : now;
  const zone = value && usable !== now ? /([+-])(\d\d):?(\d\d)$/.exec(value) : null;
  const offset = zone ? `${zone[1]}${zone[2]}${zone[3]}` : '+0000';
  return {
    git: `@${Math.floor(usable.getTime() / 1000)} ${offset}`,
    iso: new Date(Math.floor(usable.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

interface PlannedOp {
  op: FileOperation;
  /** Where the file ends up (create/update) or goes away (delete). */
  path: string;
  /** The path removed: delete's path, or the old path of a rename. */
  removes?: string;
  content?: Buffer;
  blob?: string;
}

/**
 * Create, update, rename and delete files in ONE commit, without a work tree: blobs by
 * `hash-object`, a temporary index seeded from the parent's tree, `write-tree`, `commit-tree`,
 * then a compare-and-swap move of the branch and `recordPush`. Writers of one repository take turns
 * in this process; anything else that moved the branch meanwhile turns into a 409.
 */
export async function changeFiles(
  deps: ChangeFilesDeps,
  resolved: ResolvedRepo,
  doer: UserInfo,
  doerRow: UserRow | undefined,
  input: ChangeFilesInput,
): Promise<FilesResponse> {
  const { gitDir } = resolved;
  if (!Array.isArray(input.files) || input.files.length === 0)
    throw ApiError.unprocessable('files: at least one file operation is required');

  // 1. Validate everything the client sent before anything is written.
  const oldBranch = input.branch?.trim() || resolved.repo.default_branch;
  assertValidRefName(oldBranch, 'branch');
  const newBranch = input.new_branch?.trim() || oldBranch;
  assertValidRefName(newBranch, 'branch');
  const plan: PlannedOp[] = input.files.map((op) => {
    const target = clientTreePath(op.path ?? '');
    const from = op.operation === 'update' && op.from_path ? clientTreePath(op.from_path) : undefined;
    if (op.operation === 'delete') return { op, path: target, removes: target };
    if (op.operation === 'update' && !op.sha)
      throw ApiError.unprocessable(`a SHA or commit ID must be provided when updating a file [path: ${from ?? target}]`);
    const content = decodeBase64(op.content, target);
    return { op, path: target, removes: from && from !== target ? from : undefined, content };
  });
  for (const p of plan)
    if (p.op.operation === 'delete' && !p.op.sha)
      throw ApiError.unprocessable(`a SHA or commit ID must be provided when deleting a file [path: ${p.path}]`);
  const written = plan.filter((p) => p.op.operation !== 'delete');
  const removed = plan.filter((p) => p.removes).map((p) => p.removes!);
  const seen = new Set<string>();
  for (const p of [...written.map((w) => w.path), ...removed]) {
    if (seen.has(p)) throw ApiError.unprocessable(`a file operation names the same path twice [path: ${p}]`);
    seen.add(p);
  }
  const now = new Date();
  const { author, committer } = people(input, doer, doerRow, deps.noReplyAddress);
  const authorDate = gitDate(input.dates?.author, now);
  const committerDate = gitDate(input.dates?.committer, now);
  let message = (input.message?.trim() || defaultMessage(plan.map((p) => ({ operation: p.op.operation, path: p.path })))) + '\n';
  if (input.signoff) message += `\nSigned-off-by: ${committer.name} <${committer.email}>\n`;

  // 2. Blobs are content-addressed: writing them before taking the lock is harmless and keeps the lock short.
  for (const p of written) p.blob = await writeBlob(gitDir, p.content!);

  // 3. Under the repository's lock: check against the branch as it is now, commit, move the branch.
  const result = await withLock(gitDir, async () => {
    // An empty repository has no branch to start from: its first commit creates one.
    const parent = await branchCommit(gitDir, oldBranch);
    if (!parent && !(await hasNoBranches(gitDir))) throw ApiError.notFound(`branch does not exist [name: ${oldBranch}]`);
    if (newBranch !== oldBranch && (await branchCommit(gitDir, newBranch)))
      throw ApiError.unprocessable(`branch already exists [name: ${newBranch}]`);
    const prefixes = (p: string) =>
      p
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    const info = await lookupPaths(gitDir, parent, [...written.flatMap((w) => [w.path, ...prefixes(w.path)]), ...removed]);
    const removedSet = new Set(removed);
    const writtenSet = new Set(written.map((w) => w.path));
    const modes = new Map<string, string>();
    // Modes of the files replaced or removed (an update keeps an executable bit or a symlink); none is a directory of another.
    const sources = [...new Set([...removed, ...written.filter((w) => w.op.operation === 'update').map((w) => w.removes ?? w.path)])];
    const existingSources = sources.filter((s) => info.get(s) && info.get(s)!.type !== 'tree');
    if (parent && existingSources.length) for (const e of await entriesOf(gitDir, parent, existingSources)) modes.set(e.path, e.mode);

    for (const p of plan) checkOperation(p, info, removedSet, writtenSet, prefixes);

    // 4. The new tree, in a temporary index.
    const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'hearth-index-'));
    const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
    let tree: string;
    try {
      if (parent) await git(gitDir, ['read-tree', '--end-of-options', parent], { env });
      const lines: string[] = [];
      for (const r of removed) lines.push(`0 ${ZERO_ID}\t${r}\0`);
      for (const w of written) {
        const oldMode = modes.get(w.removes ?? w.path);
        const mode = w.op.operation === 'update' && (oldMode === '100755' || oldMode === '120000') ? oldMode : '100644';
        lines.push(`${mode} ${w.blob}\t${w.path}\0`);
      }
      await git(gitDir, ['update-index', '-z', '--index-info'], { env, input: lines.join('') });
      tree = (await git(gitDir, ['write-tree'], { env })).stdout.toString('utf8').trim();
    } finally {
      await fs.promises.rm(tmp, { recursive: true, force: true });
    }

    const commit = (
      await git(gitDir, ['commit-tree', '--no-gpg-sign', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], {
        input: message,
        env: {
          GIT_AUTHOR_NAME: author.name,
          GIT_AUTHOR_EMAIL: author.email,
          GIT_AUTHOR_DATE: authorDate.git,
          GIT_COMMITTER_NAME: committer.name,
          GIT_COMMITTER_EMAIL: committer.email,
          GIT_COMMITTER_DATE: committerDate.git,
        },
      })
    ).stdout
      .toString('utf8')
      .trim();
    const ref = `refs/heads/${newBranch}`;
    const oldId = newBranch === oldBranch && parent ? parent : ZERO_ID;
    await casUpdateRef(gitDir, ref, commit, oldId, `hearth: ${message.split('\n')[0]}`);
    await deps.repos.recordPush(resolved.repo, [{ ref, oldId, newId: commit }], doer);
    return { commit, tree, parent };
  });

  // 5. The answer, read from the new commit (outside the lock: the commit does not change).
  const { commit, tree, parent } = result;
  const view = { urls: deps.urls, ref: { commit, refType: 'branch' as const, name: newBranch }, origRef: newBranch };
  const paths = written.map((w) => w.path);
  const entries = new Map<string, TreeEntry>();
  for (const e of paths.length ? await entriesOf(gitDir, commit, paths) : []) entries.set(e.path, e);
  const known = new Map(written.map((w) => [w.path, w.content!]));
  const described = await describe(
    gitDir,
    view,
    [...entries.values()],
    deps.maxBlobSize,
    true,
    new Map(paths.map((p) => [p, commit])),
    known,
  );
  const byPath = new Map(described.map((d) => [d.path, d]));
  const { urls } = deps;
  const stamp = (p: Person, d: { iso: string }) => ({ name: p.name, email: p.email, date: d.iso });
  return {
    files: plan.map((p) => (p.op.operation === 'delete' ? null : (byPath.get(p.path) ?? null))),
    commit: {
      url: `${urls.api}/git/commits/${commit}`,
      sha: commit,
      created: committerDate.iso,
      html_url: `${urls.html}/commit/${commit}`,
      author: stamp(author, authorDate),
      committer: stamp(committer, committerDate),
      parents: parent ? [{ url: `${urls.api}/git/commits/${parent}`, sha: parent, created: GO_ZERO_TIME }] : [],
      message,
      tree: { url: `${urls.api}/git/trees/${tree}`, sha: tree, created: GO_ZERO_TIME },
    },
    verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
  };
}

/** The rules of one operation against the parent commit, with Gitea's messages. */
function checkOperation(
  p: PlannedOp,
  info: Map<string, PathInfo>,
  removed: Set<string>,
  written: Set<string>,
  prefixes: (p: string) => string[],
): void {
  const { op } = p;
  if (p.removes) {
    const source = info.get(p.removes);
    if (!source) throw ApiError.notFound(`file does not exist [path: ${p.removes}]`);
    if (source.type === 'tree') throw ApiError.unprocessable(`the path is a directory, not a file [path: ${p.removes}]`);
    if (op.sha?.toLowerCase() !== source.sha)
      throw ApiError.unprocessable(`sha does not match [given: ${op.sha}, expected: ${source.sha}]`);
  }
  if (op.operation === 'delete') return;
  for (const dir of prefixes(p.path)) {
    const at = info.get(dir);
    if ((at && at.type !== 'tree' && !removed.has(dir)) || written.has(dir)) {
      throw ApiError.unprocessable(`a file exists where you're trying to create a subdirectory [path: ${dir}]`);
    }
  }
  const existing = info.get(p.path);
  if (existing?.type === 'tree') throw ApiError.unprocessable(`a directory exists where you're trying to create a file [path: ${p.path}]`);
  if (op.operation === 'create' || p.removes) {
    if (existing && !removed.has(p.path)) throw ApiError.unprocessable(`repository file already exists [path: ${p.path}]`);
    return;
  }
  // update in place
  if (!existing) throw ApiError.notFound(`file does not exist [path: ${p.path}]`);
  if (existing.type === 'commit') throw ApiError.unprocessable(`the path is a submodule, not a file [path: ${p.path}]`);
  if (op.sha?.toLowerCase() !== existing.sha)
    throw ApiError.unprocessable(`sha does not match [given: ${op.sha}, expected: ${existing.sha}]`);
}
