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
        for (const c of ['label_id', 'old_milestone_id', 'milestone_id', 'assignee_id', 'assignee_team_id', 'removed_assignee', 'old_title', 'new_title',
          'old_ref', 'new_ref', 'commit_sha', 'ref_repo_id', 'ref_issue_id', 'ref_comment_id', 'ref_action', 'ref_is_pull', 'dependent_issue_id', 'review_id']) t.dropColumn(c);
      });
    },
  },
];
