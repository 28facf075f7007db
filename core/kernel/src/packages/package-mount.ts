import type { Express, NextFunction, Request, Response, Router } from 'express';
import { ApiError, isApiError, type PackageRouteOptions } from '@hearth/plugin-api';
import { levelForMethod } from '../auth/scopes';
import type { PackageDeps } from './package-deps';
import type { PackageService } from './package-service';

/** The format routers by package type, as the plugins registered them. */
export type PackageRouters = ReadonlyMap<string, { owner: string; router: Router; options: PackageRouteOptions }>;

/**
 * Mount each format's router at /api/packages/:owner/<type> (and its sibling paths) behind
 * owner resolution, authentication, token scope and permission.
 */
export function mountPackageRouters(app: Express, routers: PackageRouters, deps: PackageDeps, services: PackageService): void {
  for (const [type, { router, options }] of routers) {
    for (const suffix of options.siblingPaths ?? []) {
      if (!/^[.-][A-Za-z0-9._-]+$/.test(suffix)) throw new Error(`package type "${type}": sibling path "${suffix}" must start with . or -`);
      app.use(`/api/packages/:owner/${type}${suffix}`, sibling(suffix, [guard(deps, services, options), router]));
    }
    app.use(`/api/packages/:owner/${type}`, guard(deps, services, options), router);
  }
}

/**
 * Before every format router: take credentials from the path (credentialsFromPath),
 * authenticate, then the owner, the token scope and the permission for the method
 * (ownerAccess). Refusals go to the format's renderError when it answers them.
 */
function guard(deps: PackageDeps, services: PackageService, options: PackageRouteOptions) {
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
