import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError, insertId, isUniqueViolation, nowUnix, type UserDirectory, type UserInfo } from '@hearth/plugin-api';
import { LOCKS, type LockRow } from './tables';

/** A lock as the locking API shows it. */
export interface LockJson {
  id: string;
  path: string;
  locked_at: string;
  owner: { name: string };
}

export interface LockFilter {
  path?: string;
  id?: string;
  cursor?: string;
  limit: number;
}

/** A lock path as git-lfs sends it, made relative and clean; `..`, empty and absolute paths are refused. */
export function cleanLockPath(path: string): string {
  const parts = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.some((p) => p === '..') || path.includes('\0'))
    throw ApiError.unprocessable(`invalid lock path: ${path}`);
  return parts.join('/');
}

const pathKey = (path: string) => crypto.createHash('sha256').update(path.toLowerCase()).digest('hex');

/** File locks of the locking API: one per path (case-insensitively, as Gitea) and repository. */
export class LfsLocks {
  constructor(
    private readonly db: Knex,
    private readonly users: UserDirectory,
  ) {}

  async create(repositoryId: number, owner: UserInfo, rawPath: string): Promise<LockJson> {
    const path = cleanLockPath(rawPath);
    try {
      const id = await insertId(this.db, LOCKS, {
        repository_id: repositoryId,
        owner_id: owner.id,
        path,
        path_key: pathKey(path),
        created_unix: nowUnix(),
      });
      const row = await this.db<LockRow>(LOCKS).where('id', id).first();
      return this.toJson(row!, owner);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const existing = await this.db<LockRow>(LOCKS)
        .where({ repository_id: repositoryId, path_key: pathKey(path) })
        .first();
      const lock = existing ? await this.toJsonOf([existing]) : [];
      throw new ApiError(409, 'already created lock', { lock: lock[0] });
    }
  }

  /** Locks of a repository, oldest first, from `cursor` (a lock id) on; `next_cursor` when more follow. */
  async list(repositoryId: number, filter: LockFilter): Promise<{ locks: LockJson[]; next_cursor?: string }> {
    const query = this.db<LockRow>(LOCKS).where('repository_id', repositoryId).orderBy('id');
    if (filter.id !== undefined) query.where('id', Number(filter.id) || 0);
    if (filter.path !== undefined) query.where('path_key', pathKey(cleanLockPath(filter.path)));
    if (filter.cursor) query.where('id', '>=', Number(filter.cursor) || 0);
    const rows = await query.limit(filter.limit + 1);
    const locks = await this.toJsonOf(rows.slice(0, filter.limit));
    return rows.length > filter.limit ? { locks, next_cursor: String(rows[filter.limit].id) } : { locks };
  }

  /** Remove a lock: its owner may, others only with `force` (which the caller's permission allowed). */
  async unlock(repositoryId: number, id: string, user: UserInfo, force: boolean): Promise<LockJson> {
    const row = /^\d{1,12}$/.test(id)
      ? await this.db<LockRow>(LOCKS)
          .where({ repository_id: repositoryId, id: Number(id) })
          .first()
      : undefined;
    if (!row) throw ApiError.notFound(`lock does not exist [id: ${id}]`);
    if (row.owner_id !== user.id && !force) throw ApiError.forbidden("the lock is another user's: unlocking it needs --force");
    const [json] = await this.toJsonOf([row]);
    await this.db(LOCKS).where('id', row.id).delete();
    return json;
  }

  /** Inside a repository's deletion. */
  async forget(trx: Knex.Transaction, repositoryId: number): Promise<void> {
    await trx(LOCKS).where('repository_id', repositoryId).delete();
  }

  private async toJsonOf(rows: LockRow[]): Promise<LockJson[]> {
    const owners = new Map<number, UserInfo | null>();
    for (const row of rows) if (!owners.has(row.owner_id)) owners.set(row.owner_id, await this.users.byId(row.owner_id));
    return rows.map((row) => this.toJson(row, owners.get(row.owner_id) ?? null));
  }

  private toJson(row: LockRow, owner: UserInfo | null): LockJson {
    return {
      id: String(row.id),
      path: row.path,
      locked_at: new Date(Number(row.created_unix) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      owner: { name: owner?.name ?? 'Ghost' },
    };
  }
}
