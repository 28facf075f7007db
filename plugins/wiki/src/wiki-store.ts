import fs from 'node:fs';
import path from 'node:path';
import { ApiError, ZERO_ID, type GitPerson, type GitToolkit, type GitTreeEntry } from '@hearth/plugin-api';
import { findPageFile, titleOfFile } from './wiki-names';

/**
 * The wiki's git repository: a bare repository beside the code, `<name>.wiki.git` (Gitea's
 * layout), created by the first page written or the first push. Pages are `.md` blobs in its root
 * tree on the branch HEAD names. Every change is one commit made without a work tree (`mktree` over
 * the root tree, then `commit-tree` and a compare-and-swap ref update, under the wiki's lock — the
 * same plumbing as the contents API, through `ctx.git`).
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

/** Whether the wiki's bare repository exists (a first push or page creates it). */
export function wikiExists(wikiDir: string): boolean {
  return fs.existsSync(path.join(wikiDir, 'HEAD'));
}

export interface WikiCommitInfo {
  sha: string;
  author: GitPerson & { date: string };
  committer: GitPerson & { date: string };
  message: string;
}

/** One wiki commit: what it says, who makes it, and what it does to the root tree. */
export interface WikiChange {
  message: string;
  author: GitPerson;
  /**
   * Given the root tree as it is under the lock (file name → entry), refuse the change with an
   * ApiError (the page must or must not exist…) or say which files go away and which are (re)written.
   */
  plan(files: Map<string, GitTreeEntry>): Promise<{ remove: string[]; write: Array<{ file: string; content: Buffer }> }>;
}

/** One page of a file's commits, newest first, and how many there are. */
export interface FileHistory {
  shas: string[];
  count: number;
}

const SEP = '\x1f';
/** Page file names are paths, never patterns (`a*b.md`). */
const LITERAL = { env: { GIT_LITERAL_PATHSPECS: '1' } };

function isoOf(epoch: string): string {
  return new Date(Number(epoch) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The wiki repositories' reads and writes, over the kernel's git toolkit. */
export class WikiStore {
  constructor(private readonly git: GitToolkit) {}

  /**
   * The wiki's branch and its commit (null when the wiki has no commit yet): the branch HEAD names;
   * when that does not exist but others do (a wiki pushed from Gitea 1.20, whose wikis always use
   * `master`, into one created with another default), `master`, else the first branch.
   */
  async head(wikiDir: string): Promise<{ branch: string; commit: string | null }> {
    const head = (await this.git.text(wikiDir, ['symbolic-ref', '--short', '-q', 'HEAD'], { okCodes: [1] })) || 'master';
    const out = await this.git.text(wikiDir, ['for-each-ref', '--format=%(objectname) %(refname:short)', 'refs/heads/']);
    const lines = out.split('\n').filter(Boolean);
    const branches = new Map(lines.map((l) => [l.slice(l.indexOf(' ') + 1), l.slice(0, l.indexOf(' '))] as const));
    const branch = branches.has(head) ? head : branches.has('master') ? 'master' : ([...branches.keys()][0] ?? head);
    return { branch, commit: branches.get(branch) ?? null };
  }

  /** The wiki's current commit; 404 when the repository has no wiki yet (as Gitea). */
  async requireCommit(wikiDir: string): Promise<string> {
    if (!fs.existsSync(wikiDir)) throw ApiError.notFound('the wiki of this repository does not exist yet');
    const { commit } = await this.head(wikiDir);
    if (!commit) throw ApiError.notFound('the wiki of this repository does not exist yet');
    return commit;
  }

  /** Page files of the root tree (regular `.md` blobs with a decodable name), in tree order. */
  async pageEntries(wikiDir: string, commit: string): Promise<Array<GitTreeEntry & { title: string }>> {
    const pages: Array<GitTreeEntry & { title: string }> = [];
    for (const e of await this.git.listTree(wikiDir, commit, '')) {
      if (e.type !== 'blob' || (e.mode !== '100644' && e.mode !== '100755')) continue;
      const title = titleOfFile(e.name);
      if (title !== null) pages.push({ ...e, title });
    }
    return pages;
  }

  /** The page that `titles` name (the first that exists, see findPageFile), or null. */
  async findPage(wikiDir: string, commit: string, titles: readonly string[]): Promise<{ title: string; file: string } | null> {
    const entries = await this.git.listTree(wikiDir, commit, '');
    return findPageFile(
      entries.filter((e) => e.type === 'blob').map((e) => e.name),
      titles,
    );
  }

  /** The blobs of root-tree files (null where missing), from one listing of the tree. */
  async pageBlobs(wikiDir: string, commit: string, files: readonly string[]): Promise<Array<GitTreeEntry | null>> {
    const entries = await this.git.listTree(wikiDir, commit, '');
    return files.map((file) => entries.find((e) => e.name === file && e.type === 'blob') ?? null);
  }

  async blobContent(wikiDir: string, sha: string): Promise<Buffer> {
    return (await this.git.readBlobs(wikiDir, [sha])).get(sha) ?? Buffer.alloc(0);
  }

  lastCommitsIn(wikiDir: string, commit: string, names: string[]): Promise<Map<string, string>> {
    return this.git.lastCommitsIn(wikiDir, commit, '', names);
  }

  /** Author, committer and message of commits, in the order asked. */
  async commitInfos(wikiDir: string, shas: string[]): Promise<Map<string, WikiCommitInfo>> {
    const found = new Map<string, WikiCommitInfo>();
    const unique = [...new Set(shas)];
    if (unique.length === 0) return found;
    const format = ['%H', '%an', '%ae', '%at', '%cn', '%ce', '%ct', '%B'].join(SEP) + '\x1e';
    const out = await this.git.run(wikiDir, ['log', '--no-walk=unsorted', `--format=${format}`, '--end-of-options', ...unique]);
    for (const record of out.stdout.toString('utf8').split('\x1e')) {
      const fields = record.replace(/^\n/, '').split(SEP);
      if (fields.length < 8) continue;
      const [sha, an, ae, at, cn, ce, ct, ...message] = fields;
      found.set(sha, {
        sha,
        author: { name: an, email: ae, date: isoOf(at) },
        committer: { name: cn, email: ce, date: isoOf(ct) },
        message: message.join(SEP),
      });
    }
    return found;
  }

  /** The commits that changed a file, newest first, one page of them, and how many there are. */
  async fileHistory(wikiDir: string, commit: string, file: string, offset: number, limit: number): Promise<FileHistory> {
    const count = Number(await this.git.text(wikiDir, ['rev-list', '--count', commit, '--', file], LITERAL)) || 0;
    const out = await this.git.text(wikiDir, ['rev-list', `--skip=${offset}`, `--max-count=${limit}`, commit, '--', file], LITERAL);
    return { shas: out.split('\n').filter(Boolean), count };
  }

  /** Create the bare wiki repository unless it exists (the first page written, or the first push to `<name>.wiki.git`). */
  ensure(wikiDir: string, defaultBranch: string): Promise<void> {
    return this.git.withLock(wikiDir, () => this.init(wikiDir, defaultBranch));
  }

  /** (Under the wiki's lock.) An empty bare repository with the server's hooks, as the code's. */
  private async init(wikiDir: string, defaultBranch: string): Promise<void> {
    if (wikiExists(wikiDir)) return;
    await this.git.initBare(wikiDir, defaultBranch);
  }

  /**
   * Apply one change as ONE commit on the wiki's branch (creating the wiki first when needed):
   * blobs by `hash-object`, the new root tree by `mktree` (sub-trees a push added are kept as they
   * are), `commit-tree` by the acting user (author and committer), then a compare-and-swap move of
   * the branch — a push that got there first is a 409, never overwritten.
   */
  async commitChange(wikiDir: string, defaultBranch: string, change: WikiChange): Promise<string> {
    return this.git.withLock(wikiDir, async () => {
      await this.init(wikiDir, defaultBranch);
      const { branch, commit: parent } = await this.head(wikiDir);
      const entries = parent ? await this.git.listTree(wikiDir, parent, '') : [];
      const files = new Map(entries.map((e) => [e.name, e]));
      const { remove, write } = await change.plan(files);
      for (const file of remove) files.delete(file);
      for (const w of write) {
        const sha = await this.git.writeBlob(wikiDir, w.content);
        const old = files.get(w.file);
        const mode = old?.mode === '100755' ? '100755' : '100644';
        files.set(w.file, { mode, type: 'blob', sha, size: w.content.length, path: w.file, name: w.file });
      }
      const input = [...files.values()].map((e) => `${e.mode} ${e.type} ${e.sha}\t${e.name}\0`).join('');
      const tree = await this.git.text(wikiDir, ['mktree', '-z'], { input });
      const { author } = change;
      const commit = await this.git.text(wikiDir, ['commit-tree', '--no-gpg-sign', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], {
        input: change.message.endsWith('\n') ? change.message : `${change.message}\n`,
        env: {
          GIT_AUTHOR_NAME: author.name,
          GIT_AUTHOR_EMAIL: author.email,
          GIT_COMMITTER_NAME: author.name,
          GIT_COMMITTER_EMAIL: author.email,
        },
      });
      await this.git.casUpdateRef(wikiDir, `refs/heads/${branch}`, commit, parent ?? ZERO_ID, `hearth: ${change.message.split('\n')[0]}`);
      return commit;
    });
  }
}
