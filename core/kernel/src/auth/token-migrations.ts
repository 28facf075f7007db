import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';
import { upgradeStoredScope } from './scopes';

/**
 * Tokens stored with Gitea's pre-1.20 scope names (an imported database, or a release that kept
 * them) get the category scopes that keep their access, as Gitea 1.20's ConvertScopedAccessTokens
 * did (see LEGACY_SCOPES). Only rows whose scope changes are written.
 */
export const tokenScopeMigrations: PluginMigration[] = [
  {
    name: '0019_convert_legacy_token_scopes',
    async up(db: Knex) {
      const rows: Array<{ id: number; scope: string; is_admin: unknown }> = await db('access_tokens as t')
        .leftJoin('users as u', 'u.id', 't.uid')
        .select('t.id', 't.scope', 'u.is_admin');
      for (const row of rows) {
        const scope = upgradeStoredScope(row.scope, Boolean(Number(row.is_admin)));
        if (scope !== row.scope) await db('access_tokens').where('id', row.id).update({ scope });
      }
    },
    // The old names cannot be told back from the converted scopes; the converted ones keep working.
    async down() {},
  },
];
