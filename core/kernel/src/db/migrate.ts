import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Feeds knex an explicit list instead of a directory scan: compiled and ts-jest code behave the
 * same, and a disabled plugin's migrations never trip knex's "missing file" check because every
 * owner (the kernel, each plugin) has its own migrations table.
 */
class ListSource implements Knex.MigrationSource<PluginMigration> {
  constructor(private readonly list: readonly PluginMigration[]) {}
  async getMigrations(): Promise<PluginMigration[]> {
    return [...this.list];
  }
  getMigrationName(m: PluginMigration): string {
    return m.name;
  }
  async getMigration(m: PluginMigration): Promise<Knex.Migration> {
    return { up: (db) => m.up(db), down: (db) => m.down(db) };
  }
}

/** The migrations table of an owner: `knex_migrations` for the kernel, `knex_migrations__<plugin>` per plugin. */
export function migrationsTable(owner: string | null): string {
  return owner === null ? 'knex_migrations' : `knex_migrations__${owner.replace(/[^a-zA-Z0-9]/g, '_').toLowerCase()}`;
}

/** Apply what is pending; returns the names applied. */
export async function migrateLatest(db: Knex, owner: string | null, list: readonly PluginMigration[]): Promise<string[]> {
  if (list.length === 0) return [];
  const tableName = migrationsTable(owner);
  const [, applied] = (await db.migrate.latest({ migrationSource: new ListSource(list), tableName })) as [number, string[]];
  return applied;
}
