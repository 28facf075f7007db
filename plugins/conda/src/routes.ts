import fs from 'node:fs';
import { Router, type Request, type Response } from 'express';
import { ApiError, contentDisposition, type PackageFileInfo, type PluginContext } from '@hearth/plugin-api';
import { compositeKeyOf, type ChannelStore, type JsonDocument } from './channel';
import { readCondaPackage, SUBDIR } from './conda-package';
import { etagMatches, sendStoredFile } from '@hearth/package-kit';
import { Bzip2 } from 'compressjs';

export const TYPE = 'conda';

export interface Settings {
  maxUploadSize: number;
}

/** Channel path segments (a channel is optional and may have up to three segments). */
const CHANNEL_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_CHANNEL_SEGMENTS = 3;
const PACKAGE_FILE = /^[A-Za-z0-9_][A-Za-z0-9_.+!*-]{0,250}\.(tar\.bz2|conda)$/;
const REPODATA_FILES = ['repodata.json', 'current_repodata.json'];
const COMPRESSED_REPODATA = /^(current_)?repodata\.json\.bz2$/;

function channelOf(segments: string[]): string | null {
  if (segments.length > MAX_CHANNEL_SEGMENTS) return null;
  if (!segments.every((s) => CHANNEL_SEGMENT.test(s) && !/^\.+$/.test(s))) return null;
  return segments.join('/');
}

/**
 * conda's token-in-the-URL convention (`channel_alias/t/<token>/<channel>/…`, as anaconda.org
 * has it): `/t/<token>/…` authenticates with the token, so `t` cannot be a channel's first segment.
 */
export function tokenFromPath(path: string): { token: string; path: string } | undefined {
  const m = /^\/t\/([^/]+)(\/.*)?$/.exec(path);
  if (!m) return undefined;
  try {
    return { token: decodeURIComponent(m[1]), path: m[2] ?? '/' };
  } catch {
    return undefined;
  }
}

function sendJson(req: Request, res: Response, doc: JsonDocument): void {
  res.set({ ETag: doc.etag, 'Cache-Control': 'no-cache', 'Content-Type': 'application/json' });
  if (etagMatches(req, doc.etag)) return void res.status(304).end();
  res.status(200).send(doc.body);
}

/** bzip2 copies of cached documents, made once per document (a new document comes with every change). */
const bzip2Copies = new WeakMap<JsonDocument, Buffer>();

/** `repodata.json.bz2`: the legacy compressed repodata older conda clients ask for. */
function sendBzip2(req: Request, res: Response, doc: JsonDocument): void {
  let body = bzip2Copies.get(doc);
  if (!body) bzip2Copies.set(doc, (body = Buffer.from(Bzip2.compressFile(doc.body))));
  const etag = `${doc.etag.slice(0, -1)}-bz2"`;
  res.set({ ETag: etag, 'Cache-Control': 'no-cache', 'Content-Type': 'application/x-bzip2' });
  if (etagMatches(req, etag)) return void res.status(304).end();
  res.status(200).send(body);
}

/** A package file path: `{channel...}/{subdir}/{filename}`. */
function locateFile(segments: string[]): { channel: string; subdir: string; filename: string } | null {
  if (segments.length < 2) return null;
  const filename = segments[segments.length - 1];
  const subdir = segments[segments.length - 2];
  const channel = channelOf(segments.slice(0, -2));
  if (channel === null || !SUBDIR.test(subdir)) return null;
  return { channel, subdir, filename };
}

export function condaRouter(ctx: PluginContext<Settings>, store: ChannelStore): Router {
  const { packages } = ctx;
  const router = Router({ mergeParams: true });
  const segmentsOf = (req: Request) => req.params.path as unknown as string[];

  router.put('/*path', async (req: Request, res: Response) => {
    const segments = segmentsOf(req);
    const filename = segments[segments.length - 1];
    const channel = channelOf(segments.slice(0, -1));
    if (channel === null) throw ApiError.badRequest(`invalid channel: up to ${MAX_CHANNEL_SEGMENTS} segments of letters, digits and _ . -`);
    if (!PACKAGE_FILE.test(filename)) throw ApiError.badRequest('invalid file name: expected <name>-<version>-<build>.tar.bz2 or .conda');
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
      const pkg = await readCondaPackage(spooled.path, filename, Math.max(256 * 1024 * 1024, ctx.settings.maxUploadSize * 20));
      const { subdir } = pkg.record;
      body = fs.createReadStream(spooled.path);
      // The registry may refuse before reading (409, quota): the stream's lazy open must not fail unheard.
      body.on('error', (err) => ctx.log.debug({ err }, 'conda upload body stream failed'));
      const { file } = await packages.upload({
        ownerId: access.owner.id,
        type: TYPE,
        name: pkg.record.name,
        version: pkg.record.version,
        filename,
        compositeKey: compositeKeyOf(channel, subdir),
        isLead: true,
        body,
        declaredSize: spooled.size,
        metadata: { ...pkg.record, ...(Object.keys(pkg.about).length ? { about: pkg.about } : {}) },
        semverCompatible: false,
        actor,
      });
      const record = { ...pkg.record, md5: file.hashes.md5, sha256: file.hashes.sha256, size: file.size };
      await store.insertOrUndo(
        {
          owner_id: access.owner.id,
          version_id: file.versionId,
          channel,
          subdir,
          filename,
          name: pkg.record.name,
          version: pkg.record.version,
          record: JSON.stringify(record),
          about: JSON.stringify(pkg.about),
          created_unix: Math.floor(file.createdAt.getTime() / 1000),
        },
        () => packages.deleteFile(file, actor),
      );
      res.status(201).end();
    } finally {
      body?.destroy();
      await spooled.cleanup();
    }
  });

  async function findFile(req: Request, segments: string[]): Promise<{ file: PackageFileInfo; rowId: number }> {
    const located = locateFile(segments);
    if (!located || !PACKAGE_FILE.test(located.filename)) throw ApiError.notFound('package file does not exist');
    const { channel, subdir, filename } = located;
    const row = await store.findFile(packages.access(req).owner.id, channel, subdir, filename);
    const file = row && (await packages.getFile(row.version_id, filename, compositeKeyOf(channel, subdir)));
    if (!row || !file) throw ApiError.notFound('package file does not exist');
    return { file, rowId: row.id };
  }

  router.get('/*path', async (req: Request, res: Response) => {
    const segments = segmentsOf(req);
    const { owner } = packages.access(req);
    const last = segments[segments.length - 1];
    if (last === 'channeldata.json') {
      const channel = channelOf(segments.slice(0, -1));
      if (channel === null) throw ApiError.notFound('not found');
      return sendJson(req, res, await store.channeldata(owner.id, channel));
    }
    if (REPODATA_FILES.includes(last) || COMPRESSED_REPODATA.test(last)) {
      const located = locateFile(segments);
      if (!located) throw ApiError.notFound('not found');
      // Every valid subdir has a repodata.json, empty until something is uploaded: clients always ask for noarch.
      const doc = await store.repodata(owner.id, located.channel, located.subdir);
      return last.endsWith('.bz2') ? sendBzip2(req, res, doc) : sendJson(req, res, doc);
    }
    const { file } = await findFile(req, segments);
    await sendStoredFile(req, res, file, () => packages.openFile(file), {
      contentType: file.name.endsWith('.conda') ? 'application/octet-stream' : 'application/x-bzip2',
      disposition: contentDisposition(file.name),
      onAbort: (err) => ctx.log.debug({ err }, 'conda download ended early'),
    });
  });

  router.delete('/*path', async (req: Request, res: Response) => {
    const { file, rowId } = await findFile(req, segmentsOf(req));
    await store.removeFile(rowId);
    await packages.deleteFile(file, packages.access(req).principal?.user ?? null);
    res.status(204).end();
  });

  return router;
}
