import crypto from 'node:crypto';
import knexFactory from 'knex';

export interface TestDatabase {
  /** The URL to give Hearth ('' = SQLite in the data directory). */
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database for one test file. HEARTH_TEST_DATABASE_URL picks the server (a MariaDB/MySQL
 * or PostgreSQL URL whose database is only used to connect); unset means SQLite. Each call
 * creates its own database so parallel test files never see each other's rows.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.HEARTH_TEST_DATABASE_URL ?? '';
  if (!base || base.startsWith('sqlite:')) return { url: '', drop: async () => undefined };
  const url = new URL(base);
  const name = `hearth_t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const mysql = url.protocol === 'mysql:' || url.protocol === 'mariadb:';
  const admin = knexFactory({
    client: mysql ? 'mysql2' : 'pg',
    connection: {
      host: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)),
    },
    pool: { min: 0, max: 1 },
  });
  await admin.raw(mysql ? `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4` : `CREATE DATABASE "${name}"`);
  // A throwaway database need not wait for the disk at every commit (crash durability is not under
  // test): PostgreSQL sets that per database; MariaDB's switch is server-wide (see test/run-suites.js).
  if (!mysql) await admin.raw(`ALTER DATABASE "${name}" SET synchronous_commit TO off`);
  const own = new URL(base);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    drop: async () => {
      await admin.raw(mysql ? `DROP DATABASE IF EXISTS \`${name}\`` : `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.destroy();
    },
  };
}
