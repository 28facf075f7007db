import { definePlugin } from '@hearth/plugin-api';
import { issuesRef } from '@hearth/plugin-issues';
import { pullMigrations } from './migrations';
import { removeRepoPulls, type PullDeps } from './pull-store';
import { PullService } from './pull-service';
import { pullOperations } from './pull-routes';
import { pullRequestLink } from './pull-link';

/**
 * Pull requests (Gitea 1.20's pull request API): pull requests from branches of the repository or
 * of forks, test merges on every push, merges in every Gitea style (checked against the core's
 * branch protection), reviews, requested reviewers, `pull_request*` webhooks. The issue half of a
 * pull request is the issues plugin's: every change of it goes through the issues service.
 */
export default definePlugin({
  name: 'pulls',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Pull requests, reviews and merges',
  units: ['pulls'],
  migrations: pullMigrations,
  adoptsKernelMigrations: true,
  requires: [issuesRef],
  apply(ctx) {
    const deps: PullDeps = { ...ctx, issues: ctx.services.get(issuesRef) };
    const svc = new PullService(deps);
    deps.issues.linkPullRequests(pullRequestLink(deps));
    // A deleted repository's pull requests and reviews go inside its deletion transaction.
    ctx.hooks.repository.deleting.tapPromise('pulls', async ({ repositoryId, trx }) => removeRepoPulls(trx, [repositoryId]));
    // Pushes refresh the open pull requests of the pushed branches, in the background.
    ctx.hooks.push.received.tapPromise('pulls', async (event) => svc.onPush(event));
    ctx.hooks.lifecycle.shutdown.tapPromise('pulls', () => svc.settled());
    ctx.hooks.http.routes.tap('pulls', (routes) => {
      for (const op of pullOperations(deps, svc)) routes.api(op);
    });
  },
});
