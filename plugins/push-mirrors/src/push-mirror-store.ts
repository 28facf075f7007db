import type { Knex } from 'knex';
import { nowUnix, rowReader } from '@hearth/plugin-api';

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

/** A database row as numbers and booleans (0/1 on SQLite/MariaDB, bigint strings on PostgreSQL). */
export const toPushMirror = rowReader<PushMirrorRow>({
  numbers: [
    'id',
    'repo_id',
    'interval_seconds',
    'next_update_unix',
    'sync_requested',
    'locked_until_unix',
    'last_update_unix',
    'created_unix',
  ],
  booleans: ['sync_on_commit'],
  strings: ['last_error'],
});

/** The purpose credentials are sealed under (`ctx.secrets`), as in earlier releases: stored values still open. */
export const CREDENTIALS_SECRET_PURPOSE = 'push-mirror-credentials';

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
    .andWhere((q) =>
      q.where('sync_requested', '>', 0).orWhere((p) => p.where('interval_seconds', '>', 0).andWhere('next_update_unix', '<=', now)),
    )
    .orderBy('id')
    .limit(limit);
  return rows.map(toPushMirror);
}

/** Remove user info from URLs in a message (git prints the remote it talked to). */
export function redactUrls(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1');
}
