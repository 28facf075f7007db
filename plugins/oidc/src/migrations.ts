import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/** The OIDC plugin's tables: its sources, sign-ins under way, and accounts linked by their owners. */
export const oidcMigrations: PluginMigration[] = [
  {
    name: '001_oidc_tables',
    async up(db: Knex) {
      // One row per OpenID Connect provider; `id` is the kernel's login source id (ctx.users.registerSource).
      await db.schema.createTable('oidc_sources', (t) => {
        t.integer('id').primary();
        t.string('name', 255).notNullable();
        t.string('lower_name', 255).notNullable().unique();
        t.string('discovery_url', 1024).notNullable();
        t.string('client_id', 255).notNullable();
        // Sealed with ctx.secrets('oidc-client-secrets'), bound to the source id.
        t.text('client_secret').notNullable();
        t.string('scopes', 1024).notNullable();
        t.string('group_claim_name', 255).notNullable().defaultTo('');
        t.string('admin_group', 255).notNullable().defaultTo('');
        t.string('restricted_group', 255).notNullable().defaultTo('');
        t.text('group_team_map').notNullable();
        t.boolean('group_team_map_removal').notNullable().defaultTo(false);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
      });
      // A sign-in between the redirect to the provider and its callback: single use, short-lived.
      // The state and the browser key are stored hashed; the browser holds the key in a cookie.
      await db.schema.createTable('oidc_sign_ins', (t) => {
        t.increments('id').primary();
        t.string('state_hash', 64).notNullable().unique();
        t.string('browser_hash', 64).notNullable();
        t.integer('source_id').notNullable();
        t.string('nonce', 64).notNullable();
        t.string('code_verifier', 128).notNullable();
        t.string('redirect_to', 1024).notNullable().defaultTo('');
        t.bigInteger('created_unix').notNullable().index();
      });
      // Existing accounts their owners linked to a provider's subject (after proving the password).
      await db.schema.createTable('oidc_links', (t) => {
        t.increments('id').primary();
        t.integer('source_id').notNullable();
        t.string('subject', 255).notNullable();
        t.integer('user_id').notNullable().index();
        t.bigInteger('created_unix').notNullable();
        t.unique(['source_id', 'subject']);
      });
      // A first sign-in whose email belongs to an existing account, waiting for that account's password.
      await db.schema.createTable('oidc_pending_links', (t) => {
        t.increments('id').primary();
        t.string('token_hash', 64).notNullable().unique();
        t.string('browser_hash', 64).notNullable();
        t.integer('source_id').notNullable();
        t.string('subject', 255).notNullable();
        t.integer('user_id').notNullable();
        // The claims' groups, applied once the link is made.
        t.text('groups').notNullable();
        t.string('redirect_to', 1024).notNullable().defaultTo('');
        t.integer('attempts').notNullable().defaultTo(0);
        t.bigInteger('created_unix').notNullable().index();
      });
    },
    async down(db: Knex) {
      for (const table of ['oidc_pending_links', 'oidc_links', 'oidc_sign_ins', 'oidc_sources']) await db.schema.dropTable(table);
    },
  },
  {
    // Gitea's `--skip-local-2fa`: this provider's sign-ins skip the web interface's second factor.
    name: '002_oidc_skip_local_2fa',
    async up(db: Knex) {
      await db.schema.alterTable('oidc_sources', (t) => {
        t.boolean('skip_local_2fa').notNullable().defaultTo(false);
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('oidc_sources', (t) => t.dropColumn('skip_local_2fa'));
    },
  },
];
