import type { Express } from 'express';
import type { ApiOperation } from '@hearth/plugin-api';
import type { PackageDeps } from './package-deps';
import { createBlobStore } from '../storage';
import { PackageService, packageSettings } from './package-service';
import { packageOperations } from './package-routes';
import { mountPackageRouters, type PackageRouters } from './package-mount';

export { PackageService } from './package-service';

/**
 * The package registry framework: blob storage and tables (`services`, the plugin-facing
 * PackageRegistry), the /api/v1/packages operations (package-routes.ts), and the mount of each
 * format's router at /api/packages/:owner/<type> behind owner resolution, authentication, token
 * scope and permission (package-mount.ts).
 */
export function createPackageFramework(deps: PackageDeps) {
  const settings = packageSettings(deps.config);
  const blobs = createBlobStore(deps.config, 'packages');
  const services = new PackageService(deps, blobs, settings);
  services.tapOwnerDeletion(deps.hooks);

  return {
    services,
    operations(): ApiOperation[] {
      if (!settings.ENABLED) return [];
      return packageOperations(deps, services);
    },
    mount(app: Express, routers: PackageRouters): void {
      if (!settings.ENABLED) return;
      mountPackageRouters(app, routers, deps, services);
    },
  };
}
