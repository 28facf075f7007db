import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * The activity feeds' `activities` table (Gitea's `action` rows; `0005_activities`, recorded by the
 * kernel in earlier releases and adopted), then notification threads and the activity columns the
 * feeds need. After Gitea's `notification`:
 * one thread per (user, issue or pull request); `status` 1 unread, 2 read, 3 pinned; `source`
 * 1 issue, 2 pull request, 3 commit, 4 repository (Gitea's values); `comment_id` the latest
 * comment the thread points at, `updated_by` who last touched it. `activities.comment_id`: the
 * comment an activity row is about (comment actions). Earlier releases created both in the
 * kernel's `0015_notifications` (with the core's `watch` and `star`, which that migration now
 * creates alone): such databases have them, so this only creates what is missing.
 */
export const activityMigrations: PluginMigration[] = [
  {
    name: '0005_activities',
    async up(db: Knex) {
      // Gitea's `action` rows: what the activity feeds show (served by the feeds feature).
      await db.schema.createTable('activities', (t) => {
        t.increments('id').primary();
        t.integer('op_type').notNullable();
        t.integer('act_user_id').notNullable();
        t.integer('repo_id').notNullable();
        t.string('ref_name', 255).notNullable().defaultTo('');
        t.boolean('is_private').notNullable().defaultTo(false);
        t.text('content').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.index(['repo_id', 'created_unix']);
        t.index(['act_user_id', 'created_unix']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('activities');
    },
  },
  {
    name: '0015_notification_threads',
    async up(db: Knex) {
      if (!(await db.schema.hasTable('notification'))) {
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
      }
      if (await db.schema.hasColumn('activities', 'comment_id')) return; // added by 0015_notifications of an earlier release
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
      await db.schema.dropTableIfExists('notification');
    },
  },
];
