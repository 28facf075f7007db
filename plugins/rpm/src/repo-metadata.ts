import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { RpmDependency, RpmPackageMetadata } from './rpm-metadata';

/** XML text and attribute values; characters XML 1.0 cannot carry at all are dropped. */
export function xml(value: string | number): string {
  return String(value)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** The per-package pieces of the three metadata files, computed once at upload. */
export interface PackageFragments {
  primary: string;
  filelists: string;
  other: string;
}

/** Where the stored file is and what it is: computed after the upload, when its bytes are final. */
export interface StoredRpm {
  /** sha256 of the stored .rpm (createrepo's pkgid). */
  sha256: string;
  size: number;
  /** `location href`, relative to the repository's baseurl. */
  href: string;
  /** When the file was stored (unix seconds). */
  time: number;
}

function versionElement(m: RpmPackageMetadata): string {
  return `<version epoch="${xml(m.epoch)}" ver="${xml(m.version)}" rel="${xml(m.release)}"/>`;
}

function dependencyList(element: string, deps: RpmDependency[]): string {
  if (!deps.length) return '';
  const entries = deps.map((d) => {
    let attrs = `name="${xml(d.name)}"`;
    if (d.flags) {
      attrs += ` flags="${d.flags}" epoch="${xml(d.epoch ?? '0')}" ver="${xml(d.version ?? '')}"`;
      if (d.release !== undefined) attrs += ` rel="${xml(d.release)}"`;
    }
    if (d.pre) attrs += ' pre="1"';
    return `<rpm:entry ${attrs}/>`;
  });
  return `<rpm:${element}>${entries.join('')}</rpm:${element}>`;
}

/** The files createrepo lists in primary.xml too (dnf resolves file requirements on them without filelists). */
function isPrimaryFile(path: string): boolean {
  return path.startsWith('/etc/') || path.includes('bin/') || path === '/usr/lib/sendmail';
}

function fileElement(f: { path: string; type: string }): string {
  return f.type === 'file' ? `<file>${xml(f.path)}</file>` : `<file type="${f.type}">${xml(f.path)}</file>`;
}

export function packageFragments(m: RpmPackageMetadata, stored: StoredRpm): PackageFragments {
  const ids = `pkgid="${stored.sha256}" name="${xml(m.name)}" arch="${xml(m.arch)}"`;
  const primary = [
    '<package type="rpm">',
    `<name>${xml(m.name)}</name><arch>${xml(m.arch)}</arch>${versionElement(m)}`,
    `<checksum type="sha256" pkgid="YES">${stored.sha256}</checksum>`,
    `<summary>${xml(m.summary)}</summary><description>${xml(m.description)}</description>`,
    `<packager>${xml(m.packager)}</packager><url>${xml(m.url)}</url>`,
    `<time file="${stored.time}" build="${m.buildTime}"/>`,
    `<size package="${stored.size}" installed="${m.installedSize}" archive="${m.archiveSize}"/>`,
    `<location href="${xml(stored.href)}"/>`,
    '<format>',
    `<rpm:license>${xml(m.license)}</rpm:license><rpm:vendor>${xml(m.vendor)}</rpm:vendor><rpm:group>${xml(m.group)}</rpm:group>`,
    `<rpm:buildhost>${xml(m.buildHost)}</rpm:buildhost><rpm:sourcerpm>${xml(m.sourceRpm)}</rpm:sourcerpm>`,
    `<rpm:header-range start="${m.headerStart}" end="${m.headerEnd}"/>`,
    dependencyList('provides', m.provides),
    dependencyList('requires', m.requires),
    dependencyList('conflicts', m.conflicts),
    dependencyList('obsoletes', m.obsoletes),
    dependencyList('recommends', m.recommends),
    dependencyList('suggests', m.suggests),
    dependencyList('supplements', m.supplements),
    dependencyList('enhances', m.enhances),
    m.files
      .filter((f) => isPrimaryFile(f.path))
      .map(fileElement)
      .join(''),
    '</format>',
    '</package>\n',
  ].join('');
  const filelists = `<package ${ids}>${versionElement(m)}${m.files.map(fileElement).join('')}</package>\n`;
  const changelogs = m.changelogs.map((c) => `<changelog author="${xml(c.author)}" date="${c.date}">${xml(c.text)}</changelog>`).join('');
  const other = `<package ${ids}>${versionElement(m)}${changelogs}</package>\n`;
  return { primary, filelists, other };
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

const DOCUMENTS = {
  primary: (n: number) =>
    `<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="${n}">\n`,
  filelists: (n: number) => `<filelists xmlns="http://linux.duke.edu/metadata/filelists" packages="${n}">\n`,
  other: (n: number) => `<otherdata xmlns="http://linux.duke.edu/metadata/other" packages="${n}">\n`,
} as const;
const CLOSING = { primary: '</metadata>\n', filelists: '</filelists>\n', other: '</otherdata>\n' } as const;

export type DataType = keyof typeof DOCUMENTS;
export const DATA_TYPES: DataType[] = ['primary', 'filelists', 'other'];

/** One generated, immutable metadata file. */
export interface DataFile {
  type: DataType;
  /** `<sha256>-<type>.xml.gz`: a new name for new content, so caches never mix generations. */
  name: string;
  gz: Buffer;
  sha256: string;
  openSha256: string;
  openSize: number;
}

const sha256 = (data: Buffer | string) => crypto.createHash('sha256').update(data).digest('hex');

/** Build one of primary/filelists/other from the packages' fragments. */
export function dataFile(type: DataType, fragments: string[]): DataFile {
  const open = Buffer.from(`${XML_DECLARATION}${DOCUMENTS[type](fragments.length)}${fragments.join('')}${CLOSING[type]}`, 'utf8');
  const gz = zlib.gzipSync(open, { level: 6 });
  const gzSha = sha256(gz);
  return { type, name: `${gzSha}-${type}.xml.gz`, gz, sha256: gzSha, openSha256: sha256(open), openSize: open.length };
}

/** repomd.xml naming the data files; `revision`/`timestamp` are the generation's time. */
export function repomd(files: DataFile[], revision: number): string {
  const data = files.map((f) =>
    [
      `  <data type="${f.type}">`,
      `    <checksum type="sha256">${f.sha256}</checksum>`,
      `    <open-checksum type="sha256">${f.openSha256}</open-checksum>`,
      `    <location href="repodata/${f.name}"/>`,
      `    <timestamp>${revision}</timestamp>`,
      `    <size>${f.gz.length}</size>`,
      `    <open-size>${f.openSize}</open-size>`,
      '  </data>',
    ].join('\n'),
  );
  return [
    XML_DECLARATION.trimEnd(),
    '<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">',
    `  <revision>${revision}</revision>`,
    ...data,
    '</repomd>',
    '',
  ].join('\n');
}
