import type { Knex } from 'knex';
import { ApiError, insertId, nowUnix, type PluginMigration } from '@hearth/plugin-api';
import { isUniqueViolation } from '../db/errors';

/**
 * Authentication sources are kept by the identity plugins that serve them (an OIDC plugin's
 * providers, an LDAP plugin's servers), each in its own table. Users point at their source with
 * `users.login_source`, so the ids must not collide between plugins, and Gitea wants the names unique
 * too: this registry hands out both. Its rows carry no configuration.
 */
export const loginSourceMigrations: PluginMigration[] = [
  {
    name: '0017_login_sources',
    async up(db: Knex) {
      await db.schema.createTable('login_sources', (t) => {
        t.increments('id').primary();
        // The serving plugin's kind of source, e.g. `oidc` or `ldap`.
        t.string('type', 32).notNullable();
        t.string('name', 255).notNullable();
        t.string('lower_name', 255).notNullable().unique();
        t.bigInteger('created_unix').notNullable();
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('login_sources');
    },
  },
];

const SOURCE_TYPE = /^[a-z0-9][a-z0-9-]{0,31}$/;

function assertSourceName(name: string): void {
  if (!name.trim() || name.length > 255) throw ApiError.unprocessable(`source name must be 1 to 255 characters [name: ${name}]`);
}

const taken = (name: string) => ApiError.conflict(`an authentication source with this name already exists [name: ${name}]`);

/** The registry of authentication source ids and names (`ctx.users.registerSource` and friends). */
export class LoginSources {
  constructor(private readonly db: Knex) {}

  async register(type: string, name: string): Promise<number> {
    if (!SOURCE_TYPE.test(type)) throw ApiError.unprocessable(`source type must be lower-case letters, digits and dashes [type: ${type}]`);
    assertSourceName(name);
    try {
      return await this.db.transaction(async (trx) => {
        if (await trx('login_sources').where('lower_name', name.toLowerCase()).first('id')) throw taken(name);
        return insertId(trx, 'login_sources', { type, name, lower_name: name.toLowerCase(), created_unix: nowUnix() });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name);
      throw err;
    }
  }

  async exists(id: number): Promise<boolean> {
    return Boolean(await this.db('login_sources').where('id', id).first('id'));
  }

  async rename(id: number, name: string): Promise<void> {
    assertSourceName(name);
    try {
      await this.db.transaction(async (trx) => {
        if (!(await trx('login_sources').where('id', id).first('id')))
          throw ApiError.notFound(`authentication source does not exist [id: ${id}]`);
        const other = await trx('login_sources').where('lower_name', name.toLowerCase()).whereNot('id', id).first('id');
        if (other) throw taken(name);
        await trx('login_sources').where('id', id).update({ name, lower_name: name.toLowerCase() });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(name);
      throw err;
    }
  }

  /** As Gitea's DeleteSource: a source that accounts still sign in through stays (422). */
  async remove(id: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      const [{ n }] = await trx('users').where('login_source', id).count<{ n: number }[]>({ n: '*' });
      if (Number(n) > 0)
        throw ApiError.unprocessable(`${Number(n)} account(s) still sign in through this source; delete them or change their source first`);
      await trx('login_sources').where('id', id).delete();
    });
  }
}
