/**
 * Caches of generated repository indexes:
 * - StampedCache: checked against a stamp read from the database on every read (e.g. row count
 *   and highest id), so every process sees every change without invalidation;
 * - LruCache: content that a key names for ever (content-addressed index files), bounded in bytes.
 */

/**
 * Values whose key names them for ever (e.g. an index file by its hash), the least recently used
 * dropped first once their sizes add up to more than `maxBytes`. A value larger than an eighth of
 * that is not kept (it would push out everything else).
 */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    const size = this.sizeOf(value);
    if (size > this.maxBytes / 8) return;
    this.delete(key);
    this.entries.set(key, value);
    this.bytes += size;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  /** Drop every key starting with `prefix` (an owner went away). */
  deletePrefix(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.delete(key);
  }

  private delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.bytes -= this.sizeOf(value);
  }
}

/**
 * Generated index files, cached per index and checked against a stamp read from the database
 * (e.g. row count and highest row id of the index's rows: every insert raises the id, every
 * delete lowers the count). A cached index is served only while its stamp is current, so every
 * process serving the repository sees publishes and deletes at once, and no explicit
 * invalidation can be missed. At most `maxEntries` indexes are kept (oldest dropped first).
 */
export class StampedCache<V> {
  private readonly entries = new Map<string, { stamp: string; value: Promise<V> }>();

  constructor(private readonly maxEntries = 500) {}

  async get(key: string, stamp: string, build: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.stamp === stamp) return hit.value;
    const value = build();
    this.entries.delete(key);
    this.entries.set(key, { stamp, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }
}
