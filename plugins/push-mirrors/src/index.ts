import { definePlugin } from '@hearth/plugin-api';
import { mirrorMigrations } from './migrations';
import { pushMirrorOperations } from './push-mirror-routes';
import { CREDENTIALS_SECRET_PURPOSE, requestSync } from './push-mirror-store';
import { PushMirrorWorker } from './push-mirror-worker';

/**
 * Gitea's push mirrors: a repository's branches, tags and notes pushed to other remotes by a
 * background worker (started on `lifecycle.ready`, stopped on `lifecycle.shutdown`). Mirrors with
 * `sync_on_commit` are marked on every `push.received` of their repository; a deleted
 * repository's mirrors go with it (`repository.deleted`, and `user.deleting` for a purged owner).
 */
export default definePlugin({
  name: 'push-mirrors',
  version: '0.1.0',
  apiVersion: '^2.3.0',
  description: 'Push mirrors: repositories pushed to other remotes on commit or on an interval',
  migrations: mirrorMigrations,
  adoptsKernelMigrations: true,
  apply(ctx) {
    const { db, hooks } = ctx;
    const credentials = ctx.secrets(CREDENTIALS_SECRET_PURPOSE);
    const worker = new PushMirrorWorker({ ctx, credentials, log: ctx.log.child({ worker: 'push-mirrors' }) });

    hooks.lifecycle.ready.tapPromise('push-mirrors', async () => worker.start());
    // Gitea's `update_mirrors`: the worker polls on its own; the task syncs due mirrors at once (/admin/cron).
    ctx.cron.add({ name: 'update_mirrors', intervalSeconds: 0, run: async () => worker.wake() });
    hooks.lifecycle.shutdown.tapPromise('push-mirrors', async () => worker.stop());
    hooks.push.received.tapPromise('push-mirrors', async (event) => {
      const marked = await requestSync(db, (q) => q.where({ repo_id: event.repositoryId, sync_on_commit: true }));
      if (marked) worker.wake();
    });
    hooks.repository.deleted.tapPromise('push-mirrors', async (event) => {
      await db('push_mirror').where('repo_id', event.repositoryId).delete();
    });
    // A purged user's repositories are removed without repository.deleted: take their mirrors in
    // the same transaction, before the kernel removes the rows (a refusal rolls both back).
    hooks.user.deleting.tapPromise({ name: 'push-mirrors', stage: -10 }, async ({ user, purge, trx }) => {
      if (!purge) return;
      await trx('push_mirror').whereIn('repo_id', trx('repositories').where('owner_id', user.id).select('id')).delete();
    });
    hooks.http.routes.tap('push-mirrors', (routes) => {
      for (const op of pushMirrorOperations(ctx, worker, credentials)) routes.api(op);
    });
  },
});
