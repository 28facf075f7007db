import type { Knex } from 'knex';
const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'ER_DUP_ENTRY', '23505']);

/**
 * A unique-index violation on any of the three databases, whether it comes raw from knex or
 * wrapped by objection (UniqueViolationError with the driver's error as `nativeError`).
 */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { name?: string; code?: string; nativeError?: { code?: string } } | null;
  if (!e) return false;
  return e.name === 'UniqueViolationError' || UNIQUE_CODES.has(e.code ?? '') || UNIQUE_CODES.has(e.nativeError?.code ?? '');
}

/**
 * A read that sees rows other transactions committed after this one began. After a unique
 * violation says a concurrent insert won, the re-read must see that row: MariaDB's default
 * repeatable-read snapshot hides it from a plain SELECT, a locking read does not. PostgreSQL
 * (read committed) and SQLite (one writer) see it anyway.
 */
export function latestCommitted<Q extends Knex.QueryBuilder>(trx: Knex | Knex.Transaction, query: Q): Q {
  return (trx.client.config.client === 'mysql2' ? query.forShare() : query) as Q;
}
