/** ar archives (the container of .deb packages), read member by member from a file on disk. */
import fs from 'node:fs/promises';
import { ArchiveError } from './errors';

const AR_MAGIC = '!<arch>\n';
const AR_HEADER = 60;

/** One member: its name (without a trailing `/`), where its data starts, and its size. */
export interface ArMember {
  name: string;
  offset: number;
  size: number;
}

/** An ar archive on disk: `next()` walks the members in order; `read` gets one member's bytes. Close it when done. */
export class ArFile {
  private position = AR_MAGIC.length;

  private constructor(
    private readonly handle: fs.FileHandle,
    readonly size: number,
  ) {}

  /** Open `path`; not an ar archive (no `!<arch>` magic) is an ArchiveError. */
  static async open(path: string): Promise<ArFile> {
    const handle = await fs.open(path, 'r');
    try {
      const { size } = await handle.stat();
      const magic = Buffer.alloc(AR_MAGIC.length);
      await handle.read(magic, 0, magic.length, 0);
      if (magic.toString('latin1') !== AR_MAGIC) throw new ArchiveError('not an ar archive');
      return new ArFile(handle, size);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** The next member's header, or null at the end of the archive. */
  async next(): Promise<ArMember | null> {
    const offset = this.position;
    if (offset >= this.size) return null;
    const header = Buffer.alloc(AR_HEADER);
    const { bytesRead } = await this.handle.read(header, 0, AR_HEADER, offset);
    if (bytesRead < AR_HEADER || header[58] !== 0x60 || header[59] !== 0x0a)
      throw new ArchiveError('truncated or corrupt ar member header');
    const name = header.toString('latin1', 0, 16).trimEnd().replace(/\/$/, '');
    const sizeText = header.toString('latin1', 48, 58).trim();
    if (!/^\d+$/.test(sizeText)) throw new ArchiveError('bad ar member size');
    const size = Number(sizeText);
    if (offset + AR_HEADER + size > this.size) throw new ArchiveError(`truncated archive (member ${name})`);
    // Member data is padded to an even length.
    this.position = offset + AR_HEADER + size + (size % 2);
    return { name, offset: offset + AR_HEADER, size };
  }

  /** The first `limit` bytes of a member (all of it by default). */
  async read(member: ArMember, limit = member.size): Promise<Buffer> {
    const data = Buffer.alloc(Math.min(member.size, limit));
    await this.handle.read(data, 0, data.length, member.offset);
    return data;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
