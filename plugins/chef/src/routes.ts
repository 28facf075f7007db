import { Router, type NextFunction, type Request, type Response } from 'express';
import { ApiError, contentDisposition, isApiError, type PackageVersionInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import type { CookbookRow, CookbookService } from './cookbook-service';
import { contentHashMatches, type SignedHeaders } from './signed-request';
import { receiveUpload } from './upload-body';
import { sendDownload } from '@hearth/package-kit';

export interface ChefRouteSettings {
  maxTarballSize: number;
}

/** Supermarket's error shape (knife prints `error_messages`); `message` as in the rest of the API. */
function chefError(res: Response, status: number, message: string, headers?: Record<string, string>): void {
  if (headers) res.set(headers);
  res.status(status).json({
    error_code: status === 404 ? 'NOT_FOUND' : status === 401 ? 'UNAUTHORIZED' : 'INVALID_DATA',
    error_messages: [message],
    message,
  });
}

function paging(req: Request): { start: number; items: number } {
  const number = (v: unknown, fallback: number) => (typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : fallback);
  return { start: number(req.query.start, 0), items: Math.min(Math.max(number(req.query.items, 10), 1), 100) };
}

const iso = (unix: number | string) => new Date(Number(unix) * 1000).toISOString();

export function chefRouter(
  ctx: PluginContext<ChefRouteSettings>,
  service: CookbookService,
  bindSignature: (req: Request, res: Response, next: NextFunction) => Promise<void>,
): Router {
  const packages = ctx.packages;
  const router = Router({ mergeParams: true });
  router.use(bindSignature);

  const listItem = (owner: UserInfo, r: CookbookRow) => ({
    cookbook_name: r.name,
    cookbook_maintainer: r.maintainer,
    cookbook_description: r.description,
    cookbook: service.cookbookUrl(owner, r.name),
  });

  async function sendList(req: Request, res: Response, q?: string): Promise<void> {
    const { owner } = packages.access(req);
    const { start, items } = paging(req);
    const order = typeof req.query.order === 'string' ? req.query.order : undefined;
    const { total, rows } = await service.list(owner.id, { q, start, items, order });
    res.json({ start, total, items: rows.map((r) => listItem(owner, r)) });
  }

  const universe = async (req: Request, res: Response) => {
    res.type('application/json').send(await service.universe(packages.access(req).owner));
  };
  router.get('/universe', universe);
  router.get('/api/v1/universe', universe);
  router.get('/api/v1/search', (req: Request, res: Response) =>
    sendList(req, res, typeof req.query.q === 'string' ? req.query.q.slice(0, 100) : ''),
  );
  router.get('/api/v1/cookbooks', (req: Request, res: Response) => sendList(req, res));

  router.get('/api/v1/cookbooks/:name', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const { row, versions } = await service.cookbook(owner.id, req.params.name as string);
    const latest = service.metadataOf(versions[0]);
    res.json({
      name: row.name,
      maintainer: row.maintainer,
      description: row.description,
      category: row.category,
      external_url: latest.sourceUrl,
      source_url: latest.sourceUrl,
      issues_url: latest.issuesUrl,
      latest_version: service.versionUrl(owner, row.name, versions[0].version),
      versions: versions.map((v) => service.versionUrl(owner, row.name, v.version)),
      deprecated: false,
      created_at: iso(row.created_unix),
      updated_at: iso(row.updated_unix),
      metrics: {
        downloads: {
          total: versions.reduce((n, v) => n + v.downloadCount, 0),
          versions: Object.fromEntries(versions.map((v) => [v.version, v.downloadCount])),
        },
      },
    });
  });

  async function leadFile(version: PackageVersionInfo) {
    const file = (await packages.listFiles(version.id)).find((f) => f.isLead);
    if (!file) throw ApiError.notFound('the cookbook version has no tarball');
    return file;
  }

  router.get('/api/v1/cookbooks/:name/versions/:version', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const { row, version } = await service.version(owner.id, req.params.name as string, req.params.version as string);
    const m = service.metadataOf(version);
    const file = await leadFile(version);
    res.json({
      version: version.version,
      tarball_file_size: file.size,
      published_at: version.createdAt.toISOString(),
      average_rating: null,
      cookbook: service.cookbookUrl(owner, row.name),
      file: `${service.versionUrl(owner, row.name, version.version)}/download`,
      license: m.license,
      dependencies: m.dependencies ?? {},
      platforms: m.platforms ?? {},
    });
  });

  router.get('/api/v1/cookbooks/:name/versions/:version/download', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const { version } = await service.version(owner.id, req.params.name as string, req.params.version as string);
    const file = await leadFile(version);
    res.set({
      'Content-Type': 'application/x-gzip',
      'Content-Length': String(file.size),
      'Content-Disposition': contentDisposition(file.name),
      ETag: `"${file.hashes.sha256}"`,
    });
    const onAbort = (err: unknown) => ctx.log.debug({ err }, 'cookbook download ended early');
    await sendDownload(req, res, () => packages.openFile(file), { size: file.size, onAbort });
  });

  router.post('/api/v1/cookbooks', async (req: Request, res: Response) => {
    const access = packages.access(req);
    const upload = await receiveUpload(req, ctx.settings.maxTarballSize, packages);
    try {
      const signed = res.locals.chefSigned as SignedHeaders | undefined;
      // knife hashes the tarball; other clients may hash the whole multipart body.
      if (signed && !contentHashMatches(signed, [upload.tarball[signed.algorithm], upload.body[signed.algorithm]])) {
        throw new ApiError(401, 'Chef request signature rejected: X-Ops-Content-Hash matches neither the tarball nor the request body');
      }
      const { metadata, version } = await service.publish(access, upload);
      res.status(201).json({ uri: service.versionUrl(access.owner, metadata.name, version.version) });
    } finally {
      await upload.cleanup();
    }
  });

  router.delete('/api/v1/cookbooks/:name/versions/:version', async (req: Request, res: Response) => {
    await service.deleteVersion(packages.access(req), req.params.name as string, req.params.version as string);
    res.status(200).json({});
  });
  router.delete('/api/v1/cookbooks/:name', async (req: Request, res: Response) => {
    await service.deleteCookbook(packages.access(req), req.params.name as string);
    res.status(200).json({});
  });

  router.use((req: Request, res: Response) => chefError(res, 404, `not found: ${req.method} ${req.originalUrl.split('?')[0]}`));
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    if (isApiError(err)) return chefError(res, err.status, err.message, err.headers);
    return next(err);
  });
  return router;
}
