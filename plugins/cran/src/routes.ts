import fs from 'node:fs';
import { Router, type Request, type Response } from 'express';
import { ApiError, contentDisposition, type PackageFileInfo, type PluginContext } from '@hearth/plugin-api';
import { PACKAGE_NAME } from './description';
import { archiveKind, readPackageFile } from './package-file';
import { compositeKeyOf, SOURCE, type CranRepository, type IndexFiles, type IndexLocation } from './repository';
import { etagMatches, sendStoredFile } from '@hearth/package-kit';

export const TYPE = 'cran';

export interface Settings {
  maxUploadSize: number;
}

/** `bin/<platform>/…`: `windows`, `macosx`, or `macosx/<variant>` (e.g. `big-sur-arm64`). */
const PLATFORM_SEGMENT = /^[a-z0-9][a-z0-9_.-]{0,47}$/;
const R_VERSION = /^\d{1,2}\.\d{1,3}$/;
const PACKAGE_FILE = /^([A-Za-z][A-Za-z0-9.]*[A-Za-z0-9])_(\d+(?:[.-]\d+)+)\.(tar\.gz|zip|tgz)$/;
const INDEX_FILES = ['PACKAGES', 'PACKAGES.gz', 'PACKAGES.rds'];

/** A file path under the repository: the index it belongs to and the file name. */
interface Located {
  location: IndexLocation;
  filename: string;
  /** `src/contrib/Archive/<name>/`: the package the directory names. */
  archiveOf?: string;
}

function validPlatform(platform: string): boolean {
  const segments = platform.split('/');
  return segments.length <= 2 && segments.every((s) => PLATFORM_SEGMENT.test(s) && s !== '..' && s !== '.');
}

/** Decode the path segments under the mount into an index location and a file name. */
function locate(segments: string[]): Located | null {
  const [top, ...rest] = segments;
  if (top === 'src' && rest[0] === 'contrib') {
    if (rest.length === 2) return { location: SOURCE, filename: rest[1] };
    if (rest.length === 4 && rest[1] === 'Archive' && PACKAGE_NAME.test(rest[2]))
      return { location: SOURCE, filename: rest[3], archiveOf: rest[2] };
    return null;
  }
  if (top !== 'bin') return null;
  const contrib = rest.indexOf('contrib');
  if (contrib < 1 || rest.length !== contrib + 3) return null;
  const platform = rest.slice(0, contrib).join('/');
  const rversion = rest[contrib + 1];
  if (!validPlatform(platform) || !R_VERSION.test(rversion)) return null;
  return { location: { platform, rversion }, filename: rest[contrib + 2] };
}

/** The extension a package file must have in a location: R asks for .zip on Windows, .tgz on macOS, .tar.gz for sources. */
function extensionFor(location: IndexLocation): 'tar.gz' | 'zip' | 'tgz' {
  if (!location.platform) return 'tar.gz';
  return location.platform === 'windows' ? 'zip' : 'tgz';
}

export function cranRouter(ctx: PluginContext<Settings>, repo: CranRepository): Router {
  const { packages } = ctx;
  const router = Router({ mergeParams: true });
  const maxUnpacked = () => Math.max(64 * 1024 * 1024, ctx.settings.maxUploadSize * 20);

  async function publish(req: Request, res: Response, location: IndexLocation): Promise<void> {
    const access = packages.access(req);
    const actor = access.principal?.user ?? null;
    const limit = ctx.settings.maxUploadSize;
    const spooled = await packages.spool(req, {
      maxBytes: limit,
      tooLarge: `the package file is larger than the limit of ${limit} bytes`,
      empty: 'the package file is empty',
    });
    let body: fs.ReadStream | undefined;
    try {
      const kind = archiveKind(spooled.path);
      const extension = extensionFor(location);
      if ((kind === 'zip') !== (extension === 'zip')) {
        throw ApiError.badRequest(
          location.platform
            ? `a ${location.platform} binary package must be a ${extension === 'zip' ? 'zip' : 'gzip-compressed tar'} archive`
            : 'a source package must be a .tar.gz archive',
        );
      }
      const description = await readPackageFile(spooled.path, kind, location.platform ? 'binary' : 'source', maxUnpacked());
      const filename = `${description.name}_${description.version}.${extension}`;
      body = fs.createReadStream(spooled.path);
      // The registry may refuse before reading (409, quota): the stream's lazy open must not fail unheard.
      body.on('error', (err) => ctx.log.debug({ err }, 'cran upload body stream failed'));
      const { file } = await packages.upload({
        ownerId: access.owner.id,
        type: TYPE,
        name: description.name,
        version: description.version,
        filename,
        compositeKey: compositeKeyOf(location),
        isLead: !location.platform,
        body,
        declaredSize: spooled.size,
        metadata: description.fields,
        semverCompatible: false,
        actor,
      });
      await repo.insertOrUndo(
        {
          owner_id: access.owner.id,
          version_id: file.versionId,
          name: description.name,
          lower_name: description.name.toLowerCase(),
          version: description.version,
          platform: location.platform,
          rversion: location.rversion,
          filename,
          md5: file.hashes.md5,
          fields: JSON.stringify(description.fields),
        },
        () => packages.deleteFile(file, actor),
      );
      res.status(201).end();
    } finally {
      body?.destroy();
      await spooled.cleanup();
    }
  }

  router.put('/src', (req: Request, res: Response) => publish(req, res, SOURCE));

  router.put('/bin', (req: Request, res: Response) => {
    const platform = typeof req.query.platform === 'string' ? req.query.platform : '';
    const rversion = typeof req.query.rversion === 'string' ? req.query.rversion : '';
    if (!platform || !validPlatform(platform))
      throw ApiError.badRequest('the platform query parameter must be e.g. windows, macosx or macosx/big-sur-arm64');
    if (!R_VERSION.test(rversion)) throw ApiError.badRequest('the rversion query parameter must be an R major.minor version, e.g. 4.2');
    return publish(req, res, { platform, rversion });
  });

  function sendIndex(req: Request, res: Response, index: IndexFiles, filename: string): void {
    const [body, type] =
      filename === 'PACKAGES'
        ? [index.text, 'text/plain; charset=utf-8']
        : filename === 'PACKAGES.gz'
          ? [index.gz, 'application/gzip']
          : [index.rds, 'application/octet-stream'];
    const etag = filename === 'PACKAGES' ? index.etag : `${index.etag.slice(0, -1)}-${filename.slice(9)}"`;
    res.set({ ETag: etag, 'Cache-Control': 'no-cache', 'Content-Type': type });
    if (etagMatches(req, etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).send(body);
  }

  async function findFile(req: Request, located: Located): Promise<{ file: PackageFileInfo; rowId: number }> {
    const m = PACKAGE_FILE.exec(located.filename);
    if (!m || m[3] !== extensionFor(located.location) || (located.archiveOf !== undefined && located.archiveOf !== m[1])) {
      throw ApiError.notFound('package file does not exist');
    }
    const { owner } = packages.access(req);
    const row = await repo.findFile(owner.id, located.location, located.filename);
    const file = row && (await packages.getFile(row.version_id, row.filename, compositeKeyOf(located.location)));
    if (!row || !file) throw ApiError.notFound('package file does not exist');
    return { file, rowId: row.id };
  }

  router.get('/*path', async (req: Request, res: Response) => {
    const located = locate(req.params.path as unknown as string[]);
    if (!located) throw ApiError.notFound('not found');
    if (!located.archiveOf && INDEX_FILES.includes(located.filename)) {
      const index = await repo.index(packages.access(req).owner.id, located.location);
      return sendIndex(req, res, index, located.filename);
    }
    const { file } = await findFile(req, located);
    await sendStoredFile(req, res, file, () => packages.openFile(file), {
      contentType: file.name.endsWith('.zip') ? 'application/zip' : 'application/gzip',
      disposition: contentDisposition(file.name),
      onAbort: (err) => ctx.log.debug({ err }, 'cran download ended early'),
    });
  });

  router.delete('/*path', async (req: Request, res: Response) => {
    const segments = req.params.path as unknown as string[];
    const access = packages.access(req);
    const actor = access.principal?.user ?? null;
    if (segments.length === 2 && segments[0] !== 'src') {
      // DELETE /{name}/{version}: the version with its source and binary files.
      const version = await packages.getVersion(access.owner.id, TYPE, segments[0], segments[1]);
      if (!version) throw ApiError.notFound('package version does not exist');
      await packages.deleteVersion(version.id, actor);
      await repo.removeVersion(version.id);
      return void res.status(204).end();
    }
    const located = locate(segments);
    if (!located) throw ApiError.notFound('not found');
    const { file, rowId } = await findFile(req, located);
    await repo.removeFile(rowId);
    await packages.deleteFile(file, actor);
    res.status(204).end();
  });

  return router;
}
