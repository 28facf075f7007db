import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiError } from '@hearth/plugin-api';
import { runGit } from './git';

/** Formats of `GET /repos/{owner}/{repo}/archive/{ref}.{format}`, as Gitea names them. */
export type ArchiveFormat = 'zip' | 'tar.gz' | 'bundle';

const FORMATS: ReadonlyArray<{ format: ArchiveFormat; suffix: string; contentType: string }> = [
  { format: 'tar.gz', suffix: '.tar.gz', contentType: 'application/gzip' },
  { format: 'zip', suffix: '.zip', contentType: 'application/zip' },
  { format: 'bundle', suffix: '.bundle', contentType: 'application/octet-stream' },
];

export interface ArchiveRequest {
  ref: string;
  format: ArchiveFormat;
  contentType: string;
}

/** Split `<ref>.<format>`; an unknown format is 400 (Gitea: "unknown archive format"). */
export function parseArchiveName(archive: string): ArchiveRequest {
  for (const { format, suffix, contentType } of FORMATS) {
    if (archive.length > suffix.length && archive.endsWith(suffix)) {
      return { ref: archive.slice(0, -suffix.length), format, contentType };
    }
  }
  throw ApiError.badRequest(`unknown archive format: ask for <ref>.zip, <ref>.tar.gz or <ref>.bundle [archive: ${archive}]`);
}

/** Where a repository's cached archives live; removing this directory drops them all. */
export function archiveCacheDir(dataDir: string, repoId: number): string {
  return path.join(dataDir, 'archives', String(repoId));
}

/** Remove the cached archives of repositories (after they are deleted). */
export function removeArchiveCaches(dataDir: string, repoIds: readonly number[]): void {
  for (const id of repoIds) fs.rmSync(archiveCacheDir(dataDir, id), { recursive: true, force: true });
}

/**
 * The cache file of one archive. zip and tar.gz carry the repository name as their top folder,
 * so it is part of their key (a renamed repository must not serve the old folder name); a
 * bundle depends on the commit alone.
 */
export function archiveCachePath(dataDir: string, repo: { id: number; name: string }, commit: string, format: ArchiveFormat): string {
  const file = format === 'bundle' ? `${commit}.bundle` : `${commit}.${repo.name}.${format}`;
  return path.join(archiveCacheDir(dataDir, repo.id), file);
}

/** At most this many archives are produced at once; further requests wait (archives are costly, and crawlers ask for many). */
const MAX_CONCURRENT_BUILDS = Math.max(2, Math.min(8, os.cpus().length));

/**
 * Archives cached per commit under DATA_DIR/archives/<repo id>/. A file is written under a
 * temporary name and renamed into place, so a reader sees either no file or a complete one;
 * concurrent first requests for one archive share a single git run. An existing file is served
 * without running git.
 */
export class ArchiveCache {
  private readonly inflight = new Map<string, Promise<string>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly dataDir: string) {}

  /** The cache file if it exists already (no git involved). */
  existing(repo: { id: number; name: string }, commit: string, format: ArchiveFormat): string | null {
    const file = archiveCachePath(this.dataDir, repo, commit, format);
    return fs.existsSync(file) ? file : null;
  }

  /** The cache file, produced first if needed. `commit` must be a verified, complete commit id. */
  async ensure(repo: { id: number; name: string }, gitDir: string, commit: string, format: ArchiveFormat): Promise<string> {
    const file = archiveCachePath(this.dataDir, repo, commit, format);
    if (fs.existsSync(file)) return file;
    let pending = this.inflight.get(file);
    if (!pending) {
      pending = this.throttled(() => this.build(file, repo.name, gitDir, commit, format)).finally(() => this.inflight.delete(file));
      this.inflight.set(file, pending);
    }
    return pending;
  }

  private async throttled<T>(work: () => Promise<T>): Promise<T> {
    // A finishing build hands its slot straight to the next waiter, so the limit is never overshot.
    if (this.running < MAX_CONCURRENT_BUILDS) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  private async build(file: string, repoName: string, gitDir: string, commit: string, format: ArchiveFormat): Promise<string> {
    if (fs.existsSync(file)) return file; // made by another process while this request waited
    const dir = path.dirname(file);
    fs.mkdirSync(dir, { recursive: true });
    const tmp = path.join(dir, `.tmp-${crypto.randomUUID()}`);
    try {
      if (format === 'bundle') await writeBundle(dir, path.resolve(gitDir), commit, tmp);
      else
        await runGit(['archive', `--format=${format}`, `--prefix=${repoName}/`, `--output=${tmp}`, '--end-of-options', commit], { gitDir });
      fs.renameSync(tmp, file);
      return file;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
}

/**
 * A bundle of the commit's history, made as Gitea makes it: a scratch repository borrowing the
 * objects (alternates) with `refs/heads/bundle` and HEAD at the commit, so `git clone x.bundle`
 * checks it out and the file depends on the commit alone, whatever ref name was asked for.
 */
async function writeBundle(workDir: string, gitDir: string, commit: string, out: string): Promise<void> {
  const scratch = path.join(workDir, `.bundle-${crypto.randomUUID()}.git`);
  try {
    const objectFormat = commit.length === 64 ? ['--object-format=sha256'] : [];
    await runGit(['init', '--bare', '--quiet', '--template=', '--initial-branch=bundle', ...objectFormat, '--end-of-options', scratch]);
    fs.mkdirSync(path.join(scratch, 'objects', 'info'), { recursive: true });
    fs.writeFileSync(path.join(scratch, 'objects', 'info', 'alternates'), `${path.join(gitDir, 'objects')}\n`);
    await runGit(['update-ref', 'refs/heads/bundle', commit], { gitDir: scratch });
    await runGit(['bundle', 'create', '--quiet', out, 'refs/heads/bundle', 'HEAD'], { gitDir: scratch });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Does an `If-None-Match` / `If-Range` list name this entity tag? (weak comparison for If-None-Match) */
export function etagMatches(header: string | undefined, etag: string, weak: boolean): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => (weak ? tag.replace(/^W\//, '') : tag);
  return header
    .split(',')
    .map((t) => t.trim())
    .some((t) => bare(t) === etag && (weak || !t.startsWith('W/')));
}

/**
 * `attachment; filename="…"` with an ASCII fallback (no quotes, backslashes, control or non-ASCII
 * characters), plus RFC 6266 `filename*` when the real name needs it.
 */
export function archiveDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  if (ascii === filename) return `attachment; filename="${filename}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
