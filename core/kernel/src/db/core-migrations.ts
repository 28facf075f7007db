import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';
import { orgMigrations } from '../orgs/migrations';
import { packageMigrations } from '../packages/migrations';
import { attachmentLinkMigrations, attachmentMigrations } from '../attachments/migrations';
import { followerMigrations } from '../repos/follower-migrations';
import { protectionMigrations } from '../protection/migrations';
import { loginSourceMigrations } from '../users/login-sources';
import { userSettingsMigrations } from '../users/user-settings';
import { tokenScopeMigrations } from '../auth/token-migrations';
import { followMigrations } from '../users/follows';

/** The kernel's tables. Times are unix seconds (bigint), as Gitea stores them. Areas with many tables keep theirs beside their code. */
export const coreMigrations: PluginMigration[] = [
  {
    name: '0001_users_emails_tokens',
    async up(db: Knex) {
      await db.schema.createTable('users', (t) => {
        t.increments('id').primary();
        t.string('lower_name', 255).notNullable().unique();
        t.string('name', 255).notNullable();
        t.string('full_name', 255).notNullable().defaultTo('');
        t.string('email', 255).notNullable().defaultTo('');
        t.boolean('keep_email_private').notNullable().defaultTo(false);
        t.string('passwd', 255).notNullable().defaultTo('');
        t.boolean('must_change_password').notNullable().defaultTo(false);
        t.integer('login_type').notNullable().defaultTo(0);
        t.bigInteger('login_source').notNullable().defaultTo(0);
        t.string('login_name', 255).notNullable().defaultTo('');
        t.integer('type').notNullable().defaultTo(0);
        t.string('location', 255).notNullable().defaultTo('');
        t.string('website', 255).notNullable().defaultTo('');
        t.string('description', 255).notNullable().defaultTo('');
        t.string('language', 16).notNullable().defaultTo('');
        t.integer('visibility').notNullable().defaultTo(0);
        t.boolean('is_active').notNullable().defaultTo(true);
        t.boolean('is_admin').notNullable().defaultTo(false);
        t.boolean('is_restricted').notNullable().defaultTo(false);
        t.boolean('prohibit_login').notNullable().defaultTo(false);
        t.boolean('allow_git_hook').notNullable().defaultTo(false);
        t.boolean('allow_import_local').notNullable().defaultTo(false);
        t.boolean('allow_create_organization').notNullable().defaultTo(true);
        t.integer('max_repo_creation').notNullable().defaultTo(-1);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.bigInteger('last_login_unix').notNullable().defaultTo(0);
        t.index(['login_source', 'login_name']);
      });
      await db.schema.createTable('user_emails', (t) => {
        t.increments('id').primary();
        t.integer('uid').notNullable().index();
        t.string('email', 255).notNullable();
        t.string('lower_email', 255).notNullable().unique();
        t.boolean('is_activated').notNullable().defaultTo(true);
        t.boolean('is_primary').notNullable().defaultTo(false);
      });
      await db.schema.createTable('access_tokens', (t) => {
        t.increments('id').primary();
        t.integer('uid').notNullable().index();
        t.string('name', 255).notNullable();
        // sha256 of the token: tokens are 160 random bits, so a fast hash is as safe as a KDF and keeps lookups cheap.
        t.string('token_hash', 64).notNullable().unique();
        t.string('token_last_eight', 8).notNullable();
        t.string('scope', 512).notNullable();
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['uid', 'name']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('access_tokens');
      await db.schema.dropTable('user_emails');
      await db.schema.dropTable('users');
    },
  },
  {
    name: '0002_repositories',
    async up(db: Knex) {
      await db.schema.createTable('repositories', (t) => {
        t.increments('id').primary();
        t.integer('owner_id').notNullable();
        t.string('owner_name', 255).notNullable();
        t.string('lower_name', 255).notNullable();
        t.string('name', 255).notNullable();
        t.text('description').notNullable();
        t.string('website', 2048).notNullable().defaultTo('');
        t.string('default_branch', 255).notNullable();
        t.boolean('is_private').notNullable().defaultTo(false);
        t.boolean('is_empty').notNullable().defaultTo(true);
        t.boolean('is_archived').notNullable().defaultTo(false);
        t.boolean('is_template').notNullable().defaultTo(false);
        t.boolean('is_fork').notNullable().defaultTo(false);
        t.integer('fork_id').notNullable().defaultTo(0);
        t.integer('template_id').notNullable().defaultTo(0);
        t.integer('num_forks').notNullable().defaultTo(0);
        t.integer('num_stars').notNullable().defaultTo(0);
        t.integer('num_watches').notNullable().defaultTo(0);
        t.bigInteger('size').notNullable().defaultTo(0);
        // Enabled units and merge settings, as JSON: both grow with features, and no query filters on them.
        t.text('units').notNullable();
        t.text('settings').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.bigInteger('archived_unix').notNullable().defaultTo(0);
        t.unique(['owner_id', 'lower_name']);
        t.index(['is_private']);
      });
      await db.schema.createTable('repo_branches', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.string('name', 255).notNullable();
        t.string('commit_id', 64).notNullable();
        t.integer('pusher_id').notNullable().defaultTo(0);
        t.bigInteger('updated_unix').notNullable();
        t.unique(['repo_id', 'name']);
      });
      await db.schema.createTable('repo_topics', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.string('name', 50).notNullable();
        t.unique(['repo_id', 'name']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('repo_topics');
      await db.schema.dropTable('repo_branches');
      await db.schema.dropTable('repositories');
    },
  },
  {
    name: '0003_commit_statuses',
    async up(db: Knex) {
      // Statuses CI systems post against a complete commit id (Gitea's commit_status table).
      await db.schema.createTable('commit_statuses', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        // 1-based per (repo_id, sha); what the API shows as the status "id", as Gitea does.
        t.integer('index').notNullable();
        t.string('sha', 64).notNullable();
        t.string('state', 7).notNullable();
        t.text('target_url').notNullable();
        t.text('description').notNullable();
        t.string('context', 255).notNullable().defaultTo('default');
        // sha1 hex of context: "latest per context" groups on it, exact on every database
        // (MariaDB's default collation would fold "CI" and "ci" together).
        t.string('context_hash', 40).notNullable();
        t.integer('creator_id').notNullable().defaultTo(0);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        // Serves lookups by (repo_id, sha) as its prefix, and makes concurrent index allocation safe.
        t.unique(['repo_id', 'sha', 'index']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('commit_statuses');
    },
  },
  {
    name: '0004_repository_transfers',
    async up(db: Knex) {
      await db.schema.alterTable('repositories', (t) => {
        t.integer('status').notNullable().defaultTo(0);
      });
      await db.schema.createTable('repo_transfers', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable().unique();
        t.integer('doer_id').notNullable();
        t.integer('recipient_id').notNullable().index();
        t.bigInteger('created_unix').notNullable();
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('repo_transfers');
      await db.schema.alterTable('repositories', (t) => {
        t.dropColumn('status');
      });
    },
  },
  ...orgMigrations,
  ...packageMigrations,
  ...attachmentMigrations,
  ...followerMigrations,
  ...attachmentLinkMigrations,
  ...protectionMigrations,
  ...loginSourceMigrations,
  ...userSettingsMigrations,
  ...tokenScopeMigrations,
  ...followMigrations,
];
