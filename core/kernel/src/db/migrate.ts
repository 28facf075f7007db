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
  // Rows of migrations that moved to a plugin stay in the kernel's table while that plugin is
  // disabled (adoptKernelMigrations moves them when it is enabled): not a corrupt list.
  const config = { migrationSource: new ListSource(list), tableName, disableMigrationsListValidation: owner === null };
  const [, applied] = (await db.migrate.latest(config)) as [number, string[]];
  return applied;
}

/**
 * A feature that moved out of the kernel into a plugin takes its migrations' rows with it: rows of
 * `list` recorded in the kernel's table by earlier releases move to the plugin's table, in one
 * transaction, so that its migrations are not run a second time. Idempotent; returns the names moved.
 */
export async function adoptKernelMigrations(db: Knex, owner: string, list: readonly PluginMigration[]): Promise<string[]> {
  const kernelTable = migrationsTable(null);
  const names = list.map((m) => m.name);
  if (names.length === 0 || !(await db.schema.hasTable(kernelTable))) return [];
  const rows: Array<{ name: string; batch: number; migration_time: unknown }> = await db(kernelTable)
    .whereIn('name', names)
    .select('name', 'batch', 'migration_time');
  if (rows.length === 0) return [];
  const tableName = migrationsTable(owner);
  // The same columns knex gives its migration tables, so that knex takes this one as its own.
  if (!(await db.schema.hasTable(tableName))) {
    await db.schema.createTable(tableName, (t) => {
      t.increments();
      t.string('name');
      t.integer('batch');
      t.timestamp('migration_time');
    });
  }
  await db.transaction(async (trx) => {
    const present = new Set((await trx(tableName).whereIn('name', names).select('name')).map((r: { name: string }) => r.name));
    const missing = rows.filter((r) => !present.has(r.name));
    if (missing.length)
      await trx(tableName).insert(missing.map((r) => ({ name: r.name, batch: r.batch, migration_time: r.migration_time })));
    await trx(kernelTable)
      .whereIn(
        'name',
        rows.map((r) => r.name),
      )
      .delete();
  });
  return rows.map((r) => r.name);
}
