import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Repository watches and stars, notification threads, and the activity columns the feeds need
 * (migration names start with 0015_). After Gitea's `watch`, `star` and `notification` tables:
 * - `watch`: one row per (user, repository) being watched (`mode` 1 normal, as Gitea's WatchMode);
 *   `repositories.num_watches` is kept equal to the number of rows.
 * - `star`: one row per (user, repository) starred; `repositories.num_stars` likewise.
 * - `notification`: one thread per (user, issue or pull request); `status` 1 unread, 2 read,
 *   3 pinned; `source` 1 issue, 2 pull request, 3 commit, 4 repository (Gitea's values);
 *   `comment_id` the latest comment the thread points at, `updated_by` who last touched it.
 * - `activities.comment_id`: the comment an activity row is about (comment actions).
 */
export const notificationMigrations: PluginMigration[] = [
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
      await db.schema.createTable('notification', (t) => {
        t.increments('id').primary();
        t.integer('user_id').notNullable();
        t.integer('repo_id').notNullable().index();
        t.integer('status').notNullable();
        t.integer('source').notNullable();
        t.integer('issue_id').notNullable().defaultTo(0);
        t.string('commit_id', 64).notNullable().defaultTo('');
        t.integer('comment_id').notNullable().defaultTo(0);
        t.integer('updated_by').notNullable().defaultTo(0);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['user_id', 'issue_id', 'source']);
        t.index(['user_id', 'status', 'updated_unix']);
        t.index(['issue_id']);
      });
      await db.schema.alterTable('activities', (t) => {
        t.integer('comment_id').notNullable().defaultTo(0);
      });
      // Rows written before the op types were corrected (push tag 16 → 9, delete tag 17 → 16,
      // delete branch 18 → 17, Gitea's ActionType values), in an order that never collides.
      await db('activities').where('op_type', 16).update({ op_type: 9 });
      await db('activities').where('op_type', 17).update({ op_type: 16 });
      await db('activities').where('op_type', 18).update({ op_type: 17 });
    },
    async down(db: Knex) {
      await db.schema.alterTable('activities', (t) => {
        t.dropColumn('comment_id');
      });
      for (const table of ['notification', 'star', 'watch']) await db.schema.dropTableIfExists(table);
    },
  },
];
