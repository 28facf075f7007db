import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Tables of releases and their attachments (names start with 0008_), after Gitea's `release`
 * and `attachment`. Attachment bytes live in a content-addressed store under
 * DATA_DIR/attachments/blobs, referenced by sha256 (a blob goes with its last attachment).
 */
export const releaseMigrations: PluginMigration[] = [
  {
    name: '0008_releases',
    async up(db: Knex) {
      await db.schema.createTable('release', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.integer('publisher_id').notNullable().defaultTo(0);
        t.string('tag_name', 255).notNullable();
        t.string('lower_tag_name', 255).notNullable();
        t.string('target', 255).notNullable().defaultTo('');
        t.string('title', 255).notNullable().defaultTo('');
        t.text('note');
        t.boolean('is_draft').notNullable().defaultTo(false);
        t.boolean('is_prerelease').notNullable().defaultTo(false);
        t.bigInteger('created_unix').notNullable();
        t.unique(['repo_id', 'lower_tag_name']);
        t.index(['repo_id', 'created_unix']);
      });
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
      await db.schema.dropTable('release');
    },
  },
];
