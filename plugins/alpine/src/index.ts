import { definePlugin } from '@hearth/plugin-api';
import { AlpineRepositories, FILES_TABLE, TYPE, type AlpineSettings } from './repository';
import { alpineRoutes } from './routes';

/**
 * Alpine (apk v2) repositories with Gitea's layout under `/api/packages/{owner}/alpine`:
 * `key`, upload per branch/repository, download and delete, and `APKINDEX.tar.gz` per arch
 * (noarch packages in every arch's index), signed with the owner's RSA key. Uploaded packages
 * are parsed here (gzip segments, `.PKGINFO`, the control segment's `C:` checksum).
 */
export default definePlugin<AlpineSettings>({
  name: 'alpine',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Alpine apk package repositories, APKINDEX signed with a per-owner RSA key',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxUploadSize: { type: 'integer', minimum: 1024, default: 1024 * 1024 * 1024, description: 'largest .apk upload in bytes' },
    },
  },
  migrations: [
    {
      name: '001_alpine_file',
      async up(db) {
        await db.schema.createTable(FILES_TABLE, (t) => {
          t.increments('id');
          t.integer('owner_id').notNullable();
          t.string('branch', 64).notNullable();
          t.string('repository', 64).notNullable();
          t.string('arch', 32).notNullable();
          t.string('name', 128).notNullable();
          t.string('version', 128).notNullable();
          t.integer('version_id').notNullable();
          t.integer('file_id').notNullable().unique();
          t.text('stanza').notNullable();
          t.bigInteger('created_unix').notNullable();
          t.index(['owner_id', 'branch', 'repository', 'arch'], 'alpine_file_repository');
          t.index(['version_id'], 'alpine_file_version');
        });
      },
      async down(db) {
        await db.schema.dropTableIfExists(FILES_TABLE);
      },
    },
  ],
  apply(ctx) {
    const repos = new AlpineRepositories(ctx);
    ctx.hooks.http.routes.tap('alpine', (r) => r.packages(TYPE, alpineRoutes(ctx, repos)));
    ctx.hooks.package.deleted.tapPromise('alpine', async (e) => {
      if (e.type === TYPE) await repos.removeVersion(e.packageVersionId);
    });
    ctx.hooks.user.deleting.tapPromise('alpine', ({ user, trx }) => repos.removeOwner(user.id, trx));
  },
});
