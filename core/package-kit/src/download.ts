import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Whether the request's If-None-Match names `etag` (weak or strong). */
export function etagMatches(req: IncomingMessage, etag: string): boolean {
  const inm = req.headers['if-none-match'];
  return !!inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Whether the request's If-Modified-Since is not older than `lastModified` (HTTP dates have whole seconds). */
function unmodifiedSince(req: IncomingMessage, lastModified: Date): boolean {
  const since = Date.parse(String(req.headers['if-modified-since'] ?? ''));
  return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

/**
 * Cache-Control of a file whose URL names its content (by-hash and content-addressed index
 * files): immutable, kept for a day (an owner made private later is not served from caches for
 * long). `public` only for an anonymous read (the owner is public); a read with credentials is
 * `private`, so that no shared cache hands a private owner's index to others.
 */
export function immutableCacheControl(anonymous: boolean): string {
  return `${anonymous ? 'public' : 'private'}, max-age=86400, immutable`;
}

export interface BytesOptions {
  contentType: string;
  /** A strong ETag, quoted (e.g. from the content's hash). */
  etag: string;
  /** When the content was made: sent as Last-Modified, compared with If-Modified-Since. */
  lastModified?: Date;
  /** Default `no-cache` (clients revalidate: a 304 when nothing changed). */
  cacheControl?: string;
}

/**
 * Answer with bytes held in memory (a generated index or signature): Content-Type,
 * Content-Length, ETag, Last-Modified and Cache-Control, then 304 when If-None-Match names the
 * ETag (or, without If-None-Match, If-Modified-Since is not older than Last-Modified, which is
 * how apt revalidates Release files), 200 without a body for HEAD, else 200 with the bytes.
 * HTTP dates have whole seconds: a Last-Modified is only sent once its second is over, so that a
 * client never holds the date of content that changed again within that second.
 */
export function sendBytes(req: IncomingMessage, res: ServerResponse, body: Buffer, options: BytesOptions): void {
  const headers: Record<string, string> = {
    'Content-Type': options.contentType,
    ETag: options.etag,
    'Cache-Control': options.cacheControl ?? 'no-cache',
  };
  const second = (d: Date) => Math.floor(d.getTime() / 1000);
  const lastModified = options.lastModified && second(options.lastModified) < second(new Date()) ? options.lastModified : undefined;
  if (lastModified) headers['Last-Modified'] = lastModified.toUTCString();
  const notModified = req.headers['if-none-match'] ? etagMatches(req, options.etag) : !!lastModified && unmodifiedSince(req, lastModified);
  if (notModified) {
    res.writeHead(304, headers).end();
    return;
  }
  headers['Content-Length'] = String(body.length);
  res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
}

export interface DownloadOptions {
  /** The file's size: sent as Content-Length. */
  size: number;
  /** When set, a matching If-None-Match is answered 304 (the caller sets the ETag header). */
  etag?: string;
  /** Called when the client goes away mid-download (e.g. to log at debug level). */
  onAbort?(err: unknown): void;
}

/**
 * Answer a download whose headers (type, disposition, ETag…) are set: 304 for a matching
 * If-None-Match, 200 without a body for HEAD, else 200 with the bytes `open` gives (opened only
 * then, so that HEAD and 304 count no download).
 */
export async function sendDownload(
  req: IncomingMessage,
  res: ServerResponse,
  open: () => Promise<{ stream: Readable }>,
  options: DownloadOptions,
): Promise<void> {
  if (options.etag && etagMatches(req, options.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('Content-Length', String(options.size));
  res.statusCode = 200;
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const { stream } = await open();
  try {
    await pipeline(stream, res);
  } catch (err) {
    options.onAbort?.(err);
  }
}

/** What `sendStoredFile` needs of a stored package file (the framework's PackageFileInfo fits). */
export interface StoredFile {
  name: string;
  size: number;
  hashes: { sha256: string };
  createdAt: Date;
}

/**
 * A stored package file as a download with `Content-Type`, `Content-Disposition`, the sha256 as
 * ETag (If-None-Match answered 304) and its upload time as Last-Modified; see sendDownload.
 */
export async function sendStoredFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: StoredFile,
  open: () => Promise<{ stream: Readable }>,
  options: { contentType: string; disposition: string; onAbort?(err: unknown): void },
): Promise<void> {
  const etag = `"${file.hashes.sha256}"`;
  res.setHeader('Content-Type', options.contentType);
  res.setHeader('Content-Disposition', options.disposition);
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', file.createdAt.toUTCString());
  await sendDownload(req, res, open, { size: file.size, etag, onAbort: options.onAbort });
}
