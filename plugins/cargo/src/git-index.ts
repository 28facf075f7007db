import fs from 'node:fs';
import path from 'node:path';
import type IsomorphicGit from 'isomorphic-git';
import { lazy, type Logger } from '@hearth/plugin-api';
import { KeyedChain } from './queue';

/** isomorphic-git, loaded by the first index write rather than at start. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const isoGit = lazy(() => require('isomorphic-git').default as typeof IsomorphicGit);

/** The branch of an index repository (crates.io's index uses `master`; HEAD points at it). */
export const INDEX_BRANCH = 'master';
const REF = `refs/heads/${INDEX_BRANCH}`;
const AUTHOR = { name: 'Hearth', email: 'cargo-index@hearth.invalid' };

/** A file of the index to write (`content`) or remove (`content: null`). */
export interface IndexChange {
  path: string;
  content: string | null;
}

type TreeEntry = { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' };

/** Where cargo looks for a crate's index file: `1/a`, `2/ab`, `3/a/abc`, `ab/cd/abcd…` (lower case). */
export function indexPath(name: string): string {
  const lower = name.toLowerCase();
  if (lower.length === 1) return `1/${lower}`;
  if (lower.length === 2) return `2/${lower}`;
  if (lower.length === 3) return `3/${lower[0]}/${lower}`;
  return `${lower.slice(0, 2)}/${lower.slice(2, 4)}/${lower}`;
}

/**
 * The owners' git index repositories: bare repositories `<root>/<owner-id>.git` written with
 * isomorphic-git. An update writes the changed blobs, rewrites only the trees on their paths
 * and adds one commit, so its cost does not grow with the number of crates in the index.
 * Updates of one owner run one after the other (a promise chain per owner); a rebuild writes a
 * fresh repository next to the old one and swaps it in.
 */
export class GitIndexStore {
  private readonly chains = new KeyedChain<number>();
  /** isomorphic-git's cache of parsed pack indexes (rebuilt repositories are loose objects only). */
  private readonly cache: Record<string, unknown> = {};

  constructor(
    readonly root: string,
    private readonly log: Logger,
  ) {}

  dirOf(ownerId: number): string {
    return path.join(this.root, `${ownerId}.git`);
  }

  exists(ownerId: number): boolean {
    return fs.existsSync(path.join(this.dirOf(ownerId), 'HEAD'));
  }

  /** Run `task` after every earlier task of the same owner has settled. */
  serialize<T>(ownerId: number, task: () => Promise<T>): Promise<T> {
    return this.chains.run(ownerId, task);
  }

  /**
   * Commit `changes` on top of the current head (the repository must exist). Files whose content
   * is unchanged are skipped; without any change no commit is made. Returns the new head or null.
   */
  async commit(ownerId: number, changes: IndexChange[], message: string): Promise<string | null> {
    const gitdir = this.dirOf(ownerId);
    let head: string | null = null;
    try {
      head = await isoGit().resolveRef({ fs, gitdir, ref: REF });
    } catch {
      head = null; // a repository without commits yet
    }
    const headTree = head ? (await isoGit().readCommit({ fs, gitdir, oid: head, cache: this.cache })).commit.tree : null;
    let tree = headTree;
    for (const change of changes) {
      const blob = change.content === null ? null : await isoGit().writeBlob({ fs, gitdir, blob: Buffer.from(change.content, 'utf8') });
      tree = await this.updatePath(gitdir, tree, change.path.split('/'), blob);
    }
    if (tree === headTree && head) return null;
    const emptyTree = tree ?? (await isoGit().writeTree({ fs, gitdir, tree: [] }));
    const now = { timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
    const oid = await isoGit().writeCommit({
      fs,
      gitdir,
      commit: {
        message: `${message}\n`,
        tree: emptyTree,
        parent: head ? [head] : [],
        author: { ...AUTHOR, ...now },
        committer: { ...AUTHOR, ...now },
      },
    });
    await isoGit().writeRef({ fs, gitdir, ref: REF, value: oid, force: true });
    return oid;
  }

  /** Replace the blob at `segments` under `treeOid` (null: remove it); returns the new tree, null when it ends up empty. */
  private async updatePath(gitdir: string, treeOid: string | null, segments: string[], blob: string | null): Promise<string | null> {
    const entries: TreeEntry[] = treeOid
      ? ((await isoGit().readTree({ fs, gitdir, oid: treeOid, cache: this.cache })).tree as TreeEntry[])
      : [];
    const [name, ...rest] = segments;
    const at = entries.findIndex((e) => e.path === name);
    const current = at >= 0 ? entries[at] : undefined;
    let oid: string | null;
    if (rest.length === 0) oid = blob;
    else oid = await this.updatePath(gitdir, current?.type === 'tree' ? current.oid : null, rest, blob);
    if (current && oid === current.oid) return treeOid;
    if (!current && oid === null) return treeOid;
    const next = entries.filter((e) => e.path !== name);
    if (oid !== null) next.push({ mode: rest.length ? '040000' : '100644', path: name, oid, type: rest.length ? 'tree' : 'blob' });
    if (!next.length) return null;
    return isoGit().writeTree({ fs, gitdir, tree: next });
  }

  /** Create the owner's repository with `files` as its first commit (an existing one is replaced). */
  async create(ownerId: number, files: IndexChange[], message: string): Promise<string> {
    fs.mkdirSync(this.root, { recursive: true });
    const target = this.dirOf(ownerId);
    const staging = `${target}.new-${process.pid}-${Date.now()}`;
    fs.rmSync(staging, { recursive: true, force: true });
    try {
      await isoGit().init({ fs, gitdir: staging, bare: true, defaultBranch: INDEX_BRANCH });
      // Smart HTTP serves it with git upload-pack; no one pushes to it.
      fs.writeFileSync(path.join(staging, 'description'), `Cargo index of owner ${ownerId} (maintained by Hearth)\n`);
      const root = await this.writeTreeOf(staging, files.filter((f) => f.content !== null) as Array<{ path: string; content: string }>);
      const now = { timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
      const oid = await isoGit().writeCommit({
        fs,
        gitdir: staging,
        commit: { message: `${message}\n`, tree: root, parent: [], author: { ...AUTHOR, ...now }, committer: { ...AUTHOR, ...now } },
      });
      await isoGit().writeRef({ fs, gitdir: staging, ref: REF, value: oid, force: true });
      const old = `${target}.old-${process.pid}-${Date.now()}`;
      if (fs.existsSync(target)) fs.renameSync(target, old);
      fs.renameSync(staging, target);
      fs.rmSync(old, { recursive: true, force: true });
      return oid;
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw err;
    }
  }

  /** Write the nested trees of a set of files; returns the root tree. */
  private async writeTreeOf(gitdir: string, files: Array<{ path: string; content: string }>): Promise<string> {
    type Dir = { files: Map<string, string>; dirs: Map<string, Dir> };
    const top: Dir = { files: new Map(), dirs: new Map() };
    for (const file of files) {
      const parts = file.path.split('/');
      let dir = top;
      for (const part of parts.slice(0, -1)) {
        let sub = dir.dirs.get(part);
        if (!sub) dir.dirs.set(part, (sub = { files: new Map(), dirs: new Map() }));
        dir = sub;
      }
      dir.files.set(parts[parts.length - 1], file.content);
    }
    const write = async (dir: Dir): Promise<string> => {
      const tree: TreeEntry[] = [];
      for (const [name, content] of dir.files)
        tree.push({
          mode: '100644',
          path: name,
          type: 'blob',
          oid: await isoGit().writeBlob({ fs, gitdir, blob: Buffer.from(content, 'utf8') }),
        });
      for (const [name, sub] of dir.dirs) tree.push({ mode: '040000', path: name, type: 'tree', oid: await write(sub) });
      return isoGit().writeTree({ fs, gitdir, tree });
    };
    return write(top);
  }

  /** Read a file of the head commit (null when absent). */
  async readFile(ownerId: number, filepath: string): Promise<string | null> {
    const gitdir = this.dirOf(ownerId);
    try {
      const head = await isoGit().resolveRef({ fs, gitdir, ref: REF });
      const { blob } = await isoGit().readBlob({ fs, gitdir, oid: head, filepath, cache: this.cache });
      return Buffer.from(blob).toString('utf8');
    } catch (err) {
      this.log.debug({ err, ownerId, filepath }, 'index file not readable');
      return null;
    }
  }
}
