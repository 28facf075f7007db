import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type Response } from 'express';
import { ApiError, type PluginContext } from '@hearth/plugin-api';
import { immutableCacheControl, sendBytes } from '@hearth/package-kit';
import { ARCHITECTURE, PACKAGE_NAME, PACKAGE_VERSION, SUITE_NAME, parseControl } from './control-file';
import { readControlFile } from './deb-archive';
import type { ReleasePart } from './distribution-index';
import type { IndexFileStore } from './index-files';
import { TYPE, type DebianRepository } from './repository';

export interface DebianSettings {
  maxUploadSize: number;
}

const POOL_FILE = /^[a-z0-9][a-z0-9+.-]+_[A-Za-z0-9.+~:-]+_[a-z0-9][a-z0-9-]*\.deb$/;
const SHA256 = /^[0-9a-f]{64}$/;
const RELEASE_PARTS = new Map<string, ReleasePart>([
  ['Release', 'release'],
  ['InRelease', 'in_release'],
  ['Release.gpg', 'release_gpg'],
]);
const INDEX_TYPES = new Map([
  ['Packages', 'text/plain; charset=utf-8'],
  ['Packages.gz', 'application/gzip'],
  ['Packages.xz', 'application/x-xz'],
]);

function suite(value: unknown, what: string): string {
  const text = String(value);
  if (!SUITE_NAME.test(text)) throw ApiError.badRequest(`invalid ${what} "${text.slice(0, 64)}"`);
  return text;
}

/**
 * Send a stored index file (immutable: its hash is its ETag); a file collected meanwhile is a 404
 * (the client refetches the Release).
 */
async function sendIndexFile(
  req: Request,
  res: Response,
  store: IndexFileStore,
  ownerId: number,
  sha256: string,
  options: { contentType: string; cacheControl?: string },
): Promise<void> {
  const content = await store.read(ownerId, sha256);
  if (!content) throw ApiError.notFound('index file does not exist');
  sendBytes(req, res, content, { ...options, etag: `"${sha256}"` });
}

/** Gitea's route layout under /api/packages/{owner}/debian. */
export function debianRoutes(ctx: PluginContext<DebianSettings>, repository: DebianRepository): Router {
  const { packages } = ctx;
  const router = Router({ mergeParams: true });

  router.get('/repository.key', async (req: Request, res: Response) => {
    const key = await packages.signingKeys.openpgp(packages.access(req).owner.id, TYPE);
    res.status(200).set({ 'Content-Type': 'application/pgp-keys', 'Cache-Control': 'no-cache' }).send(key.publicKeyArmored);
  });

  router.put('/pool/:distribution/:component/upload', async (req: Request, res: Response) => {
    const access = packages.access(req);
    const distribution = suite(req.params.distribution, 'distribution');
    const component = suite(req.params.component, 'component');
    const limit = ctx.settings.maxUploadSize;
    const staged = await packages.spool(req, {
      maxBytes: limit,
      tooLarge: `the package is larger than ${limit} bytes`,
      empty: 'the request body is empty: upload a .deb file',
    });
    try {
      const control = parseControl(await readControlFile(staged.path));
      await repository.publish(access.owner, access.principal?.user ?? null, distribution, component, control, staged.path, staged.size);
    } finally {
      await staged.cleanup();
    }
    res.status(201).end();
  });

  router.get('/pool/:distribution/:component/:filename', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const distribution = suite(req.params.distribution, 'distribution');
    const component = suite(req.params.component, 'component');
    const filename = String(req.params.filename);
    const row = POOL_FILE.test(filename)
      ? await repository.findFile(owner.id, distribution, component, { pool_name: filename })
      : undefined;
    const file = row ? await repository.kernelFile(row) : null;
    if (!file) throw ApiError.notFound('package file does not exist');
    const download = await packages.openFile(file);
    res.status(200).set({
      'Content-Type': 'application/vnd.debian.binary-package',
      'Content-Length': String(download.size),
      'Content-Disposition': `attachment; filename="${filename}"`,
      ETag: `"${download.hashes.sha256}"`,
    });
    try {
      await pipeline(download.stream, res);
    } catch (err) {
      ctx.log.debug({ err }, 'debian: package download ended early');
    }
  });

  router.delete('/pool/:distribution/:component/:name/:version/:architecture', async (req: Request, res: Response) => {
    const access = packages.access(req);
    const distribution = suite(req.params.distribution, 'distribution');
    const component = suite(req.params.component, 'component');
    const { name, version, architecture } = req.params as Record<string, string>;
    const valid = PACKAGE_NAME.test(name) && PACKAGE_VERSION.test(version) && ARCHITECTURE.test(architecture);
    const row = valid ? await repository.findFile(access.owner.id, distribution, component, { name, version, architecture }) : undefined;
    if (!row) throw ApiError.notFound('package file does not exist');
    await repository.remove(access.owner, access.principal?.user ?? null, row);
    res.status(204).end();
  });

  // Release, InRelease and Release.gpg: revalidated by apt (If-Modified-Since), answered 304 while unchanged.
  router.get('/dists/:distribution/:file', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const distribution = suite(req.params.distribution, 'distribution');
    const file = String(req.params.file);
    const part = RELEASE_PARTS.get(file);
    const release = part ? await repository.indexes.releasePart(owner, distribution, part) : null;
    if (!release) throw ApiError.notFound(`${file} does not exist`);
    const body = Buffer.from(release.value, 'utf8');
    const etag = `"${crypto.createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    sendBytes(req, res, body, { contentType: 'text/plain; charset=utf-8', etag, lastModified: release.updated });
  });

  // By hash (before the Packages route, which the four-segment by-hash path would match): immutable files,
  // so a client holding an older Release still gets what it names, and caches may keep them.
  const byHash = async (req: Request, res: Response) => {
    const { owner, principal } = packages.access(req);
    suite(req.params.distribution, 'distribution');
    const hash = String(req.params.hash);
    if (!SHA256.test(hash)) throw ApiError.notFound('index file does not exist');
    await sendIndexFile(req, res, repository.indexes.store, owner.id, hash, {
      contentType: 'application/octet-stream',
      cacheControl: immutableCacheControl(!principal),
    });
  };
  router.get('/dists/:distribution/by-hash/SHA256/:hash', byHash);
  router.get('/dists/:distribution/:component/:binaryArch/by-hash/SHA256/:hash', byHash);

  router.get('/dists/:distribution/:component/:binaryArch/:file', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const distribution = suite(req.params.distribution, 'distribution');
    const component = suite(req.params.component, 'component');
    const binaryArch = String(req.params.binaryArch);
    const file = String(req.params.file);
    const architecture = binaryArch.startsWith('binary-') ? binaryArch.slice('binary-'.length) : '';
    const contentType = INDEX_TYPES.get(file);
    if (!ARCHITECTURE.test(architecture) || !contentType) throw ApiError.notFound(`${file} does not exist`);
    const entry = await repository.indexes.indexFile(owner, distribution, `${component}/${binaryArch}/${file}`);
    if (!entry) throw ApiError.notFound(`${file} does not exist`);
    await sendIndexFile(req, res, repository.indexes.store, owner.id, entry.sha256, { contentType });
  });

  return router;
}
