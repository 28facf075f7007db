import fs from 'node:fs';
import zlib from 'node:zlib';
import { ApiError } from '@hearth/plugin-api';
import { decodeDescription, describePackage, parseDcf, type PackageDescription } from './description';
import { ArchiveError, scanTar, ZipFile } from '@hearth/package-kit';

export type ArchiveKind = 'tar.gz' | 'zip';

const MAX_DESCRIPTION = 1024 * 1024;
/** `<pkg>/DESCRIPTION`: the DESCRIPTION of the package directory at the top of the archive. */
const TOP_DESCRIPTION = /^([^/]+)\/DESCRIPTION$/;

/** What the first bytes of a package file say it is. */
export function archiveKind(file: string): ArchiveKind {
  const head = Buffer.alloc(4);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 4, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (head.readUInt32LE(0) === 0x04034b50) return 'zip';
  throw ApiError.badRequest('the package file is neither a gzip-compressed tar archive nor a zip archive');
}

async function descriptionFromTarGz(file: string, maxUnpacked: number): Promise<Map<string, Buffer>> {
  const gunzip = zlib.createGunzip();
  const source = fs.createReadStream(file).pipe(gunzip);
  source.on('error', () => undefined);
  try {
    return await scanTar(source, {
      want: (p) => TOP_DESCRIPTION.test(p),
      done: (found) => found.size > 0,
      maxEntrySize: MAX_DESCRIPTION,
      maxTotal: maxUnpacked,
    });
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`not a valid gzip file (${(err as Error).message})`);
  } finally {
    source.destroy();
  }
}

async function descriptionFromZip(file: string): Promise<Map<string, Buffer>> {
  const zip = await ZipFile.open(file);
  try {
    const found = new Map<string, Buffer>();
    const member = zip.find((name) => TOP_DESCRIPTION.test(name));
    if (member) found.set(member.name, await zip.readBytes(member, MAX_DESCRIPTION));
    return found;
  } finally {
    await zip.close();
  }
}

/**
 * Read and check the DESCRIPTION of an uploaded package: `<pkg>/DESCRIPTION` of a source
 * tarball, of a macOS binary .tgz or of a Windows binary .zip; the directory must be the
 * package's name. Bad archives are 400s.
 */
export async function readPackageFile(
  file: string,
  kind: ArchiveKind,
  type: 'source' | 'binary',
  maxUnpacked: number,
): Promise<PackageDescription> {
  let found: Map<string, Buffer>;
  try {
    found = kind === 'zip' ? await descriptionFromZip(file) : await descriptionFromTarGz(file, maxUnpacked);
  } catch (err) {
    if (err instanceof ArchiveError) throw ApiError.badRequest(`invalid package archive: ${err.message}`);
    throw err;
  }
  const [entry] = found;
  if (!entry) throw ApiError.badRequest('the archive has no <package>/DESCRIPTION file');
  const [entryPath, bytes] = entry;
  const description = describePackage(parseDcf(decodeDescription(bytes)), type);
  const dir = TOP_DESCRIPTION.exec(entryPath)![1];
  if (dir !== description.name)
    throw ApiError.badRequest(`the DESCRIPTION is in the directory "${dir}", not in the package's directory "${description.name}"`);
  return description;
}
