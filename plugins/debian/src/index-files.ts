import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LruCache } from '@hearth/package-kit';

/** How long a replaced index file stays servable (by hash) for clients that read the previous Release. */
export const REPLACED_INDEX_GRACE_MS = 15 * 60 * 1000;
/** Index files kept in memory for serving (they are immutable: a hash names one content for ever). */
const MEMORY_BYTES = 64 * 1024 * 1024;

/**
 * Content-addressed, immutable index files (Packages, Packages.gz) of each owner under
 * `<dataDir>/debian/<ownerId>/<sha256>`. A file is written to a temporary name and renamed into
 * place before any Release names it, so every hash a Release lists can be fetched.
 */
export class IndexFileStore {
  /** Recently served files by owner and hash (immutable content), up to MEMORY_BYTES in all. */
  private readonly memory = new LruCache<Buffer>(MEMORY_BYTES, (b) => b.length);

  constructor(private readonly root: string) {}

  /** A file's content, or null when there is none (collected, or never written): from memory when it was read lately. */
  async read(ownerId: number, sha256: string): Promise<Buffer | null> {
    const file = this.pathOf(ownerId, sha256);
    if (!file) return null;
    const key = `${ownerId}/${sha256}`;
    const cached = this.memory.get(key);
    if (cached) return cached;
    const content = await fs.promises.readFile(file).catch(() => null);
    if (content) this.memory.set(key, content);
    return content;
  }

  private dirOf(ownerId: number): string {
    return path.join(this.root, String(ownerId));
  }

  pathOf(ownerId: number, sha256: string): string | null {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    return path.join(this.dirOf(ownerId), sha256);
  }

  /** Store `content`; returns its sha256. */
  async put(ownerId: number, content: Buffer): Promise<string> {
    const sha256 = crypto.createHash('sha256').update(content).digest('hex');
    const target = path.join(this.dirOf(ownerId), sha256);
    // Refresh the time of an existing file: it is in use again and must outlive the grace period.
    const now = new Date();
    try {
      await fs.promises.utimes(target, now, now);
      return sha256;
    } catch {
      // not there yet
    }
    await fs.promises.mkdir(this.dirOf(ownerId), { recursive: true });
    const temporary = `${target}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
    await fs.promises.writeFile(temporary, content);
    await fs.promises.rename(temporary, target);
    return sha256;
  }

  /** Remove files no index names any more and older than the grace period. */
  async collect(ownerId: number, inUse: Set<string>): Promise<void> {
    const dir = this.dirOf(ownerId);
    let names: string[];
    try {
      names = await fs.promises.readdir(dir);
    } catch {
      return;
    }
    const cutoff = Date.now() - REPLACED_INDEX_GRACE_MS;
    for (const name of names) {
      if (inUse.has(name)) continue;
      const file = path.join(dir, name);
      const stat = await fs.promises.stat(file).catch(() => null);
      if (stat && stat.mtimeMs < cutoff) await fs.promises.rm(file, { force: true });
    }
  }

  async removeOwner(ownerId: number): Promise<void> {
    this.memory.deletePrefix(`${ownerId}/`);
    await fs.promises.rm(this.dirOf(ownerId), { recursive: true, force: true });
  }
}
