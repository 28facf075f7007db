import { HeaderReader, RpmFormatError, type RpmLayout } from './rpm-header';

/** Main header tags the repository metadata needs (rpm's `rpmtag.h`). */
const Tag = {
  Name: 1000,
  Version: 1001,
  Release: 1002,
  Epoch: 1003,
  Summary: 1004,
  Description: 1005,
  BuildTime: 1006,
  BuildHost: 1007,
  Size: 1009,
  Vendor: 1011,
  License: 1014,
  Packager: 1015,
  Group: 1016,
  Url: 1020,
  Arch: 1022,
  FileModes: 1030,
  FileFlags: 1037,
  SourceRpm: 1044,
  ArchiveSize: 1046,
  ProvideName: 1047,
  RequireFlags: 1048,
  RequireName: 1049,
  RequireVersion: 1050,
  ConflictFlags: 1053,
  ConflictName: 1054,
  ConflictVersion: 1055,
  ChangelogTime: 1080,
  ChangelogName: 1081,
  ChangelogText: 1082,
  ObsoleteName: 1090,
  ProvideFlags: 1112,
  ProvideVersion: 1113,
  ObsoleteFlags: 1114,
  ObsoleteVersion: 1115,
  DirIndexes: 1116,
  BaseNames: 1117,
  DirNames: 1118,
  LongSize: 5009,
  LongArchiveSize: 271,
  RecommendName: 5046,
  RecommendVersion: 5047,
  RecommendFlags: 5048,
  SuggestName: 5049,
  SuggestVersion: 5050,
  SuggestFlags: 5051,
  SupplementName: 5052,
  SupplementVersion: 5053,
  SupplementFlags: 5054,
  EnhanceName: 5055,
  EnhanceVersion: 5056,
  EnhanceFlags: 5057,
} as const;

const SENSE_LESS = 0x02;
const SENSE_GREATER = 0x04;
const SENSE_EQUAL = 0x08;
/** Pre-requirements (`Requires(pre)`, `PreReq`, script dependencies): createrepo marks them `pre="1"`. */
const SENSE_PRE = 0x40 | 0x200 | 0x400;
const SENSE_RPMLIB = 0x1000000;
const FILE_GHOST = 0x40;

/** What rpm accepts as names, versions and architectures, narrowed to characters that are safe in a URL path segment. */
export const RPM_NAME = /^[A-Za-z0-9_+][A-Za-z0-9._+~^-]{0,199}$/;
export const RPM_VERSION = /^[A-Za-z0-9._+~^]{1,128}$/;
export const RPM_ARCH = /^[A-Za-z0-9_]{1,32}$/;

export interface RpmDependency {
  name: string;
  /** `EQ`, `LT`, `GT`, `LE`, `GE`, or undefined for an unversioned dependency. */
  flags?: string;
  epoch?: string;
  version?: string;
  release?: string;
  pre?: boolean;
}

export interface RpmFile {
  path: string;
  type: 'file' | 'dir' | 'ghost';
}

export interface RpmChangelog {
  author: string;
  date: number;
  text: string;
}

/** The metadata of one RPM, as createrepo puts it into primary, filelists and other. */
export interface RpmPackageMetadata {
  name: string;
  epoch: string;
  version: string;
  release: string;
  arch: string;
  summary: string;
  description: string;
  packager: string;
  url: string;
  license: string;
  vendor: string;
  group: string;
  buildHost: string;
  sourceRpm: string;
  buildTime: number;
  installedSize: number;
  archiveSize: number;
  headerStart: number;
  headerEnd: number;
  provides: RpmDependency[];
  requires: RpmDependency[];
  conflicts: RpmDependency[];
  obsoletes: RpmDependency[];
  recommends: RpmDependency[];
  suggests: RpmDependency[];
  supplements: RpmDependency[];
  enhances: RpmDependency[];
  files: RpmFile[];
  changelogs: RpmChangelog[];
}

function senseName(flags: number): string | undefined {
  switch (flags & (SENSE_LESS | SENSE_GREATER | SENSE_EQUAL)) {
    case SENSE_EQUAL:
      return 'EQ';
    case SENSE_LESS:
      return 'LT';
    case SENSE_GREATER:
      return 'GT';
    case SENSE_LESS | SENSE_EQUAL:
      return 'LE';
    case SENSE_GREATER | SENSE_EQUAL:
      return 'GE';
    default:
      return undefined;
  }
}

/** `[epoch:]version[-release]` as rpm writes dependency versions. */
export function splitEvr(evr: string): { epoch?: string; version: string; release?: string } {
  let rest = evr;
  let epoch: string | undefined;
  const colon = rest.indexOf(':');
  if (colon >= 0 && /^\d+$/.test(rest.slice(0, colon))) {
    epoch = rest.slice(0, colon);
    rest = rest.slice(colon + 1);
  }
  const dash = rest.lastIndexOf('-');
  if (dash < 0) return { epoch, version: rest };
  return { epoch, version: rest.slice(0, dash), release: rest.slice(dash + 1) };
}

function dependencies(h: HeaderReader, nameTag: number, flagsTag: number, versionTag: number, skipRpmlib = false): RpmDependency[] {
  const names = h.strings(nameTag);
  const flags = h.numbers(flagsTag);
  const versions = h.strings(versionTag);
  const seen = new Set<string>();
  const out: RpmDependency[] = [];
  names.forEach((name, i) => {
    const f = flags[i] ?? 0;
    // rpmlib() and rpm's own file-trigger requirements are for rpm, not for the solver.
    if (skipRpmlib && ((f & SENSE_RPMLIB) !== 0 || name.startsWith('rpmlib('))) return;
    const dep: RpmDependency = { name };
    const sense = senseName(f);
    const evr = versions[i] ?? '';
    if (sense && evr) Object.assign(dep, { flags: sense }, splitEvr(evr));
    if ((f & SENSE_PRE) !== 0) dep.pre = true;
    const key = JSON.stringify(dep);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(dep);
  });
  return out;
}

function files(h: HeaderReader): RpmFile[] {
  const baseNames = h.strings(Tag.BaseNames);
  const dirNames = h.strings(Tag.DirNames);
  const dirIndexes = h.numbers(Tag.DirIndexes);
  const modes = h.numbers(Tag.FileModes);
  const flags = h.numbers(Tag.FileFlags);
  return baseNames.map((base, i) => {
    const dir = dirNames[dirIndexes[i]];
    if (dir === undefined) throw new RpmFormatError('a file of the package names a directory that does not exist');
    let type: RpmFile['type'] = 'file';
    if (((flags[i] ?? 0) & FILE_GHOST) !== 0) type = 'ghost';
    else if (((modes[i] ?? 0) & 0o170000) === 0o040000) type = 'dir';
    return { path: dir + base, type };
  });
}

function changelogs(h: HeaderReader): RpmChangelog[] {
  const times = h.numbers(Tag.ChangelogTime);
  const names = h.strings(Tag.ChangelogName);
  const texts = h.strings(Tag.ChangelogText);
  return times.map((date, i) => ({ date, author: names[i] ?? '', text: texts[i] ?? '' }));
}

/** Pull the repository metadata out of an RPM's main header; the name, version, release and arch must be safe path segments. */
export function packageMetadata(layout: RpmLayout): RpmPackageMetadata {
  const h = new HeaderReader(layout.main);
  const name = h.string(Tag.Name);
  const version = h.string(Tag.Version);
  const release = h.string(Tag.Release);
  if (!name || !version || !release) throw new RpmFormatError('the RPM header has no name, version or release');
  if (!RPM_NAME.test(name)) throw new RpmFormatError(`invalid package name "${name}"`);
  if (!RPM_VERSION.test(version)) throw new RpmFormatError(`invalid package version "${version}"`);
  if (!RPM_VERSION.test(release)) throw new RpmFormatError(`invalid package release "${release}"`);
  const sourceRpm = h.string(Tag.SourceRpm) ?? '';
  // A source package has no SOURCERPM tag; its header arch is the build arch.
  const arch = h.has(Tag.SourceRpm) ? (h.string(Tag.Arch) ?? '') : 'src';
  if (!RPM_ARCH.test(arch)) throw new RpmFormatError(`invalid package architecture "${arch}"`);
  const epochNumber = h.number(Tag.Epoch);
  return {
    name,
    version,
    release,
    arch,
    sourceRpm,
    epoch: String(epochNumber ?? 0),
    summary: h.string(Tag.Summary) ?? '',
    description: h.string(Tag.Description) ?? '',
    packager: h.string(Tag.Packager) ?? '',
    url: h.string(Tag.Url) ?? '',
    license: h.string(Tag.License) ?? '',
    vendor: h.string(Tag.Vendor) ?? '',
    group: h.string(Tag.Group) ?? '',
    buildHost: h.string(Tag.BuildHost) ?? '',
    buildTime: h.number(Tag.BuildTime) ?? 0,
    installedSize: h.number(Tag.LongSize) ?? h.number(Tag.Size) ?? 0,
    archiveSize: h.number(Tag.LongArchiveSize) ?? h.number(Tag.ArchiveSize) ?? 0,
    headerStart: layout.main.start,
    headerEnd: layout.main.end,
    provides: dependencies(h, Tag.ProvideName, Tag.ProvideFlags, Tag.ProvideVersion),
    requires: dependencies(h, Tag.RequireName, Tag.RequireFlags, Tag.RequireVersion, true),
    conflicts: dependencies(h, Tag.ConflictName, Tag.ConflictFlags, Tag.ConflictVersion),
    obsoletes: dependencies(h, Tag.ObsoleteName, Tag.ObsoleteFlags, Tag.ObsoleteVersion),
    recommends: dependencies(h, Tag.RecommendName, Tag.RecommendFlags, Tag.RecommendVersion),
    suggests: dependencies(h, Tag.SuggestName, Tag.SuggestFlags, Tag.SuggestVersion),
    supplements: dependencies(h, Tag.SupplementName, Tag.SupplementFlags, Tag.SupplementVersion),
    enhances: dependencies(h, Tag.EnhanceName, Tag.EnhanceFlags, Tag.EnhanceVersion),
    files: files(h),
    changelogs: changelogs(h),
  };
}

/** The version the package registry stores: `[epoch:]version-release` (the epoch only when set). */
export function registryVersion(m: Pick<RpmPackageMetadata, 'epoch' | 'version' | 'release'>): string {
  return `${m.epoch !== '0' ? `${m.epoch}:` : ''}${m.version}-${m.release}`;
}

/** The conventional file name, `name-version-release.arch.rpm`. */
export function rpmFileName(m: Pick<RpmPackageMetadata, 'name' | 'version' | 'release' | 'arch'>): string {
  return `${m.name}-${m.version}-${m.release}.${m.arch}.rpm`;
}
