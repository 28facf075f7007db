import crypto from 'node:crypto';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import semver from 'semver';
import { sendDownload as sendFile } from '@hearth/package-kit';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { ApiError, isApiError, type PackageDownload, type PluginContext } from '@hearth/plugin-api';
import { checkModulePath, decodeCase } from './module-path';
import { ModuleZipError, readModuleZip } from './module-zip';
import { infoJson, latestOf, versionList, type ModuleStore, type ModuleVersion } from './module-store';
import { UnusableTree, type RepositoryModule, type RepositoryModules, type TagVersion } from './repository-modules';

export interface GoSettings {
  maxZipSize: number;
  maxRepositoryModuleSize: number;
  modulePathPrefix: string;
}

/** What a proxy GET asks for, decoded from the URL. */
export type ProxyRequest =
  { modulePath: string; kind: 'list' | 'latest' } | { modulePath: string; kind: 'info' | 'mod' | 'zip'; version: string };

/** A GET that is not a module request, or names no module here: plain text, as go prints it. */
class NotHere extends Error {}

/**
 * Parse `{module}/@v/list`, `{module}/@v/{version}.{info,mod,zip}` and `{module}/@latest` (path
 * relative to the proxy base, percent- and case-encoded); null for anything else.
 */
export function parseProxyPath(urlPath: string): ProxyRequest | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.replace(/^\/+/, ''));
  } catch {
    return null;
  }
  let escapedModule: string;
  let rest: string;
  if (decoded.endsWith('/@latest')) {
    escapedModule = decoded.slice(0, -'/@latest'.length);
    rest = '@latest';
  } else {
    const at = decoded.indexOf('/@v/');
    if (at < 0) return null;
    escapedModule = decoded.slice(0, at);
    rest = decoded.slice(at + '/@v/'.length);
    if (rest.includes('/')) return null;
  }
  const modulePath = decodeCase(escapedModule);
  if (modulePath === null || checkModulePath(modulePath)) return null;
  if (rest === '@latest') return { modulePath, kind: 'latest' };
  if (rest === 'list') return { modulePath, kind: 'list' };
  const m = /^(.+)\.(info|mod|zip)$/.exec(rest);
  const version = m ? decodeCase(m[1]) : null;
  if (!m || version === null) return null;
  return { modulePath, kind: m[2] as 'info' | 'mod' | 'zip', version };
}

function sendText(res: Response, status: number, text: string): void {
  res.status(status).set({ 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' }).send(text);
}

/**
 * Refusals of proxy reads (the package guard's, e.g. a private owner's 404, and the router's) as
 * plain text: go treats 404 and 410 as "try the next proxy" and prints the body of other errors.
 * Uploads keep the kernel's JSON errors.
 */
export function renderGoError(error: { status: number; message: string }, req: Request, res: Response): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  sendText(res, error.status, `${error.message}\n`);
  return true;
}

async function sendDownload(
  req: Request,
  res: Response,
  download: PackageDownload | Buffer,
  type: string,
  ctx: PluginContext<GoSettings>,
): Promise<void> {
  const hashes = Buffer.isBuffer(download) ? null : download.hashes;
  const etag = `"${
    hashes
      ? hashes.sha256
      : crypto
          .createHash('sha256')
          .update(download as Buffer)
          .digest('hex')
  }"`;
  res.set({ 'Content-Type': type, ETag: etag });
  const inm = req.headers['if-none-match'];
  const stream = Buffer.isBuffer(download) ? null : download.stream;
  const notModified = Boolean(inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));
  if (notModified || req.method === 'HEAD') {
    stream?.destroy();
    if (notModified) res.status(304).end();
    else
      res
        .status(200)
        .set('Content-Length', String(Buffer.isBuffer(download) ? download.length : download.size))
        .end();
    return;
  }
  if (Buffer.isBuffer(download)) {
    res.status(200).send(download);
    return;
  }
  res.status(200).set('Content-Length', String(download.size));
  try {
    await pipeline(download.stream, res);
  } catch (err) {
    ctx.log.debug({ err }, 'Go module download ended early');
  }
}

/** Uploaded and tag versions of one module in semver order; an uploaded version wins over a tag of the same version. */
function mergeVersions(uploaded: ModuleVersion[], tagged: TagVersion[]): ModuleVersion[] {
  const byVersion = new Map<string, ModuleVersion>();
  for (const v of tagged) byVersion.set(v.version, v);
  for (const v of uploaded) byVersion.set(v.version, v);
  return [...byVersion.values()].sort((a, b) => semver.compare(a.version, b.version));
}

/** `.info`, `.mod` or `.zip` of a version served from a repository tag. */
async function sendTagVersion(
  req: Request,
  res: Response,
  kind: 'info' | 'mod' | 'zip',
  module: RepositoryModule,
  version: TagVersion,
  tags: RepositoryModules,
  ctx: PluginContext<GoSettings>,
): Promise<void> {
  try {
    if (kind === 'info') {
      res.status(200).set('Content-Type', 'application/json').send(infoJson(version));
    } else if (kind === 'mod') {
      await sendDownload(req, res, await tags.goMod(module, version), 'text/plain; charset=utf-8', ctx);
    } else {
      const zip = await tags.zip(module, version);
      res.set({ 'Content-Type': 'application/zip', ETag: `"${zip.sha256}"` });
      await sendFile(req, res, async () => ({ stream: fs.createReadStream(zip.file) }), {
        size: zip.size,
        etag: `"${zip.sha256}"`,
        onAbort: (err) => ctx.log.debug({ err }, 'Go module download ended early'),
      });
    }
  } catch (err) {
    if (err instanceof UnusableTree) throw new NotHere(`not found: ${err.message}`);
    throw err;
  }
}

/** The GOPROXY protocol under `/api/packages/{owner}/go`, and `PUT /upload`. */
export function proxyRoutes(ctx: PluginContext<GoSettings>, store: ModuleStore, tags: RepositoryModules): Router {
  const packages = ctx.packages;
  const router = Router({ mergeParams: true });
  router.put('/upload', async (req: Request, res: Response) => {
    const access = packages.access(req);
    const limit = ctx.settings.maxZipSize;
    const spooled = await packages.spool(req, { maxBytes: limit, tooLarge: `the module zip is larger than ${limit} bytes` });
    try {
      const contents = await readModuleZip(spooled.path, limit).catch((err: unknown) => {
        throw err instanceof ModuleZipError ? ApiError.badRequest(err.message) : err;
      });
      const stored = await store.publish(access, spooled.path, spooled.size, contents);
      res.status(201).json({ module: stored.name, version: stored.version });
    } finally {
      await spooled.cleanup();
    }
  });

  // A middleware rather than a `/*path` route: Express would answer a bad percent-encoding with its own 400.
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // The go command asks `sumdb/<name>/supported` before using a checksum database through the proxy: 404 sends it direct.
    if (req.path.startsWith('/sumdb/')) throw new NotHere('not found: this proxy does not serve a checksum database');
    const request = parseProxyPath(req.path);
    if (!request) throw new NotHere(`not found: ${req.path.slice(1)} is not a module proxy request`);
    const { owner, principal } = packages.access(req);
    const { modulePath } = request;
    // Only module paths under this server's host name can name a repository (no database read otherwise).
    const fromTags = await tags.resolve(owner, principal, modulePath);
    if (!('version' in request)) {
      const uploaded = await store.versions(owner.id, modulePath);
      const tagged = fromTags ? await tags.versions(fromTags) : [];
      if (!uploaded && !tagged.length) throw new NotHere(`not found: module ${modulePath}: no such module`);
      const versions = mergeVersions(uploaded ?? [], tagged);
      if (request.kind === 'list') {
        sendText(res, 200, versionList(versions));
        return;
      }
      const latest = latestOf(versions);
      if (!latest) throw new NotHere(`not found: module ${modulePath}: no versions`);
      res.status(200).set({ 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }).send(infoJson(latest));
      return;
    }
    const { version: wanted, kind } = request;
    const version = await store.find(owner.id, modulePath, wanted);
    if (!version) {
      const tag = fromTags ? await tags.find(fromTags, wanted) : null;
      if (!fromTags || !tag) throw new NotHere(`not found: module ${modulePath}@${wanted}: unknown revision ${wanted}`);
      await sendTagVersion(req, res, kind, fromTags, tag, tags, ctx);
      return;
    }
    if (kind === 'info') {
      const info = infoJson({ id: version.id, version: version.version, time: version.createdAt });
      res.status(200).set('Content-Type', 'application/json').send(info);
    } else if (kind === 'mod') {
      await sendDownload(req, res, await store.goMod(version), 'text/plain; charset=utf-8', ctx);
    } else {
      await sendDownload(req, res, await store.zip(version), 'application/zip', ctx);
    }
  });

  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || (req.method !== 'GET' && req.method !== 'HEAD')) return next(err);
    if (err instanceof NotHere) return sendText(res, 404, `${err.message}\n`);
    if (isApiError(err)) return void renderGoError(err, req, res);
    return next(err);
  });
  return router;
}
