/**
 * Caches of generated repository indexes, two ways to know an index is current:
 * - SnapshotCache: dropped explicitly (`invalidate`) when the repository changes, keeping the
 *   last few snapshots reachable (for clients holding an older top-level index);
 * - StampedCache: checked against a stamp read from the database on every read (e.g. row count
 *   and highest id), so every process sees every change without invalidation.
 */

/**
 * Generated indexes per repository, built on first read after a change and then served from
 * memory. A change drops the current snapshot; a build that was running when the change came is
 * still handed to the readers that asked before it (each snapshot is consistent in itself), but
 * is not kept. The last `keep` snapshots stay reachable by their immutable file names, so a
 * client that read the previous top-level index can still fetch the files it names.
 */
export class SnapshotCache<T> {
  private readonly current = new Map<string, { snapshot?: Promise<T> }>();
  private readonly retired = new Map<string, T[]>();

  constructor(private readonly keep = 3) {}

  get(key: string, build: () => Promise<T>): Promise<T> {
    let entry = this.current.get(key);
    if (!entry) {
      entry = {};
      this.current.set(key, entry);
    }
    if (entry.snapshot) return entry.snapshot;
    const slot = entry;
    const snapshot = build();
    slot.snapshot = snapshot;
    snapshot.then(
      (value) => {
        const list = this.retired.get(key) ?? [];
        list.unshift(value);
        this.retired.set(key, list.slice(0, this.keep));
      },
      () => {
        if (slot.snapshot === snapshot) slot.snapshot = undefined;
      },
    );
    return snapshot;
  }

  /** The repository changed: the next read builds a new snapshot. */
  invalidate(key: string): void {
    const entry = this.current.get(key);
    if (!entry) return;
    entry.snapshot = undefined;
  }

  /** Drop every repository whose key starts with `prefix` (an owner went away). */
  invalidatePrefix(prefix: string): void {
    for (const key of this.current.keys()) if (key.startsWith(prefix)) this.invalidate(key);
    for (const key of this.retired.keys()) if (key.startsWith(prefix)) this.retired.delete(key);
  }

  /** Recent snapshots of `key`, newest first (for files named by a top-level index that is no longer current). */
  recent(key: string): readonly T[] {
    return this.retired.get(key) ?? [];
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
