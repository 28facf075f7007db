import { ApiError, contentDisposition, raw, stream, type ApiResponse } from '@hearth/plugin-api';
import { entryAt, git } from './contents-git';
import { resolveRef, type ResolvedRef } from './revisions';
import { spawnGit } from './git';
import { isValidRefName } from './names';
import type { ResolvedRepo } from './repo-service';

/**
 * Raw file downloads. The forge's own origin serves them, so a repository must never be able to
 * host active content there: HTML, JavaScript and anything unknown are never labelled as such —
 * text is text/plain, the rest application/octet-stream as an attachment — with
 * `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy on every answer.
 */

/** Types safe to show inline (images, audio, video, PDF); SVG only under the sandboxing CSP below. */
const INLINE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** Extensions that are text whatever their bytes look like at the start (served as text/plain). */
const TEXT_EXTENSIONS = new Set(
  (
    'txt md markdown rst adoc asciidoc org tex csv tsv log ini cfg conf toml yaml yml json ' +
    'jsonc json5 xml xsd xsl html htm xhtml css scss sass less ' +
    'js mjs cjs jsx ts tsx mts cts vue svelte go rs c h cc cpp cxx hh hpp hxx m mm java kt kts ' +
    'scala groovy gradle cs fs fsx vb py pyi rb php pl pm t lua ' +
    'r jl swift dart ex exs erl hrl hs lhs ml mli clj cljs edn lisp el scm rkt nim zig v sv ' +
    'vhd vhdl sh bash zsh fish ps1 psm1 bat cmd sql graphql gql ' +
    'proto thrift tf hcl nix dockerfile make mk cmake gitignore gitattributes editorconfig env properties patch diff'
  ).split(' '),
);

/** Smaller blobs are read whole, so their type can be sniffed from the bytes; larger ones stream, typed by extension. */
const SNIFF_LIMIT = 1024 * 1024;

export const RAW_SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
};

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : name.toLowerCase();
}

/** Text unless it has a NUL byte or is not valid UTF-8 in its first 8000 bytes (git's own binary heuristic, plus UTF-8). */
export function looksLikeText(head: Buffer): boolean {
  const sample = head.subarray(0, 8000);
  if (sample.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(trimPartialUtf8(sample));
    return true;
  } catch {
    return false;
  }
}

/** Drop a UTF-8 sequence cut off by the sample's end. */
function trimPartialUtf8(buf: Buffer): Buffer {
  let end = buf.length;
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const byte = buf[end - i];
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (need > i) end -= i;
    break;
  }
  return buf.subarray(0, end);
}

/** The Content-Type and disposition to serve a file under, from its name and (when read) its bytes. */
export function rawContentType(name: string, head: Buffer | null): { contentType: string; inline: boolean } {
  const ext = extensionOf(name);
  if (INLINE_TYPES[ext]) return { contentType: INLINE_TYPES[ext], inline: true };
  if (head ? looksLikeText(head) : TEXT_EXTENSIONS.has(ext)) return { contentType: 'text/plain; charset=utf-8', inline: true };
  return { contentType: 'application/octet-stream', inline: false };
}

/**
 * The shortest leading segments of `filepath` that name a branch (or, failing that, a tag) among
 * `kinds`, and the rest as the path — one cat-file process. Null when none does.
 */
export async function refPrefixTarget(
  gitDir: string,
  filepath: string,
  kinds: Array<'branch' | 'tag'>,
): Promise<{ ref: ResolvedRef; path: string } | null> {
  const parts = filepath.split('/');
  const prefixes: string[] = [];
  for (let i = 1; i < parts.length; i++) {
    const name = parts.slice(0, i).join('/');
    if (isValidRefName(name)) prefixes.push(name);
  }
  if (prefixes.length === 0) return null;
  const candidates = kinds.flatMap((kind) =>
    prefixes.map((name) => ({ kind, name, expr: `refs/${kind === 'branch' ? 'heads' : 'tags'}/${name}^{commit}` })),
  );
  const out = (
    await git(gitDir, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: candidates.map((c) => `${c.expr}\n`).join('') })
  ).stdout
    .toString('utf8')
    .split('\n');
  for (let i = 0; i < candidates.length; i++) {
    const [id, type] = (out[i] ?? '').split(' ');
    if (type !== 'commit') continue;
    const { kind, name } = candidates[i];
    return { ref: { commit: id, refType: kind, name }, path: filepath.slice(name.length + 1) };
  }
  return null;
}

/**
 * Which commit and path a raw request means. With `?ref=` the whole path is the file. Without it,
 * Gitea's form: the path may start with a branch or a tag (the shortest leading segments that
 * name one, branches first) or a full commit id; otherwise it is a path on the default branch.
 */
export async function rawTarget(
  resolved: ResolvedRepo,
  filepath: string,
  ref: string | undefined,
): Promise<{ ref: ResolvedRef; path: string }> {
  const { gitDir } = resolved;
  if (ref && ref.trim()) {
    const found = await resolveRef(gitDir, ref.trim());
    if (!found) throw ApiError.notFound(`no commit found for the ref [ref: ${ref}]`);
    return { ref: found, path: filepath };
  }
  const byRef = await refPrefixTarget(gitDir, filepath, ['branch', 'tag']);
  if (byRef) return byRef;
  const parts = filepath.split('/');
  if (parts.length > 1 && /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i.test(parts[0])) {
    const found = await resolveRef(gitDir, parts[0]);
    if (found && found.refType === 'commit') return { ref: found, path: parts.slice(1).join('/') };
  }
  const found = await resolveRef(gitDir, `refs/heads/${resolved.repo.default_branch}`);
  if (!found) throw ApiError.notFound('the repository is empty');
  return { ref: found, path: filepath };
}

/** Blobs this small are offered to `repository.media` taps (a Git LFS pointer is at most 1024 bytes). */
export const MEDIA_OFFER_LIMIT = 1024;

/**
 * Serve a file's bytes: 404 for a directory, submodule or anything missing; 304 when the client has this blob.
 * `media` may answer for a small blob instead (the media route's `repository.media` taps).
 */
export async function serveRaw(
  resolved: ResolvedRepo,
  target: { ref: ResolvedRef; path: string },
  ifNoneMatch: string | undefined,
  media?: (path: string, content: Buffer) => Promise<ApiResponse | undefined>,
): Promise<ApiResponse> {
  const { gitDir } = resolved;
  const entry = target.path ? await entryAt(gitDir, target.ref.commit, target.path) : null;
  if (!entry || entry.type !== 'blob') throw ApiError.notFound(`file does not exist [path: ${target.path}]`);
  const etag = `"${entry.sha}"`;
  const common = { ...RAW_SECURITY_HEADERS, ETag: etag, 'Cache-Control': 'private, max-age=300' };
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}`))
    return { status: 304, headers: common };
  if (entry.size <= SNIFF_LIMIT) {
    const data = (await git(gitDir, ['cat-file', 'blob', entry.sha])).stdout;
    const answered = media && data.length <= MEDIA_OFFER_LIMIT ? await media(target.path, data) : undefined;
    if (answered) return answered;
    const type = rawContentType(entry.name, data);
    return {
      ...raw(200, type.contentType, data),
      headers: { ...common, 'Content-Disposition': contentDisposition(entry.name, type.inline) },
    };
  }
  const type = rawContentType(entry.name, null);
  const child = spawnGit(['cat-file', 'blob', entry.sha], { gitDir }, ['ignore', 'pipe', 'ignore']);
  return stream(200, type.contentType, child.stdout!, {
    ...common,
    'Content-Length': String(entry.size),
    'Content-Disposition': contentDisposition(entry.name, type.inline),
  });
}
