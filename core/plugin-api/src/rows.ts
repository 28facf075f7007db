/**
 * Reading raw database rows the same way on SQLite, MariaDB and PostgreSQL: booleans come back as
 * 0/1 (SQLite, MariaDB) or 't' (some PostgreSQL paths), bigint columns as strings (PostgreSQL), and
 * JSON kept in text columns as strings. A table's columns are declared once, in its row reader.
 */

/** A database boolean as a JS boolean. @public */
export function toBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

/** A database number (bigint strings included) as a JS number; null and undefined read as 0. @public */
export function toNumber(value: unknown): number {
  return Number(value ?? 0);
}

/** JSON kept in a text column, or `fallback` when empty or unreadable. @public */
export function parseJsonColumn<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || !text) return text && typeof text === 'object' ? (text as T) : fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Which columns of a table need converting when read; the rest are kept as the driver returns them. @public */
export interface RowColumns {
  booleans?: readonly string[];
  numbers?: readonly string[];
  /** JSON text columns, with the value to use when a row's is empty or unreadable. */
  json?: Readonly<Record<string, unknown>>;
  /** Text columns that may be null and read as ''. */
  strings?: readonly string[];
}

/**
 * A converter from a raw row of one table to its typed row:
 * `const toRelease = rowReader<ReleaseRow>({ booleans: ['is_draft'], numbers: ['id'] })`.
 * @public
 */
export function rowReader<T>(columns: RowColumns): (raw: any) => T {
  const { booleans = [], numbers = [], json = {}, strings = [] } = columns;
  const jsonColumns = Object.entries(json);
  return (raw: any): T => {
    const row: Record<string, unknown> = { ...raw };
    for (const column of numbers) row[column] = toNumber(raw[column]);
    for (const column of booleans) row[column] = toBoolean(raw[column]);
    for (const column of strings) row[column] = raw[column] ?? '';
    for (const [column, fallback] of jsonColumns) row[column] = parseJsonColumn(raw[column], structuredClone(fallback));
    return row as T;
  };
}
