import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Whether the request's If-None-Match names `etag` (weak or strong). */
export function etagMatches(req: IncomingMessage, etag: string): boolean {
  const inm = req.headers['if-none-match'];
  return !!inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
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
