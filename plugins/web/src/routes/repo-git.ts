/**
 * Git reading for the repository pages, through `web.ctx.git` and ONLY on a git directory the
 * viewer was authorised for (`web.ctx.access.repository(…, 'read', 'code')`). The API serves these
 * things one object per call; a page needs a directory, its README and the refs at once, so it
 * reads them here in batches: every tree and blob of a page comes from ONE `git cat-file --batch`
 * process (ObjectReader), the refs from one `for-each-ref`, last commits from one history walk.
 */
import type { GitProcess, GitToolkit } from '@hearth/plugin-api';

/** Files above this are neither highlighted nor blamed (a raw link instead), as the issue asks. */
export const MAX_VIEW_BYTES = 1024 * 1024;
/** Directories (tree objects) larger than this are refused rather than buffered. */
export const MAX_TREE_BYTES = 32 * 1024 * 1024;
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

export interface RefEntry {
  name: string;
  commit: string;
}

export interface RefList {
  branches: RefEntry[];
  tags: RefEntry[];
}

export type RefKind = 'branch' | 'tag' | 'commit';

/** What a page shows: a branch, tag or commit, and the commit it names. */
export interface CodeRef {
  kind: RefKind;
  /** Branch or tag name; the full commit id for a commit. */
  name: string;
  commit: string;
}

/** A path from URL segments, or null when a segment could escape or confuse (`..`, `.`, control characters). */
export function cleanPath(segments: readonly string[]): string | null {
  const parts = segments.filter((s) => s !== '');
  if (parts.some((s) => s === '.' || s === '..' || /[\x00-\x1f\x7f]/.test(s) || s.includes('/'))) return null;
  return parts.join('/');
}

/** Branches and tags (peeled to commits), most recently committed first, in one `for-each-ref`. */
export async function listRefs(git: GitToolkit, gitDir: string): Promise<RefList> {
  const format = '%(refname)%00%(objecttype)%00%(objectname)%00%(*objectname)';
  const out = await git.text(gitDir, ['for-each-ref', '--sort=-creatordate', `--format=${format}`, 'refs/heads/', 'refs/tags/']);
  const refs: RefList = { branches: [], tags: [] };
  for (const line of out.split('\n')) {
    const [ref, type, id, peeled] = line.split('\0');
    if (!ref) continue;
    const commit = type === 'tag' ? peeled : id;
    if (ref.startsWith('refs/heads/') && type === 'commit') refs.branches.push({ name: ref.slice(11), commit });
    else if (ref.startsWith('refs/tags/') && commit) refs.tags.push({ name: ref.slice(10), commit });
  }
  return refs;
}

export interface GitObject {
  sha: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  size: number;
  /** The content, cut at the limit the reader was asked for. */
  data: Buffer;
  truncated: boolean;
}

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (blob|tree|commit|tag) (\d+)$/;

/** How much of an object to keep: a number of bytes, or one chosen by the object's type once git names it. */
export type ReadLimit = number | ((type: GitObject['type']) => number);

interface Pending {
  max: ReadLimit;
  resolve(value: GitObject | null): void;
  reject(err: Error): void;
}

/**
 * One `git cat-file --batch` for all the objects a page reads. Requests are answered in order and
 * may depend on earlier answers (the README is asked for once the directory is parsed): git
 * flushes after each object, so the same process serves the whole page. Content beyond a
 * request's limit streams past without being kept, so a huge blob never fills memory.
 */
export class ObjectReader {
  private readonly proc: GitProcess;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private current: {
    header: Omit<GitObject, 'data' | 'truncated'>;
    chunks: Buffer[];
    kept: number;
    wanted: number;
    remaining: number;
  } | null = null;
  private failure: Error | null = null;
  private closed = false;

  constructor(git: GitToolkit, gitDir: string) {
    this.proc = git.spawn(gitDir, ['cat-file', '--batch']);
    this.proc.stdout.on('data', (chunk: Buffer) => this.feed(chunk));
    this.proc.stdin.on('error', () => undefined);
    this.proc.stderr.resume();
    const fail = (err: Error) => {
      this.failure = err;
      for (const p of this.pending.splice(0)) p.reject(err);
    };
    this.proc.exited.then(
      () => fail(new Error('git cat-file ended before answering')),
      (err: Error) => fail(err),
    );
  }

  /** The object an expression names (`sha`, `commit:path`, `commit^{tree}`), or null when missing. */
  read(expr: string, max: ReadLimit = MAX_VIEW_BYTES): Promise<GitObject | null> {
    if (/[\n\r\0]/.test(expr) || this.closed) return Promise.resolve(null);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ max, resolve, reject });
      this.proc.stdin.write(`${expr}\n`);
    });
  }

  /** End the process (call in `finally`): git exits once its input ends. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.proc.stdin.end();
    if (this.pending.length) this.proc.kill();
  }

  private feed(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.buffer.length) {
      if (!this.current) {
        const eol = this.buffer.indexOf(10);
        if (eol < 0) return;
        const line = this.buffer.subarray(0, eol).toString('utf8');
        this.buffer = this.buffer.subarray(eol + 1);
        const m = HEADER.exec(line);
        if (!m) {
          this.pending.shift()?.resolve(null); // `<expr> missing` / `ambiguous`
          continue;
        }
        const header = { sha: m[1], type: m[2] as GitObject['type'], size: Number(m[3]) };
        const limit = this.pending[0]?.max ?? 0;
        const wanted = Math.min(typeof limit === 'number' ? limit : limit(header.type), header.size);
        this.current = { header, chunks: [], kept: 0, wanted, remaining: header.size + 1 };
      }
      const cur = this.current;
      const take = Math.min(cur.remaining, this.buffer.length);
      const part = this.buffer.subarray(0, take);
      this.buffer = this.buffer.subarray(take);
      cur.remaining -= take;
      if (cur.kept < cur.wanted) {
        const keep = part.subarray(0, cur.wanted - cur.kept);
        cur.chunks.push(keep);
        cur.kept += keep.length;
      }
      if (cur.remaining > 0) return;
      this.current = null;
      const data = Buffer.concat(cur.chunks).subarray(0, cur.header.size);
      this.pending.shift()?.resolve({ ...cur.header, data, truncated: data.length < cur.header.size });
    }
  }
}

export interface TreeItem {
  name: string;
  mode: string;
  sha: string;
  kind: 'dir' | 'file' | 'symlink' | 'submodule';
}

/** Entries of a raw tree object, directories first then files, each by name (as the forge lists them). */
export function parseTree(data: Buffer, treeSha: string): TreeItem[] {
  const idBytes = treeSha.length === 64 ? 32 : 20;
  const items: TreeItem[] = [];
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(32, pos);
    const nul = data.indexOf(0, space);
    if (space < 0 || nul < 0) break;
    const mode = data.subarray(pos, space).toString('latin1');
    const name = data.subarray(space + 1, nul).toString('utf8');
    const sha = data.subarray(nul + 1, nul + 1 + idBytes).toString('hex');
    pos = nul + 1 + idBytes;
    const kind = mode === '40000' ? 'dir' : mode === '160000' ? 'submodule' : mode === '120000' ? 'symlink' : 'file';
    items.push({ name, mode, sha, kind });
  }
  const rank = (i: TreeItem) => (i.kind === 'dir' ? 0 : 1);
  return items.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Read a directory's tree object (null when missing or not a tree). */
export async function readTree(reader: ObjectReader, expr: string): Promise<{ sha: string; items: TreeItem[] } | null> {
  const tree = await reader.read(expr, MAX_TREE_BYTES);
  if (!tree || tree.type !== 'tree' || tree.truncated) return null;
  return { sha: tree.sha, items: parseTree(tree.data, tree.sha) };
}

/** The parts of a raw commit object a page shows. */
export interface CommitSummary {
  sha: string;
  /** Author time, seconds since the epoch. */
  when: number;
  author: string;
  subject: string;
}

const README_ORDER = ['readme.md', 'readme.markdown', 'readme', 'readme.txt', 'readme.rst', 'readme.org'];

/** The README of a directory listing, in the forge's order of preference. */
export function readmeOf(items: TreeItem[]): TreeItem | null {
  let best: TreeItem | null = null;
  let bestRank = README_ORDER.length;
  for (const item of items) {
    const rank = README_ORDER.indexOf(item.name.toLowerCase());
    if (item.kind === 'file' && rank >= 0 && rank < bestRank) {
      best = item;
      bestRank = rank;
    }
  }
  return best;
}

const COMMIT_FORMAT = '%H%x02%at%x02%an%x02%s';

function summaryOf(line: string): CommitSummary | null {
  const [sha, when, author, ...subject] = line.split('\x02');
  return sha ? { sha: sha.trim(), when: Number(when), author, subject: subject.join('\x02') } : null;
}

/**
 * The last commits under a path, by ONE `git log` walk limited to it. The process starts at once
 * (its start-up overlaps the page's object reads); `collect` says what to look for once the path is
 * known to be a directory (its entries' names) or a file (null: only its last commit). The walk
 * stops as soon as every entry is seen or `maxCommits` were walked: entries older than that show no
 * commit, so listings stay cheap on long histories.
 */
export class HistoryWalk {
  private readonly proc: GitProcess;
  /**
   * Output read before `collect` listens. Node discards a child's unread output once it exits, and
   * a short history can be walked before the page has read its tree, so the walk listens from the start.
   */
  private early: string[] = [];
  private consumer: ((chunk: string) => void) | null = null;

  constructor(git: GitToolkit, gitDir: string, commit: string, path: string, maxCommits = 2000) {
    const args = ['log', `--format=%x01${COMMIT_FORMAT}`, '--name-only', '-z', '--no-renames', `--max-count=${maxCommits}`, commit];
    this.proc = git.spawn(gitDir, path ? [...args, '--', path] : args, { env: LITERAL });
    this.proc.stdin.end();
    this.proc.stderr.resume();
    this.proc.exited.catch(() => undefined);
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk: string) => (this.consumer ? this.consumer(chunk) : this.early.push(chunk)));
  }

  /** `latest`: the path's own last commit; `byName`: each entry's (for a directory). */
  collect(dir: string, names: string[] | null): Promise<{ latest: CommitSummary | null; byName: Map<string, CommitSummary> }> {
    const byName = new Map<string, CommitSummary>();
    const pending = new Set(names ?? []);
    const prefix = dir ? `${dir}/` : '';
    let latest: CommitSummary | null = null;
    let current: CommitSummary | null = null;
    let rest = '';
    const { proc } = this;
    return new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        resolve({ latest, byName });
      };
      this.consumer = (chunk: string) => {
        if (done) return;
        const tokens = (rest + chunk).split('\0');
        rest = tokens.pop() ?? '';
        for (let token of tokens) {
          if (token.startsWith('\n')) token = token.slice(1);
          if (token.startsWith('\x01')) {
            current = summaryOf(token.slice(1));
            latest ??= current;
            continue;
          }
          if (!current || !token.startsWith(prefix)) continue;
          const rel = token.slice(prefix.length);
          const name = rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : rel;
          if (pending.delete(name)) byName.set(name, current);
        }
        if (latest && pending.size === 0) {
          proc.kill();
          finish();
        }
      };
      for (const chunk of this.early.splice(0)) this.consumer(chunk);
      proc.exited.then(finish, finish);
    });
  }

  /** End the walk (call in `finally`; harmless once it ended). */
  stop(): void {
    this.proc.kill();
  }
}

export interface BlameGroup {
  commit: CommitSummary;
  /** The first line's number in the file (1-based) and the lines' text. */
  start: number;
  lines: string[];
}

/** `git blame --porcelain` of a file, as runs of consecutive lines from the same commit. */
export async function blame(git: GitToolkit, gitDir: string, commit: string, path: string): Promise<BlameGroup[]> {
  const out = (await git.run(gitDir, ['blame', '--porcelain', commit, '--', path], { env: LITERAL })).stdout.toString('utf8');
  const commits = new Map<string, CommitSummary>();
  const groups: BlameGroup[] = [];
  let sha = '';
  let line = 0;
  for (const row of out.split('\n')) {
    const head = /^([0-9a-f]{40}|[0-9a-f]{64}) \d+ (\d+)/.exec(row);
    if (head) {
      sha = head[1];
      line = Number(head[2]);
      if (!commits.has(sha)) commits.set(sha, { sha, when: 0, author: '', subject: '' });
      continue;
    }
    const info = commits.get(sha);
    if (!info) continue;
    if (row.startsWith('\t')) {
      const last = groups[groups.length - 1];
      if (last && last.commit.sha === sha && last.start + last.lines.length === line) last.lines.push(row.slice(1));
      else groups.push({ commit: info, start: line, lines: [row.slice(1)] });
    } else if (row.startsWith('author ')) info.author = row.slice(7);
    else if (row.startsWith('author-time ')) info.when = Number(row.slice(12));
    else if (row.startsWith('summary ')) info.subject = row.slice(8);
  }
  return groups;
}

/**
 * The patch of a commit against its first parent (or the empty tree for a root commit), cut after
 * `maxBytes` at a file boundary. Plumbing only: no external diff drivers or text conversions.
 */
export async function commitDiff(
  git: GitToolkit,
  gitDir: string,
  sha: string,
  parent: string | null,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const base = ['diff-tree', '-p', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--no-commit-id'];
  const proc = git.spawn(gitDir, parent ? [...base, parent, sha] : [...base, '--root', sha]);
  proc.stdin.end();
  proc.stderr.resume();
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  await new Promise<void>((resolve) => {
    proc.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        truncated = true;
        proc.kill();
        resolve();
      }
    });
    proc.exited.then(
      () => resolve(),
      () => resolve(),
    );
  });
  let text = Buffer.concat(chunks).toString('utf8');
  if (truncated) {
    const cut = text.lastIndexOf('\ndiff --git ', maxBytes);
    text = cut > 0 ? text.slice(0, cut + 1) : '';
  }
  return { text, truncated };
}
