import { ApiError } from '@hearth/plugin-api';
import { entryAt, lastCommitOf, lastCommitsIn, listTree, readBlobs, type TreeEntry } from './contents-git';
import { resolveRef, type ResolvedRef } from './revisions';
import type { ResolvedRepo } from './repo-service';
import { escapeSegments, type RepoLinks } from './links';

/** Gitea's ContentsResponse. */
export interface ContentsResponse {
  name: string;
  path: string;
  sha: string;
  last_commit_sha: string;
  type: 'file' | 'dir' | 'symlink' | 'submodule';
  size: number;
  encoding: string | null;
  content: string | null;
  target: string | null;
  url: string;
  html_url: string | null;
  git_url: string | null;
  download_url: string | null;
  submodule_git_url: string | null;
  _links: { self: string; git: string | null; html: string | null };
}

export function entryKind(entry: Pick<TreeEntry, 'mode' | 'type'>): ContentsResponse['type'] {
  if (entry.type === 'tree') return 'dir';
  if (entry.type === 'commit' || entry.mode === '160000') return 'submodule';
  if (entry.mode === '120000') return 'symlink';
  return 'file';
}

/** What a ContentsResponse is being built against: the commit, and the ref as the client named it. */
export interface ContentsView {
  urls: RepoLinks;
  ref: ResolvedRef;
  /** The ref as given (or the default branch's name): Gitea puts it in `url` unchanged. */
  origRef: string;
}

export interface EntryExtras {
  lastCommit: string;
  /** Base64 content of a file (omitted in listings). */
  content?: string | null;
  target?: string | null;
  submoduleUrl?: string | null;
}

/** Gitea's GetContents shape for one tree entry. */
export function toContents(view: ContentsView, entry: TreeEntry, extras: EntryExtras): ContentsResponse {
  const { urls, ref } = view;
  const kind = entryKind(entry);
  const self = `${urls.api}/contents/${escapeSegments(entry.path)}?ref=${encodeURIComponent(view.origRef)}`;
  const refPath = `${ref.refType}/${escapeSegments(ref.name)}/${escapeSegments(entry.path)}`;
  const html = kind === 'submodule' ? null : `${urls.html}/src/${refPath}`;
  const gitUrl = kind === 'submodule' ? null : `${urls.api}/git/${entry.type}s/${entry.sha}`;
  const withContent = kind === 'file' && extras.content !== undefined;
  return {
    name: entry.name,
    path: entry.path,
    sha: entry.sha,
    last_commit_sha: extras.lastCommit,
    type: kind,
    size: kind === 'dir' || kind === 'submodule' ? 0 : entry.size,
    encoding: withContent ? 'base64' : null,
    content: withContent ? (extras.content ?? '') : null,
    target: kind === 'symlink' ? (extras.target ?? null) : null,
    url: self,
    html_url: html,
    git_url: gitUrl,
    download_url: kind === 'file' || kind === 'symlink' ? `${urls.html}/raw/${refPath}` : null,
    submodule_git_url: kind === 'submodule' ? (extras.submoduleUrl ?? null) : null,
    _links: { self, git: gitUrl, html },
  };
}

/**
 * The ref of a read request: `ref` as given (branch, tag or commit), or the default branch. An
 * unknown ref — and an empty repository — is a 404.
 */
export async function refForRead(resolved: ResolvedRepo, ref: string | undefined): Promise<{ ref: ResolvedRef; origRef: string }> {
  const origRef = ref && ref.trim() ? ref.trim() : resolved.repo.default_branch;
  const found = await resolveRef(resolved.gitDir, origRef);
  if (!found) {
    if (!ref) throw ApiError.notFound(`the repository is empty or its default branch ${origRef} does not exist`);
    throw ApiError.notFound(`no commit found for the ref [ref: ${origRef}]`);
  }
  return { ref: found, origRef };
}

/** Submodule URLs by path, from the `.gitmodules` of a commit. */
export async function submoduleUrls(gitDir: string, commit: string): Promise<Map<string, string>> {
  const blob = (await readBlobs(gitDir, [`${commit}:.gitmodules`])).get(`${commit}:.gitmodules`);
  return blob ? parseGitmodules(blob.toString('utf8')) : new Map();
}

/** The `path` → `url` pairs of a .gitmodules file (git-config syntax, one section per submodule). */
export function parseGitmodules(text: string): Map<string, string> {
  const result = new Map<string, string>();
  const sections: Array<Record<string, string>> = [];
  let current: Record<string, string> | null = null;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      current = /^\[\s*submodule\s+"/i.test(line) ? {} : null;
      if (current) sections.push(current);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq < 0) continue;
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    current[line.slice(0, eq).trim().toLowerCase()] = value;
  }
  for (const s of sections) if (s.path && s.url) result.set(s.path.replace(/^\/+|\/+$/g, ''), s.url);
  return result;
}

/**
 * GET contents: a file (with base64 content up to DEFAULT_MAX_BLOB_SIZE, as Gitea), symlink or
 * submodule entry as one object; a directory (or the root, `path === ''`) as the array of its
 * entries without content.
 */
export async function getContents(
  resolved: ResolvedRepo,
  urls: RepoLinks,
  maxBlobSize: number,
  path: string,
  refParam: string | undefined,
): Promise<ContentsResponse | ContentsResponse[]> {
  const { gitDir } = resolved;
  const { ref, origRef } = await refForRead(resolved, refParam);
  const view: ContentsView = { urls, ref, origRef };
  let dir = path;
  if (path) {
    const entry = await entryAt(gitDir, ref.commit, path);
    if (!entry) throw ApiError.notFound(`object does not exist [id: , rel_path: ${path}]`);
    if (entry.type !== 'tree')
      return (
        await describe(gitDir, view, [entry], maxBlobSize, true, new Map([[entry.path, await lastCommitOf(gitDir, ref.commit, path)]]))
      )[0];
    dir = entry.path;
  }
  const entries = await listTree(gitDir, ref.commit, dir);
  const last = await lastCommitsIn(
    gitDir,
    ref.commit,
    dir,
    entries.map((e) => e.name),
  );
  const byPath = new Map(entries.map((e) => [e.path, last.get(e.name) ?? '']));
  return describe(gitDir, view, entries, maxBlobSize, false, byPath);
}

/** ContentsResponses for entries of one commit, reading what they need in two batches at most. */
export async function describe(
  gitDir: string,
  view: ContentsView,
  entries: TreeEntry[],
  maxBlobSize: number,
  withContent: boolean,
  lastCommits: Map<string, string>,
  known?: Map<string, Buffer>,
): Promise<ContentsResponse[]> {
  const wanted = entries
    .filter((e) => (e.mode === '120000' || (withContent && entryKind(e) === 'file')) && e.size <= maxBlobSize && !known?.has(e.path))
    .map((e) => e.sha);
  const blobs = await readBlobs(gitDir, wanted);
  const modules = entries.some((e) => entryKind(e) === 'submodule')
    ? await submoduleUrls(gitDir, view.ref.commit)
    : new Map<string, string>();
  return entries.map((entry) => {
    const kind = entryKind(entry);
    const data = known?.get(entry.path) ?? blobs.get(entry.sha);
    return toContents(view, entry, {
      lastCommit: lastCommits.get(entry.path) ?? '',
      content: withContent && kind === 'file' ? (entry.size <= maxBlobSize && data ? data.toString('base64') : '') : undefined,
      target: kind === 'symlink' && data ? data.toString('utf8') : null,
      submoduleUrl: kind === 'submodule' ? (modules.get(entry.path) ?? null) : null,
    });
  });
}
