import fs from 'node:fs';
import zlib from 'node:zlib';
import { ApiError } from '@hearth/plugin-api';
import { ArchiveError, scanTar } from '@hearth/package-kit';

const MAX_METADATA_BYTES = 1024 * 1024;
/** Stop walking a tarball after this many decompressed bytes without finding metadata.json (gzip bombs). */
const MAX_WALK_BYTES = 1024 * 1024 * 1024;

const invalid = (why: string) => ApiError.badRequest(`invalid cookbook tarball: ${why}`);

/** `<cookbook>/metadata.json`, as knife generates it from metadata.rb. */
const isMetadata = (entryPath: string) => {
  const parts = entryPath.split('/').filter(Boolean);
  return parts.length === 2 && parts[1] === 'metadata.json';
};

/**
 * The `metadata.json` of a cookbook tarball (gzip'd tar, one top directory `<cookbook>/`, the
 * metadata at `<cookbook>/metadata.json` as knife generates it from metadata.rb). Streams the
 * archive and stops at the metadata; GNU long names and pax paths are honoured.
 */
export async function readCookbookMetadata(file: string): Promise<Buffer> {
  const gunzip = fs.createReadStream(file).pipe(zlib.createGunzip());
  let found: Map<string, Buffer>;
  try {
    found = await scanTar(gunzip, {
      want: isMetadata,
      done: (f) => f.size > 0,
      maxEntrySize: MAX_METADATA_BYTES,
      maxTotal: MAX_WALK_BYTES,
    });
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('Z_')) throw invalid('not a gzip file');
    if (err instanceof ArchiveError) throw invalid(err.message);
    throw err;
  } finally {
    gunzip.destroy();
  }
  const [metadata] = found.values();
  if (!metadata) throw invalid('no metadata.json in <cookbook>/ (knife generates it from metadata.rb)');
  return metadata;
}
