import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GitPerson as Person, GitToolkit } from '@hearth/plugin-api';

/** The result of merging two commits without a work tree (git merge-tree --write-tree). */
export interface TestMerge {
  /** The merged tree (with conflict markers when `conflicts` is not empty). */
  tree: string;
  conflicts: string[];
}

const identityEnv = (author: Person, committer: Person, when?: { authorDate?: string }): Record<string, string> => ({
  GIT_AUTHOR_NAME: author.name,
  GIT_AUTHOR_EMAIL: author.email,
  GIT_COMMITTER_NAME: committer.name,
  GIT_COMMITTER_EMAIL: committer.email,
  ...(when?.authorDate ? { GIT_AUTHOR_DATE: when.authorDate } : {}),
});

export const tempRefName = () => `refs/hearth-tmp/${crypto.randomBytes(8).toString('hex')}`;

/** A changed file of a diff (Gitea's ChangedFile before URLs). */
export interface DiffFile {
  filename: string;
  previous_filename: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied' | 'changed';
  additions: number;
  deletions: number;
}

const OBJECT_LINE = /^([0-9a-f]{40}|[0-9a-f]{64}) (\w+) (\d+)$/;

/** A git object as `cat-file --batch-check` names it. */
export interface ObjectInfo {
  id: string;
  type: string;
  size: number;
}

/** The git plumbing of pull requests (test merges, merge commits, rebases, diffs), over the kernel's `ctx.git`. */
export class PullGit {
  constructor(private readonly git: GitToolkit) {}

  /** Whether `name` is a valid branch name (git check-ref-format rules, no leading '-'). */
  isValidRefName(name: string): boolean {
    try {
      this.git.assertValidRefName(name);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Ask git about several object names in one process. An answer is null when git did not find
   * the name or found it ambiguous. Names must not contain whitespace.
   */
  async batchCheck(gitDir: string, names: string[]): Promise<(ObjectInfo | null)[]> {
    if (names.length === 0) return [];
    const { stdout } = await this.git.run(gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
      input: names.map((n) => `${n}\n`).join(''),
    });
    const lines = stdout.toString('utf8').split('\n');
    return names.map((_name, i) => {
      const m = OBJECT_LINE.exec(lines[i] ?? '');
      return m ? { id: m[1], type: m[2], size: Number(m[3]) } : null;
    });
  }

  /** The current commit of a branch, or null. */
  async branchCommit(gitDir: string, branch: string): Promise<string | null> {
    if (!this.isValidRefName(branch)) return null;
    const [info] = await this.batchCheck(gitDir, [`refs/heads/${branch}^{commit}`]);
    return info?.type === 'commit' ? info.id : null;
  }

  /** The best common ancestor of two commits, '' when they share no history. */
  async mergeBase(gitDir: string, a: string, b: string): Promise<string> {
    const res = await this.git.run(gitDir, ['merge-base', '--end-of-options', a, b], { okCodes: [1] });
    return res.code === 0 ? res.stdout.toString('utf8').trim() : '';
  }

  /** Whether `ancestor` is an ancestor of (or equal to) `of`. */
  async isAncestor(gitDir: string, ancestor: string, of: string): Promise<boolean> {
    const res = await this.git.run(gitDir, ['merge-base', '--is-ancestor', ancestor, of], { okCodes: [1] });
    return res.code === 0;
  }

  /** Merge `theirs` into `ours` in the object store only; exit 1 of merge-tree means conflicts. */
  async mergeTrees(gitDir: string, ours: string, theirs: string): Promise<TestMerge> {
    const res = await this.git.run(
      gitDir,
      ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', '--allow-unrelated-histories', ours, theirs],
      { okCodes: [1] },
    );
    const parts = res.stdout.toString('utf8').split('\0');
    const tree = parts[0].trim();
    const conflicts = res.code === 1 ? [...new Set(parts.slice(1).filter((p) => p.length > 0))] : [];
    return { tree, conflicts };
  }

  /** Write a commit object; returns its id. */
  async commitTree(
    gitDir: string,
    tree: string,
    parents: string[],
    message: string,
    author: Person,
    committer: Person,
    authorDate?: string,
  ): Promise<string> {
    const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])];
    return this.git.text(gitDir, args, { input: message, env: identityEnv(author, committer, { authorDate }) });
  }

  /** Point a ref at a commit (server-side refs such as refs/pull/N/head; no push is recorded). */
  async setRef(gitDir: string, ref: string, sha: string): Promise<void> {
    await this.git.run(gitDir, ['update-ref', '--', ref, sha]);
  }

  async deleteRef(gitDir: string, ref: string): Promise<void> {
    await this.git.run(gitDir, ['update-ref', '-d', '--', ref], { okCodes: [1] });
  }

  /** Copy the commits of `ref` of another repository into `gitDir` as `target` (forced). */
  async fetchInto(gitDir: string, fromGitDir: string, ref: string, target: string): Promise<void> {
    await this.git.run(gitDir, ['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', fromGitDir, `+${ref}:${target}`]);
  }

  /** Commits of base..head, oldest first (first-parent not forced: every commit reachable from head only). */
  async commitsBetween(gitDir: string, base: string, head: string): Promise<string[]> {
    const out = await this.git.text(gitDir, ['rev-list', '--reverse', `${base}..${head}`]);
    return out ? out.split('\n') : [];
  }

  /**
   * Rebase the commits of `head` that are not in `onto` on top of `onto`, in a temporary shared
   * clone (git 2.39's merge-tree cannot replay single commits); the result's objects are fetched
   * back into `gitDir` under `tempRef` and the new tip returned. null when the rebase conflicts.
   */
  async rebaseOnto(gitDir: string, onto: string, head: string, committer: Person, tempRef: string): Promise<string | null> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-rebase-'));
    const work = path.join(dir, 'w');
    const env = {
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_AUTHOR_NAME: committer.name,
      GIT_AUTHOR_EMAIL: committer.email,
    };
    try {
      await this.git.run(null, ['clone', '--quiet', '--shared', '--no-checkout', gitDir, work]);
      const inWork = (args: string[], okCodes: number[] = []) => this.git.run(null, ['-C', work, ...args], { env, okCodes });
      await inWork(['checkout', '--quiet', '-B', 'hearth-rebase', head]);
      const res = await inWork(
        ['-c', 'rebase.autoStash=false', '-c', 'core.hooksPath=/dev/null', 'rebase', '--quiet', '--no-autosquash', onto],
        [1, 128],
      );
      if (res.code !== 0) return null;
      const tip = (await this.git.text(null, ['-C', work, 'rev-parse', 'HEAD'])).trim();
      await this.git.run(gitDir, ['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', work, `+refs/heads/hearth-rebase:${tempRef}`]);
      return tip;
    } catch (err) {
      if (this.git.isGitError(err)) return null;
      throw err;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * Every file changed between `base` and `head` (a merge-base..head diff), in git's path order,
   * with line counts (binary files count 0). One `git diff --numstat --raw -z` run.
   */
  async diffFiles(gitDir: string, base: string, head: string): Promise<DiffFile[]> {
    const out = (
      await this.git.run(gitDir, ['diff', '--no-color', '--raw', '--numstat', '-z', '-M', '--no-ext-diff', base, head, '--'])
    ).stdout.toString('utf8');
    const tokens = out.split('\0');
    const files: DiffFile[] = [];
    let i = 0;
    // --raw records first: ":mode mode sha sha STATUS\0path\0[path2\0]"
    while (i < tokens.length && tokens[i].startsWith(':')) {
      const meta = tokens[i].split(' ');
      const code = meta[4]?.[0] ?? 'M';
      if (code === 'R' || code === 'C') {
        files.push({
          filename: tokens[i + 2],
          previous_filename: tokens[i + 1],
          status: code === 'R' ? 'renamed' : 'copied',
          additions: 0,
          deletions: 0,
        });
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
      if (t === '') {
        i++;
        continue;
      }
      const [add, del, p] = t.split('\t');
      files[n].additions = add === '-' ? 0 : Number(add);
      files[n].deletions = del === '-' ? 0 : Number(del);
      i += p === '' ? 3 : 1;
      n++;
    }
    return files;
  }
}
