import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

export const twoFactorMigrations: PluginMigration[] = [
  {
    name: '001_two_factor',
    async up(db: Knex) {
      // One row per user: an enrolment under way (not active) or an active second factor.
      await db.schema.createTable('two_factor', (t) => {
        t.integer('user_id').primary();
        // The TOTP secret (base32), sealed with ctx.secrets('two-factor') and bound to the user id.
        t.text('secret').notNullable();
        // SHA-256 of the recovery (scratch) code; '' once it was used.
        t.string('scratch_hash', 64).notNullable().defaultTo('');
        // The last 30-second step a code was accepted for at sign-in: no replay within its window.
        t.bigInteger('last_used_step').notNullable().defaultTo(0);
        t.boolean('active').notNullable().defaultTo(false);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('two_factor');
    },
  },
];
