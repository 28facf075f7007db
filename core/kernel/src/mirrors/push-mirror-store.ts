import type { Knex } from 'knex';
import { nowUnix } from '../users/models';

export interface PushMirrorRow {
  id: number;
  repo_id: number;
  remote_name: string;
  /** The remote URL without user info. */
  remote_address: string;
  /** Sealed {username, password}, or null when the remote needs none. */
  credentials: string | null;
  sync_on_commit: boolean;
  interval_seconds: number;
  next_update_unix: number;
  sync_requested: number;
  locked_until_unix: number;
  last_update_unix: number;
  last_error: string;
  created_unix: number;
}

export interface RemoteCredentials {
  username: string;
  password: string;
}

const num = (v: unknown): number => Number(v ?? 0);
const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';

/** A database row as numbers and booleans (0/1 on SQLite/MariaDB, bigint strings on PostgreSQL). */
export function toPushMirror(raw: any): PushMirrorRow {
  return {
    id: num(raw.id),
    repo_id: num(raw.repo_id),
    remote_name: String(raw.remote_name),
    remote_address: String(raw.remote_address),
    credentials: raw.credentials ?? null,
    sync_on_commit: bool(raw.sync_on_commit),
    interval_seconds: num(raw.interval_seconds),
    next_update_unix: num(raw.next_update_unix),
    sync_requested: num(raw.sync_requested),
    locked_until_unix: num(raw.locked_until_unix),
    last_update_unix: num(raw.last_update_unix),
    last_error: raw.last_error ?? '',
    created_unix: num(raw.created_unix),
  };
}

/** The context a row's credentials are sealed to: they cannot be copied onto another mirror. */
export const credentialContext = (repoId: number, remoteName: string): string => `push_mirror:${repoId}:${remoteName}`;

/** Ask for a sync of these mirrors (the worker serves every request counted here). Returns how many rows were marked. */
export async function requestSync(db: Knex, where: (q: Knex.QueryBuilder) => void): Promise<number> {
  const q = db('push_mirror');
  where(q);
  return q.update({ sync_requested: db.raw('sync_requested + 1') });
}

/** Rows due now: requested, or their interval has passed; and no worker holds them. */
export async function dueMirrors(db: Knex, limit: number): Promise<PushMirrorRow[]> {
  const now = nowUnix();
  const rows = await db('push_mirror')
    .where('locked_until_unix', '<', now)
    .andWhere((q) => q.where('sync_requested', '>', 0).orWhere((p) => p.where('interval_seconds', '>', 0).andWhere('next_update_unix', '<=', now)))
    .orderBy('id')
    .limit(limit);
  return rows.map(toPushMirror);
}

/** Remove user info from URLs in a message (git prints the remote it talked to). */
export function redactUrls(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1');
}
