import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';
import { ADMIN, createTestDatabase, type TestDatabase } from '@hearth/testing';
import { Hearth, deepMerge, migrationsTable } from './kernel';

/**
 * One database and data directory that servers start on one after another, each with some
 * plugins switched on or off: what the feature-disabled tests use to replay an upgrade. Call it
 * in a `describe` body (it registers its own beforeAll/afterAll).
 */
export function upgradeSandbox(label: string) {
  let database: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `hearth-${label}-upgrade-`));
  });
  afterAll(async () => {
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const auth = `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}`;
  return {
    /** Basic auth of the site admin every boot creates. */
    auth,
    /** A server on the sandbox's database and data directory; `plugins` switches plugins on (true) or off. */
    boot(plugins: Record<string, boolean>): Promise<Hearth> {
      const switches = Object.fromEntries(Object.entries(plugins).map(([name, enabled]) => [name, { enabled }]));
      return Hearth.create({
        config: {
          env: {},
          overrides: deepMerge(
            { server: { HTTP_PORT: 0, HTTP_ADDR: '127.0.0.1', DATA_DIR: dataDir }, database: { URL: database.url } },
            { log: { LEVEL: process.env.HEARTH_TEST_LOG_LEVEL ?? 'silent' }, security: { SCRYPT_COST: 1024 }, plugins: switches },
          ),
        },
        env: { HEARTH_ADMIN_USERNAME: ADMIN.name, HEARTH_ADMIN_PASSWORD: ADMIN.password, HEARTH_ADMIN_EMAIL: ADMIN.email },
      });
    },
    /** `POST /user/repos` as the admin (auto-initialised); the new repository's id. */
    async createRepo(url: string, name: string): Promise<number> {
      const made = await fetch(new URL('api/v1/user/repos', url), {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, auto_init: true }),
      });
      expect(made.status).toBe(201);
      return ((await made.json()) as { id: number }).id;
    },
  };
}

/** What an earlier release did: run `migrations` and record them in the kernel's own table, as one new batch. */
export async function recordAsKernelMigrations(db: Knex, migrations: readonly PluginMigration[]): Promise<void> {
  const [{ batch }] = await db(migrationsTable(null)).max({ batch: 'batch' });
  for (const m of migrations) {
    await m.up(db);
    await db(migrationsTable(null)).insert({ name: m.name, batch: Number(batch) + 1, migration_time: new Date() });
  }
}

/** The migration names recorded for `owner` (null: the kernel). */
export async function migrationNames(db: Knex, owner: string | null): Promise<string[]> {
  return (await db(migrationsTable(owner)).select('name')).map((r: { name: string }) => r.name);
}
