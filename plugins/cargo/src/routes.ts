import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { ApiError, isApiError, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { CRATE_NAME, PublishError } from './crate';
import { crateFileName, crateService, type CrateService } from './crate-service';
import type { IndexService } from './index-service';
import type { CargoSettings } from './tables';

/** Cargo prints `errors[].detail`; `message` keeps the body readable for Gitea-style clients. */
function cargoError(res: Response, status: number, detail: string, headers?: Record<string, string>): void {
  if (headers) res.set(headers);
  res.status(status).json({ errors: [{ detail }], message: detail });
}

/** Read the whole request body, refusing more than `limit` bytes. */
async function readBody(req: Request, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    req.resume();
    throw new ApiError(413, `the publish body is larger than ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new ApiError(413, `the publish body is larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The git index repository `/{owner}/_cargo-index.git`, read-only over smart HTTP. */
export function gitIndexRouter(ctx: PluginContext<CargoSettings>, index: IndexService): Router {
  return ctx.git.readOnlyRouter(async (req, principal) => {
    let owner: UserInfo;
    try {
      owner = (await ctx.packages.ownerAccess(String(req.params.owner), principal, 'read')).owner;
    } catch (err) {
      // git sends credentials only when challenged.
      if (!principal && isApiError(err) && err.status === 404)
        throw ApiError.unauthorized('authentication required to read this cargo index');
      throw err;
    }
    // cargo fetches the index before its first publish: an owner's index starts with config.json.
    if (!index.store.exists(owner.id)) await index.ensure(owner);
    return index.store.dirOf(owner.id);
  });
}

/** The web API: publish, search, owners, download, yank and unyank. */
function webApiRoutes(router: Router, ctx: PluginContext<CargoSettings>, crates: CrateService): void {
  const packages = ctx.packages;
  const versionOf = (req: Request) => {
    const { name, version } = req.params as Record<string, string>;
    return crates.findVersion(packages.access(req).owner, name, version);
  };

  router.put('/api/v1/crates/new', async (req: Request, res: Response) => {
    // The registry's guard let only writers of the owner's packages through (a PUT needs write).
    const access = packages.access(req);
    const body = await readBody(req, ctx.settings.maxPublishSize);
    await crates.publish(access, body);
    res.status(200).json({ warnings: { invalid_categories: [], invalid_badges: [], other: [] } });
  });

  router.get('/api/v1/crates', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 64) : '';
    const perPageRaw = Number(typeof req.query.per_page === 'string' ? req.query.per_page : 10);
    const perPage = Number.isInteger(perPageRaw) && perPageRaw > 0 ? Math.min(perPageRaw, 100) : 10;
    res.json(await crates.search(owner, q, perPage));
  });

  router.get('/api/v1/crates/:name/owners', async (req: Request, res: Response) => {
    const { name } = req.params as Record<string, string>;
    const { owner } = packages.access(req);
    if (!(await crates.exists(owner, name))) throw ApiError.notFound(`crate \`${name}\` does not exist`);
    res.json({ users: [{ id: owner.id, login: owner.name, name: owner.fullName || owner.name }] });
  });

  router.get('/api/v1/crates/:name/:version/download', async (req: Request, res: Response) => {
    const version = await versionOf(req);
    const file =
      (await packages.getFile(version.id, crateFileName(version))) ?? (await packages.listFiles(version.id)).find((f) => f.isLead);
    if (!file) throw ApiError.notFound('crate file does not exist');
    const download = await packages.openFile(file);
    res.status(200).set({
      'Content-Type': 'application/x-tar',
      'Content-Length': String(download.size),
      'Content-Disposition': `attachment; filename="${file.name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"`,
      ETag: `"${download.hashes.sha256}"`,
    });
    try {
      await pipeline(download.stream, res);
    } catch (err) {
      ctx.log.debug({ err }, 'crate download ended early');
    }
  });

  router.delete('/api/v1/crates/:name/:version/yank', async (req: Request, res: Response) => {
    const version = await versionOf(req);
    await crates.yank(packages.access(req).owner, version);
    res.json({ ok: true });
  });

  router.put('/api/v1/crates/:name/:version/unyank', async (req: Request, res: Response) => {
    const version = await versionOf(req);
    await crates.unyank(packages.access(req).owner, version);
    res.json({ ok: true });
  });
}

/** The sparse index: a crate's index file at cargo's sharded paths (`1/a`, `2/ab`, `3/a/abc`, `ab/cd/abcd…`). */
function sparseIndexRoutes(router: Router, ctx: PluginContext<CargoSettings>, index: IndexService): void {
  async function indexFile(req: Request, res: Response, name: string, ok: boolean): Promise<void> {
    const lower = name.toLowerCase();
    if (!ok || !CRATE_NAME.test(name) || name !== lower) throw ApiError.notFound(`crate \`${name}\` does not exist`);
    const { owner } = ctx.packages.access(req);
    const body = await index.crateFile(owner.id, lower);
    if (body === null) throw ApiError.notFound(`crate \`${name}\` does not exist`);
    const etag = `"${crypto.createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    res.set({ ETag: etag, 'Cache-Control': 'no-cache', 'Content-Type': 'text/plain; charset=utf-8' });
    const inm = req.headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).send(body);
  }

  router.get('/1/:name', (req: Request, res: Response) => {
    const { name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length === 1);
  });
  router.get('/2/:name', (req: Request, res: Response) => {
    const { name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length === 2);
  });
  router.get('/3/:c/:name', (req: Request, res: Response) => {
    const { c, name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length === 3 && c === name.slice(0, 1));
  });
  router.get('/:ab/:cd/:name', (req: Request, res: Response) => {
    const { ab, cd, name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length >= 4 && ab === name.slice(0, 2) && cd === name.slice(2, 4));
  });
}

/** The registry under `/api/packages/{owner}/cargo`: config.json, the web API, the sparse index, in cargo's error shape. */
export function cargoRouter(ctx: PluginContext<CargoSettings>, index: IndexService): Router {
  const router = Router({ mergeParams: true });

  router.get('/config.json', (req: Request, res: Response) => {
    const { owner } = ctx.packages.access(req);
    res.set('Cache-Control', 'no-cache').json(index.config(owner));
  });

  // The web API before the index routes: `api/v1/crates` would match `{ab}/{cd}/{name}`.
  webApiRoutes(router, ctx, crateService(ctx, index));
  sparseIndexRoutes(router, ctx, index);

  // Everything under the cargo mount answers in cargo's error shape.
  router.use((req: Request, res: Response) => cargoError(res, 404, `not found: ${req.method} ${req.originalUrl.split('?')[0]}`));
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    if (err instanceof PublishError) return cargoError(res, 400, err.message);
    if (isApiError(err)) return cargoError(res, err.status, err.message, err.headers);
    return next(err);
  });

  return router;
}
