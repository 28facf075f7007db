import { pipeline } from 'node:stream/promises';
import { Router, type Request, type Response } from 'express';
import {
  ApiError,
  contentDisposition,
  definePlugin,
  type PackageFileInfo,
  type PackageVersionInfo,
  type PluginContext,
} from '@hearth/plugin-api';

const TYPE = 'generic';
/** Gitea's rules for generic packages: a safe charset, never a path. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
const FILENAME = /^[-_+=:;.()[\]{}~!@#$%^& \w]+$/;

function validate(params: { name?: string; version?: string; filename?: string }): void {
  const { name, version, filename } = params;
  if (name !== undefined && (!NAME.test(name) || name.length > 255))
    throw ApiError.badRequest(`invalid package name "${name}": letters, digits and . _ + - only, starting with a letter or digit`);
  if (version !== undefined && (!VERSION.test(version) || version.length > 255))
    throw ApiError.badRequest(`invalid package version "${version}": letters, digits and . _ + - only, starting with a letter or digit`);
  if (
    filename !== undefined &&
    (!FILENAME.test(filename) || filename === '.' || filename === '..' || filename.trim() !== filename || filename.length > 255)
  ) {
    throw ApiError.badRequest(`invalid file name "${filename}": no path separators, no leading or trailing spaces`);
  }
}

function routes(ctx: PluginContext): Router {
  const packages = ctx.packages;
  const router = Router({ mergeParams: true });

  async function find(req: Request): Promise<{ version: PackageVersionInfo; file?: PackageFileInfo }> {
    const { name, version, filename } = req.params as Record<string, string>;
    validate({ name, version, filename });
    const { owner } = packages.access(req);
    const found = await packages.getVersion(owner.id, TYPE, name, version);
    if (!found) throw ApiError.notFound('package does not exist');
    if (filename === undefined) return { version: found };
    const file = await packages.getFile(found.id, filename);
    if (!file) throw ApiError.notFound('package file does not exist');
    return { version: found, file };
  }

  router.put('/:name/:version/:filename', async (req: Request, res: Response) => {
    const { name, version, filename } = req.params as Record<string, string>;
    validate({ name, version, filename });
    const access = packages.access(req);
    const length = req.headers['content-length'];
    await packages.upload({
      ownerId: access.owner.id,
      type: TYPE,
      name,
      version,
      filename,
      body: req,
      declaredSize: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
      semverCompatible: false,
      actor: access.principal?.user ?? null,
    });
    res.status(201).end();
  });

  router.get('/:name/:version/:filename', async (req: Request, res: Response) => {
    const { file } = await find(req);
    const etag = `"${file!.hashes.sha256}"`;
    res.set({
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': contentDisposition(file!.name),
      ETag: etag,
      'Last-Modified': file!.createdAt.toUTCString(),
      'X-Checksum-Md5': file!.hashes.md5,
      'X-Checksum-Sha1': file!.hashes.sha1,
      'X-Checksum-Sha256': file!.hashes.sha256,
      'X-Checksum-Sha512': file!.hashes.sha512,
      'Cache-Control': 'private, max-age=300',
    });
    const inm = req.headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
      res.status(304).end();
      return;
    }
    if (req.method === 'HEAD') {
      res.set('Content-Length', String(file!.size)).status(200).end();
      return;
    }
    const download = await packages.openFile(file!);
    res.status(200).set('Content-Length', String(download.size));
    try {
      await pipeline(download.stream, res);
    } catch (err) {
      // The client went away; nothing to answer.
      ctx.log.debug({ err }, 'generic package download ended early');
    }
  });

  router.delete('/:name/:version/:filename', async (req: Request, res: Response) => {
    const { file } = await find(req);
    await packages.deleteFile(file!, packages.access(req).principal?.user ?? null);
    res.status(204).end();
  });

  router.delete('/:name/:version', async (req: Request, res: Response) => {
    const { version } = await find(req);
    await packages.deleteVersion(version.id, packages.access(req).principal?.user ?? null);
    res.status(204).end();
  });

  return router;
}

/**
 * Gitea's generic package registry: any file under a name and a version, uploaded with
 * `curl --upload-file`. Built only on the kernel's package registry service.
 */
export default definePlugin({
  name: 'generic',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  description: "Gitea's generic package registry",
  settingsSchema: { type: 'object', additionalProperties: false, properties: {} },
  apply(ctx) {
    ctx.hooks.http.routes.tap('generic', (r) => r.packages(TYPE, routes(ctx)));
  },
});
