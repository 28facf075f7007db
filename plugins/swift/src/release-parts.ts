import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { Request } from 'express';
import { ApiError, type PluginContext, type SpooledPackageFile } from '@hearth/plugin-api';
import { readMultipart, type PartSink } from './multipart';
import type { ReleaseSigning, SwiftSettings } from './release-record';

const MAX_METADATA_BYTES = 32 * 1024;
const MAX_SIGNATURE_BYTES = 64 * 1024;
const SIGNATURE_FORMAT = /^[a-z0-9][a-z0-9.-]{0,31}$/i;

/** Collects a small part in memory, refusing more than `limit` bytes. */
function bufferSink(what: string, limit: number, done: (data: Buffer) => void): PartSink {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    write(chunk) {
      size += chunk.length;
      if (size > limit) throw new ApiError(413, `the ${what} part is larger than ${limit} bytes`);
      chunks.push(chunk);
    },
    end() {
      done(Buffer.concat(chunks));
    },
  };
}

export type SpoolSink = PartSink & { spooled: Promise<SpooledPackageFile>; abort(): void };

/**
 * Streams a part into `packages.spool` (a temporary file, hashed, at most the spool's limit):
 * `spooled` settles once the part ended (or the spool failed, e.g. 413, which fails the part).
 */
function spoolSink(spool: (body: Readable) => Promise<SpooledPackageFile>): SpoolSink {
  const body = new PassThrough();
  const spooled = spool(body);
  spooled.catch(() => undefined);
  return {
    spooled,
    async write(chunk) {
      if (!body.write(chunk)) await Promise.race([once(body, 'drain'), spooled]);
    },
    async end() {
      body.end();
      await spooled;
    },
    abort: () => body.destroy(),
  };
}

const discard: PartSink = { write() {}, end() {} };

/** What the parts of a publish request (SE-0391) delivered; `archive` is still spooling while the request is read. */
export interface ReleaseParts {
  archive?: SpoolSink;
  metadata?: Buffer;
  signature?: Buffer;
}

/** Read the multipart body of a publish into `parts` (filled as the parts arrive, so that the caller can clean up after a failure). */
export async function readReleaseParts(
  ctx: PluginContext<SwiftSettings>,
  req: Request,
  boundary: string,
  parts: ReleaseParts,
): Promise<void> {
  const seen = new Set<string>();
  const limit = ctx.settings.maxArchiveSize;
  await readMultipart(req, boundary, limit + 2 * MAX_SIGNATURE_BYTES + MAX_METADATA_BYTES + 64 * 1024, (part) => {
    if (seen.has(part.name)) throw ApiError.badRequest(`the multipart part "${part.name}" appears twice`);
    seen.add(part.name);
    switch (part.name) {
      case 'source-archive':
        parts.archive = spoolSink((body) =>
          ctx.packages.spool(body, { maxBytes: limit, tooLarge: `the source archive is larger than ${limit} bytes` }),
        );
        return parts.archive;
      case 'metadata':
        return bufferSink('metadata', MAX_METADATA_BYTES, (data) => (parts.metadata = data));
      case 'source-archive-signature':
        return bufferSink('source-archive-signature', MAX_SIGNATURE_BYTES, (data) => (parts.signature = data));
      case 'metadata-signature':
        // Accepted as the spec allows; the metadata is not signed-checked (no CMS verifier here).
        return bufferSink('metadata-signature', MAX_SIGNATURE_BYTES, () => undefined);
      default:
        return discard;
    }
  });
}

/** The signing of a release whose archive came with a signature, in the format its header names. */
export function signingOf(format: string | string[] | undefined, signature: Buffer | undefined): ReleaseSigning | undefined {
  if (!signature?.length) return undefined;
  if (typeof format !== 'string' || !SIGNATURE_FORMAT.test(format)) {
    throw ApiError.unprocessable('a signed release needs the X-Swift-Package-Signature-Format header (e.g. cms-1.0.0)');
  }
  return { signatureBase64Encoded: signature.toString('base64'), signatureFormat: format };
}

/** Stop spooling the archive (after a failure) and remove its temporary file. */
export async function cleanupReleaseParts(parts: ReleaseParts): Promise<void> {
  parts.archive?.abort();
  await parts.archive?.spooled.then(
    (spooled) => spooled.cleanup(),
    () => undefined,
  );
}
