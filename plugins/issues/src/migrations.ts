import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Tables of issues, comments, labels and milestones (names start with 0009_), after Gitea's
 * `issue`, `comment`, `label`, `issue_label` and `milestone`, plus `issue_index`: one counter row
 * per repository that hands out issue (and, later, pull request) numbers.
 */
export const issueMigrations: PluginMigration[] = [
  {
    name: '0009_issues',
    async up(db: Knex) {
      await db.schema.createTable('issue_index', (t) => {
        t.integer('repo_id').notNullable().primary();
        t.integer('max_index').notNullable().defaultTo(0);
      });
      await db.schema.createTable('milestone', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.string('name', 255).notNullable();
        t.text('content');
        t.boolean('is_closed').notNullable().defaultTo(false);
        t.bigInteger('deadline_unix').notNullable().defaultTo(0);
        t.bigInteger('closed_date_unix').notNullable().defaultTo(0);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.index(['repo_id', 'is_closed']);
        t.index(['repo_id', 'name']);
      });
      await db.schema.createTable('issue', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.integer('index').notNullable();
        t.integer('poster_id').notNullable().defaultTo(0);
        t.string('original_author', 255).notNullable().defaultTo('');
        t.integer('original_author_id').notNullable().defaultTo(0);
        t.string('name', 255).notNullable();
        t.text('content');
        t.string('ref', 255).notNullable().defaultTo('');
        t.integer('milestone_id').notNullable().defaultTo(0);
        t.boolean('is_closed').notNullable().defaultTo(false);
        t.boolean('is_pull').notNullable().defaultTo(false);
        t.boolean('is_locked').notNullable().defaultTo(false);
        t.bigInteger('deadline_unix').notNullable().defaultTo(0);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.bigInteger('closed_unix').notNullable().defaultTo(0);
        t.unique(['repo_id', 'index']);
        t.index(['repo_id', 'is_closed', 'index']);
        t.index(['poster_id']);
        t.index(['milestone_id', 'is_closed']);
      });
      await db.schema.createTable('label', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable().index();
        t.string('name', 255).notNullable();
        t.boolean('exclusive').notNullable().defaultTo(false);
        t.string('description', 255).notNullable().defaultTo('');
        t.string('color', 7).notNullable();
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
      });
      await db.schema.createTable('issue_label', (t) => {
        t.increments('id').primary();
        t.integer('issue_id').notNullable();
        t.integer('label_id').notNullable().index();
        t.unique(['issue_id', 'label_id']);
      });
      await db.schema.createTable('comment', (t) => {
        t.increments('id').primary();
        t.integer('type').notNullable().defaultTo(0);
        t.integer('repo_id').notNullable();
        t.integer('issue_id').notNullable();
        t.integer('poster_id').notNullable().defaultTo(0);
        t.string('original_author', 255).notNullable().defaultTo('');
        t.integer('original_author_id').notNullable().defaultTo(0);
        t.text('content');
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.index(['issue_id', 'created_unix']);
        t.index(['repo_id', 'created_unix']);
      });
    },
    async down(db: Knex) {
      for (const table of ['comment', 'issue_label', 'label', 'issue', 'milestone', 'issue_index'])
        await db.schema.dropTableIfExists(table);
    },
  },
];
