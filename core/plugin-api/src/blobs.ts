import type { Readable } from 'node:stream';
import type { ByteRange } from './ranges';

/**
 * Content-addressed file storage (`ctx.blobs(area)`, API 2.3): the store the core keeps package
 * files and attachments in — the data directory, or the S3-compatible bucket of `[storage]` —
 * for a plugin's own area. Blobs are named by their sha256; uploads are staged to a temporary
 * file while hashed, so that nothing is visible before `commit`. The caller keeps its own rows
 * saying which blobs are in use, and deletes a blob once none refers to it.
 */

/** An upload hashed into a temporary file, not yet in the store. @public */
export interface StagedBlobFile {
  size: number;
  /** Lower-case hex. */
  sha256: string;
  /** Move it into the store under its sha256 (a no-op when that blob exists already). */
  commit(): Promise<void>;
  /** Remove the temporary file (safe after commit, and more than once). */
  discard(): Promise<void>;
}

/** A blob opened for reading. @public */
export interface OpenedBlob {
  /** The bytes (of the range when one was asked for); consume or destroy it. */
  stream: Readable;
  /** The blob's whole size. */
  size: number;
}

/** One area of blob storage. Errors: ApiError 413 (over `maxBytes`), 404 (a missing blob on `open`). @public */
export interface BlobStorage {
  /** Stream `body` into a temporary file while hashing it; more than `maxBytes` is a 413 and keeps nothing. */
  stage(body: Readable, maxBytes?: number): Promise<StagedBlobFile>;
  /** Open a blob, or the bytes `range` names (validate it against the size first, e.g. with `parseByteRange`). */
  open(sha256: string, range?: ByteRange): Promise<OpenedBlob>;
  exists(sha256: string): Promise<boolean>;
  /** Remove a blob (nothing happens when it is not there). */
  delete(sha256: string): Promise<void>;
}
