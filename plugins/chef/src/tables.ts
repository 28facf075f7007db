import type { PluginMigration } from '@hearth/plugin-api';

/** One Chef public key per user (as Gitea keeps one), for verifying X-Ops signed requests. */
export const USER_KEYS = 'chef_user_key';
/** The cookbooks of each owner: listing, search and the universe need to enumerate them. */
export const COOKBOOKS = 'chef_cookbook';

export const migrations: PluginMigration[] = [
  {
    name: '001_chef_tables',
    async up(db) {
      await db.schema.createTable(USER_KEYS, (t) => {
        t.integer('user_id').notNullable().primary();
        t.text('public_key').notNullable();
        t.string('fingerprint', 80).notNullable();
        t.bigInteger('created_unix').notNullable();
      });
      await db.schema.createTable(COOKBOOKS, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.string('name', 100).notNullable();
        t.string('lower_name', 100).notNullable();
        t.string('description', 1000).notNullable().defaultTo('');
        t.string('maintainer', 255).notNullable().defaultTo('');
        t.string('category', 100).notNullable().defaultTo('Other');
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['owner_id', 'lower_name']);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists(COOKBOOKS);
      await db.schema.dropTableIfExists(USER_KEYS);
    },
  },
];
