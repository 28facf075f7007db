import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Server-side sessions (the cookie holds a random key; the table keeps only its SHA-256, so a read
 * of the database signs nobody in) and the failed sign-in counters that throttle password guessing.
 */
export const webMigrations: PluginMigration[] = [
  {
    name: 'web_0001_sessions',
    async up(db: Knex) {
      await db.schema.createTable('web_sessions', (t) => {
        t.increments('id').primary();
        t.string('key_hash', 64).notNullable().unique();
        t.integer('user_id').notNullable().index();
        t.string('csrf_token', 64).notNullable();
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('expires_unix').notNullable().index();
      });
      await db.schema.createTable('web_login_failures', (t) => {
        t.string('subject', 300).primary();
        t.integer('failures').notNullable();
        t.bigInteger('window_start_unix').notNullable();
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('web_login_failures');
      await db.schema.dropTable('web_sessions');
    },
  },
];
