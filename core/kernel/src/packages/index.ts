import type { Express, NextFunction, Request, Response, Router } from 'express';
import {
  ApiError,
  isApiError,
  noContent,
  ok,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type PackageVersionInfo,
  type Principal,
  type PackageRouteOptions,
} from '@hearth/plugin-api';
import { levelForMethod } from '../auth/scopes';
import { unixToIso, GO_ZERO_TIME } from '../users/models';
import type { UserRow } from '../users/models';
import { ownerOf } from '../access/operation-access';
import type { PackageDeps } from './package-deps';
import { createBlobStore } from '../storage';
import { PackageService, packageSettings } from './package-service';

export { PackageService } from './package-service';

const VERSION_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    owner: { type: 'string', maxLength: 255, description: 'owner of the package' },
    type: { type: 'string', maxLength: 64, description: 'type of the package' },
    name: { type: 'string', maxLength: 255, description: 'name of the package' },
    version: { type: 'string', maxLength: 255, description: 'version of the package' },
  },
  required: ['owner', 'type', 'name', 'version'],
};
type VersionParams = { owner: string; type: string; name: string; version: string };

/**
 * The package registry framework: blob storage and tables (`services`, the plugin-facing
 * PackageRegistry), the /api/v1/packages operations, and the mount of each format's router at
 * /api/packages/:owner/<type> behind owner resolution, authentication, token scope and permission.
 */
export function createPackageFramework(deps: PackageDeps) {
  const settings = packageSettings(deps.config);
  const blobs = createBlobStore(deps.config, 'packages');
  const services = new PackageService(deps, blobs, settings);
  services.tapOwnerDeletion(deps.hooks);

  /**
   * Before every format router: take credentials from the path (credentialsFromPath),
   * authenticate, then the owner, the token scope and the permission for the method
   * (ownerAccess). Refusals go to the format's renderError when it answers them.
   */
  function guard(options: PackageRouteOptions) {
    return async (req: Request, res: Response, next: NextFunction) => {
      try {
        const fromPath = options.credentialsFromPath?.(req.path);
        if (fromPath) {
          const query = req.url.indexOf('?');
          req.url = `${fromPath.path}${query >= 0 ? req.url.slice(query) : ''}`;
          req.headers.authorization = `token ${fromPath.token}`;
        }
        const principal = await deps.authenticate(req);
        const level = options.levelFor?.(req.method, req.path) ?? levelForMethod(req.method);
        const access = await services.ownerAccess(String(req.params.owner), principal, level).catch((err: unknown) => {
          // A client that only sends credentials when challenged (cargo) is told to, as Gitea does.
          if (!principal && options.anonymousChallenge && isApiError(err) && err.status === 404) {
            const challenge = typeof options.anonymousChallenge === 'function' ? options.anonymousChallenge() : options.anonymousChallenge;
            throw new ApiError(401, 'authentication required', undefined, { 'WWW-Authenticate': challenge });
          }
          throw err;
        });
        services.setAccess(req, access);
      } catch (err) {
        if (options.renderError && isApiError(err) && !res.headersSent) {
          if (err.headers) res.set(err.headers);
          if (options.renderError({ status: err.status, message: err.message }, req, res)) return;
        }
        throw err;
      }
      next();
    };
  }

  /**
   * `/api/packages/:owner/<type><suffix>` (siblingPaths): the format's router sees `/<suffix>`;
   * anything below it is not this mount's.
   */
  function sibling(suffix: string, handlers: Array<(req: Request, res: Response, next: NextFunction) => unknown>) {
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.path !== '/') return next();
      const original = req.url;
      const query = original.indexOf('?');
      req.url = `/${suffix}${query >= 0 ? original.slice(query) : ''}`;
      const restore = (err?: unknown) => {
        req.url = original;
        next(err);
      };
      const [first, second] = handlers;
      return Promise.resolve(first(req, res, (err?: unknown) => (err ? restore(err) : second(req, res, restore)))).catch(restore);
    };
  }

  async function toApiPackage(version: PackageVersionInfo, owner: UserRow, viewer: Principal | null): Promise<Record<string, unknown>> {
    const creator = version.creatorId ? await deps.users.byId(version.creatorId) : undefined;
    const root = deps.config.server.ROOT_URL;
    const e = encodeURIComponent;
    return {
      id: version.id,
      owner: deps.users.toApi(owner, viewer),
      repository: null,
      creator: creator ? deps.users.toApi(creator, viewer) : ghostUser(root),
      type: version.type,
      name: version.name,
      version: version.version,
      created_at: unixToIso(Math.floor(version.createdAt.getTime() / 1000)),
      html_url: `${root}${e(owner.name)}/-/packages/${e(version.type)}/${e(version.name)}/${e(version.version)}`,
    };
  }

  /** The version a `{ packages }` operation names, of the owner its declaration resolved. */
  async function versionOf(req: ApiRequest<unknown, unknown, VersionParams>): Promise<{ owner: UserRow; version: PackageVersionInfo }> {
    const owner = ownerOf(req);
    const version = await services.getVersion(owner.id, req.params.type, req.params.name, req.params.version);
    if (!version) throw ApiError.notFound('package does not exist');
    return { owner, version };
  }

  return {
    services,
    operations(): ApiOperation[] {
      if (!settings.ENABLED) return [];
      const common = { tag: 'package', auth: 'optional' as const };
      return [
        {
          ...common,
          scopes: ['package'],
          access: { packages: 'read' },
          method: 'get',
          path: '/packages/{owner}',
          operationId: 'listPackages',
          summary: 'Gets all packages of an owner',
          params: {
            type: 'object',
            properties: { owner: { type: 'string', maxLength: 255, description: 'owner of the packages' } },
            required: ['owner'],
          },
          query: {
            type: 'object',
            properties: {
              type: { type: 'string', maxLength: 64, description: 'package type filter' },
              q: { type: 'string', maxLength: 255, description: 'name filter' },
            },
          },
          paged: true,
          responses: { 200: { description: 'PackageList', schema: { type: 'array', items: { $ref: 'Package' } } }, 404: 'APIError' },
          handler: async (req: ApiRequest<unknown, { type?: string; q?: string }, { owner: string }>) => {
            const owner = ownerOf(req);
            const { items, total } = await services.searchVersions(owner.id, req.query, req.paging);
            const body = await Promise.all(items.map((v) => toApiPackage(v, owner, req.principal)));
            return deps.http.paged(req, body, total);
          },
        },
        {
          ...common,
          scopes: ['package'],
          access: { packages: 'read' },
          method: 'get',
          path: '/packages/{owner}/{type}/{name}/{version}',
          operationId: 'getPackage',
          summary: 'Gets a package',
          params: VERSION_PARAMS,
          responses: { 200: 'Package', 404: 'APIError' },
          handler: async (req: ApiRequest<unknown, unknown, VersionParams>) => {
            const { owner, version } = await versionOf(req);
            return ok(await toApiPackage(version, owner, req.principal));
          },
        },
        {
          ...common,
          scopes: ['package'],
          access: { packages: 'write' },
          method: 'delete',
          path: '/packages/{owner}/{type}/{name}/{version}',
          operationId: 'deletePackage',
          summary: 'Delete a package',
          params: VERSION_PARAMS,
          responses: { 204: { description: 'deleted' }, 404: 'APIError' },
          handler: async (req: ApiRequest<unknown, unknown, VersionParams>) => {
            const { version } = await versionOf(req);
            await services.deleteVersion(version.id, req.principal?.user ?? null);
            return noContent();
          },
        },
        {
          ...common,
          scopes: ['package'],
          access: { packages: 'read' },
          method: 'get',
          path: '/packages/{owner}/{type}/{name}/{version}/files',
          operationId: 'listPackageFiles',
          summary: 'Gets all files of a package',
          params: VERSION_PARAMS,
          responses: {
            200: { description: 'PackageFileList', schema: { type: 'array', items: { $ref: 'PackageFile' } } },
            404: 'APIError',
          },
          handler: async (req: ApiRequest<unknown, unknown, VersionParams>) => {
            const { version } = await versionOf(req);
            const files = await services.listFiles(version.id);
            return ok(
              files.map((f) => ({
                id: f.id,
                Size: f.size,
                name: f.name,
                md5: f.hashes.md5,
                sha1: f.hashes.sha1,
                sha256: f.hashes.sha256,
                sha512: f.hashes.sha512,
              })),
            );
          },
        },
      ];
    },
    mount(app: Express, routers: ReadonlyMap<string, { owner: string; router: Router; options: PackageRouteOptions }>): void {
      if (!settings.ENABLED) return;
      for (const [type, { router, options }] of routers) {
        for (const suffix of options.siblingPaths ?? []) {
          if (!/^[.-][A-Za-z0-9._-]+$/.test(suffix))
            throw new Error(`package type "${type}": sibling path "${suffix}" must start with . or -`);
          app.use(`/api/packages/:owner/${type}${suffix}`, sibling(suffix, [guard(options), router]));
        }
        app.use(`/api/packages/:owner/${type}`, guard(options), router);
      }
    },
  };
}

/** Gitea's stand-in for a deleted user. */
function ghostUser(root: string): Record<string, unknown> {
  return {
    id: -1,
    login: 'Ghost',
    login_name: '',
    full_name: '',
    email: '',
    avatar_url: `${root}assets/img/avatar_default.png`,
    language: '',
    is_admin: false,
    last_login: GO_ZERO_TIME,
    created: GO_ZERO_TIME,
    restricted: false,
    active: false,
    prohibit_login: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
  };
}
