import type { Knex } from 'knex';
export { isUniqueViolation } from '@hearth/plugin-api';

/**
 * A read that sees rows other transactions committed after this one began. After a unique
 * violation says a concurrent insert won, the re-read must see that row: MariaDB's default
 * repeatable-read snapshot hides it from a plain SELECT, a locking read does not. PostgreSQL
 * (read committed) and SQLite (one writer) see it anyway.
 */
export function latestCommitted<Q extends Knex.QueryBuilder>(trx: Knex | Knex.Transaction, query: Q): Q {
  return (trx.client.config.client === 'mysql2' ? query.forShare() : query) as Q;
}
