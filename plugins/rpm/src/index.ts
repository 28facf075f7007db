import { definePlugin } from '@hearth/plugin-api';
import { FILES_TABLE, RpmRepositories, TYPE, type RpmSettings } from './repository';
import { rpmRoutes } from './routes';

/**
 * RPM repositories for dnf/yum with Gitea's layout under `/api/packages/{owner}/rpm`: upload,
 * download, delete, `repository.key`, `.repo` files and signed `repodata/` per group. Uploaded
 * packages are parsed here (lead, signature header, header) and re-signed with the owner's
 * OpenPGP key so that `gpgcheck=1` works; the metadata is generated from per-package fragments.
 */
export default definePlugin<RpmSettings>({
  name: 'rpm',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'RPM package repositories (dnf/yum), signed with a per-owner OpenPGP key',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxUploadSize: { type: 'integer', minimum: 1024, default: 1024 * 1024 * 1024, description: 'largest .rpm upload in bytes' },
      signPackages: {
        type: 'boolean',
        default: true,
        description: "sign each uploaded package's header with the owner's key (for gpgcheck=1)",
      },
    },
  },
  migrations: [
    {
      name: '001_rpm_file',
      async up(db) {
        await db.schema.createTable(FILES_TABLE, (t) => {
          t.increments('id');
          t.integer('owner_id').notNullable();
          t.string('group_name', 600).notNullable();
          t.integer('version_id').notNullable();
          t.integer('file_id').notNullable().unique();
          t.string('name', 200).notNullable();
          t.string('version', 255).notNullable();
          t.string('arch', 32).notNullable();
          t.text('primary_xml', 'longtext').notNullable();
          t.text('filelists_xml', 'longtext').notNullable();
          t.text('other_xml', 'longtext').notNullable();
          t.bigInteger('created_unix').notNullable();
          t.index(['owner_id', 'group_name'], 'rpm_file_repository');
          t.index(['version_id'], 'rpm_file_version');
        });
      },
      async down(db) {
        await db.schema.dropTableIfExists(FILES_TABLE);
      },
    },
  ],
  apply(ctx) {
    const repos = new RpmRepositories(ctx);
    ctx.hooks.http.routes.tap('rpm', (r) => {
      // Gitea's `/api/packages/{owner}/rpm.repo` (dnf config-manager --add-repo) is the root repository's `.repo`.
      r.packages(TYPE, rpmRoutes(ctx, repos), { siblingPaths: ['.repo'] });
    });
    // A version deleted through /api/v1/packages leaves the repositories at once.
    ctx.hooks.package.deleted.tapPromise('rpm', async (e) => {
      if (e.type === TYPE) await repos.removeVersion(e.packageVersionId);
    });
    ctx.hooks.user.deleting.tapPromise('rpm', ({ user, trx }) => repos.removeOwner(user.id, trx));
    ctx.hooks.user.deleted.tapPromise('rpm', async ({ user }) => repos.ownerGone(user.id));
  },
});
