import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';
import { adoptKernelMigrations, migrateLatest, migrationsTable } from './helpers/kernel';
import { startServer, type TestServer } from './helpers/server';

/**
 * Features that move out of the kernel into plugins take their migrations with them: a database
 * made by an earlier release recorded those migrations in the kernel's table, and the plugin must
 * neither run them again nor leave the kernel's migration list looking corrupt.
 */
describe('migration ownership moves with a feature', () => {
  let server: TestServer;
  let db: Knex;
  const list: PluginMigration[] = [
    {
      name: '9001_probe_adopted',
      up: (k) => k.schema.createTable('probe_adopted', (t) => t.increments('id')),
      down: (k) => k.schema.dropTable('probe_adopted'),
    },
    {
      name: '9002_probe_added_later',
      up: (k) => k.schema.createTable('probe_later', (t) => t.increments('id')),
      down: (k) => k.schema.dropTable('probe_later'),
    },
  ];

  beforeAll(async () => {
    server = await startServer();
    db = server.kernel.db;
    // What an earlier release left: the feature's first migration ran as part of the kernel's list.
    await list[0].up(db);
    await db('probe_adopted').insert({});
    await db(migrationsTable(null)).insert({ name: '9001_probe_adopted', batch: 1, migration_time: new Date() });
  });
  afterAll(async () => {
    await db.schema.dropTableIfExists('probe_adopted');
    await db.schema.dropTableIfExists('probe_later');
    await server.close();
  });

  test('the plugin adopts its rows once, then runs only what is new; the data stays', async () => {
    expect(await adoptKernelMigrations(db, 'probe-feature', list)).toEqual(['9001_probe_adopted']);
    expect(await adoptKernelMigrations(db, 'probe-feature', list)).toEqual([]);
    expect(await migrateLatest(db, 'probe-feature', list)).toEqual(['9002_probe_added_later']);
    expect(await migrateLatest(db, 'probe-feature', list)).toEqual([]);
    const owned = (await db(migrationsTable('probe-feature')).select('name')).map((r: { name: string }) => r.name).sort();
    expect(owned).toEqual(['9001_probe_adopted', '9002_probe_added_later']);
    expect(Number((await db(migrationsTable(null)).where('name', 'like', '900%').count({ n: '*' }))[0].n)).toBe(0);
    expect(Number((await db('probe_adopted').count({ n: '*' }))[0].n)).toBe(1);
  });

  test("rows of a moved feature that is disabled stay in the kernel's table without breaking its migrations", async () => {
    const kernelNames: string[] = (await db(migrationsTable(null)).orderBy('id').select('name')).map((r: { name: string }) => r.name);
    const kernelList: PluginMigration[] = kernelNames.map((name) => ({ name, up: async () => undefined, down: async () => undefined }));
    await db(migrationsTable(null)).insert({ name: '9003_disabled_feature', batch: 1, migration_time: new Date() });
    try {
      expect(await migrateLatest(db, null, kernelList)).toEqual([]);
    } finally {
      await db(migrationsTable(null)).where('name', '9003_disabled_feature').delete();
    }
  });
});
