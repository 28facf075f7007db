import type { Knex } from 'knex';
import { ApiError } from './errors';

/**
 * Small, stateless helpers every feature needs in the same form (the kernel uses these very
 * functions): Gitea's time encoding and database quirks shared by SQLite, MariaDB and PostgreSQL.
 */

/** Now, in unix seconds (Gitea stores times so). @public */
export function nowUnix(): number {
  return Math.floor(Date.now() / 1000);
}

/** Gitea's JSON time format: RFC 3339 in UTC, no fractional seconds. @public */
export function unixToIso(unix: number): string {
  const iso = new Date(unix * 1000).toISOString();
  // Every JSON listing formats several times per item: slicing the common 24-character form beats a regex.
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}

/** An RFC 3339 time from a request (`field` names it) to unix seconds; ApiError 422 when it is not one. @public */
export function parseTime(value: string, field: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) {
    throw ApiError.unprocessable(`${field} is not a valid date-time`, { errors: [{ field, message: 'must be an RFC 3339 date-time' }] });
  }
  return Math.floor(t / 1000);
}

/** Go's zero time, which Gitea prints for times that are unset or hidden from the viewer. @public */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'ER_DUP_ENTRY', '23505']);

/**
 * A unique-index violation on any of the three databases, whether it comes raw from knex or
 * wrapped by objection (UniqueViolationError with the driver's error as `nativeError`).
 * @public
 */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { name?: string; code?: string; nativeError?: { code?: string } } | null;
  if (!e) return false;
  return e.name === 'UniqueViolationError' || UNIQUE_CODES.has(e.code ?? '') || UNIQUE_CODES.has(e.nativeError?.code ?? '');
}

/** Insert a row and return its id on all three databases. @public */
export async function insertId(trx: Knex | Knex.Transaction, table: string, row: Record<string, unknown>): Promise<number> {
  // MySQL has no RETURNING: its driver reports the new id by itself (knex warns when asked for one).
  const [res] = trx.client.config.client === 'mysql2' ? await trx(table).insert(row) : await trx(table).insert(row, ['id']);
  return typeof res === 'object' ? Number((res as { id: number }).id) : Number(res);
}

/** Runs tasks with the same key one after another (in this process); different keys run freely. @public */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.catch(() => undefined).then(task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

/** Each segment of a path percent-encoded, the slashes kept (tags and file paths in URLs). @public */
export function escapeSegments(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The all-zero object id git uses for "no object" in ref updates. @public */
export const ZERO_ID = '0'.repeat(40);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A `content_base64` field of a request (contents, wiki pages) to bytes: whitespace is ignored;
 * anything else that is not base64 is ApiError 422 naming `filePath`. Absent is empty. @public
 */
export function decodeBase64(value: string | undefined, filePath: string): Buffer {
  if (value === undefined || value === null) return Buffer.alloc(0);
  const compact = value.replace(/[\r\n\t ]/g, '');
  if (!BASE64.test(compact) || compact.replace(/=+$/, '').length % 4 === 1)
    throw ApiError.unprocessable(`invalid base64 content [path: ${filePath}]`);
  return Buffer.from(compact, 'base64');
}
