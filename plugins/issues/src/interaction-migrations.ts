import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Tables for issue interactions (migration names start with 0010_). `0010_timeline_columns` gives
 * the `comment` table Gitea's event columns, so timeline events are comment rows of their type
 * (see issues/timeline.ts).
 */
export const issueInteractionMigrations: PluginMigration[] = [
  {
    name: '0010_timeline_columns',
    async up(db: Knex) {
      await db.schema.alterTable('comment', (t) => {
        t.integer('label_id').notNullable().defaultTo(0);
        t.integer('old_milestone_id').notNullable().defaultTo(0);
        t.integer('milestone_id').notNullable().defaultTo(0);
        t.integer('assignee_id').notNullable().defaultTo(0);
        t.integer('assignee_team_id').notNullable().defaultTo(0);
        t.boolean('removed_assignee').notNullable().defaultTo(false);
        t.string('old_title', 255).notNullable().defaultTo('');
        t.string('new_title', 255).notNullable().defaultTo('');
        t.string('old_ref', 255).notNullable().defaultTo('');
        t.string('new_ref', 255).notNullable().defaultTo('');
        t.string('commit_sha', 64).notNullable().defaultTo('');
        t.integer('ref_repo_id').notNullable().defaultTo(0);
        t.integer('ref_issue_id').notNullable().defaultTo(0);
        t.integer('ref_comment_id').notNullable().defaultTo(0);
        t.integer('ref_action').notNullable().defaultTo(0);
        t.boolean('ref_is_pull').notNullable().defaultTo(false);
        t.integer('dependent_issue_id').notNullable().defaultTo(0);
        t.integer('review_id').notNullable().defaultTo(0);
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('comment', (t) => {
        for (const c of [
          'label_id',
          'old_milestone_id',
          'milestone_id',
          'assignee_id',
          'assignee_team_id',
          'removed_assignee',
          'old_title',
          'new_title',
          'old_ref',
          'new_ref',
          'commit_sha',
          'ref_repo_id',
          'ref_issue_id',
          'ref_comment_id',
          'ref_action',
          'ref_is_pull',
          'dependent_issue_id',
          'review_id',
        ])
          t.dropColumn(c);
      });
    },
  },
  {
    name: '0010_interactions',
    async up(db: Knex) {
      await db.schema.alterTable('issue', (t) => {
        t.integer('pin_order').notNullable().defaultTo(0);
      });
      await db.schema.alterTable('issue', (t) => {
        t.index(['repo_id', 'is_pull', 'pin_order']);
      });
      await db.schema.createTable('issue_assignees', (t) => {
        t.increments('id').primary();
        t.integer('assignee_id').notNullable().index();
        t.integer('issue_id').notNullable();
        t.unique(['issue_id', 'assignee_id']);
      });
      await db.schema.createTable('issue_watch', (t) => {
        t.increments('id').primary();
        t.integer('user_id').notNullable().index();
        t.integer('issue_id').notNullable();
        t.boolean('is_watching').notNullable().defaultTo(true);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['issue_id', 'user_id']);
      });
      await db.schema.createTable('issue_dependency', (t) => {
        t.increments('id').primary();
        t.integer('user_id').notNullable().defaultTo(0);
        t.integer('issue_id').notNullable();
        t.integer('dependency_id').notNullable().index();
        t.bigInteger('created_unix').notNullable();
        t.unique(['issue_id', 'dependency_id']);
      });
      await db.schema.createTable('reaction', (t) => {
        t.increments('id').primary();
        t.string('type', 64).notNullable();
        t.integer('issue_id').notNullable();
        t.integer('comment_id').notNullable().defaultTo(0);
        t.integer('user_id').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.unique(['issue_id', 'comment_id', 'type', 'user_id']);
        t.index(['comment_id']);
      });
      // The attachment columns of issues and comments (`attachment.issue_id`, `comment_id`) were added here too; they are
      // the core's now, added by its 0016_attachment_issue_links, which runs before this in a new database.
    },
    async down(db: Knex) {
      // The attachment columns are the core's (0016_attachment_issue_links): they stay.
      for (const table of ['reaction', 'issue_dependency', 'issue_watch', 'issue_assignees']) await db.schema.dropTableIfExists(table);
      await db.schema.alterTable('issue', (t) => t.dropIndex(['repo_id', 'is_pull', 'pin_order']));
      await db.schema.alterTable('issue', (t) => t.dropColumn('pin_order'));
    },
  },
  {
    name: '0010_issue_mentions',
    async up(db: Knex) {
      // Users an issue's text or its comments mention with @name (Gitea's issue_user.is_mentioned): the search's `mentioned` filter.
      await db.schema.createTable('issue_mention', (t) => {
        t.increments('id').primary();
        t.integer('issue_id').notNullable();
        t.integer('user_id').notNullable();
        t.unique(['issue_id', 'user_id']);
        t.index(['user_id']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTableIfExists('issue_mention');
    },
  },
];
