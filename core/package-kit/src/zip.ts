/**
 * Zip archives: a reader of a zip file on disk through its central directory (`ZipFile`) and an
 * in-memory writer (`writeZip`). No zip64, no encryption, no multi-disk archives; stored and
 * deflated entries, whose contents are checked against their declared size and CRC-32.
 */
import fs from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { ArchiveError } from './errors';

/** One entry of the central directory, the archive's authoritative table of contents. */
export interface ZipEntry {
  /** The name, decoded as UTF-8 (invalid sequences replaced; see `utf8`). */
  name: string;
  /** The name's bytes as stored. */
  rawName: Buffer;
  /** Whether `rawName` is valid UTF-8. */
  utf8: boolean;
  method: number;
  encrypted: boolean;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where the entry's local header starts. */
  localOffset: number;
  /** Unix file type bits when the archive was made on Unix (0 when unknown). */
  unixType: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const FLAG_ENCRYPTED = 0x1;
const FLAG_UTF8 = 0x800;
const METHOD_STORE = 0;
const METHOD_DEFLATE = 8;
const UNIX_HOST = 3;
/** The largest central directory read into memory (about a million entries). */
const MAX_CENTRAL_DIRECTORY = 64 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A zip archive on disk, read through its central directory. Close it when done. */
export class ZipFile {
  private constructor(
    private readonly handle: fs.promises.FileHandle,
    private readonly file: string,
    readonly size: number,
    readonly entries: ZipEntry[],
    private readonly centralOffset: number,
  ) {}

  static async open(file: string): Promise<ZipFile> {
    const handle = await fs.promises.open(file, 'r');
    try {
      const { size } = await handle.stat();
      const { entries, centralOffset } = await readCentralDirectory(handle, size);
      return new ZipFile(handle, file, size, entries, centralOffset);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  find(predicate: (name: string) => boolean): ZipEntry | undefined {
    return this.entries.find((e) => predicate(e.name));
  }

  /** Where an entry's data starts, after checking its local header agrees with the central directory. */
  private async dataOffset(entry: ZipEntry): Promise<number> {
    const header = await readAt(this.handle, entry.localOffset, 30);
    if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_SIGNATURE)
      throw new ArchiveError(`${entry.name}: local file header missing`);
    const nameLength = header.readUInt16LE(26);
    const extraLength = header.readUInt16LE(28);
    const name = await readAt(this.handle, entry.localOffset + 30, nameLength);
    if (!name.equals(entry.rawName)) throw new ArchiveError(`${entry.name}: the local header names another file`);
    const start = entry.localOffset + 30 + nameLength + extraLength;
    if (start + entry.compressedSize > this.centralOffset) throw new ArchiveError(`${entry.name}: data runs past the central directory`);
    return start;
  }

  /**
   * Stream an entry's uncompressed bytes into `sink` (or just check them); throws ArchiveError
   * when the entry is encrypted or compressed otherwise than stored or deflated, or its data is
   * corrupt or differs from the directory's size or CRC-32.
   */
  async read(entry: ZipEntry, sink?: (chunk: Buffer) => void): Promise<void> {
    if (entry.encrypted) throw new ArchiveError(`${entry.name}: encrypted entries are not supported`);
    if (entry.method !== METHOD_STORE && entry.method !== METHOD_DEFLATE) {
      throw new ArchiveError(`${entry.name}: compression method ${entry.method} is not supported (only stored and deflated)`);
    }
    const start = await this.dataOffset(entry);
    if (entry.method === METHOD_STORE && entry.compressedSize !== entry.uncompressedSize) {
      throw new ArchiveError(`${entry.name}: stored entry with different compressed and uncompressed sizes`);
    }
    const check = new EntryCheck(entry, sink);
    const source =
      entry.compressedSize === 0 ? Readable.from([]) : fs.createReadStream(this.file, { start, end: start + entry.compressedSize - 1 });
    try {
      if (entry.method === METHOD_DEFLATE) await pipeline(source, zlib.createInflateRaw(), check);
      else await pipeline(source, check);
    } catch (err) {
      if (err instanceof ArchiveError) throw err;
      throw new ArchiveError(`${entry.name}: corrupt data (${(err as Error).message})`);
    }
  }

  /** An entry's uncompressed bytes, refusing an entry that declares more than `limit`. */
  async readBytes(entry: ZipEntry, limit: number): Promise<Buffer> {
    if (entry.uncompressedSize > limit || entry.compressedSize > limit)
      throw new ArchiveError(`${entry.name} is larger than ${limit} bytes`);
    const chunks: Buffer[] = [];
    await this.read(entry, (chunk) => chunks.push(chunk));
    return Buffer.concat(chunks);
  }
}

/** Counts and checksums an entry's bytes, failing as soon as it grows past its declared size. */
class EntryCheck extends Transform {
  private size = 0;
  private crc = 0;

  constructor(
    private readonly entry: ZipEntry,
    private readonly sink?: (chunk: Buffer) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.entry.uncompressedSize) {
      done(new ArchiveError(`${this.entry.name}: holds more than its declared ${this.entry.uncompressedSize} bytes`));
      return;
    }
    this.crc = zlib.crc32(chunk, this.crc);
    this.sink?.(chunk);
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.size !== this.entry.uncompressedSize) {
      done(new ArchiveError(`${this.entry.name}: holds ${this.size} bytes, the directory declares ${this.entry.uncompressedSize}`));
    } else if (this.crc !== this.entry.crc32) {
      done(new ArchiveError(`${this.entry.name}: CRC-32 mismatch`));
    } else {
      done();
    }
  }
}

async function readAt(handle: fs.promises.FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

async function readCentralDirectory(handle: fs.promises.FileHandle, size: number): Promise<{ entries: ZipEntry[]; centralOffset: number }> {
  if (size < EOCD_SIZE) throw new ArchiveError('not a zip archive (too short)');
  const tailLength = Math.min(size, EOCD_SIZE + MAX_COMMENT);
  const tail = await readAt(handle, size - tailLength, tailLength);
  let eocd = -1;
  for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE && i + EOCD_SIZE + tail.readUInt16LE(i + 20) === tail.length) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError('not a zip archive (no end of central directory record)');
  const disk = tail.readUInt16LE(eocd + 4);
  const centralDisk = tail.readUInt16LE(eocd + 6);
  const count = tail.readUInt16LE(eocd + 10);
  const centralSize = tail.readUInt32LE(eocd + 12);
  const centralOffset = tail.readUInt32LE(eocd + 16);
  if (disk !== 0 || centralDisk !== 0) throw new ArchiveError('multi-disk zip archives are not supported');
  if (count === 0xffff || centralSize === 0xffffffff || centralOffset === 0xffffffff)
    throw new ArchiveError('zip64 archives are not supported');
  const eocdOffset = size - tailLength + eocd;
  if (centralOffset + centralSize > eocdOffset || centralSize > MAX_CENTRAL_DIRECTORY) {
    throw new ArchiveError('corrupt zip archive: the central directory runs past its end record');
  }
  const central = await readAt(handle, centralOffset, centralSize);

  const entries: ZipEntry[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > central.length || central.readUInt32LE(at) !== CENTRAL_SIGNATURE) {
      throw new ArchiveError('corrupt zip archive: bad central directory entry');
    }
    const madeBy = central.readUInt16LE(at + 4);
    const flags = central.readUInt16LE(at + 8);
    const nameLength = central.readUInt16LE(at + 28);
    const extraLength = central.readUInt16LE(at + 30);
    const commentLength = central.readUInt16LE(at + 32);
    const external = central.readUInt32LE(at + 38);
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > central.length) throw new ArchiveError('corrupt zip archive: central directory entry runs past the directory');
    const rawName = central.subarray(at + 46, at + 46 + nameLength);
    let name: string;
    let valid = true;
    try {
      name = utf8.decode(rawName);
    } catch {
      name = rawName.toString('utf8');
      valid = false;
    }
    entries.push({
      name,
      rawName,
      utf8: valid,
      method: central.readUInt16LE(at + 10),
      encrypted: (flags & FLAG_ENCRYPTED) !== 0,
      crc32: central.readUInt32LE(at + 16),
      compressedSize: central.readUInt32LE(at + 20),
      uncompressedSize: central.readUInt32LE(at + 24),
      localOffset: central.readUInt32LE(at + 42),
      unixType: madeBy >> 8 === UNIX_HOST ? (external >>> 16) & 0o170000 : 0,
    });
    at = end;
  }
  return { entries, centralOffset };
}

/** A file to put in a zip archive. */
export interface ZipInput {
  name: string;
  data: Buffer;
  /** Unix mode bits, type included (default: a regular file, 0644). */
  unixMode?: number;
  /** Store without compression (default: deflate). */
  store?: boolean;
}

const DOS_DATE_1980 = (0 << 9) | (1 << 5) | 1;

/** The fixed-size part of a local (30 bytes) or central (46 bytes) header. */
function entryHeader(central: boolean, method: number, crc: number, packed: number, size: number, nameLength: number): Buffer {
  const header = Buffer.alloc(central ? 46 : 30);
  const at = central ? 2 : 0;
  header.writeUInt32LE(central ? CENTRAL_SIGNATURE : LOCAL_SIGNATURE, 0);
  header.writeUInt16LE(20, 4 + at);
  header.writeUInt16LE(FLAG_UTF8, 6 + at);
  header.writeUInt16LE(method, 8 + at);
  header.writeUInt16LE(DOS_DATE_1980, 12 + at);
  header.writeUInt32LE(crc, 14 + at);
  header.writeUInt32LE(packed, 18 + at);
  header.writeUInt32LE(size, 22 + at);
  header.writeUInt16LE(nameLength, 26 + at);
  return header;
}

/**
 * Write a zip archive in memory: deflated (or stored) entries with UTF-8 names and Unix modes,
 * the way Go's archive/zip writes module zips.
 */
export function writeZip(inputs: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const input of inputs) {
    const name = Buffer.from(input.name, 'utf8');
    const data = input.store ? input.data : zlib.deflateRawSync(input.data);
    const crc = zlib.crc32(input.data);
    const method = input.store ? METHOD_STORE : METHOD_DEFLATE;
    const local = entryHeader(false, method, crc, data.length, input.data.length, name.length);
    locals.push(local, name, data);
    const central = entryHeader(true, method, crc, data.length, input.data.length, name.length);
    central.writeUInt16LE((UNIX_HOST << 8) | 20, 4);
    central.writeUInt32LE(((input.unixMode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(EOCD_SIZE);
  end.writeUInt32LE(EOCD_SIGNATURE, 0);
  end.writeUInt16LE(inputs.length, 8);
  end.writeUInt16LE(inputs.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
