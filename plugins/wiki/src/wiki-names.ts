import { ApiError } from '@hearth/plugin-api';

/**
 * Wiki page names, as Gitea 1.20 maps them (services/wiki/wiki_path.go):
 *
 * - title  — what people read: `Some Page`, `a-b`, `A/B` (legacy);
 * - sub_url (Gitea's "web path") — what URLs carry: `Some-Page`, `.-a-b`, `A%2FB`;
 * - file   — the blob in the wiki's root tree: `Some-Page.md`, `.-a-b.md`, `A%2FB.md`.
 *
 * A title without a dash stores its spaces as dashes. A title WITH a dash cannot do that (the
 * dash would read back as a space), so it gets Gitea's "dash marker" prefix `.-` and keeps its
 * spaces: `a-b c` ↔ `.-a-b c.md` ↔ sub_url `.-a-b%20c`. Every other character outside
 * `A-Za-z0-9-_.~$&+:=@` (and the space) is percent-escaped in the file name like Go's
 * url.PathEscape, so a legacy `/` becomes `%2F` and nothing ever names a sub-directory.
 * One deviation: Gitea turns `+` in a file name into a space; Hearth keeps `+` (`C++` ↔ `C++.md`).
 */

/** Pages with a meaning of their own: shown around every page (sidebar, footer) and the default page. */
export const SIDEBAR = '_Sidebar';
export const FOOTER = '_Footer';
export const HOME = 'Home';

/** Gitea refuses these web paths (they are routes of its web UI). */
const RESERVED = ['_pages', '_new', '_edit', 'raw'];

const DASH_MARKER = '.-';

/** Go's url.PathEscape for one path segment: unreserved and `$&+:=@` stay, every other byte is %XX. */
function pathEscape(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~$&+:=@]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** %XX sequences back to UTF-8 text; null when an escape is malformed or the bytes are not UTF-8. */
function pathUnescape(s: string): string | null {
  if (!s.includes('%')) return s;
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return null;
  const bytes: number[] = [];
  for (let i = 0; i < s.length;) {
    if (s[i] === '%') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...Buffer.from(ch, 'utf8'));
      i += ch.length;
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
}

/** Gitea's escapeSegToWeb without the final escaping: the dash marker, or spaces as dashes. */
function marked(title: string): string {
  return title.includes('-') || title.endsWith('.md') ? DASH_MARKER + title : title.replace(/ /g, '-');
}

/** A marked segment back to a title (Gitea's unescapeSegment before unescaping). */
function unmarked(segment: string): string {
  return segment.startsWith(DASH_MARKER) ? segment.slice(DASH_MARKER.length) : segment.replace(/-/g, ' ');
}

/**
 * A title someone wants to write (create, or rename to): trimmed (leading and trailing spaces are
 * dropped, as Gitea's UserTitleToWebPath does, so `"  Home"` is `Home`), then refused when it could
 * not be a single flat page: empty (400, as Gitea), a `/` (sub-directories are not supported: 422),
 * `..`, control characters (422), or one of Gitea's reserved names (400).
 */
export function validTitle(raw: string | undefined): string {
  const title = (raw ?? '').trim();
  if (!title) throw ApiError.badRequest('the wiki page title is empty');
  checkTitle(title);
  if (title.includes('/')) {
    throw ApiError.unprocessable(`wiki page titles cannot contain '/': sub-directories are not supported in the wiki [title: ${title}]`);
  }
  if (RESERVED.includes(subUrlOf(title).toLowerCase())) throw ApiError.badRequest(`'${title}' is a reserved wiki name`);
  return title;
}

/** Rules every title obeys, written or looked up. */
function checkTitle(title: string): void {
  if (/[\x00-\x1f\x7f]/.test(title)) throw ApiError.unprocessable('wiki page names cannot contain control characters');
  if (title.includes('..')) throw ApiError.unprocessable(`wiki page names cannot contain '..' [title: ${title}]`);
}

/**
 * The `{pageName}` of a URL (decoded once by the router) → the title. It is a sub_url: a leading
 * `.-` keeps dashes, otherwise dashes are spaces; a remaining %XX escape is decoded once more, as
 * Gitea does, so both `/wiki/page/A%2FB` and a client that escaped the sub_url again
 * (`/wiki/page/A%252FB`) reach the legacy page `A/B`. Surrounding spaces are dropped.
 */
export function titleFromParam(param: string): string {
  let title = unmarked(param);
  title = (pathUnescape(title) ?? title).trim();
  if (!title) throw ApiError.notFound('wiki page does not exist');
  checkTitle(title);
  return title;
}

/** Gitea's sub_url (web path) of a title: `Some-Page`, `.-a-b`, `A%2FB`. */
export function subUrlOf(title: string): string {
  return pathEscape(marked(title));
}

/** The file in the wiki's root tree that holds a title's page. */
export function fileOf(title: string): string {
  return `${pathEscape(marked(title)).replace(/%20/g, ' ')}.md`;
}

/** The title of a root-tree file name, or null when the file is not a page (not `.md`, or an invalid escape). */
export function titleOfFile(name: string): string | null {
  if (!name.endsWith('.md') || name.length === 3 || name.includes('/')) return null;
  const title = pathUnescape(unmarked(name.slice(0, -3)));
  return title && title.trim() ? title : null;
}
