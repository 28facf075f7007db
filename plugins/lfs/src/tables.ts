import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/** Which LFS objects a repository holds: one row per repository and oid (the blob is shared, named by the oid). */
export const META = 'lfs_meta_object';
/** File locks of the locking API. */
export const LOCKS = 'lfs_lock';

export interface MetaRow {
  id: number;
  repository_id: number;
  oid: string;
  size: number | string;
  created_unix: number | string;
}

export interface LockRow {
  id: number;
  repository_id: number;
  owner_id: number;
  path: string;
  /** sha256 of the lower-cased path: unique per repository (paths may be longer than an index allows). */
  path_key: string;
  created_unix: number | string;
}

/** Settings of the `lfs` plugin. @public */
export interface LfsSettings {
  /** Largest object accepted, in bytes; 0 is unlimited (Gitea's `[server] LFS_MAX_FILE_SIZE`). */
  maxFileSize: number;
  /** Default and largest page of the locks list (Gitea's `LFS_LOCKS_PAGING_NUM`). */
  locksPagingNum: number;
}

export const lfsMigrations: PluginMigration[] = [
  {
    name: '0001_lfs_tables',
    async up(db: Knex) {
      await db.schema.createTable(META, (t) => {
        t.increments('id').primary();
        t.integer('repository_id').notNullable();
        t.string('oid', 64).notNullable();
        t.bigInteger('size').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.unique(['repository_id', 'oid']);
        t.index(['oid']);
      });
      await db.schema.createTable(LOCKS, (t) => {
        t.increments('id').primary();
        t.integer('repository_id').notNullable();
        t.integer('owner_id').notNullable();
        t.string('path', 1024).notNullable();
        t.string('path_key', 64).notNullable();
        t.bigInteger('created_unix').notNullable();
        t.unique(['repository_id', 'path_key']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTableIfExists(LOCKS);
      await db.schema.dropTableIfExists(META);
    },
  },
];
