/** Single gzip members of a buffer holding several (apk packages are concatenated gzip streams). */
import zlib from 'node:zlib';
import { ArchiveError } from './errors';

export interface GzipMember {
  start: number;
  /** Where the member ends (after its trailer): the next member's start. */
  end: number;
  content: Buffer;
}

/**
 * The gzip member starting at `start` of `bytes`, decompressed (at most `maxOutput` bytes) and
 * checked against its CRC and size, and where it ends. ArchiveError when it is not gzip,
 * truncated or corrupt.
 */
export function gzipMember(bytes: Buffer, start: number, maxOutput: number): GzipMember {
  if (bytes.length < start + 18 || bytes[start] !== 0x1f || bytes[start + 1] !== 0x8b || bytes[start + 2] !== 8) {
    throw new ArchiveError('not gzip-compressed');
  }
  const flags = bytes[start + 3];
  let position = start + 10;
  if (flags & 0x04) position += 2 + bytes.readUInt16LE(position);
  for (const flag of [0x08, 0x10]) {
    if (flags & flag) {
      const nul = bytes.indexOf(0, position);
      if (nul < 0) throw new ArchiveError('a gzip header is truncated');
      position = nul + 1;
    }
  }
  if (flags & 0x02) position += 2;
  let inflated: { buffer: Buffer; engine: zlib.InflateRaw };
  try {
    const options = { info: true, maxOutputLength: maxOutput };
    inflated = zlib.inflateRawSync(bytes.subarray(position), options) as unknown as { buffer: Buffer; engine: zlib.InflateRaw };
  } catch {
    throw new ArchiveError('a gzip member is truncated or corrupt');
  }
  const end = position + inflated.engine.bytesWritten + 8;
  if (end > bytes.length) throw new ArchiveError('a gzip member is truncated');
  const crc = bytes.readUInt32LE(end - 8);
  const size = bytes.readUInt32LE(end - 4);
  if (size !== inflated.buffer.length % 2 ** 32 || crc !== zlib.crc32(inflated.buffer)) {
    throw new ArchiveError('a gzip member fails its CRC check');
  }
  return { start, end, content: inflated.buffer };
}
