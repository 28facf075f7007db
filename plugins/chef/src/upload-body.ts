import crypto from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError, type PackageRegistry, type SpooledPackageFile } from '@hearth/plugin-api';

/** SHA-1 and SHA-256 of some bytes: X-Ops-Content-Hash uses one or the other by protocol version. */
export interface Digests {
  sha1: Buffer;
  sha256: Buffer;
}

export interface ReceivedUpload {
  /** The tarball, in a temporary file the caller removes (`cleanup`). */
  file: string;
  size: number;
  cleanup(): Promise<void>;
  tarball: Digests;
  /** The whole request body (clients that hash the multipart body rather than the file). */
  body: Digests;
  /** The `cookbook` part: `{"category": "…"}`. */
  cookbook?: string;
}

/** Hashes what flows through it with SHA-1 and SHA-256. */
class Hasher extends Transform {
  private readonly sha1 = crypto.createHash('sha1');
  private readonly sha256 = crypto.createHash('sha256');
  size = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.sha1.update(chunk);
    this.sha256.update(chunk);
    this.size += chunk.length;
    done(null, chunk);
  }
  digests(): Digests {
    return { sha1: this.sha1.digest(), sha256: this.sha256.digest() };
  }
}

/**
 * Receive `knife supermarket share`'s multipart body: the `tarball` file streamed to a temporary
 * file (at most `limit` bytes, else 413), the `cookbook` JSON field, digests of both the tarball
 * and the whole body. Nothing is kept on error.
 */
export async function receiveUpload(req: Request, limit: number, packages: PackageRegistry): Promise<ReceivedUpload> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(contentType))
    throw ApiError.badRequest('the upload must be multipart/form-data with a "tarball" file and a "cookbook" field');
  const bodyHasher = new Hasher();
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: limit, fields: 8, fieldSize: 64 * 1024, parts: 16 } });
  } catch {
    throw ApiError.badRequest('malformed multipart/form-data Content-Type');
  }
  let cookbook: string | undefined;
  let tarball: SpooledPackageFile | undefined;
  const writes: Promise<void>[] = [];
  let failure: ApiError | undefined;
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) failure ??= new ApiError(413, `the ${name} field is too large`);
    if (name === 'cookbook') cookbook = value;
  });
  parser.on('file', (name, stream) => {
    if (name !== 'tarball' || tarball) {
      stream.resume();
      return;
    }
    const tooLarge = `the cookbook tarball is larger than ${limit} bytes`;
    stream.on('limit', () => (failure ??= new ApiError(413, tooLarge)));
    writes.push(
      packages.spool(stream, { maxBytes: limit, tooLarge }).then((spooled) => {
        tarball = spooled;
      }),
    );
  });
  parser.on('filesLimit', () => (failure ??= ApiError.badRequest('only one tarball per upload')));
  parser.on('partsLimit', () => (failure ??= ApiError.badRequest('too many multipart parts')));
  try {
    await pipeline(req, bodyHasher, parser);
    await Promise.all(writes);
  } catch (err) {
    await Promise.allSettled(writes);
    await tarball?.cleanup();
    req.resume();
    if (failure) throw failure;
    throw ApiError.badRequest(`malformed multipart body: ${(err as Error).message}`);
  }
  if (failure || !tarball) {
    await tarball?.cleanup();
    throw failure ?? ApiError.badRequest('the upload has no "tarball" file part');
  }
  const { path, size, hashes, cleanup } = tarball;
  const digests = { sha1: Buffer.from(hashes.sha1, 'hex'), sha256: Buffer.from(hashes.sha256, 'hex') };
  return { file: path, size, cleanup, tarball: digests, body: bodyHasher.digests(), cookbook };
}
