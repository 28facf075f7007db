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

/**
 * The attachment columns of issues and comments (`issue_id`, `comment_id`: 0 for a release's).
 * Earlier releases added them in the issues' `0010_interactions`: such databases have them
 * already, so this only adds what is missing.
 */
export const attachmentLinkMigrations: PluginMigration[] = [
  {
    name: '0016_attachment_issue_links',
    async up(db: Knex) {
      if (await db.schema.hasColumn('attachment', 'issue_id')) return; // added by 0010_interactions of an earlier release
      await db.schema.alterTable('attachment', (t) => {
        t.integer('issue_id').notNullable().defaultTo(0).index();
        t.integer('comment_id').notNullable().defaultTo(0).index();
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('attachment', (t) => {
        t.dropIndex(['issue_id']);
        t.dropIndex(['comment_id']);
      });
      await db.schema.alterTable('attachment', (t) => {
        t.dropColumn('issue_id');
        t.dropColumn('comment_id');
      });
    },
  },
];
