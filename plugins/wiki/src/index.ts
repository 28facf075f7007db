import fs from 'node:fs';
import { ApiError, definePlugin, type PluginContext } from '@hearth/plugin-api';
import { WikiPages } from './wiki-pages';
import { wikiOperations } from './wiki-routes';
import { WikiStore, moveWiki, removeWiki, wikiDirOf, wikiExists } from './wiki-store';

/**
 * Repository wikis (Gitea 1.20's wiki API): pages in a bare git repository beside the code,
 * `<name>.wiki.git`, which is also served over git's smart HTTP with the wiki unit's access.
 * The wiki follows its repository: copied on fork, moved on rename and transfer, removed after
 * deletion. No tables.
 */
export default definePlugin({
  name: 'wiki',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Repository wikis: the wiki API and <repo>.wiki.git',
  units: ['wiki'],
  migrations: [],
  adoptsKernelMigrations: true,
  apply(ctx) {
    const store = new WikiStore(ctx.git);
    ctx.git.serveAttached({
      suffix: '.wiki',
      unit: 'wiki',
      locate: async (repository, push) => {
        const wikiDir = wikiDirOf(repository.gitDir);
        // The first push creates the wiki (as the first page written does); there is nothing to fetch before.
        if (push) await store.ensure(wikiDir, ctx.forge.raw.repository.DEFAULT_BRANCH);
        else if (!wikiExists(wikiDir)) {
          throw ApiError.notFound(`the wiki of this repository does not exist yet [${repository.ownerName}/${repository.name}]`);
        }
        return wikiDir;
      },
    });
    tapRepositoryLifecycle(ctx);
    ctx.hooks.http.routes.tap('wiki', (routes) => {
      for (const op of wikiOperations(ctx, new WikiPages(ctx, store))) routes.api(op);
    });
  },
});

/**
 * The wiki's part of the repository lifecycle: a fork copies its source's wiki, a deleted
 * repository's wiki goes once the deletion committed, and the wiki follows its repository on
 * rename and transfer.
 */
function tapRepositoryLifecycle(ctx: PluginContext): void {
  const gitDirOf = (ownerName: string, name: string) => ctx.repositories.gitDir(ownerName, name);
  ctx.hooks.repository.created.tapPromise('wiki', async ({ plan, ownerName, name }) => {
    if (!plan.cloneFrom || !fs.existsSync(wikiDirOf(plan.cloneFrom))) return;
    await ctx.git.cloneBare(wikiDirOf(plan.cloneFrom), wikiDirOf(gitDirOf(ownerName, name)));
  });
  ctx.hooks.repository.deleting.tapPromise('wiki', async ({ ownerName, name, afterCommit }) => {
    const gitDir = gitDirOf(ownerName, name);
    afterCommit(() => removeWiki(gitDir));
  });
  ctx.hooks.repository.renamed.tapPromise('wiki', async ({ ownerName, oldName, name }) => {
    moveWiki(gitDirOf(ownerName, oldName), gitDirOf(ownerName, name));
  });
  ctx.hooks.repository.transferred.tapPromise('wiki', async ({ oldOwnerName, ownerName, name }) => {
    moveWiki(gitDirOf(oldOwnerName, name), gitDirOf(ownerName, name));
  });
}
