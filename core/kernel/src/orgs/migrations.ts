import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/** Tables of organizations, teams and collaborators (names start with 0006_). */
export const orgMigrations: PluginMigration[] = [
  {
    name: '0006_organizations_teams_collaborators',
    async up(db: Knex) {
      // Organizations are `users` rows with type 1; what Gitea keeps on the org row beyond the user columns lives here.
      await db.schema.createTable('org_settings', (t) => {
        t.integer('org_id').primary();
        t.boolean('repo_admin_change_team_access').notNullable().defaultTo(false);
      });
      // Membership of an organization (a member is in at least one team); is_public = publicized membership.
      await db.schema.createTable('org_users', (t) => {
        t.increments('id').primary();
        t.integer('org_id').notNullable();
        t.integer('uid').notNullable().index();
        t.boolean('is_public').notNullable().defaultTo(false);
        t.unique(['org_id', 'uid']);
      });
      // authorize: 0 none, 1 read, 2 write, 3 admin, 4 owner (Gitea's access modes).
      await db.schema.createTable('teams', (t) => {
        t.increments('id').primary();
        t.integer('org_id').notNullable();
        t.string('lower_name', 255).notNullable();
        t.string('name', 255).notNullable();
        t.string('description', 255).notNullable().defaultTo('');
        t.integer('authorize').notNullable().defaultTo(1);
        t.boolean('includes_all_repositories').notNullable().defaultTo(false);
        t.boolean('can_create_org_repo').notNullable().defaultTo(false);
        t.text('units_map').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['org_id', 'lower_name']);
      });
      await db.schema.createTable('team_users', (t) => {
        t.increments('id').primary();
        t.integer('org_id').notNullable();
        t.integer('team_id').notNullable();
        t.integer('uid').notNullable();
        t.unique(['team_id', 'uid']);
        t.index(['uid', 'org_id']);
      });
      await db.schema.createTable('team_repos', (t) => {
        t.increments('id').primary();
        t.integer('org_id').notNullable();
        t.integer('team_id').notNullable();
        t.integer('repo_id').notNullable().index();
        t.unique(['team_id', 'repo_id']);
      });
      // mode: 1 read, 2 write, 3 admin.
      await db.schema.createTable('collaborations', (t) => {
        t.increments('id').primary();
        t.integer('repo_id').notNullable();
        t.integer('user_id').notNullable().index();
        t.integer('mode').notNullable().defaultTo(2);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['repo_id', 'user_id']);
      });
    },
    async down(db: Knex) {
      for (const table of ['collaborations', 'team_repos', 'team_users', 'teams', 'org_users', 'org_settings'])
        await db.schema.dropTableIfExists(table);
    },
  },
];
