import { definePlugin } from '@hearth/plugin-api';
import { releaseMigrations } from './migrations';
import { releaseOperations } from './release-routes';
import { ReleaseService } from './release-service';

/**
 * Repository releases (Gitea 1.20's release API): the `release` table, tags created on
 * publishing, `release` webhooks, `release_counter` in the repository JSON. Their files are the
 * core's attachments (`ctx.attachments`), downloaded at `ROOT_URL attachments/{uuid}`.
 */
export default definePlugin({
  name: 'releases',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Repository releases and their attachments',
  units: ['releases'],
  migrations: releaseMigrations,
  adoptsKernelMigrations: true,
  apply(ctx) {
    const releases = new ReleaseService(ctx);
    // A deleted repository's releases go inside its deletion transaction (its attachments are the core's).
    ctx.hooks.repository.deleting.tapPromise('releases', async ({ repositoryId, trx }) => {
      await trx('release').where('repo_id', repositoryId).delete();
    });
    ctx.repositories.addCounts((ids) => releases.counts(ids));
    ctx.attachments.guardReleaseDownloads((attachment, repository, principal) => releases.downloadable(attachment, repository, principal));
    ctx.hooks.http.routes.tap('releases', (routes) => {
      for (const op of releaseOperations(ctx, releases)) routes.api(op);
    });
  },
});
