import type { Readable } from 'node:stream';

/**
 * What an API operation handler returns. The kernel serialises `body` as JSON unless
 * `contentType` says otherwise; then `body` is a string, a Buffer, or a Readable stream that
 * the kernel pipes to the client (large files, archives) and destroys if the client goes away.
 * @public
 */
export interface ApiResponse {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/**
 * RFC 6266 `Content-Disposition` for a download: a quoted ASCII fallback (non-ASCII, quotes and
 * backslashes replaced) plus the UTF-8 name in `filename*`.
 * @public
 */
export function contentDisposition(filename: string, inline = false): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** A streamed, non-JSON body (set Content-Length in `headers` when known). @public */
export function stream(status: number, contentType: string, body: Readable, headers: Record<string, string> = {}): ApiResponse {
  return { status, body, contentType, headers };
}

/** 200 with a JSON body. @public */
export function ok(body: unknown): ApiResponse {
  return { status: 200, body };
}

/** 201 with a JSON body. @public */
export function created(body: unknown): ApiResponse {
  return { status: 201, body };
}

/** 204 without a body. @public */
export function noContent(): ApiResponse {
  return { status: 204 };
}

/** A non-JSON body (HTML, plain text, binary). @public */
export function raw(status: number, contentType: string, body: string | Buffer): ApiResponse {
  return { status, body, contentType };
}
