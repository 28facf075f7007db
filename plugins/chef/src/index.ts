import { definePlugin } from '@hearth/plugin-api';
import { chefAuthentication, type ChefAuthSettings } from './chef-auth';
import { cookbookService, TYPE } from './cookbook-service';
import { chefRouter, type ChefRouteSettings } from './routes';
import { COOKBOOKS, migrations, USER_KEYS } from './tables';
import { keyCommands, keyOperations, userKeyStore } from './user-keys';

type Settings = ChefAuthSettings & ChefRouteSettings;

/**
 * Chef cookbooks at `/api/packages/{owner}/chef`: the Supermarket API v1 (universe, list,
 * search, cookbook, versions, download, share, unshare) with metadata from the tarball's
 * metadata.json, and Chef's signed-header authentication (X-Ops-*, protocols 1.0, 1.1 and 1.3)
 * as an `auth.authenticate` tap, verified against the public key each user registers at
 * `/api/v1/user/chef/key`. Built only on the public plugin API.
 */
export default definePlugin<Settings>({
  name: 'chef',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  description: 'Chef cookbooks (Supermarket API) with signed-request authentication',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxTarballSize: { type: 'integer', minimum: 1024, default: 64 * 1024 * 1024, description: 'largest cookbook tarball in bytes' },
      maxClockSkewSeconds: {
        type: 'integer',
        minimum: 10,
        maximum: 3600,
        default: 600,
        description: 'how far X-Ops-Timestamp may be from the server clock',
      },
    },
  },
  migrations,
  apply(ctx) {
    const keys = userKeyStore(ctx);
    const auth = chefAuthentication(ctx, keys);
    const service = cookbookService(ctx);
    ctx.hooks.auth.authenticate.tapPromise({ name: 'chef', stage: 0 }, auth.authenticate);
    ctx.hooks.http.routes.tap('chef', (r) => {
      r.packages(TYPE, chefRouter(ctx, service, auth.bindSignature));
      for (const op of keyOperations(keys)) r.api(op);
    });
    ctx.hooks.package.published.tapPromise('chef', async (e) => {
      if (e.type === TYPE) service.invalidate(e.ownerId);
    });
    // A version deleted through /api/v1/packages leaves the universe and the cookbook list as a chef delete would.
    ctx.hooks.package.deleted.tapPromise('chef', async (e) => {
      if (e.type !== TYPE) return;
      service.invalidate(e.ownerId);
      await service.row(e.ownerId, e.name);
    });
    ctx.hooks.user.renamed.tapPromise('chef', async () => service.invalidate());
    ctx.hooks.user.deleting.tapPromise('chef', async ({ user, trx }) => {
      await trx(USER_KEYS).where({ user_id: user.id }).delete();
      await trx(COOKBOOKS).where({ owner_id: user.id }).delete();
    });
    for (const command of keyCommands(ctx, keys)) ctx.commands.add(command);
  },
});
