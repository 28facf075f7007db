import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * The `attachment` table (Gitea's), owned by the core. It was created together with the releases
 * table by `0008_releases` when releases were a kernel area: the migration keeps its name (it is
 * recorded in existing databases) and now creates the attachments only; the releases plugin
 * creates its `release` table itself.
 */
export const attachmentMigrations: PluginMigration[] = [
  {
    name: '0008_releases',
    async up(db: Knex) {
      await db.schema.createTable('attachment', (t) => {
        t.increments('id').primary();
        t.string('uuid', 40).notNullable().unique();
        t.integer('repo_id').notNullable().index();
        t.integer('release_id').notNullable().index();
        t.integer('uploader_id').notNullable().defaultTo(0);
        t.string('name', 255).notNullable();
        t.bigInteger('size').notNullable().defaultTo(0);
        t.string('hash_sha256', 64).notNullable().index();
        t.bigInteger('download_count').notNullable().defaultTo(0);
        t.bigInteger('created_unix').notNullable();
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('attachment');
    },
  },
];
