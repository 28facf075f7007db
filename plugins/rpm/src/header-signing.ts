import { SigTag, TagType, type HeaderEntry, type RpmLayout } from './rpm-header';

const HEADER_MAGIC = Buffer.from([0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0]);

/** Data alignment rpm expects for numeric values inside a header's data store. */
function alignment(type: TagType): number {
  if (type === TagType.Int16) return 2;
  if (type === TagType.Int32) return 4;
  if (type === TagType.Int64) return 8;
  return 1;
}

/**
 * Serialize a signature header: the region tag (62) first, pointing at its 16-byte trailer at
 * the end of the data store whose offset is minus the size of the region's index (every entry
 * belongs to the region), then the entries by tag, each value aligned for its type.
 */
function serializeSignatureHeader(entries: HeaderEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  const entryCount = sorted.length + 1;
  const index: Buffer[] = [];
  const store: Buffer[] = [];
  let size = 0;
  const entryBytes = (tag: number, type: number, offset: number, count: number) => {
    const b = Buffer.alloc(16);
    b.writeUInt32BE(tag, 0);
    b.writeUInt32BE(type, 4);
    b.writeInt32BE(offset, 8);
    b.writeUInt32BE(count, 12);
    return b;
  };
  for (const e of sorted) {
    const pad = (alignment(e.type) - (size % alignment(e.type))) % alignment(e.type);
    if (pad) store.push(Buffer.alloc(pad));
    size += pad;
    index.push(entryBytes(e.tag, e.type, size, e.count));
    store.push(e.data);
    size += e.data.length;
  }
  const trailerOffset = size;
  store.push(entryBytes(SigTag.Region, TagType.Bin, -entryCount * 16, 16));
  size += 16;
  const intro = Buffer.alloc(8);
  intro.writeUInt32BE(entryCount, 0);
  intro.writeUInt32BE(size, 4);
  return Buffer.concat([HEADER_MAGIC, intro, entryBytes(SigTag.Region, TagType.Bin, trailerOffset, 16), ...index, ...store]);
}

/** Signature tags replaced by the repository's signature (an uploader's own OpenPGP signatures and the space rpmsign reserves for them). */
const REPLACED = new Set<number>([SigTag.Region, SigTag.ReservedSpace, SigTag.Dsa, SigTag.Rsa, SigTag.Pgp, SigTag.Gpg]);

/**
 * The new start of the file (lead + signature header + padding) carrying `signature`, a binary
 * OpenPGP signature of the main header, in RPMSIGTAG_RSA (268): what `rpm -K` and dnf's
 * `gpgcheck` verify. The main header and the payload follow unchanged, so the digests over them
 * (SHA256, MD5, SIZE) stay valid.
 */
export function signedPrefix(layout: RpmLayout, signature: Buffer): Buffer {
  const kept = layout.signature.order.filter((e) => !REPLACED.has(e.tag));
  const header = serializeSignatureHeader([...kept, { tag: SigTag.Rsa, type: TagType.Bin, count: signature.length, data: signature }]);
  const padding = Buffer.alloc((8 - (header.length % 8)) % 8);
  return Buffer.concat([layout.lead, header, padding]);
}
