import fs from 'node:fs';
import { ApiError, definePlugin, type PluginContext } from '@hearth/plugin-api';
import { indexService } from './index-service';
import { cargoRouter, gitIndexRouter } from './routes';
import { CRATES, migrations, TYPE, type CargoSettings } from './tables';

/** Where cargo is told to log in when a private owner's index asks for credentials. */
function loginUrl(ctx: PluginContext<CargoSettings>): string {
  return `${ctx.forge.appUrl}user/settings/applications`;
}

/**
 * The Cargo registry: the sparse index (config.json and index files at cargo's sharded paths),
 * the git index repository `/{owner}/_cargo-index.git` holding the same files (isomorphic-git,
 * one commit per publish, yank and unyank; `hearth plugins run cargo rebuild-index <owner>`
 * recreates it), and the web API (publish, download, yank/unyank, search, owners). Built only on
 * the public plugin API; yanked flags and the per-owner crate list (case and '-'/'_' collisions,
 * search) live in the plugin's own tables.
 */
export default definePlugin<CargoSettings>({
  name: 'cargo',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  description: 'The Cargo registry (sparse index and git index repository)',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxPublishSize: {
        type: 'integer',
        minimum: 1024,
        default: 10 * 1024 * 1024 + 1024 * 1024,
        description: 'largest publish body (metadata + .crate) in bytes',
      },
    },
  },
  migrations,
  apply(ctx) {
    const index = indexService(ctx);
    // Stage -10: before the kernel's repository smart HTTP routes, which would take
    // `/{owner}/_cargo-index.git` for a repository named `_cargo-index`.
    ctx.hooks.http.routes.tap({ name: 'cargo', stage: -10 }, (r) => {
      // Yanking is a DELETE that only flips a flag: it needs write:package, not delete:package.
      r.packages(TYPE, cargoRouter(ctx, index), {
        levelFor: (method, path) => (method === 'DELETE' && path.endsWith('/yank') ? 'write' : undefined),
        // Cargo sends its token only after a 401 (then `auth-required` in config.json keeps it sending).
        anonymousChallenge: () => `Cargo login_url="${loginUrl(ctx)}"`,
      });
      r.root('/:owner/_cargo-index{.git}', gitIndexRouter(ctx, index));
    });
    // The owner's packages go with a purged user; so do the crate rows and the index repository.
    ctx.hooks.user.deleting.tapPromise('cargo', async ({ user, trx }) => {
      await trx(CRATES).where({ owner_id: user.id }).delete();
    });
    ctx.hooks.user.deleted.tapPromise('cargo', async ({ user }) => {
      await index.store.serialize(user.id, async () => fs.rmSync(index.store.dirOf(user.id), { recursive: true, force: true }));
    });
    // config.json names the owner in its URLs.
    ctx.hooks.user.renamed.tapPromise('cargo', ({ user }) => index.configChanged(user));
    // A version deleted through /api/v1/packages leaves the git index as it left the sparse one.
    ctx.hooks.package.deleted.tapPromise('cargo', async (e) => {
      if (e.type !== TYPE || !index.store.exists(e.ownerId)) return;
      const owner = await ctx.users.byId(e.ownerId);
      if (owner) await index.crateChanged(owner, e.name, `Delete ${e.name} ${e.version}`);
    });

    ctx.commands.add({
      name: 'rebuild-index',
      usage: '<owner>',
      description: "recreate an owner's cargo git index repository (/{owner}/_cargo-index.git) from the database",
      async run(args, out) {
        if (args.length !== 1) throw ApiError.badRequest('usage: hearth plugins run cargo rebuild-index <owner>');
        const owner = await ctx.users.byName(args[0]);
        if (!owner) throw ApiError.notFound(`user does not exist [name: ${args[0]}]`);
        const { head, files } = await index.rebuild(owner);
        out(
          `rebuilt the cargo index of ${owner.name}: ${files - 1} crate file(s) and config.json in ` +
            `${index.store.dirOf(owner.id)} (commit ${head})`,
        );
        return 0;
      },
    });
  },
});
