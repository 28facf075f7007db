import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Pull request, review and branch protection tables (migration names start with 0012_).
 * `0012_pulls` (pulls helper): the `pull_request` row of an `is_pull` issue, after Gitea's
 * `pull_request` table. The reviews helper appends its `0012_r*` entries at the end of this array.
 */
export const pullMigrations: PluginMigration[] = [
  {
    name: '0012_pulls',
    async up(db: Knex) {
      await db.schema.createTable('pull_request', (t) => {
        t.increments('id').primary();
        t.integer('issue_id').notNullable().unique();
        t.integer('index').notNullable();
        t.integer('base_repo_id').notNullable();
        t.integer('head_repo_id').notNullable();
        t.string('base_branch', 255).notNullable();
        t.string('head_branch', 255).notNullable();
        t.string('merge_base', 64).notNullable().defaultTo('');
        t.string('head_commit_id', 64).notNullable().defaultTo('');
        /** 0 checking, 1 mergeable, 2 conflict, 3 empty (nothing to merge), 4 error */
        t.integer('status').notNullable().defaultTo(0);
        t.text('conflicted_files');
        t.boolean('has_merged').notNullable().defaultTo(false);
        t.string('merged_commit_id', 64).notNullable().defaultTo('');
        t.integer('merger_id').notNullable().defaultTo(0);
        t.bigInteger('merged_unix').notNullable().defaultTo(0);
        t.boolean('allow_maintainer_edit').notNullable().defaultTo(false);
        t.unique(['base_repo_id', 'index']);
        t.index(['head_repo_id', 'head_branch']);
        t.index(['base_repo_id', 'base_branch']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTableIfExists('pull_request');
    },
  },
  {
    name: '0012_reviews',
    async up(db: Knex) {
      // Branch protection rules (`protected_branch`) were created here too; they are the core's now, created by its
      // 0016_protected_branch, which runs before this in a new database and is a no-op in one this migration ran in.
      // Reviews (Gitea's review): type 0 pending, 1 approve, 2 comment, 3 reject, 4 request (a
      // requested reviewer: reviewer_id or reviewer_team_id).
      await db.schema.createTable('review', (t) => {
        t.increments('id').primary();
        t.integer('type').notNullable();
        t.integer('reviewer_id').notNullable().defaultTo(0);
        t.integer('reviewer_team_id').notNullable().defaultTo(0);
        t.integer('repo_id').notNullable();
        t.integer('issue_id').notNullable();
        t.text('content');
        t.boolean('official').notNullable().defaultTo(false);
        t.string('commit_id', 64).notNullable().defaultTo('');
        t.boolean('stale').notNullable().defaultTo(false);
        t.boolean('dismissed').notNullable().defaultTo(false);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.index(['issue_id', 'type']);
        t.index(['reviewer_id']);
        t.index(['repo_id']);
      });
      // Code comments (type 21): the file, the line (negative: old side), the diff hunk, and
      // `invalidated` as Gitea; commit_sha (0010) holds the commit the comment was made on.
      await db.schema.alterTable('comment', (t) => {
        t.string('tree_path', 4000).notNullable().defaultTo('');
        t.bigInteger('line').notNullable().defaultTo(0);
        t.text('patch');
        t.boolean('invalidated').notNullable().defaultTo(false);
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('comment', (t) => {
        for (const c of ['tree_path', 'line', 'patch', 'invalidated']) t.dropColumn(c);
      });
      await db.schema.dropTableIfExists('review');
    },
  },
];
