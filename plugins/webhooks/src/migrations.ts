import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Webhook and delivery tables (migration names start with 0014_), after Gitea's `webhook` and
 * `hook_task`. A hook belongs to a repository (repo_id), to a user or organization (owner_id,
 * repo_id 0) or to the whole site (is_system_webhook). Every delivery is a `hook_task` row,
 * written before the request that caused it returns; workers claim rows by setting
 * `claimed_until` (a lease) with a conditional UPDATE, so one row is sent by one worker at a time.
 */
export const webhookMigrations: PluginMigration[] = [
  {
    name: '0014_webhooks',
    async up(db: Knex) {
      await db.schema.createTable('webhook', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable().defaultTo(0).index();
        t.integer('owner_id').notNullable().defaultTo(0).index();
        t.boolean('is_system_webhook').notNullable().defaultTo(false);
        t.string('type', 32).notNullable();
        t.text('url').notNullable();
        t.string('http_method', 8).notNullable().defaultTo('POST');
        /** 1 = json, 2 = form (Gitea's HookContentType). */
        t.integer('content_type').notNullable().defaultTo(1);
        t.text('secret');
        /** Gitea's HookEvent JSON: push_only, send_everything, choose_events, branch_filter, events. */
        t.text('events').notNullable();
        /** Type-specific settings (username, icon_url, channel…) as JSON. */
        t.text('meta');
        t.boolean('is_active').notNullable().defaultTo(false);
        /** AES-256-GCM sealed Authorization header value ('' when none). */
        t.text('header_authorization_encrypted');
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
      });
      await db.schema.createTable('hook_task', (t) => {
        t.increments('id').primary();
        t.string('uuid', 36).notNullable().unique();
        t.integer('hook_id').notNullable();
        t.integer('repo_id').notNullable().defaultTo(0);
        t.string('event_type', 64).notNullable();
        /** What to send: the event envelope as written in the emitting request (see webhooks/tasks.ts). */
        t.text('payload', 'longtext').notNullable();
        /** The body actually sent, fixed at the first attempt so retries and redeliveries send the same bytes. */
        t.text('payload_content', 'longtext');
        t.text('request_info');
        t.text('response_info');
        /** No further attempt is scheduled (succeeded, or gave up). */
        t.boolean('is_delivered').notNullable().defaultTo(false);
        t.boolean('is_succeed').notNullable().defaultTo(false);
        t.integer('attempts').notNullable().defaultTo(0);
        /** Milliseconds since the epoch. */
        t.bigInteger('next_attempt').notNullable().defaultTo(0);
        t.bigInteger('claimed_until').notNullable().defaultTo(0);
        t.string('claim_token', 40).notNullable().defaultTo('');
        t.bigInteger('delivered').notNullable().defaultTo(0);
        t.bigInteger('created').notNullable();
        t.index(['is_delivered', 'next_attempt']);
        t.index(['hook_id', 'id']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('hook_task');
      await db.schema.dropTable('webhook');
    },
  },
];
