/**
 * Transactions that the database aborted for a deadlock or a serialisation failure may simply run
 * again: the same rule for the kernel and every plugin, on SQLite, MariaDB and PostgreSQL.
 */

const TRANSIENT = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40P01', '40001', 'SQLITE_BUSY']);

/** A deadlock or serialization failure: the transaction was rolled back and may simply be run again. @public */
export function isTransientConflict(err: unknown): boolean {
  const e = err as { code?: string; nativeError?: { code?: string } } | null;
  return !!e && (TRANSIENT.has(e.code ?? '') || TRANSIENT.has(e.nativeError?.code ?? ''));
}

/** Run an idempotent transaction, retrying a few times when the database aborted it for a conflict. @public */
export async function withConflictRetry<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isTransientConflict(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    }
  }
}
