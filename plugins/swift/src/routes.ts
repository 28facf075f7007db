import { Router, type NextFunction, type Request, type Response } from 'express';
import { ApiError, isApiError, type PluginContext } from '@hearth/plugin-api';
import { identity, releaseVersion } from './identity';
import { negotiate } from './media-type';
import { releaseResponses } from './release-responses';
import { TYPE, type ReleaseService, type SwiftSettings } from './release-service';

const CONTENT_VERSION = { 'Content-Version': '1' };

/** SE-0292 §3.3: errors are RFC 7807 problem details. */
function problem(res: Response, status: number, detail: string, headers?: Record<string, string>): void {
  if (headers) res.set(headers);
  res
    .status(status)
    .set({ ...CONTENT_VERSION, 'Content-Language': 'en' })
    .type('application/problem+json');
  res.send(JSON.stringify({ status, title: titleOf(status), detail }));
}

/** The package guard's refusals (an invisible owner's 404, a missing scope's 403, 401) as problem details too. */
export function renderSwiftError(error: { status: number; message: string }, _req: Request, res: Response): boolean {
  problem(res, error.status, error.message);
  return true;
}

function titleOf(status: number): string {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    405: 'Method Not Allowed',
    409: 'Conflict',
    413: 'Content Too Large',
    415: 'Unsupported Media Type',
    422: 'Unprocessable Entity',
  };
  return titles[status] ?? 'Error';
}

/** Strip an optional `.json`/`.zip` extension from the last path segment. */
function splitExtension(segment: string): { base: string; ext: '' | 'json' | 'zip' } {
  const m = /^(.*)\.(json|zip)$/.exec(segment);
  return m ? { base: m[1], ext: m[2] as 'json' | 'zip' } : { base: segment, ext: '' };
}

export function swiftRouter(ctx: PluginContext<SwiftSettings>, service: ReleaseService): Router {
  const packages = ctx.packages;
  const responses = releaseResponses(ctx, service);
  const router = Router({ mergeParams: true });

  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.set(CONTENT_VERSION);
    next();
  });

  // SE-0378 login check: SwiftPM posts to `<registry>/login`; Gitea also answers the bare base.
  const login = (req: Request, res: Response) => {
    const { principal } = packages.access(req);
    if (!principal) return problem(res, 401, 'authentication required', { 'WWW-Authenticate': 'Basic realm="Hearth Swift registry"' });
    res.status(200).json({});
  };
  router.post('/login', login);
  router.post('/', login);

  router.get('/identifiers', async (req: Request, res: Response) => {
    negotiate(req.headers.accept, 'json');
    const url = req.query.url;
    if (typeof url !== 'string' || !url.trim()) throw ApiError.badRequest('the url query parameter is required');
    if (url.length > 2048) throw ApiError.badRequest('the url is longer than 2048 characters');
    const ids = await service.identifiers(packages.access(req).owner.id, url);
    if (!ids.length) throw ApiError.notFound(`no package is registered for ${url}`);
    res.type('application/json').json({ identifiers: ids });
  });

  router.get('/:scope/:name', async (req: Request, res: Response) => {
    const { base, ext } = splitExtension(req.params.name as string);
    if (ext === 'zip') throw ApiError.notFound('not found');
    negotiate(req.headers.accept, 'json');
    const pkg = identity(req.params.scope as string, base);
    await responses.sendReleaseList(res, packages.access(req).owner, pkg);
  });

  router.get('/:scope/:name/:version', async (req: Request, res: Response) => {
    const { base, ext } = splitExtension(req.params.version as string);
    negotiate(req.headers.accept, ext === 'zip' ? 'zip' : 'json');
    const pkg = identity(req.params.scope as string, req.params.name as string);
    const { owner } = packages.access(req);
    const version = await service.release(owner.id, pkg, releaseVersion(base));
    if (ext === 'zip') return responses.sendArchive(req, res, version, pkg);
    await responses.sendRelease(res, owner, pkg, version);
  });

  router.get('/:scope/:name/:version/Package.swift', async (req: Request, res: Response) => {
    negotiate(req.headers.accept, 'swift');
    const pkg = identity(req.params.scope as string, req.params.name as string);
    const { owner } = packages.access(req);
    const version = await service.release(owner.id, pkg, releaseVersion(req.params.version as string));
    await responses.sendManifest(req, res, owner, version);
  });

  router.put('/:scope/:name/:version', async (req: Request, res: Response) => {
    negotiate(req.headers.accept, 'json');
    const pkg = identity(req.params.scope as string, req.params.name as string);
    const version = releaseVersion(req.params.version as string);
    const access = packages.access(req);
    const stored = await service.publish(req, access, pkg, version);
    res.status(201).set('Location', service.releaseUrl(access.owner, stored)).type('application/json').json({});
  });

  const notAllowed = (_req: Request, res: Response) => problem(res, 405, 'method not allowed');
  router.all('/:scope/:name/:version/Package.swift', notAllowed);
  router.all('/:scope/:name/:version', notAllowed);
  router.all('/:scope/:name', notAllowed);
  router.all('/identifiers', notAllowed);

  router.use((req: Request, res: Response) => problem(res, 404, `not found: ${req.method} ${req.originalUrl.split('?')[0]}`));
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    if (isApiError(err)) return problem(res, err.status, err.message, err.headers);
    return next(err);
  });
  return router;
}

export { TYPE };
