import { definePlugin } from '@hearth/plugin-api';
import { MAX_ZIP_FILE } from './module-zip';
import { ModuleStore, TYPE } from './module-store';
import { RepositoryModules } from './repository-modules';
import { proxyRoutes, renderGoError, type GoSettings } from './routes';

export { checkFilePath, checkModulePath, checkVersionForPath, decodeCase, encodeCase, isPseudoVersion } from './module-path';
export { readModuleZip, ModuleZipError } from './module-zip';
export { moduleZip, writeZip, type ZipInput } from './zip-writer';
export { parseProxyPath } from './routes';

/**
 * A Go module proxy (the GOPROXY protocol) per owner at `/api/packages/{owner}/go`: module zips
 * uploaded with `PUT /upload`, checked against Go's module zip rules, stored with the package
 * framework (zip and go.mod per version) and served as `@v/list`, `.info`, `.mod`, `.zip` and
 * `@latest`. Modules of the owner's repositories are also served straight from their tags
 * (RepositoryModules), with no upload. No tables of its own: uploads live in the framework's
 * package tables, tag zips in a cache directory.
 */
export default definePlugin<GoSettings>({
  name: 'go',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Go module proxy (GOPROXY protocol): module zip uploads and modules from repository tags',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxZipSize: {
        type: 'integer',
        minimum: 1024,
        maximum: MAX_ZIP_FILE,
        default: MAX_ZIP_FILE,
        description: 'largest module zip accepted, in bytes (Go itself refuses zips over 500 MiB)',
      },
      modulePathPrefix: {
        type: 'string',
        default: '',
        maxLength: 200,
        pattern: '^$|^[a-z0-9-]+(\\.[a-z0-9-]+)+(/[A-Za-z0-9._~-]+)*$',
        description:
          "module paths of repositories are {prefix}/{owner}/{repo}[/vN]; empty: ROOT_URL's host name (without the port, " +
          'which module paths cannot hold) and path',
      },
      maxRepositoryModuleSize: {
        type: 'integer',
        minimum: 1024,
        maximum: MAX_ZIP_FILE,
        default: 100 * 1024 * 1024,
        description: 'largest module served from a repository tag, in bytes uncompressed (its zip is built in memory)',
      },
    },
  },
  apply(ctx) {
    const store = new ModuleStore(ctx);
    const tags = new RepositoryModules(ctx);
    ctx.hooks.http.routes.tap('go', (r) => r.packages(TYPE, proxyRoutes(ctx, store, tags), { renderError: renderGoError }));
    // Built zips are kept per repository and commit: a push (new, moved or deleted tags) or a deletion drops them.
    ctx.hooks.push.received.tapPromise('go', (e) => tags.forget(e.repositoryId));
    ctx.hooks.repository.deleted.tapPromise('go', (e) => tags.forget(e.repositoryId));
    // Version lists are cached: uploads (only this plugin's route publishes type go) update them
    // in place; deletes (through /api/v1/packages) drop the module's list.
    ctx.hooks.package.deleted.tapPromise('go', async (e) => {
      if (e.type === TYPE) store.invalidate(e.ownerId, e.name);
    });
  },
});
