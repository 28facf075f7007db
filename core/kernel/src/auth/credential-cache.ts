/**
 * Resolved tokens, keyed by token hash, kept for a short time so an authenticated API call does
 * not pay two database round trips. Correctness does not rest on the TTL: the kernel clears the
 * whole cache whenever a token or a user changes (writes are rare, reads are every request);
 * the TTL only bounds how long a change made behind Hearth's back (direct SQL) can go unseen.
 */
export class CredentialCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs = 10_000,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: V): void {
    // Maps iterate in insertion order: dropping the first key evicts the oldest entry.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
