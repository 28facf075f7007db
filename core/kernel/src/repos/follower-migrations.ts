import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Repository watches and stars (Gitea's `watch` and `star` tables), owned by the core. They were
 * created together with the notification threads by `0015_notifications` when notifications were
 * a kernel area: the migration keeps its name (it is recorded in existing databases) and now
 * creates these two tables only; the activity plugin creates its `notification` table itself.
 * - `watch`: one row per (user, repository) being watched (`mode` 1 normal, as Gitea's WatchMode);
 *   `repositories.num_watches` is kept equal to the number of rows.
 * - `star`: one row per (user, repository) starred; `repositories.num_stars` likewise.
 */
export const followerMigrations: PluginMigration[] = [
  {
    name: '0015_notifications',
    async up(db: Knex) {
      await db.schema.createTable('watch', (t) => {
        t.increments('id').primary();
        t.integer('user_id').notNullable();
        t.integer('repo_id').notNullable().index();
        t.integer('mode').notNullable().defaultTo(1);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['user_id', 'repo_id']);
      });
      await db.schema.createTable('star', (t) => {
        t.increments('id').primary();
        t.integer('uid').notNullable();
        t.integer('repo_id').notNullable().index();
        t.bigInteger('created_unix').notNullable();
        t.unique(['uid', 'repo_id']);
      });
    },
    async down(db: Knex) {
      for (const table of ['star', 'watch']) await db.schema.dropTableIfExists(table);
    },
  },
];
