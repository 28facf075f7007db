import { ApiError } from '@hearth/plugin-api';

/** Where the bytes of one part go. `write` may return a promise to apply backpressure. */
export interface PartSink {
  write(chunk: Buffer): void | Promise<void>;
  end(): void | Promise<void>;
}

export interface PartHeaders {
  /** The `name` of `Content-Disposition: form-data`. */
  name: string;
  filename?: string;
  contentType?: string;
  /** `Content-Transfer-Encoding`, lower-cased (`binary` when absent). */
  transferEncoding: string;
}

const MAX_HEADER_BYTES = 16 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');

/** The boundary of a `multipart/form-data` Content-Type, or a 400. */
export function boundaryOf(contentType: string | undefined): string {
  const m = contentType ? /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType) : null;
  if (!m) throw ApiError.badRequest('the request body must be multipart/form-data with a boundary');
  return m[1] ?? m[2];
}

function parseHeaders(block: string): PartHeaders {
  const fields = new Map<string, string>();
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = fields.get('content-disposition') ?? '';
  if (!/^form-data\b/i.test(disposition)) throw ApiError.badRequest('a multipart part lacks "Content-Disposition: form-data"');
  const param = (key: string) => new RegExp(`;\\s*${key}=(?:"([^"]*)"|([^;\\s]*))`, 'i').exec(disposition);
  const name = param('name');
  if (!name) throw ApiError.badRequest('a multipart part has no name');
  const filename = param('filename');
  return {
    name: name[1] ?? name[2],
    filename: filename ? (filename[1] ?? filename[2]) : undefined,
    contentType: fields.get('content-type'),
    transferEncoding: (fields.get('content-transfer-encoding') ?? 'binary').toLowerCase(),
  };
}

/** Decodes a base64 part as it streams (SE-0292's example parts use `Content-Transfer-Encoding: base64`). */
function base64Sink(inner: PartSink): PartSink {
  let rest = '';
  return {
    write(chunk) {
      const text = rest + chunk.toString('latin1').replace(/[\r\n\t ]/g, '');
      const usable = text.length - (text.length % 4);
      rest = text.slice(usable);
      if (usable) return inner.write(Buffer.from(text.slice(0, usable), 'base64'));
    },
    end() {
      if (rest.replace(/=+$/, '')) throw ApiError.badRequest('a base64 multipart part is truncated');
      return inner.end();
    },
  };
}

/**
 * Stream a multipart/form-data body part by part without buffering it: `onPart` gets each part's
 * headers and returns where its bytes go. A malformed body (no closing boundary, oversized
 * headers) is a 400; `maxBytes` caps the whole body (413).
 */
export async function readMultipart(
  body: AsyncIterable<Buffer>,
  boundary: string,
  maxBytes: number,
  onPart: (headers: PartHeaders) => PartSink,
): Promise<void> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first boundary has no CRLF before it; pretend it has.
  let pending: Buffer = Buffer.from('\r\n');
  type State = 'preamble' | 'afterBoundary' | 'headers' | 'body' | 'done';
  // Widened: `step` changes it, which the compiler's narrowing of this scope does not see.
  let state = 'preamble' as State;
  let sink: PartSink | null = null;
  let total = 0;

  const step = async (): Promise<boolean> => {
    switch (state) {
      case 'preamble':
      case 'body': {
        const at = pending.indexOf(delimiter);
        if (at < 0) {
          const keep = delimiter.length - 1;
          if (state === 'body' && pending.length > keep) await sink!.write(pending.subarray(0, pending.length - keep));
          if (pending.length > keep) pending = pending.subarray(pending.length - keep);
          return false;
        }
        if (state === 'body') {
          if (at > 0) await sink!.write(pending.subarray(0, at));
          await sink!.end();
          sink = null;
        }
        pending = pending.subarray(at + delimiter.length);
        state = 'afterBoundary';
        return true;
      }
      case 'afterBoundary': {
        if (pending.length < 2) return false;
        if (pending[0] === 0x2d && pending[1] === 0x2d) {
          state = 'done';
          return false;
        }
        const eol = pending.indexOf('\r\n');
        if (eol < 0) {
          if (pending.length > 256) throw ApiError.badRequest('malformed multipart body: junk after a boundary');
          return false;
        }
        pending = pending.subarray(eol + 2);
        state = 'headers';
        return true;
      }
      case 'headers': {
        const end = pending.indexOf(CRLF2);
        if (end < 0) {
          if (pending.length > MAX_HEADER_BYTES) throw ApiError.badRequest('malformed multipart body: part headers too large');
          return false;
        }
        const headers = parseHeaders(pending.subarray(0, end).toString('utf8'));
        const target = onPart(headers);
        sink = headers.transferEncoding === 'base64' ? base64Sink(target) : target;
        pending = pending.subarray(end + 4);
        state = 'body';
        return true;
      }
      default:
        return false;
    }
  };

  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) throw new ApiError(413, `the request body is larger than ${maxBytes} bytes`);
    if (state === 'done') continue;
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (await step());
  }
  if (state !== 'done') throw ApiError.badRequest('malformed multipart body: the closing boundary is missing');
}
