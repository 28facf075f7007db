import { declaredModulePath } from './go-mod';
import { checkFilePath, checkModulePath, checkVersionForPath } from './module-path';
import { ArchiveError, ZipFile, type ZipEntry } from '@hearth/package-kit';

/** x/mod/zip's limits. */
export const MAX_ZIP_FILE = 500 << 20;
export const MAX_GO_MOD = 16 << 20;
export const MAX_LICENSE = 16 << 20;

/** A module zip that breaks the module zip rules: answered 400 with every problem found (up to a few). */
export class ModuleZipError extends Error {}

export interface ModuleZipContents {
  modulePath: string;
  version: string;
  /** The exact bytes of the root go.mod, or null when the module has none. */
  goMod: Buffer | null;
  fileCount: number;
  uncompressedSize: number;
}

const UNIX_REGULAR = 0o100000;
const UNIX_DIRECTORY = 0o040000;
const MAX_REPORTED = 8;

/**
 * Whether a path holds a vendored package, which Go's zip producers leave out (x/mod/zip's rule,
 * kept exactly, including its historical offset for nested vendor directories: changing it would
 * change which files module checksums cover).
 */
export function isVendoredPackage(file: string): boolean {
  let i: number;
  if (file.startsWith('vendor/')) i = 'vendor/'.length;
  else if (file.includes('/vendor/')) i = '/vendor/'.length;
  else return false;
  return file.slice(i).includes('/');
}

/** A case-folding key close to Go's simple folding (K and the Kelvin sign, ſ and s fold together). */
function foldKey(file: string): string {
  let out = '';
  for (const ch of file) {
    const upper = ch.toUpperCase();
    out += ([...upper].length === 1 ? upper : ch).toLowerCase();
  }
  return out;
}

/** Files and the directories they imply must not collide under case folding. */
export class CollisionCheck {
  private readonly seen = new Map<string, { path: string; dir: boolean }>();

  /** The earlier path `file` collides with, or null. */
  add(file: string, dir: boolean): string | null {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) {
      const clash = this.record(parts.slice(0, i).join('/'), true);
      if (clash) return clash;
    }
    return this.record(file, dir);
  }

  private record(file: string, dir: boolean): string | null {
    const key = foldKey(file);
    const prior = this.seen.get(key);
    if (prior) return prior.path === file && prior.dir && dir ? null : prior.path;
    this.seen.set(key, { path: file, dir });
    return null;
  }
}

/** `module@version/` from the first entry: module paths have no '@', versions no '/'. */
function prefixOf(entries: ZipEntry[]): { modulePath: string; version: string; prefix: string } {
  const first = entries.find((e) => e.name.includes('@'))?.name;
  if (first === undefined)
    throw new ModuleZipError(
      'the zip holds nothing under "module@version/": a module zip holds the ' + "module's files under its path and version",
    );
  const at = first.indexOf('@');
  const slash = at < 0 ? -1 : first.indexOf('/', at);
  if (at <= 0 || slash < 0)
    throw new ModuleZipError(
      `"${first}" is not under "module@version/": a module zip holds the ` + `module's files under its path and version`,
    );
  const modulePath = first.slice(0, at);
  const version = first.slice(at + 1, slash);
  const problem = checkModulePath(modulePath) ?? checkVersionForPath(modulePath, version);
  if (problem) throw new ModuleZipError(problem);
  return { modulePath, version, prefix: first.slice(0, slash + 1) };
}

/** The problem with one entry's path and kind, or null. */
function checkEntry(entry: ZipEntry, prefix: string, collisions: CollisionCheck): string | null {
  if (!entry.utf8) return `file name ${JSON.stringify(entry.rawName.toString('latin1'))} is not valid UTF-8 (module zips use UTF-8 names)`;
  if (entry.encrypted) return `"${entry.name}": encrypted entries are not supported`;
  if (entry.method !== 0 && entry.method !== 8)
    return `"${entry.name}": compression method ${entry.method} is not supported (only stored and deflated)`;
  if (!entry.name.startsWith(prefix)) return `"${entry.name}" is not under "${prefix}"`;
  let file = entry.name.slice(prefix.length);
  if (file === '') return null;
  const dir = file.endsWith('/');
  if (dir) file = file.slice(0, -1);
  if (file.split('/').some((e) => e === '' || e === '.' || e === '..')) return `"${entry.name}": path is not clean`;
  const bad = checkFilePath(file);
  if (bad) return `"${entry.name}": ${bad}`;
  if (entry.unixType !== 0 && entry.unixType !== (dir ? UNIX_DIRECTORY : UNIX_REGULAR))
    return `"${entry.name}": not a regular ` + `file (symbolic links and special files are not part of a module)`;
  const clash = collisions.add(file, dir);
  if (clash) return `"${file}" collides with "${clash}" (paths must differ under case folding)`;
  if (dir) return null;
  const base = file.slice(file.lastIndexOf('/') + 1);
  if (foldKey(base) === 'go.mod' && file !== 'go.mod') {
    if (base !== 'go.mod') return `"${file}": go.mod must be named exactly "go.mod"`;
    return `"${file}": go.mod only at the module root (a sub-directory with its own go.mod is another module)`;
  }
  if (isVendoredPackage(file)) return `"${file}": vendored packages are not part of a module zip`;
  if (file === 'go.mod' && entry.uncompressedSize > MAX_GO_MOD) return `go.mod is larger than ${MAX_GO_MOD} bytes`;
  if (file === 'LICENSE' && entry.uncompressedSize > MAX_LICENSE) return `LICENSE is larger than ${MAX_LICENSE} bytes`;
  return null;
}

/**
 * Check a module zip on disk against the module zip rules (golang.org/x/mod/zip): every path
 * under `module@version/` with a valid module path and a canonical version that fits its major
 * version suffix; clean, portable file names; no case-fold collisions; go.mod only at the root;
 * no vendored packages, symbolic links or nested module files; size limits; every entry's data
 * matching its declared size and CRC-32. Throws ModuleZipError (400) otherwise.
 */
export async function readModuleZip(file: string, maxZipSize = MAX_ZIP_FILE): Promise<ModuleZipContents> {
  let zip: ZipFile;
  try {
    zip = await ZipFile.open(file);
  } catch (err) {
    if (err instanceof ArchiveError) throw new ModuleZipError(err.message);
    throw err;
  }
  try {
    if (zip.size > maxZipSize) throw new ModuleZipError(`the module zip is larger than ${maxZipSize} bytes`);
    const { modulePath, version, prefix } = prefixOf(zip.entries);
    const problems: string[] = [];
    const collisions = new CollisionCheck();
    let total = 0;
    let goModEntry: ZipEntry | null = null;
    const files: ZipEntry[] = [];
    for (const entry of zip.entries) {
      const problem = checkEntry(entry, prefix, collisions);
      if (problem) {
        problems.push(problem);
        continue;
      }
      if (entry.name.endsWith('/')) continue;
      files.push(entry);
      total += entry.uncompressedSize;
      if (entry.name === `${prefix}go.mod`) goModEntry = entry;
    }
    if (total > MAX_ZIP_FILE) problems.push(`the files hold ${total} bytes uncompressed, more than ${MAX_ZIP_FILE}`);
    if (problems.length) {
      const more = problems.length > MAX_REPORTED ? ` (and ${problems.length - MAX_REPORTED} more)` : '';
      throw new ModuleZipError(`invalid module zip for ${modulePath}@${version}: ${problems.slice(0, MAX_REPORTED).join('; ')}${more}`);
    }

    let goMod: Buffer | null = null;
    for (const entry of files) {
      const chunks: Buffer[] = [];
      await zip.read(entry, entry === goModEntry ? (c) => chunks.push(c) : undefined);
      if (entry === goModEntry) goMod = Buffer.concat(chunks);
    }
    checkGoMod(modulePath, version, goMod);
    return { modulePath, version, goMod, fileCount: files.length, uncompressedSize: total };
  } catch (err) {
    if (err instanceof ArchiveError) throw new ModuleZipError(`invalid module zip: ${err.message}`);
    throw err;
  } finally {
    await zip.close();
  }
}

/** go.mod must declare the zip's module path; +incompatible versions are the ones without go.mod. */
function checkGoMod(modulePath: string, version: string, goMod: Buffer | null): void {
  if (goMod === null) return;
  if (version.endsWith('+incompatible')) {
    throw new ModuleZipError(
      `invalid version "${version}": +incompatible is for modules without go.mod, and this zip has one ` +
        `(use the module path with a /v${version.slice(1).split('.')[0]} suffix)`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(goMod);
  } catch {
    throw new ModuleZipError('go.mod is not valid UTF-8');
  }
  const declared = declaredModulePath(text);
  if (declared === null) throw new ModuleZipError('go.mod has no module directive');
  if (declared !== modulePath) throw new ModuleZipError(`go.mod declares the module path "${declared}", but the zip holds "${modulePath}"`);
}
