import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Tables for organization labels and the issue catalog (migration names start with 0011_).
 * `0011_org_labels`: a label belongs to a repository (`repo_id`, `org_id` 0) or to an organization
 * (`org_id`, `repo_id` 0), as in Gitea. `0011_issue_list_index`: issue lists filtered by type and
 * state (`issues`/`pulls`, open/closed) walk one index in number order, and a label filter is a
 * probe of issue_label's (issue_id, label_id) index per walked issue — no scan, no sort.
 */
export const issueCatalogMigrations: PluginMigration[] = [
  {
    name: '0011_org_labels',
    async up(db: Knex) {
      await db.schema.alterTable('label', (t) => {
        t.integer('org_id').notNullable().defaultTo(0);
        t.index(['org_id'], 'label_org_id_index');
      });
    },
    async down(db: Knex) {
      await db.schema.alterTable('label', (t) => {
        t.dropIndex(['org_id'], 'label_org_id_index');
        t.dropColumn('org_id');
      });
    },
  },
  {
    name: '0011_issue_list_index',
    async up(db: Knex) {
      await db.schema.alterTable('issue', (t) => t.index(['repo_id', 'is_pull', 'is_closed', 'index'], 'issue_repo_pull_closed_index'));
    },
    async down(db: Knex) {
      await db.schema.alterTable('issue', (t) => t.dropIndex(['repo_id', 'is_pull', 'is_closed', 'index'], 'issue_repo_pull_closed_index'));
    },
  },
];
