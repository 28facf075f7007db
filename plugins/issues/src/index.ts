import { definePlugin, toBoolean } from '@hearth/plugin-api';
import { issueMigrations } from './migrations';
import { issueInteractionMigrations } from './interaction-migrations';
import { issueCatalogMigrations } from './catalog-migrations';
import { issueTextSearchMigrations } from './text-search';
import { timeTrackingMigrations } from './time-tracking';
import { issuesRef } from './service';
import { issuesService } from './service-provider';
import { issueContext, type IssueDeps } from './issue-context';
import { issueEvents } from './issue-events';
import { removeRepoIssues, tapExclusiveLabels } from './issue-store';
import { tapRepositoryLabels } from './label-templates';
import { tapOrgLabelCleanup } from './org-label-routes';
import { tapClosingKeywords } from './closing-keywords';
import { openIssueCounts } from './issue-counts';
import { issueOperations } from './issue-routes';
import { issueInteractionOperations } from './interaction-routes';
import { issueCatalogOperations } from './catalog-routes';

export { issuesRef } from './service';
export type * from './service';

/**
 * Issues (Gitea 1.20's issue API): issues, comments, labels (of repositories and organizations,
 * label templates), milestones (and the milestone interchange document), pins, dependencies,
 * reactions, timeline, references and closing keywords, assignees, subscriptions, mentions, issue
 * search, attachments of issues and comments (the core's), `open_issues_count`/`open_pr_counter`.
 * Provides the issues service (`issuesRef`): the one issue write path, also for pull requests.
 */
export default definePlugin({
  name: 'issues',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Issues, comments, labels, milestones and the issue write path',
  units: ['issues'],
  migrations: [
    ...issueMigrations,
    ...issueInteractionMigrations,
    ...issueCatalogMigrations,
    ...timeTrackingMigrations,
    ...issueTextSearchMigrations,
  ],
  adoptsKernelMigrations: true,
  provides: [issuesRef],
  apply(ctx) {
    const deps: IssueDeps = { ...ctx, pulls: { link: null } };
    ctx.services.provide(issuesRef, issuesService(deps));
    tapExclusiveLabels(ctx.hooks);
    tapRepositoryLabels(ctx);
    tapOrgLabelCleanup(deps);
    // A deleted repository's issues go inside its deletion transaction (their attachments are the core's).
    ctx.hooks.repository.deleting.tapPromise('issues', async ({ repositoryId, trx }) => removeRepoIssues(trx, [repositoryId]));
    tapClosingKeywords(deps, issueEvents(deps, issueContext(deps)));
    ctx.repositories.addCounts(openIssueCounts(ctx.db));
    // An issue's (or comment's) attachment downloads with the issues, or the pull requests, of its repository.
    ctx.attachments.guardIssueDownloads(async (attachment) => {
      const row = await ctx.db('issue').where({ id: attachment.issueId, repo_id: attachment.repositoryId }).first('is_pull');
      return row ? (toBoolean(row.is_pull) ? 'pulls' : 'issues') : null;
    });
    ctx.hooks.http.routes.tap('issues', (routes) => {
      for (const op of [...issueOperations(deps), ...issueInteractionOperations(deps), ...issueCatalogOperations(deps)]) routes.api(op);
    });
  },
});
