/**
 * Go's rules for module paths, file paths inside module zips and module versions, as the Go
 * Modules Reference and golang.org/x/mod/module describe them. Each check returns an error
 * message, or null when the value is valid.
 */

/** The package framework stores names and versions in 255-character columns. */
export const MAX_PATH_LENGTH = 255;

const WINDOWS_RESERVED = new Set(['CON', 'PRN', 'AUX', 'NUL', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`COM${n}`, `LPT${n}`])]);
/** ASCII punctuation allowed in file names (besides letters, digits and space). */
const FILE_PUNCTUATION = new Set([...'!#$%&()+,-.=@[]^_{}~ ']);
const MODULE_ELEMENT = /^[A-Za-z0-9._~-]+$/;
const FIRST_ELEMENT = /^[a-z0-9.-]+$/;

const IDENT = '(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)';
/** A canonical semantic version as Go writes it: `v` prefix, all three numbers, no build metadata but `+incompatible`. */
const CANONICAL_VERSION = new RegExp(`^v(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-${IDENT}(\\.${IDENT})*)?(\\+incompatible)?$`);
/** x/mod/module's pseudo-version shape: a base version, a 14-digit UTC time and a 12-character commit prefix. */
const PSEUDO_VERSION = /^v[0-9]+\.(0\.0-|\d+\.\d+-([^+]*\.)?0\.)\d{14}-[A-Za-z0-9]+(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

function isFileNameChar(ch: string): boolean {
  if (ch.length === 1 && ch.charCodeAt(0) < 0x80) return /[A-Za-z0-9]/.test(ch) || FILE_PUNCTUATION.has(ch);
  return /^\p{L}$/u.test(ch);
}

/** Rules every path element shares: not empty, not dots only, no trailing dot, no Windows-reserved or short (`NAME~1`) names. */
function checkElement(elem: string, kind: 'module' | 'file'): string | null {
  if (elem === '') return 'empty path element';
  if (/^\.+$/.test(elem)) return `invalid path element "${elem}"`;
  if (kind === 'module' && elem.startsWith('.')) return `leading dot in path element "${elem}"`;
  if (elem.endsWith('.')) return `trailing dot in path element "${elem}"`;
  if (kind === 'module' && !MODULE_ELEMENT.test(elem))
    return `invalid character in path element "${elem}" (module paths allow ` + `ASCII letters, digits and - . _ ~)`;
  if (kind === 'file') {
    for (const ch of elem) if (!isFileNameChar(ch)) return `invalid character ${JSON.stringify(ch)} in file name "${elem}"`;
  }
  const short = elem.split('.')[0];
  if (WINDOWS_RESERVED.has(short.toUpperCase())) return `"${elem}" is a reserved file name on Windows`;
  const tilde = short.lastIndexOf('~');
  if (tilde >= 0 && tilde < short.length - 1 && /^\d+$/.test(short.slice(tilde + 1)))
    return `path element "${elem}" looks like ` + `a Windows short name (trailing tilde and digits)`;
  return null;
}

/**
 * The major version suffix of a module path: `/vN` (N ≥ 2), gopkg.in's `.vN`, or '' for none;
 * null when it is malformed (`/v0`, `/v1`, `/v02`).
 */
export function pathMajor(modulePath: string): string | null {
  if (modulePath.startsWith('gopkg.in/')) {
    const m = /\.(v(0|[1-9]\d*))(-unstable)?$/.exec(modulePath);
    return m ? m[0] : null;
  }
  const m = /\/v([0-9.]+)$/.exec(modulePath);
  if (!m) return '';
  const digits = m[1];
  if (digits.includes('.') || digits.startsWith('0') || digits === '1') return null;
  return `/v${digits}`;
}

/** Go's module path rules (x/mod/module.CheckPath). */
export function checkModulePath(modulePath: string): string | null {
  if (!modulePath) return 'empty module path';
  if (modulePath.length > MAX_PATH_LENGTH) return `module path is longer than ${MAX_PATH_LENGTH} characters`;
  const elements = modulePath.split('/');
  const first = elements[0];
  if (!first.includes('.')) return `malformed module path "${modulePath}": missing dot in first path element`;
  if (!FIRST_ELEMENT.test(first))
    return (
      `malformed module path "${modulePath}": the first path element may hold only ` + `lower-case ASCII letters, digits, dots and dashes`
    );
  if (first.startsWith('-')) return `malformed module path "${modulePath}": leading dash in first path element`;
  for (const elem of elements) {
    const problem = checkElement(elem, 'module');
    if (problem) return `malformed module path "${modulePath}": ${problem}`;
  }
  if (pathMajor(modulePath) === null)
    return (
      `malformed module path "${modulePath}": invalid major version suffix (use /v2 or ` + `higher, no leading zeros; v0 and v1 have none)`
    );
  return null;
}

/** Go's rules for a file path inside a module (x/mod/module.CheckFilePath), relative to `module@version/`. */
export function checkFilePath(file: string): string | null {
  if (file.startsWith('/')) return 'leading slash';
  if (file.includes('\\')) return 'backslash in path';
  for (const elem of file.split('/')) {
    const problem = checkElement(elem, 'file');
    if (problem) return problem;
  }
  return null;
}

export function isCanonicalVersion(version: string): boolean {
  return version.length <= MAX_PATH_LENGTH && CANONICAL_VERSION.test(version);
}

export function isPseudoVersion(version: string): boolean {
  return PSEUDO_VERSION.test(version) && isCanonicalVersion(version.replace(/\+incompatible$/, ''));
}

export function majorOf(version: string): number {
  return Number(/^v(\d+)/.exec(version)?.[1] ?? NaN);
}

/**
 * Whether `version` suits `modulePath` (x/mod/module.CheckPathMajor): v0/v1 without a suffix,
 * vN with `/vN` (gopkg.in: `.vN`), and v2+ without a suffix only as `+incompatible`.
 */
export function checkVersionForPath(modulePath: string, version: string): string | null {
  if (!isCanonicalVersion(version)) {
    return (
      `invalid version "${version}": a module version is a canonical semantic version with a v prefix (v1.2.3, ` +
      `v1.2.3-rc.1), without build metadata except +incompatible`
    );
  }
  const suffix = pathMajor(modulePath) ?? '';
  const major = majorOf(version);
  const incompatible = version.endsWith('+incompatible');
  if (suffix === '') {
    if (incompatible && major < 2) return `invalid version "${version}": +incompatible is only for major versions 2 and above`;
    if (major >= 2 && !incompatible)
      return (
        `invalid version "${version}": module path "${modulePath}" has no /v${major} suffix ` +
        `(a v${major} module's path ends in /v${major})`
      );
    return null;
  }
  if (incompatible)
    return (
      `invalid version "${version}": +incompatible is not allowed for module path "${modulePath}", which ` + `has a major version suffix`
    );
  const wanted = suffix.replace(/^[./]v/, '').replace(/-unstable$/, '');
  if (suffix.startsWith('.') && wanted === '1' && version.startsWith('v0.0.0-')) return null;
  if (String(major) !== wanted) return `invalid version "${version}": module path "${modulePath}" needs major version v${wanted}`;
  return null;
}

/**
 * The case encoding of module paths and versions in proxy URLs (x/mod/module.UnescapePath):
 * `!x` stands for `X`; an upper-case letter or a `!` before anything but a-z is invalid (null).
 */
export function decodeCase(escaped: string): string | null {
  let out = '';
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped[i];
    if (ch >= 'A' && ch <= 'Z') return null;
    if (ch === '!') {
      const next = escaped[i + 1];
      if (!next || next < 'a' || next > 'z') return null;
      out += next.toUpperCase();
      i++;
    } else {
      out += ch;
    }
  }
  return out;
}

/** The inverse of decodeCase, for the URLs a client asks for. */
export function encodeCase(value: string): string {
  return value.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}
