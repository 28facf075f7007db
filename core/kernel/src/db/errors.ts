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
