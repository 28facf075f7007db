import type { Express, Router } from 'express';
import type { ApiOperation } from '@hearth/plugin-api';
import type { PackageDeps } from './package-deps';

/**
 * The package registry framework: placeholder until it is built. `services` becomes the
 * plugin-facing registry service; `operations` the /api/v1/packages routes; `mount` puts each
 * format's router at /api/packages/:owner/<type>.
 */
export function createPackageFramework(_deps: PackageDeps) {
  return {
    services: {},
    operations(): ApiOperation[] {
      return [];
    },
    mount(app: Express, routers: ReadonlyMap<string, { owner: string; router: Router }>): void {
      for (const [type, { router }] of routers) app.use(`/api/packages/:owner/${type}`, router);
    },
  };
}
