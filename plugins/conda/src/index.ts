import { definePlugin } from '@hearth/plugin-api';
import { ChannelStore, createTables, FILES_TABLE } from './channel';
import { condaRouter, tokenFromPath, TYPE, type Settings } from './routes';

/**
 * Conda channels per owner at `/api/packages/{owner}/conda/[{channel…}/]`: uploads of .tar.bz2
 * and .conda packages (metadata from info/index.json and info/about.json), `{subdir}/repodata.json`
 * (also as current_repodata.json; empty for a subdir without packages), `channeldata.json`,
 * downloads and deletes. The repodata records live in the plugin's own table.
 */
export default definePlugin<Settings>({
  name: 'conda',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Conda channels (repodata.json, .conda and .tar.bz2 packages)',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxUploadSize: { type: 'integer', minimum: 1024, default: 1024 * 1024 * 1024, description: 'largest package file in bytes' },
    },
  },
  migrations: [
    {
      name: '001_conda_tables',
      up: createTables,
      async down(db) {
        await db.schema.dropTableIfExists(FILES_TABLE);
      },
    },
  ],
  apply(ctx) {
    const store = new ChannelStore(ctx.db);
    ctx.hooks.http.routes.tap('conda', (r) =>
      r.packages(TYPE, condaRouter(ctx, store), {
        anonymousChallenge: 'Basic realm="Hearth Package API"',
        credentialsFromPath: tokenFromPath,
      }),
    );
    // A version deleted through /api/v1/packages leaves the repodata with it.
    ctx.hooks.package.deleted.tapPromise('conda', async (e) => {
      if (e.type === TYPE) await store.removeVersion(e.packageVersionId);
    });
    ctx.hooks.user.deleting.tapPromise('conda', ({ user, trx }) => store.removeOwner(user.id, trx));
  },
});
