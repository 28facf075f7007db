import { ApiError } from '@hearth/plugin-api';

const REPO_NAME = /^[A-Za-z0-9._-]+$/;
/** Gitea's reserved repository names and patterns. */
const RESERVED_REPO_NAMES = new Set(['.', '..', '-']);

/** A repository name: letters, digits, '.', '_' and '-', at most 100, not ending in .git or .wiki (Gitea's rules). */
export function assertValidRepoName(name: string): void {
  if (!name || name.length > 100) throw ApiError.unprocessable(`repository name must be 1 to 100 characters [name: ${name}]`);
  if (!REPO_NAME.test(name))
    throw ApiError.unprocessable(`repository name may only contain letters, digits, '.', '_' and '-' [name: ${name}]`);
  if (RESERVED_REPO_NAMES.has(name)) throw ApiError.unprocessable(`name is reserved [name: ${name}]`);
  const lower = name.toLowerCase();
  if (lower.endsWith('.git') || lower.endsWith('.wiki') || lower.endsWith('.rss') || lower.endsWith('.atom')) {
    throw ApiError.unprocessable(`name pattern is not allowed [name: ${name}]`);
  }
}

/**
 * git check-ref-format rules for a branch or tag name, plus no leading '-' (it would read as an
 * option). Applied to every name a client gives before it reaches git.
 */
export function isValidRefName(name: string): boolean {
  if (!name || name.length > 255) return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{') || name === '@') return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

export function assertValidRefName(name: string, what = 'ref'): void {
  if (!isValidRefName(name)) throw ApiError.unprocessable(`invalid ${what} name [${what}: ${name}]`);
}

/** A full or abbreviated object id. */
export function isObjectId(value: string): boolean {
  return /^[0-9a-f]{4,64}$/i.test(value);
}

/** Characters HFS+ ignores in names (git's protectHFS list), so `.g\u200cit` is `.git` on a Mac. */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * A segment some checkout would take for the `.git` directory: any case, trailing dots or spaces (NTFS), its 8.3 name,
 * HFS-ignorable characters.
 */
export function isGitDirName(segment: string): boolean {
  const s = segment
    .replace(HFS_IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/, '');
  return s === '.git' || s === 'git~1';
}

/**
 * A path inside a repository: relative, no '.' or '..' segments, no empty segments, no control
 * characters, no segment any clone could take for `.git`, and nothing git would take specially
 * (a leading ':' is pathspec magic).
 */
export function assertValidTreePath(path: string): string {
  const clean = path.replace(/^\/+|\/+$/g, '');
  const segments = clean.split('/');
  if (
    !clean ||
    segments.some((s) => s === '' || s === '.' || s === '..' || isGitDirName(s)) ||
    /[\x00-\x1f\x7f]/.test(clean) ||
    clean.startsWith(':')
  ) {
    throw ApiError.unprocessable(`invalid file path [path: ${path}]`);
  }
  return clean;
}
