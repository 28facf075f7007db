/**
 * A small EditorConfig reader (https://spec.editorconfig.org): INI-style sections whose names are
 * globs (`*`, `**`, `?`, `[abc]`, `[!abc]`, `{a,b}`, `{1..10}`, `\` escapes), matched against a
 * path relative to the file's directory — later sections override earlier ones. Only the
 * repository root's `.editorconfig` is read, as Gitea does.
 */

export interface EditorConfigSection {
  glob: string;
  properties: Record<string, string>;
}

export interface EditorConfigFile {
  root: boolean;
  sections: EditorConfigSection[];
}

/** Properties whose values are case-insensitive (lower-cased, as the spec says). */
const KNOWN = new Set([
  'indent_style',
  'indent_size',
  'tab_width',
  'end_of_line',
  'charset',
  'trim_trailing_whitespace',
  'insert_final_newline',
  'root',
]);
const MAX_SECTION_NAME = 4096;
const MAX_KEY = 1024;
const MAX_VALUE = 4096;

export function parseEditorConfig(text: string): EditorConfigFile {
  const file: EditorConfigFile = { root: false, sections: [] };
  let current: EditorConfigSection | null = null;
  for (const rawLine of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      const glob = line.slice(1, -1);
      // Null-prototype maps: a key such as `__proto__` is only ever a property name.
      current = { glob: glob.length <= MAX_SECTION_NAME ? glob : '', properties: Object.create(null) as Record<string, string> };
      if (current.glob) file.sections.push(current); // an over-long name's section is ignored, its properties swallowed
      continue;
    }
    const eq = line.search(/[=:]/);
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim().toLowerCase();
    let value = line.slice(eq + 1).trim();
    if (key.length > MAX_KEY || value.length > MAX_VALUE) continue;
    if (KNOWN.has(key)) value = value.toLowerCase();
    if (!current) {
      if (key === 'root') file.root = value === 'true';
      continue;
    }
    current.properties[key] = value;
  }
  return file;
}

interface CompiledGlob {
  regex: RegExp;
  /** Numeric `{a..b}` ranges, one per capture group, in order. */
  ranges: Array<[number, number]>;
}

function escapeRegex(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}

/** Index of the `}` closing the `{` at `start`, or -1. */
function closingBrace(glob: string, start: number): number {
  let depth = 0;
  for (let i = start; i < glob.length; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Split a brace body at top-level commas. */
function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\') i++;
    else if (body[i] === '{') depth++;
    else if (body[i] === '}') depth--;
    else if (body[i] === ',' && depth === 0) {
      parts.push(body.slice(last, i));
      last = i + 1;
    }
  }
  parts.push(body.slice(last));
  return parts;
}

function translate(glob: string, ranges: Array<[number, number]>): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '\\') {
      if (i + 1 < glob.length) out += escapeRegex(glob[++i]);
      else out += '\\\\';
    } else if (ch === '*') {
      if (glob[i + 1] === '*') {
        // `**/` may match no directory at all; a bare `**` anything, slashes included.
        if (glob[i + 2] === '/' && (i === 0 || glob[i - 1] === '/')) {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (ch === '?') out += '[^/]';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      const body = end > 0 ? glob.slice(i + 1, end) : '';
      if (end < 0 || body.includes('/')) out += '\\[';
      else {
        const negate = body.startsWith('!') || body.startsWith('^');
        const chars = (negate ? body.slice(1) : body).replace(/[\\\]^]/g, (c) => `\\${c}`);
        out += negate ? `[^/${chars}]` : `[${chars}]`;
        i = end;
      }
    } else if (ch === '{') {
      const end = closingBrace(glob, i);
      if (end < 0) {
        out += '\\{';
        continue;
      }
      const body = glob.slice(i + 1, end);
      const range = /^([+-]?\d+)\.\.([+-]?\d+)$/.exec(body);
      const alternatives = splitAlternatives(body);
      if (range) {
        const a = Number(range[1]);
        const b = Number(range[2]);
        ranges.push([Math.min(a, b), Math.max(a, b)]);
        out += '([+-]?\\d+)';
      } else if (alternatives.length > 1) {
        out += `(?:${alternatives.map((alt) => translate(alt, ranges)).join('|')})`;
      } else out += `\\{${translate(body, ranges)}\\}`;
      i = end;
    } else out += escapeRegex(ch);
  }
  return out;
}

const compiled = new Map<string, CompiledGlob>();

/** A section glob as a matcher of root-relative paths: globs without a '/' match at any depth. */
export function compileGlob(glob: string): CompiledGlob {
  const known = compiled.get(glob);
  if (known) return known;
  const ranges: Array<[number, number]> = [];
  let pattern = glob;
  const anchored = pattern.replace(/\[[^\]]*\]/g, '').includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  const body = translate(pattern, ranges);
  const result = { regex: new RegExp(`^${anchored ? '' : '(?:.*/)?'}${body}$`), ranges };
  if (compiled.size > 1000) compiled.clear();
  compiled.set(glob, result);
  return result;
}

export function globMatches(glob: string, path: string): boolean {
  const { regex, ranges } = compileGlob(glob);
  const m = regex.exec(path);
  if (!m) return false;
  return ranges.every(([min, max], i) => {
    const n = Number(m[i + 1]);
    return n >= min && n <= max;
  });
}

/** The properties that apply to `path`, after the spec's defaults (indent_size/tab_width). */
export function propertiesFor(file: EditorConfigFile, path: string): Record<string, string> {
  const props = Object.create(null) as Record<string, string>;
  for (const section of file.sections) {
    if (!section.glob || !globMatches(section.glob, path)) continue;
    for (const [key, value] of Object.entries(section.properties)) {
      if (value === 'unset') delete props[key];
      else props[key] = value;
    }
  }
  if (props.indent_style === 'tab' && props.indent_size === undefined) props.indent_size = 'tab';
  if (props.indent_size !== undefined && props.indent_size !== 'tab' && props.tab_width === undefined) props.tab_width = props.indent_size;
  if (props.indent_size === 'tab' && props.tab_width !== undefined) props.indent_size = props.tab_width;
  return props;
}

/**
 * The JSON Gitea answers (editorconfig-core-go's Definition: charset, indent_style, indent_size and
 * end_of_line as strings), plus tab_width, trim_trailing_whitespace and insert_final_newline when set.
 */
export function definitionJson(props: Record<string, string>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const key of ['charset', 'indent_style', 'indent_size', 'end_of_line']) if (props[key]) out[key] = props[key];
  const tabWidth = Number(props.tab_width);
  if (props.tab_width && Number.isInteger(tabWidth) && tabWidth > 0) out.tab_width = tabWidth;
  for (const key of ['trim_trailing_whitespace', 'insert_final_newline']) {
    if (props[key] === 'true' || props[key] === 'false') out[key] = props[key] === 'true';
  }
  return out;
}
