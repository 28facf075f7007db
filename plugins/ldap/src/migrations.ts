import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/** The LDAP plugin's sources: one row per directory; `id` is the kernel's login source id (ctx.users.registerSource). */
export const ldapMigrations: PluginMigration[] = [
  {
    name: '001_ldap_sources',
    async up(db: Knex) {
      await db.schema.createTable('ldap_sources', (t) => {
        t.integer('id').primary();
        t.string('name', 255).notNullable();
        t.boolean('is_active').notNullable().defaultTo(true);
        t.string('host', 255).notNullable();
        t.integer('port').notNullable();
        // unencrypted, ldaps or starttls.
        t.string('security', 16).notNullable();
        t.boolean('skip_tls_verify').notNullable().defaultTo(false);
        t.string('bind_dn', 1024).notNullable().defaultTo('');
        // Sealed with ctx.secrets('ldap-bind-passwords'), bound to the source id.
        t.text('bind_password').notNullable();
        t.string('user_base', 1024).notNullable();
        t.string('user_filter', 1024).notNullable();
        t.string('admin_filter', 1024).notNullable().defaultTo('');
        t.string('restricted_filter', 1024).notNullable().defaultTo('');
        t.string('username_attribute', 255).notNullable().defaultTo('');
        t.string('email_attribute', 255).notNullable().defaultTo('');
        t.string('full_name_attribute', 255).notNullable().defaultTo('');
        t.string('group_search_base', 1024).notNullable().defaultTo('');
        t.string('group_member_attribute', 255).notNullable().defaultTo('');
        t.string('user_attribute_in_group', 255).notNullable().defaultTo('');
        t.string('group_filter', 1024).notNullable().defaultTo('');
        t.text('group_team_map').notNullable();
        t.boolean('group_team_map_removal').notNullable().defaultTo(false);
        t.bigInteger('created_unix').notNullable();
        t.bigInteger('updated_unix').notNullable();
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('ldap_sources');
    },
  },
];
