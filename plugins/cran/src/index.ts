import { definePlugin } from '@hearth/plugin-api';
import { CranRepository, createTables, FILES_TABLE } from './repository';
import { cranRouter, TYPE, type Settings } from './routes';

/**
 * A CRAN-like R package repository per owner, at `/api/packages/{owner}/cran`: source packages
 * under `src/contrib`, binaries under `bin/<platform>/contrib/<R version>`, each with PACKAGES,
 * PACKAGES.gz and PACKAGES.rds generated from the plugin's table of uploaded files; older
 * versions also under `src/contrib/Archive/<name>/`.
 */
export default definePlugin<Settings>({
  name: 'cran',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  description: 'R packages: a CRAN-like repository (install.packages)',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxUploadSize: { type: 'integer', minimum: 1024, default: 256 * 1024 * 1024, description: 'largest package file in bytes' },
    },
  },
  migrations: [
    {
      name: '001_cran_tables',
      up: createTables,
      async down(db) {
        await db.schema.dropTableIfExists(FILES_TABLE);
      },
    },
  ],
  apply(ctx) {
    const repo = new CranRepository(ctx.db);
    ctx.hooks.http.routes.tap('cran', (r) =>
      r.packages(TYPE, cranRouter(ctx, repo), { anonymousChallenge: 'Basic realm="Hearth Package API"' }),
    );
    // A version deleted through /api/v1/packages leaves the indexes with it.
    ctx.hooks.package.deleted.tapPromise('cran', async (e) => {
      if (e.type === TYPE) await repo.removeVersion(e.packageVersionId);
    });
    ctx.hooks.user.deleting.tapPromise('cran', ({ user, trx }) => repo.removeOwner(user.id, trx));
  },
});
