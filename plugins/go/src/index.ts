import { definePlugin } from '@hearth/plugin-api';
import { MAX_ZIP_FILE } from './module-zip';
import { ModuleStore, TYPE } from './module-store';
import { proxyRoutes, renderGoError, type GoSettings } from './routes';

export { checkFilePath, checkModulePath, checkVersionForPath, decodeCase, encodeCase, isPseudoVersion } from './module-path';
export { readModuleZip, ModuleZipError } from './module-zip';
export { moduleZip, writeZip, type ZipInput } from './zip-writer';
export { parseProxyPath } from './routes';

/**
 * A Go module proxy (the GOPROXY protocol) per owner at `/api/packages/{owner}/go`: module zips
 * uploaded with `PUT /upload`, checked against Go's module zip rules, stored with the package
 * framework (zip and go.mod per version) and served as `@v/list`, `.info`, `.mod`, `.zip` and
 * `@latest`. No tables of its own: everything lives in the framework's package tables.
 */
export default definePlugin<GoSettings>({
  name: 'go',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'Go module proxy (GOPROXY protocol) with module zip uploads',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxZipSize: {
        type: 'integer', minimum: 1024, maximum: MAX_ZIP_FILE, default: MAX_ZIP_FILE,
        description: 'largest module zip accepted, in bytes (Go itself refuses zips over 500 MiB)',
      },
    },
  },
  apply(ctx) {
    const store = new ModuleStore(ctx);
    ctx.hooks.http.routes.tap('go', (r) => r.packages(TYPE, proxyRoutes(ctx, store), { renderError: renderGoError }));
    // Version lists are cached: uploads (only this plugin's route publishes type go) update them
    // in place; deletes (through /api/v1/packages) drop the module's list.
    ctx.hooks.package.deleted.tapPromise('go', async (e) => {
      if (e.type === TYPE) store.invalidate(e.ownerId, e.name);
    });
  },
});
