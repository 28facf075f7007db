import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * The `release` table (Gitea's), owned by this plugin. Databases of releases where releases were a
 * kernel area have it already: the kernel's `0008_releases` created it together with the core's
 * `attachment` table (that migration stays the kernel's, and now creates the attachments only),
 * so this one only creates what is missing.
 */
export const releaseMigrations: PluginMigration[] = [
  {
    name: '0008_releases_release',
    async up(db: Knex) {
      if (await db.schema.hasTable('release')) return; // created by the kernel's 0008_releases of an earlier release
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
    },
    async down(db: Knex) {
      await db.schema.dropTableIfExists('release');
    },
  },
];
