import { definePlugin } from '@hearth/plugin-api';
import { releaseService, TYPE, type SwiftSettings } from './release-service';
import { renderSwiftError, swiftRouter } from './routes';
import { migrations } from './tables';

/**
 * The Swift package registry (SE-0292 registry service specification) at
 * `/api/packages/{owner}/swift`: release lists, release metadata, manifests (with the
 * `Package@swift-X.swift` variants), source archives, repository URL lookup, the SE-0378 login
 * check and SE-0391 publishing. Built only on the public plugin API; manifests and repository
 * URLs live in the plugin's own tables.
 */
export default definePlugin<SwiftSettings>({
  name: 'swift',
  version: '0.1.0',
  apiVersion: '^2.1.0',
  description: 'The Swift package registry (SE-0292)',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxArchiveSize: { type: 'integer', minimum: 1024, default: 128 * 1024 * 1024, description: 'largest source archive in bytes' },
    },
  },
  migrations,
  apply(ctx) {
    const service = releaseService(ctx);
    ctx.hooks.http.routes.tap('swift', (r) => {
      r.packages(TYPE, swiftRouter(ctx, service), {
        // The login check is a POST that only asks "are these credentials good?".
        levelFor: (method, path) => (method === 'POST' && (path === '/' || path === '/login') ? 'read' : undefined),
        renderError: renderSwiftError,
      });
    });
    // A release deleted through /api/v1/packages takes its manifests and repository URLs along.
    ctx.hooks.package.deleted.tapPromise('swift', async (e) => {
      if (e.type === TYPE) await service.forget(e.packageVersionId);
    });
  },
});
