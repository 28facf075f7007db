import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Branch protection rules (Gitea's `protected_branch`; whitelists and contexts as JSON lists),
 * owned by the core. Earlier releases created the table in the pull requests' `0012_reviews`:
 * such databases have it already, so this only creates what is missing.
 */
export const protectionMigrations: PluginMigration[] = [
  {
    name: '0016_protected_branch',
    async up(db: Knex) {
      if (await db.schema.hasTable('protected_branch')) return; // created by 0012_reviews of an earlier release
      await db.schema.createTable('protected_branch', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.string('rule_name', 255).notNullable();
        t.boolean('can_push').notNullable().defaultTo(false);
        t.boolean('enable_whitelist').notNullable().defaultTo(false);
        t.text('whitelist_user_ids');
        t.text('whitelist_team_ids');
        t.boolean('whitelist_deploy_keys').notNullable().defaultTo(false);
        t.boolean('enable_merge_whitelist').notNullable().defaultTo(false);
        t.text('merge_whitelist_user_ids');
        t.text('merge_whitelist_team_ids');
        t.boolean('enable_status_check').notNullable().defaultTo(false);
        t.text('status_check_contexts');
        t.boolean('enable_approvals_whitelist').notNullable().defaultTo(false);
        t.text('approvals_whitelist_user_ids');
        t.text('approvals_whitelist_team_ids');
        t.integer('required_approvals').notNullable().defaultTo(0);
        t.boolean('block_on_rejected_reviews').notNullable().defaultTo(false);
        t.boolean('block_on_official_review_requests').notNullable().defaultTo(false);
        t.boolean('block_on_outdated_branch').notNullable().defaultTo(false);
        t.boolean('dismiss_stale_approvals').notNullable().defaultTo(false);
        t.boolean('require_signed_commits').notNullable().defaultTo(false);
        t.text('protected_file_patterns');
        t.text('unprotected_file_patterns');
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['repo_id', 'rule_name']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTableIfExists('protected_branch');
    },
  },
];
