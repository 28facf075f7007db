import { definePlugin } from '@hearth/plugin-api';
import { Deliverer } from './delivery';
import { eventEmitter, removeHooks } from './emitter';
import { webhookMigrations } from './migrations';
import { HEADER_SECRET_PURPOSE, headerSealer } from './model';
import { webhookOperations } from './webhook-routes';

/**
 * Gitea's webhooks: hooks at repository, organization, user and system level, and their durable
 * delivery. Every forge event reaches them through `webhook.emit`, the one fan-out point; a
 * matching hook gets a `hook_task` row in the emitting request, and this process's workers
 * (started on `lifecycle.ready`, stopped on `lifecycle.shutdown`) send it. Hooks go with their
 * repository or owner.
 */
export default definePlugin({
  name: 'webhooks',
  version: '0.1.0',
  apiVersion: '^2.3.0',
  description: 'Webhooks (Gitea, Gogs, Slack, Discord, Teams) at repository, organization, user and system level',
  migrations: webhookMigrations,
  adoptsKernelMigrations: true,
  apply(ctx) {
    const log = ctx.log.child({ module: 'webhooks' });
    const headers = headerSealer(ctx.secrets(HEADER_SECRET_PURPOSE));
    const deliverer = new Deliverer(ctx, headers, log);
    ctx.hooks.webhook.emit.tapPromise('webhooks', eventEmitter(ctx, deliverer));
    ctx.hooks.repository.deleted.tapPromise('webhooks', (e) => removeHooks(ctx.db, { repo_id: e.repositoryId }));
    ctx.hooks.user.deleted.tapPromise('webhooks', (e) => removeHooks(ctx.db, { owner_id: e.user.id, repo_id: 0 }));
    ctx.hooks.lifecycle.ready.tapPromise('webhooks', async () => deliverer.start());
    // The deliverer polls on its own; the task lets a site admin retry due deliveries at once (/admin/cron).
    ctx.cron.add({ name: 'deliver_webhooks', intervalSeconds: 0, run: async () => deliverer.wake() });
    ctx.hooks.lifecycle.shutdown.tapPromise('webhooks', async () => deliverer.stop());
    ctx.hooks.http.routes.tap('webhooks', (routes) => {
      for (const op of webhookOperations(ctx, deliverer, headers)) routes.api(op);
    });
  },
});
