import { definePlugin } from '@hearth/plugin-api';
import { DebianRepository, TYPE } from './repository';
import { debianRoutes, type DebianSettings } from './routes';
import { DISTRIBUTIONS, FILES, RELEASES, migrations } from './tables';

/**
 * The Debian registry: apt repositories per owner under /api/packages/{owner}/debian in Gitea's
 * layout (pool uploads, downloads and deletes; dists/{distribution} with a signed Release,
 * InRelease and Release.gpg; Packages, Packages.gz and Packages.xz per component and
 * architecture, also by hash; repository.key). Control fields come from the .deb's control archive (gzip, xz or zstd).
 * Signing keys are the owner's `debian` OpenPGP key from ctx.packages.signingKeys.
 */
export default definePlugin<DebianSettings>({
  name: 'debian',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'The Debian (apt) package registry with signed indexes',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxUploadSize: { type: 'integer', minimum: 1024, default: 512 * 1024 * 1024, description: 'largest .deb accepted, in bytes' },
    },
  },
  migrations,
  apply(ctx) {
    const repository = new DebianRepository(ctx);
    ctx.hooks.http.routes.tap('debian', (r) => r.packages(TYPE, debianRoutes(ctx, repository)));
    // A version deleted through /api/v1/packages leaves the indexes too.
    ctx.hooks.package.deleted.tapPromise('debian', async (e) => {
      if (e.type === TYPE) await repository.forgetDeleted(e.ownerId, e.name, e.version);
    });
    ctx.hooks.user.deleting.tapPromise('debian', async ({ user, trx }) => {
      for (const table of [FILES, RELEASES, DISTRIBUTIONS]) await trx(table).where({ owner_id: user.id }).delete();
    });
    ctx.hooks.user.deleted.tapPromise('debian', ({ user }) => repository.indexes.store.removeOwner(user.id));
    // The xz worker thread (started on the first build) ends with the server.
    ctx.hooks.lifecycle.shutdown.tapPromise('debian', () => repository.indexes.xz.close());
  },
});
