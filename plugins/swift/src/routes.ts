import { Router, type NextFunction, type Request, type Response } from 'express';
import { ApiError, contentDisposition, isApiError, type PackageVersionInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { identity, releaseVersion, type PackageIdentity } from './identity';
import { negotiate } from './media-type';
import { TYPE, type ReleaseRecord, type ReleaseService, type SwiftSettings } from './release-service';
import { sendDownload } from '@hearth/package-kit';

const CONTENT_VERSION = { 'Content-Version': '1' };
const SWIFT_VERSION = /^\d+(?:\.\d+){0,2}$/;

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

const link = (url: string, rel: string, extra = '') => `<${url}>; rel="${rel}"${extra}`;

/** Strip an optional `.json`/`.zip` extension from the last path segment. */
function splitExtension(segment: string): { base: string; ext: '' | 'json' | 'zip' } {
  const m = /^(.*)\.(json|zip)$/.exec(segment);
  return m ? { base: m[1], ext: m[2] as 'json' | 'zip' } : { base: segment, ext: '' };
}

export function swiftRouter(ctx: PluginContext<SwiftSettings>, service: ReleaseService): Router {
  const packages = ctx.packages;
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
    const { owner } = packages.access(req);
    const versions = await service.releases(owner.id, pkg);
    if (!versions.length) throw ApiError.notFound(`package ${pkg.id} does not exist`);
    const releases: Record<string, { url: string }> = {};
    for (const v of versions) releases[v.version] = { url: service.releaseUrl(owner, v) };
    const links = [link(service.releaseUrl(owner, versions[0]), 'latest-version')];
    const urls = ((versions[0].metadata as unknown as ReleaseRecord).metadata.repositoryURLs as string[] | undefined) ?? [];
    urls.forEach((u, i) => links.push(link(u, i === 0 ? 'canonical' : 'alternate')));
    res.set('Link', links.join(', ')).type('application/json').json({ releases });
  });

  router.get('/:scope/:name/:version', async (req: Request, res: Response) => {
    const { base, ext } = splitExtension(req.params.version as string);
    negotiate(req.headers.accept, ext === 'zip' ? 'zip' : 'json');
    const pkg = identity(req.params.scope as string, req.params.name as string);
    const { owner } = packages.access(req);
    const version = await service.release(owner.id, pkg, releaseVersion(base));
    if (ext === 'zip') return sendArchive(req, res, version, pkg);
    await sendRelease(res, owner, pkg, version);
  });

  async function sendRelease(res: Response, owner: UserInfo, pkg: PackageIdentity, version: PackageVersionInfo): Promise<void> {
    const record = version.metadata as unknown as ReleaseRecord;
    const file = (await packages.listFiles(version.id)).find((f) => f.isLead);
    if (!file) throw ApiError.notFound(`release ${pkg.id} ${version.version} has no source archive`);
    const all = await service.releases(owner.id, pkg);
    const at = all.findIndex((v) => v.id === version.id);
    const links = [link(service.releaseUrl(owner, all[0]), 'latest-version')];
    if (at > 0) links.push(link(service.releaseUrl(owner, all[at - 1]), 'successor-version'));
    if (at >= 0 && at < all.length - 1) links.push(link(service.releaseUrl(owner, all[at + 1]), 'predecessor-version'));
    res
      .set('Link', links.join(', '))
      .type('application/json')
      .json({
        id: `${record.scope}.${record.name}`,
        version: version.version,
        resources: [
          {
            name: 'source-archive',
            type: 'application/zip',
            checksum: file.hashes.sha256,
            ...(record.signing ? { signing: record.signing } : {}),
          },
        ],
        metadata: record.metadata,
        publishedAt: version.createdAt.toISOString(),
      });
  }

  async function sendArchive(req: Request, res: Response, version: PackageVersionInfo, pkg: PackageIdentity): Promise<void> {
    const record = version.metadata as unknown as ReleaseRecord;
    const file = (await packages.listFiles(version.id)).find((f) => f.isLead);
    if (!file) throw ApiError.notFound(`release ${pkg.id} ${version.version} has no source archive`);
    const etag = `"${file.hashes.sha256}"`;
    res.set({
      'Content-Type': 'application/zip',
      'Content-Length': String(file.size),
      'Content-Disposition': contentDisposition(`${record.name}-${version.version}.zip`),
      Digest: `sha-256=${Buffer.from(file.hashes.sha256, 'hex').toString('base64')}`,
      ETag: etag,
      'Cache-Control': packages.access(req).owner.visibility === 'public' ? 'public, immutable' : 'private, immutable',
      ...(record.signing
        ? {
            'X-Swift-Package-Signature-Format': record.signing.signatureFormat,
            'X-Swift-Package-Signature': record.signing.signatureBase64Encoded,
          }
        : {}),
    });
    const onAbort = (err: unknown) => ctx.log.debug({ err }, 'swift source archive download ended early');
    await sendDownload(req, res, () => packages.openFile(file), { size: file.size, onAbort });
  }

  router.get('/:scope/:name/:version/Package.swift', async (req: Request, res: Response) => {
    negotiate(req.headers.accept, 'swift');
    const pkg = identity(req.params.scope as string, req.params.name as string);
    const { owner } = packages.access(req);
    const version = await service.release(owner.id, pkg, releaseVersion(req.params.version as string));
    const manifests = await service.manifests(version.id);
    const wanted = req.query['swift-version'];
    if (wanted !== undefined && (typeof wanted !== 'string' || !SWIFT_VERSION.test(wanted)))
      throw ApiError.badRequest('swift-version must look like 5, 5.7 or 5.7.1');
    const unqualified = `${service.releaseUrl(owner, version)}/Package.swift`;
    const manifest =
      wanted === undefined ? manifests.find((m) => m.swiftVersion === undefined) : manifests.find((m) => m.swiftVersion === wanted);
    if (!manifest) {
      if (wanted === undefined) throw ApiError.notFound('the release has no Package.swift');
      res.status(303).set('Location', unqualified).end();
      return;
    }
    const alternates = manifests
      .filter((m) => m.swiftVersion !== undefined)
      .map((m) =>
        link(
          `${unqualified}?swift-version=${m.swiftVersion}`,
          'alternate',
          `; filename="${m.filename}"${m.toolsVersion ? `; swift-tools-version="${m.toolsVersion}"` : ''}`,
        ),
      );
    const body = Buffer.from(manifest.content, 'utf8');
    res.status(200).set({
      'Content-Type': 'text/x-swift',
      'Content-Disposition': contentDisposition(manifest.filename),
      'Content-Length': String(body.length),
      'Cache-Control': owner.visibility === 'public' ? 'public, immutable' : 'private, immutable',
      ...(alternates.length ? { Link: alternates.join(', ') } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
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
