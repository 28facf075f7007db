import crypto from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** An upload that is not a well-formed RPM package (answered 400). */
export class RpmFormatError extends Error {}

export const LEAD_SIZE = 96;
const LEAD_MAGIC = Buffer.from([0xed, 0xab, 0xee, 0xdb]);
const HEADER_MAGIC = Buffer.from([0x8e, 0xad, 0xe8, 0x01]);
/** Header intro: magic (4), reserved (4), index entry count (4), data store size (4). */
const INTRO_SIZE = 16;
const ENTRY_SIZE = 16;
/** rpm itself refuses headers over 256 MiB; a real package's header is far smaller. */
const MAX_HEADER_DATA = 64 * 1024 * 1024;
const MAX_HEADER_ENTRIES = 65536;

export const enum TagType {
  Null = 0,
  Char = 1,
  Int8 = 2,
  Int16 = 3,
  Int32 = 4,
  Int64 = 5,
  String = 6,
  Bin = 7,
  StringArray = 8,
  I18nString = 9,
}

/** One index entry of a header structure with the raw bytes of its value. */
export interface HeaderEntry {
  tag: number;
  type: TagType;
  count: number;
  data: Buffer;
}

/** A parsed header structure: its entries by tag (the region tag included) and where it lies in the file. */
export interface HeaderStructure {
  entries: Map<number, HeaderEntry>;
  /** Entries in file order. */
  order: HeaderEntry[];
  start: number;
  end: number;
}

/** Byte length of a value of `type` with `count` items starting at `offset` of the data store. */
function valueLength(store: Buffer, type: TagType, offset: number, count: number): number {
  switch (type) {
    case TagType.Null:
      return 0;
    case TagType.Char:
    case TagType.Int8:
    case TagType.Bin:
      return count;
    case TagType.Int16:
      return 2 * count;
    case TagType.Int32:
      return 4 * count;
    case TagType.Int64:
      return 8 * count;
    case TagType.String:
    case TagType.StringArray:
    case TagType.I18nString: {
      let position = offset;
      const strings = type === TagType.String ? 1 : count;
      for (let i = 0; i < strings; i++) {
        const nul = store.indexOf(0, position);
        if (nul < 0) throw new RpmFormatError('a header string runs past the end of the header');
        position = nul + 1;
      }
      return position - offset;
    }
    default:
      throw new RpmFormatError(`unknown header value type ${type as number}`);
  }
}

/** The sizes announced by a header intro (16 bytes). */
export function headerIntro(intro: Buffer): { entryCount: number; dataSize: number; total: number } {
  if (intro.length < INTRO_SIZE || !intro.subarray(0, 4).equals(HEADER_MAGIC)) throw new RpmFormatError('bad RPM header magic');
  const entryCount = intro.readUInt32BE(8);
  const dataSize = intro.readUInt32BE(12);
  if (entryCount === 0 || entryCount > MAX_HEADER_ENTRIES || dataSize > MAX_HEADER_DATA) {
    throw new RpmFormatError('RPM header sizes out of range');
  }
  return { entryCount, dataSize, total: INTRO_SIZE + entryCount * ENTRY_SIZE + dataSize };
}

/** Parse a complete header structure (`bytes` starts at its magic). */
export function parseHeaderStructure(bytes: Buffer, start: number): HeaderStructure {
  const { entryCount, total } = headerIntro(bytes);
  if (bytes.length < total) throw new RpmFormatError('the RPM header is truncated');
  const store = bytes.subarray(INTRO_SIZE + entryCount * ENTRY_SIZE, total);
  const entries = new Map<number, HeaderEntry>();
  const order: HeaderEntry[] = [];
  for (let i = 0; i < entryCount; i++) {
    const at = INTRO_SIZE + i * ENTRY_SIZE;
    const tag = bytes.readUInt32BE(at);
    const type = bytes.readUInt32BE(at + 4) as TagType;
    const offset = bytes.readInt32BE(at + 8);
    const count = bytes.readUInt32BE(at + 12);
    if (offset < 0 || offset > store.length || count > store.length) {
      throw new RpmFormatError(`header entry ${tag} points outside the header`);
    }
    const length = valueLength(store, type, offset, count);
    if (offset + length > store.length) throw new RpmFormatError(`header entry ${tag} runs past the end of the header`);
    const entry = { tag, type, count, data: store.subarray(offset, offset + length) };
    entries.set(tag, entry);
    order.push(entry);
  }
  return { entries, order, start, end: start + total };
}

/** Typed readers over a header's entries. */
export class HeaderReader {
  constructor(private readonly header: HeaderStructure) {}

  has(tag: number): boolean {
    return this.header.entries.has(tag);
  }

  string(tag: number): string | undefined {
    const e = this.header.entries.get(tag);
    if (!e) return undefined;
    if (e.type !== TagType.String && e.type !== TagType.I18nString && e.type !== TagType.StringArray) return undefined;
    // An I18N string's first item is the untranslated (C locale) text.
    const nul = e.data.indexOf(0);
    return e.data.subarray(0, nul < 0 ? e.data.length : nul).toString('utf8');
  }

  strings(tag: number): string[] {
    const e = this.header.entries.get(tag);
    if (!e || (e.type !== TagType.StringArray && e.type !== TagType.String && e.type !== TagType.I18nString)) return [];
    return e.data
      .toString('utf8')
      .split('\0')
      .slice(0, e.type === TagType.String ? 1 : e.count);
  }

  numbers(tag: number): number[] {
    const e = this.header.entries.get(tag);
    if (!e) return [];
    const out: number[] = [];
    for (let i = 0; i < e.count; i++) {
      if (e.type === TagType.Int32) out.push(e.data.readUInt32BE(i * 4));
      else if (e.type === TagType.Int16) out.push(e.data.readUInt16BE(i * 2));
      else if (e.type === TagType.Int8 || e.type === TagType.Char) out.push(e.data[i]);
      else if (e.type === TagType.Int64) out.push(Number(e.data.readBigUInt64BE(i * 8)));
      else return [];
    }
    return out;
  }

  number(tag: number): number | undefined {
    return this.numbers(tag)[0];
  }
}

/** Lead, signature header and main header of an RPM file, with their positions. */
export interface RpmLayout {
  signature: HeaderStructure;
  main: HeaderStructure;
  /** The main header's bytes (magic included): what header digests and signatures cover. */
  mainBytes: Buffer;
  lead: Buffer;
}

async function readExactly(file: FileHandle, position: number, length: number, what: string): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead !== length) throw new RpmFormatError(`the file ends inside the ${what}`);
  return buffer;
}

async function readHeaderAt(file: FileHandle, position: number, what: string): Promise<{ header: HeaderStructure; bytes: Buffer }> {
  const intro = await readExactly(file, position, INTRO_SIZE, what);
  const { total } = headerIntro(intro);
  const bytes = await readExactly(file, position, total, what);
  return { header: parseHeaderStructure(bytes, position), bytes };
}

/** Read the lead and both headers of the RPM in `file`, checking the header digests the signature header carries. */
export async function readRpmLayout(file: FileHandle): Promise<RpmLayout> {
  const lead = await readExactly(file, 0, LEAD_SIZE, 'lead');
  if (!lead.subarray(0, 4).equals(LEAD_MAGIC)) throw new RpmFormatError('not an RPM package (bad lead magic)');
  if (lead[4] !== 3) throw new RpmFormatError(`unsupported RPM format version ${lead[4]}`);
  const { header: signature } = await readHeaderAt(file, LEAD_SIZE, 'signature header');
  const mainStart = signature.end + ((8 - (signature.end % 8)) % 8);
  const { header: main, bytes: mainBytes } = await readHeaderAt(file, mainStart, 'header');

  const sigs = new HeaderReader(signature);
  const sha256 = sigs.string(SigTag.Sha256);
  const sha1 = sigs.string(SigTag.Sha1);
  const digest = (algorithm: string) => crypto.createHash(algorithm).update(mainBytes).digest('hex');
  if (sha256 !== undefined && digest('sha256') !== sha256.toLowerCase()) {
    throw new RpmFormatError('the header SHA-256 digest does not match: the package is corrupt');
  }
  if (sha256 === undefined && sha1 !== undefined && digest('sha1') !== sha1.toLowerCase()) {
    throw new RpmFormatError('the header SHA-1 digest does not match: the package is corrupt');
  }
  return { signature, main, mainBytes, lead };
}

/** Signature header tags. */
export const SigTag = {
  Region: 62,
  Dsa: 267,
  Rsa: 268,
  Sha1: 269,
  Sha256: 273,
  Size: 1000,
  Pgp: 1002,
  Md5: 1004,
  Gpg: 1005,
  ReservedSpace: 1008,
} as const;
