import { ApiError } from '@hearth/plugin-api';

/**
 * Wiki page names, as Gitea 1.20 maps them (services/wiki/wiki_path.go):
 *
 * - title  — what people read: `Some Page`, `a-b c`, `A/B` (legacy);
 * - sub_url (Gitea's "web path") — what URLs carry: `Some-Page`, `a-b%20c.-`, `A%2FB`;
 * - file   — the blob in the wiki's root tree: `Some-Page.md`, `a-b c.-.md`, `A%2FB.md`.
 *
 * A title without a dash stores its spaces as dashes. A title WITH a dash cannot do that (the
 * dash would read back as a space), so it gets Gitea's "dash marker" suffix `.-` and keeps its
 * spaces: `a-b c` ↔ `a-b c.-.md` ↔ sub_url `a-b%20c.-`. Every other character outside
 * `A-Za-z0-9-_.~$&+:=@` (and the space) is percent-escaped in the file name like Go's
 * url.PathEscape, so a legacy `/` becomes `%2F` and nothing ever names a sub-directory.
 * Deviations: Gitea turns `+` in a file name into a space, Hearth keeps `+` (`C++` ↔ `C++.md`);
 * files an earlier Hearth wrote with the marker as a prefix (`.-a-b c.md`) still read as `a-b c`.
 * A page is also found by its title as written (`/wiki/page/a-b c`), when no page has that web path.
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

/** Gitea's escapeSegToWeb without the final escaping: the dash marker suffix, or spaces as dashes. */
function marked(title: string): string {
  return title.includes('-') || title.endsWith('.md') ? title + DASH_MARKER : title.replace(/ /g, '-');
}

/**
 * A marked segment back to a title (Gitea's unescapeSegment before unescaping). A leading marker
 * without the trailing one is how an earlier Hearth marked dashes: read the same way.
 */
function unmarked(segment: string): string {
  if (segment.endsWith(DASH_MARKER) && segment.length > DASH_MARKER.length) return segment.slice(0, -DASH_MARKER.length);
  if (segment.startsWith(DASH_MARKER)) return segment.slice(DASH_MARKER.length);
  return segment.replace(/-/g, ' ');
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
 * The `{pageName}` of a URL (decoded once by the router) → the title. It is a sub_url: a trailing
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

/**
 * The titles a `{pageName}` may mean, in the order they are tried: the web path's title
 * (titleFromParam), then the name taken as the title itself — so a page created as `a-b c` is
 * found at `/wiki/page/a-b c` too, as clients that read pages back by title expect.
 */
export function titlesFromParam(param: string): string[] {
  const titles = [titleFromParam(param)];
  const literal = (pathUnescape(param) ?? param).trim();
  if (literal && !titles.includes(literal) && !/[\x00-\x1f\x7f]/.test(literal) && !literal.includes('..')) titles.push(literal);
  return titles;
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

/**
 * The root-tree file holding the first of `titles` that has a page: its own file name (fileOf),
 * else a file whose name reads as that title (a legacy spelling, such as an earlier Hearth's prefix marker).
 */
export function findPageFile(fileNames: readonly string[], titles: readonly string[]): { title: string; file: string } | null {
  const names = new Set(fileNames);
  for (const title of titles) {
    if (names.has(fileOf(title))) return { title, file: fileOf(title) };
    const legacy = fileNames.find((name) => titleOfFile(name) === title);
    if (legacy) return { title, file: legacy };
  }
  return null;
}
