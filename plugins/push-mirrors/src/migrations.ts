import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Push mirror tables (migration names start with 0013_). The `push_mirror` table is also the
 * worker's queue, so pending syncs survive a restart: a row is due when `sync_requested` > 0 (a
 * manual or on-commit request) or when its interval has passed (`next_update_unix`); a worker
 * owns a row while `locked_until_unix` is in the future. `credentials` holds the remote user name
 * and password sealed with AES-256-GCM (see secret-box.ts), never in plain text.
 */
export const mirrorMigrations: PluginMigration[] = [
  {
    name: '0013_push_mirrors',
    async up(db: Knex) {
      await db.schema.createTable('push_mirror', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.string('remote_name', 64).notNullable();
        t.text('remote_address').notNullable();
        t.text('credentials');
        t.boolean('sync_on_commit').notNullable().defaultTo(false);
        t.bigInteger('interval_seconds').notNullable().defaultTo(0);
        t.bigInteger('next_update_unix').notNullable().defaultTo(0);
        t.integer('sync_requested').notNullable().defaultTo(0);
        t.bigInteger('locked_until_unix').notNullable().defaultTo(0);
        t.bigInteger('last_update_unix').notNullable().defaultTo(0);
        t.text('last_error');
        t.bigInteger('created_unix').notNullable();
        t.unique(['repo_id', 'remote_name']);
        t.index(['next_update_unix']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('push_mirror');
    },
  },
];
