import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { ConfigError } from '../config/types';

export type DatabaseKind = 'sqlite' | 'mysql' | 'postgres';

export interface DatabaseTarget {
  kind: DatabaseKind;
  /** What to print: the SQLite file, or the URL without its password. */
  display: string;
  knexConfig: Knex.Config;
}

/**
 * Turn `database.URL` into a knex configuration. Empty means the embedded default: SQLite in
 * DATA_DIR/hearth.db, in WAL mode so readers never wait for the writer.
 */
export function resolveDatabase(url: string, dataDir: string, poolMax: number): DatabaseTarget {
  if (!url || url.startsWith('sqlite:')) {
    const file = !url ? path.join(dataDir, 'hearth.db') : sqlitePath(url, dataDir);
    return {
      kind: 'sqlite',
      display: file,
      knexConfig: {
        client: 'better-sqlite3',
        connection: { filename: file },
        useNullAsDefault: true,
        pool: {
          min: 1,
          max: 1,
          afterCreate(conn: any, done: (err: Error | null, conn: unknown) => void) {
            conn.pragma('journal_mode = WAL');
            conn.pragma('synchronous = NORMAL');
            conn.pragma('busy_timeout = 5000');
            conn.pragma('foreign_keys = ON');
            done(null, conn);
          },
        },
      },
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`database.URL = ${JSON.stringify(redact(url))}: not a URL; use sqlite:PATH, mysql://… or postgres://…`);
  }
  const display = redact(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database) throw new ConfigError(`database.URL = ${JSON.stringify(display)}: the URL needs a database name (…/NAME)`);
  const common = {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : undefined,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database,
  };
  switch (parsed.protocol) {
    case 'mysql:':
    case 'mariadb:':
      return {
        kind: 'mysql',
        display,
        knexConfig: {
          client: 'mysql2',
          connection: { ...common, charset: 'utf8mb4', supportBigNumbers: true, timezone: 'Z' },
          pool: { min: 0, max: poolMax },
        },
      };
    case 'postgres:':
    case 'postgresql:':
      // PostgreSQL returns int8 (bigint columns, count(*)) as text; our ids and unix times fit a
      // double. Required here, not at the top: an SQLite or MariaDB server never loads pg.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, see above
      (require('pg') as typeof import('pg')).types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));
      return {
        kind: 'postgres',
        display,
        knexConfig: { client: 'pg', connection: common, pool: { min: 0, max: poolMax } },
      };
    default:
      throw new ConfigError(
        `database.URL = ${JSON.stringify(display)}: unsupported scheme "${parsed.protocol}"; ` +
          `allowed: sqlite:, mysql:, mariadb:, postgres:, postgresql:`,
      );
  }
}

function sqlitePath(url: string, dataDir: string): string {
  const rest = url.slice('sqlite:'.length).replace(/^\/\//, '');
  if (rest === ':memory:') return ':memory:';
  return path.resolve(dataDir, rest);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

export function connect(target: DatabaseTarget): Knex {
  if (target.kind === 'sqlite' && target.display !== ':memory:') fs.mkdirSync(path.dirname(target.display), { recursive: true });
  return knexFactory(target.knexConfig);
}
