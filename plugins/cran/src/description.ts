import { ApiError } from '@hearth/plugin-api';

/**
 * R's DESCRIPTION files and PACKAGES indexes are DCF ("Debian control file") records: `Field:
 * value` lines, continuation lines indented, records separated by blank lines.
 */
export type DcfRecord = Record<string, string>;

/** Package names as R accepts them: letters, digits and dots, starting with a letter, not ending with a dot. */
export const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$/;
/** R versions: at least two non-negative integers separated by `.` or `-` (any number of components). */
export const PACKAGE_VERSION = /^\d+([.-]\d+)+$/;

/** Fields a PACKAGES record carries, in the order R's own write_PACKAGES writes them. */
export const INDEX_FIELDS = [
  'Package',
  'Version',
  'Priority',
  'Depends',
  'Imports',
  'LinkingTo',
  'Suggests',
  'Enhances',
  'License',
  'License_is_FOSS',
  'License_restricts_use',
  'OS_type',
  'Archs',
  'MD5sum',
  'NeedsCompilation',
] as const;

/** Fields kept from DESCRIPTION (the index fields, plus what the package API shows). */
const KEPT_FIELDS = new Set<string>([
  ...INDEX_FIELDS,
  'Title',
  'Description',
  'Author',
  'Authors@R',
  'Maintainer',
  'URL',
  'BugReports',
  'Built',
  'Packaged',
  'Encoding',
]);

/** The first record of a DCF text; field names keep their case. */
export function parseDcf(text: string): DcfRecord {
  const record: DcfRecord = {};
  let current: string | undefined;
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*$/.test(raw)) {
      if (Object.keys(record).length) break;
      continue;
    }
    if (/^[ \t]/.test(raw)) {
      if (current === undefined) throw ApiError.badRequest('DESCRIPTION: a continuation line before any field');
      record[current] += `\n${raw.trim()}`;
      continue;
    }
    const m = /^([^\s:]+):[ \t]*(.*)$/.exec(raw);
    if (!m) throw ApiError.badRequest(`DESCRIPTION: malformed line "${raw.slice(0, 80)}"`);
    current = m[1];
    if (current in record) throw ApiError.badRequest(`DESCRIPTION: the field ${current} appears twice`);
    record[current] = m[2].trimEnd();
  }
  return record;
}

/** DESCRIPTION bytes as text: UTF-8, or Latin-1 when the file says so (R's default for old packages). */
export function decodeDescription(bytes: Buffer): string {
  const utf8 = bytes.toString('utf8');
  if (!utf8.includes('\ufffd')) return utf8;
  const latin1 = bytes.toString('latin1');
  if (/^Encoding:\s*(latin1|ISO-8859-1)\s*$/im.test(latin1)) return latin1;
  throw ApiError.badRequest('DESCRIPTION is not valid UTF-8 and declares no Latin-1 encoding');
}

export interface PackageDescription {
  name: string;
  version: string;
  /** The kept fields, values with continuation lines folded into single spaces for the dependency fields. */
  fields: DcfRecord;
}

const FOLDED = new Set(['Depends', 'Imports', 'LinkingTo', 'Suggests', 'Enhances', 'License', 'Archs', 'OS_type']);

/** Check a DESCRIPTION record and keep what the index and the API need. */
export function describePackage(record: DcfRecord, kind: 'source' | 'binary'): PackageDescription {
  const name = record.Package;
  const version = record.Version;
  if (!name) throw ApiError.badRequest('DESCRIPTION has no Package field');
  if (!PACKAGE_NAME.test(name) || name.length > 128)
    throw ApiError.badRequest(`invalid package name "${name.slice(0, 130)}": letters, digits and dots, starting with a letter`);
  if (!version) throw ApiError.badRequest('DESCRIPTION has no Version field');
  if (!PACKAGE_VERSION.test(version) || version.length > 64)
    throw ApiError.badRequest(`invalid package version "${version.slice(0, 70)}": integers separated by . or -`);
  if (kind === 'binary' && !record.Built)
    throw ApiError.badRequest('DESCRIPTION has no Built field: this is not a binary package (build it with R CMD INSTALL --build)');
  const fields: DcfRecord = {};
  for (const [key, value] of Object.entries(record)) {
    if (!KEPT_FIELDS.has(key)) continue;
    fields[key] = FOLDED.has(key) ? value.replace(/\s*\n\s*/g, ' ') : value.slice(0, 10_000);
  }
  return { name, version, fields };
}

/** R's compareVersion: numeric components split on `.` and `-`. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (i >= pa.length) return -1;
    if (i >= pb.length) return 1;
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return 0;
}

/** One PACKAGES record (no trailing blank line). */
export function formatDcf(record: DcfRecord): string {
  return Object.entries(record)
    .map(
      ([key, value]) =>
        `${key}: ${value
          .split('\n')
          .map((line, i) => (i === 0 ? line : `        ${line || '.'}`))
          .join('\n')}`,
    )
    .join('\n');
}
