import type { PluginMigration } from '@hearth/plugin-api';

export const TYPE = 'cargo';
/** The plugin's own tables: the crates of each owner (name collisions, search), and yanked versions. */
export const CRATES = 'cargo_crate';
export const YANKED = 'cargo_yanked';

export interface CargoSettings {
  maxPublishSize: number;
}

export interface CrateRow {
  id: number;
  owner_id: number;
  name: string;
  norm_name: string;
  description: string | null;
}

export const migrations: PluginMigration[] = [
  {
    name: '001_cargo_tables',
    async up(db) {
      await db.schema.createTable(CRATES, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.string('name', 64).notNullable();
        t.string('norm_name', 64).notNullable();
        t.text('description');
        t.unique(['owner_id', 'norm_name']);
      });
      await db.schema.createTable(YANKED, (t) => {
        t.integer('version_id').notNullable().primary();
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists(YANKED);
      await db.schema.dropTableIfExists(CRATES);
    },
  },
];
