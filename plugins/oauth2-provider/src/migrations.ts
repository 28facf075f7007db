import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/** The provider's tables: applications, grants, codes, tokens (every secret stored as its SHA-256) and signing keys. */
export const oauth2Migrations: PluginMigration[] = [
  {
    name: '001_oauth2_provider_tables',
    async up(db: Knex) {
      await db.schema.createTable('oauth2_applications', (t) => {
        t.increments('id').primary();
        t.integer('user_id').notNullable().index();
        t.string('name', 255).notNullable();
        t.string('client_id', 64).notNullable().unique();
        t.string('secret_hash', 64).notNullable();
        t.boolean('confidential').notNullable().defaultTo(true);
        // A JSON array of absolute URIs; the authorization request must name one of them exactly.
        t.text('redirect_uris').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
      });
      // What a user consented to for an application (one row per pair, as Gitea's oauth2_grant).
      await db.schema.createTable('oauth2_grants', (t) => {
        t.increments('id').primary();
        t.integer('user_id').notNullable().index();
        t.integer('application_id').notNullable().index();
        t.string('scope', 1024).notNullable();
        t.bigInteger('created_unix').notNullable();
        t.unique(['user_id', 'application_id']);
      });
      // Authorization codes: short-lived, single use; a second use revokes what the first one issued.
      await db.schema.createTable('oauth2_codes', (t) => {
        t.increments('id').primary();
        t.string('code_hash', 64).notNullable().unique();
        t.integer('grant_id').notNullable().index();
        t.string('redirect_uri', 1024).notNullable();
        t.string('scope', 1024).notNullable();
        t.string('nonce', 255).notNullable().defaultTo('');
        t.string('code_challenge', 128).notNullable().defaultTo('');
        t.string('code_challenge_method', 8).notNullable().defaultTo('');
        t.boolean('used').notNullable().defaultTo(false);
        t.bigInteger('expires_unix').notNullable().index();
      });
      // Access and refresh tokens; `family_id` is the code they descend from (refreshes included).
      await db.schema.createTable('oauth2_tokens', (t) => {
        t.increments('id').primary();
        t.string('token_hash', 64).notNullable().unique();
        t.string('kind', 8).notNullable();
        t.integer('grant_id').notNullable().index();
        t.integer('family_id').notNullable().index();
        t.string('scope', 1024).notNullable();
        t.string('nonce', 255).notNullable().defaultTo('');
        // Refresh tokens rotate: a used one is refused, and its reuse revokes the family.
        t.boolean('used').notNullable().defaultTo(false);
        t.bigInteger('expires_unix').notNullable().index();
      });
      // The ID tokens' RS256 keys; the private half sealed with ctx.secrets('oauth2-signing-keys').
      await db.schema.createTable('oauth2_signing_keys', (t) => {
        t.increments('id').primary();
        t.string('kid', 64).notNullable().unique();
        t.text('private_key').notNullable();
        t.text('public_jwk').notNullable();
        t.bigInteger('created_unix').notNullable();
      });
    },
    async down(db: Knex) {
      for (const table of ['oauth2_signing_keys', 'oauth2_tokens', 'oauth2_codes', 'oauth2_grants', 'oauth2_applications'])
        await db.schema.dropTable(table);
    },
  },
];
