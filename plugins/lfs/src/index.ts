import { definePlugin } from '@hearth/plugin-api';
import { lfsRouter } from './routes';
import { LfsLocks } from './locks';
import { mediaAnswer } from './media';
import { LfsObjects } from './objects';
import { lfsMigrations, type LfsSettings } from './tables';

export type { LfsSettings } from './tables';
export { parsePointer } from './media';

/**
 * Git LFS (Gitea's `[server] LFS_START_SERVER`): the batch API with the basic transfer and the
 * locking API at `/{owner}/{repo}.git/info/lfs`, with the access and credentials of git over
 * HTTP. Objects live in the forge's blob storage (area `lfs`: the data directory or the
 * `[storage]` bucket), shared by the repositories and forks that hold them; their sizes count in
 * the repository's `size`; the media API serves them for their pointer files.
 */
export default definePlugin<LfsSettings>({
  name: 'lfs',
  version: '0.1.0',
  apiVersion: '^2.3.0',
  description: 'Git LFS server: batch API, basic transfer, locking API',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxFileSize: { type: 'integer', minimum: 0, default: 0, description: 'largest LFS object in bytes; 0 is unlimited' },
      locksPagingNum: { type: 'integer', minimum: 1, maximum: 1000, default: 50, description: 'locks per page of the locking API' },
    },
  },
  migrations: lfsMigrations,
  apply(ctx) {
    const objects = new LfsObjects(ctx.db, ctx.blobs('lfs'));
    const locks = new LfsLocks(ctx.db, ctx.users);
    if (ctx.forge.raw.repository?.LFS_ENABLED !== undefined)
      ctx.log.warn({}, '[repository] LFS_ENABLED is deprecated and ignored: Git LFS is the `lfs` plugin (plugins.lfs.enabled)');

    // Stage -10: before the kernel's repository routes at /{owner}/{repo}.
    ctx.hooks.http.routes.tap({ name: 'lfs', stage: -10 }, (r) => r.root('/:owner/:repo/info/lfs', lfsRouter(ctx, objects, locks)));
    ctx.hooks.repository.media.tapPromise('lfs', (request) => mediaAnswer(objects, request));
    ctx.repositories.addCounts((ids) => objects.sizes(ids));

    // A fork holds its source's objects (rows copied, blobs shared).
    ctx.hooks.repository.created.tapPromise('lfs', async ({ repositoryId, plan }) => {
      if (plan.forkId > 0) await objects.copy(plan.forkId, repositoryId);
    });
    ctx.hooks.repository.deleting.tapPromise('lfs', async ({ repositoryId, trx, afterCommit }) => {
      await locks.forget(trx, repositoryId);
      const oids = await objects.forget(trx, repositoryId);
      if (oids.length > 0) afterCommit(() => objects.removeUnreferenced(oids));
    });
  },
});
