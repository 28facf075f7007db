import { definePlugin } from '@hearth/plugin-api';
import { issuesRef } from '@hearth/plugin-issues';
import { activityMigrations } from './migrations';
import type { ActivityDeps } from './activity-context';
import { recordActivity } from './activity-recorder';
import { tapRecorder } from './recorder';
import { feedOperations } from './feed-routes';
import { heatmapOperations } from './heatmap';
import { notificationOperations } from './notification-routes';

/**
 * Activity feeds (Gitea's user, organization, team and repository feeds: the `activities` table)
 * and notification threads (the `notification` table: who is told about issues and pull requests).
 * Both follow the forge's hooks and `webhook.emit`; notifications use the issues service when the
 * issues feature is enabled. Watches and stars are the core's (`ctx.repositories.watcherIds`).
 */
export default definePlugin({
  name: 'activity',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Activity feeds and notifications',
  migrations: activityMigrations,
  adoptsKernelMigrations: true,
  optional: [issuesRef],
  apply(ctx) {
    const deps: ActivityDeps = { ...ctx, issues: ctx.services.optional(issuesRef) };
    recordActivity(deps);
    tapRecorder(deps);
    ctx.hooks.http.routes.tap('activity', (routes) => {
      for (const op of [...feedOperations(deps), ...heatmapOperations(deps), ...notificationOperations(deps)]) routes.api(op);
    });
  },
});
