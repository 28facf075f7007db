import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/** The ActivityPub plugin's one table: each person's key pair, made on first use. */
export const activitypubMigrations: PluginMigration[] = [
  {
    name: '001_activitypub_user_keys',
    async up(db: Knex) {
      await db.schema.createTable('activitypub_user_keys', (t) => {
        t.integer('user_id').primary();
        t.text('public_key_pem').notNullable();
        // Sealed with ctx.secrets('activitypub'), bound to the user id.
        t.text('private_key_sealed').notNullable();
        t.bigInteger('created_unix').notNullable();
      });
    },
    async down(db: Knex) {
      await db.schema.dropTableIfExists('activitypub_user_keys');
    },
  },
];
