/**
 * Tar archives (ustar, GNU long names, pax `path` records): a streaming reader that keeps only
 * the few entries a caller asks for (`scanTar`), a reader of a whole archive in memory
 * (`readTar`), and a writer of plain-file entries (`tarFile`, `TAR_END`).
 */
import { ArchiveError } from './errors';

const BLOCK = 512;
/** The largest GNU long-name or pax header record read. */
const MAX_META_RECORD = 1024 * 1024;
const TRUNCATED = 'the tar archive is truncated (it ends before an entry is complete)';

function cString(buf: Buffer, start: number, length: number): string {
  const slice = buf.subarray(start, start + length);
  const nul = slice.indexOf(0);
  return (nul === -1 ? slice : slice.subarray(0, nul)).toString('utf8');
}

function octal(buf: Buffer, start: number, length: number): number {
  if (buf[start] & 0x80) {
    // GNU base-256 for sizes over 8 GiB: far beyond any limit here.
    throw new ArchiveError('tar entry too large');
  }
  const text = cString(buf, start, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new ArchiveError('not a tar archive (bad header field)');
  return parseInt(text, 8);
}

function checksumOk(header: Buffer): boolean {
  const stored = octal(header, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
  return sum === stored;
}

/** The `path` of pax extended header records (the name of the entry that follows). */
function paxPath(data: Buffer): string | undefined {
  let pos = 0;
  let found: string | undefined;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    if (space === -1) break;
    const len = Number(data.subarray(pos, space).toString('ascii'));
    if (!Number.isInteger(len) || len <= 0 || pos + len > data.length) throw new ArchiveError('not a tar archive (bad pax record)');
    const record = data.subarray(space + 1, pos + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0 && record.slice(0, eq) === 'path') found = record.slice(eq + 1);
    pos += len;
  }
  return found;
}

interface Header {
  /** The name in the header (ustar prefix joined), before any long name replaces it. */
  name: string;
  size: number;
  /** '0' (or NUL) regular file, '5' directory, 'L' GNU long name, 'x'/'g' pax headers, … */
  type: string;
  /** Bytes the content takes, padded to whole blocks. */
  padded: number;
}

/** A header block, or null for an end-of-archive (zero) block. */
function parseHeader(block: Buffer): Header | null {
  if (block.every((b) => b === 0)) return null;
  if (!checksumOk(block)) throw new ArchiveError('not a tar archive (bad header checksum)');
  const size = octal(block, 124, 12);
  const type = String.fromCharCode(block[156] || 0x30);
  const prefix = block.subarray(257, 262).toString('latin1') === 'ustar' ? cString(block, 345, 155) : '';
  const base = cString(block, 0, 100);
  return { name: prefix ? `${prefix}/${base}` : base, size, type, padded: Math.ceil(size / BLOCK) * BLOCK };
}

/** Meta entries name the entry after them: GNU `L` (long name), pax `x` (path); pax `g` is global and ignored. */
const isMeta = (type: string) => type === 'L' || type === 'x' || type === 'g';

/** The name a meta entry gives the next entry (or the one given so far). */
function metaName(header: Header, data: Buffer, current: string | undefined): string | undefined {
  if (header.size > MAX_META_RECORD) throw new ArchiveError('tar header record too large');
  if (header.type === 'L') return cString(data, 0, data.length);
  if (header.type === 'x') return paxPath(data) ?? current;
  return current;
}

/** Pulls exact byte counts out of a stream of chunks. */
class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  total = 0;

  constructor(
    private readonly source: AsyncIterator<Buffer>,
    private readonly maxTotal: number,
  ) {}

  private async fill(n: number): Promise<boolean> {
    while (this.buffered < n) {
      const next = await this.source.next();
      if (next.done) return false;
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      this.total += chunk.length;
      if (this.total > this.maxTotal) throw new ArchiveError(`the archive unpacks to more than ${this.maxTotal} bytes`);
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    return true;
  }

  /** Exactly `n` bytes, or null at a clean end of the stream (nothing buffered). */
  async read(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) {
      if (this.buffered === 0) return null;
      throw new ArchiveError(TRUNCATED);
    }
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  async skip(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.buffered === 0 && !(await this.fill(1))) throw new ArchiveError(TRUNCATED);
      const head = this.chunks[0];
      if (head.length <= left) {
        left -= head.length;
        this.buffered -= head.length;
        this.chunks.shift();
      } else {
        this.chunks[0] = head.subarray(left);
        this.buffered -= left;
        left = 0;
      }
    }
  }
}

export interface TarScanOptions {
  /** Whether to keep the content of the regular file at `path` (leading `./` removed). */
  want(path: string): boolean;
  /** Stop reading once this returns true for what was kept so far. */
  done?(found: Map<string, Buffer>): boolean;
  /** Largest kept entry. */
  maxEntrySize: number;
  /** Largest number of decompressed bytes read before giving up. */
  maxTotal: number;
}

/**
 * Walk a (decompressed) tar stream and return the wanted entries' contents by path, skipping
 * the rest without buffering it. Throws ArchiveError for what is not a well-formed archive.
 */
export async function scanTar(source: AsyncIterable<Buffer>, options: TarScanOptions): Promise<Map<string, Buffer>> {
  const iterator = source[Symbol.asyncIterator]();
  const reader = new ByteReader(iterator, options.maxTotal);
  const found = new Map<string, Buffer>();
  let longName: string | undefined;
  let first = true;
  try {
    for (;;) {
      const block = await reader.read(BLOCK);
      if (block === null) {
        if (first) throw new ArchiveError('not a tar archive (empty)');
        break;
      }
      const header = parseHeader(block);
      if (!header) break;
      first = false;
      if (isMeta(header.type)) {
        if (header.size > MAX_META_RECORD) throw new ArchiveError('tar header record too large');
        longName = metaName(header, (await reader.read(header.padded))!.subarray(0, header.size), longName);
        continue;
      }
      const entryPath = (longName ?? header.name).replace(/^(\.\/)+/, '');
      longName = undefined;
      if ((header.type === '0' || header.type === '7') && options.want(entryPath)) {
        if (header.size > options.maxEntrySize) throw new ArchiveError(`${entryPath} is larger than ${options.maxEntrySize} bytes`);
        found.set(entryPath, (await reader.read(header.padded))!.subarray(0, header.size));
        if (options.done?.(found)) break;
      } else {
        await reader.skip(header.padded);
      }
    }
  } finally {
    await iterator.return?.();
  }
  return found;
}

/** One entry of `readTar`. */
export interface TarEntry {
  /** The full name (long names applied), as stored (a leading `./` kept). */
  name: string;
  /** '0' regular file, '5' directory, … (meta entries are applied, not listed). */
  type: string;
  data: Buffer;
}

/**
 * Every entry of a tar archive in memory. The archive may stop without end-of-archive blocks
 * (apk's signature and control segments do); long names and pax paths rename the entry after them.
 */
export function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let position = 0;
  let longName: string | undefined;
  while (position + BLOCK <= tar.length) {
    const header = parseHeader(tar.subarray(position, position + BLOCK));
    if (!header) break;
    const start = position + BLOCK;
    if (start + header.size > tar.length) throw new ArchiveError(TRUNCATED);
    const data = tar.subarray(start, start + header.size);
    position = start + header.padded;
    if (isMeta(header.type)) {
      longName = metaName(header, data, longName);
      continue;
    }
    entries.push({ name: longName ?? header.name, type: header.type, data });
    longName = undefined;
  }
  if (position > tar.length) throw new ArchiveError(TRUNCATED);
  return entries;
}

/** One ustar header and the content, padded to whole blocks (owner root, mode 0644). */
export function tarFile(name: string, content: Buffer, options: { mtime?: number; type?: string } = {}): Buffer {
  const header = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100, 'latin1');
  header.write('0000000\0', 108, 'latin1');
  header.write('0000000\0', 116, 'latin1');
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write(
    `${Math.max(0, Math.floor(options.mtime ?? 0))
      .toString(8)
      .padStart(11, '0')}\0`,
    136,
    'latin1',
  );
  header.write('        ', 148, 'latin1');
  header.write(options.type ?? '0', 156, 'latin1');
  header.write('ustar\u000000', 257, 'latin1');
  header.write('root', 265, 'latin1');
  header.write('root', 297, 'latin1');
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return Buffer.concat([header, content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK)]);
}

/** Two zero blocks: the end of a tar archive. */
export const TAR_END = Buffer.alloc(2 * BLOCK);
