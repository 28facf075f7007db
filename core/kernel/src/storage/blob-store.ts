import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, type ByteRange, type PackageHashes } from '@hearth/plugin-api';

/** A body written to a temporary file and hashed, not yet in the store. */
export interface StagedBlob {
  size: number;
  hashes: PackageHashes;
  /** Move it into the store under its sha256 (a no-op when that blob exists already). */
  commit(): Promise<void>;
  /** Remove the temporary file (safe after commit). */
  discard(): Promise<void>;
}

/**
 * Where file bytes (package files, attachments) live, addressed by sha256: the local filesystem
 * (FileBlobStore) or an S3-compatible bucket (S3BlobStore). Uploads are staged to a local
 * temporary file while hashed, then committed under their sha256.
 */
export interface BlobStore {
  /** Stream `body` into a temporary file while hashing it; over `maxBytes` rejects with 413 and keeps nothing. */
  stage(body: Readable, maxBytes?: number): Promise<StagedBlob>;
  /** The blob's bytes (those of `range`, when given) and its whole size. */
  open(sha256: string, range?: ByteRange): Promise<{ stream: Readable; size: number }>;
  exists(sha256: string): Promise<boolean>;
  delete(sha256: string): Promise<void>;
}

class HashingLimiter extends Transform {
  size = 0;
  private readonly md5 = crypto.createHash('md5');
  private readonly sha1 = crypto.createHash('sha1');
  private readonly sha256 = crypto.createHash('sha256');
  private readonly sha512 = crypto.createHash('sha512');

  constructor(
    private readonly maxBytes: number,
    private readonly tooLarge?: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(new ApiError(413, this.tooLarge ?? `package file too large: the owner's remaining package quota is ${this.maxBytes} bytes`));
      return;
    }
    this.md5.update(chunk);
    this.sha1.update(chunk);
    this.sha256.update(chunk);
    this.sha512.update(chunk);
    done(null, chunk);
  }

  hashes(): PackageHashes {
    return {
      md5: this.md5.digest('hex'),
      sha1: this.sha1.digest('hex'),
      sha256: this.sha256.digest('hex'),
      sha512: this.sha512.digest('hex'),
    };
  }
}

/**
 * Stream a body into a new file `upload-*` under `tmpDir` while hashing it, refusing it past
 * `maxBytes` with 413 (`tooLarge`, else a quota message). The leftover sweeper removes such
 * files a crash left behind. Used by blob staging and by `PackageRegistry.spool`.
 */
export async function stageToTempFile(
  tmpDir: string,
  body: Readable,
  maxBytes: number,
  tooLarge?: string,
): Promise<{ tmp: string; size: number; hashes: PackageHashes }> {
  await fs.promises.mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `upload-${crypto.randomUUID()}`);
  const hasher = new HashingLimiter(maxBytes, tooLarge);
  try {
    await pipeline(body, hasher, fs.createWriteStream(tmp, { flags: 'wx' }));
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    // Let the rest of a refused request body drain, so that the client reads the answer.
    (body as Readable & { resume?: () => void }).resume?.();
    if (!(err instanceof ApiError) && (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      throw ApiError.badRequest('the upload ended before its body was complete');
    }
    throw err;
  }
  return { tmp, size: hasher.size, hashes: hasher.hashes() };
}

/** Blobs under `root/ab/cd/<sha256>`; temporary files under `root/../tmp` (same filesystem, so rename is atomic). */
export class FileBlobStore implements BlobStore {
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = path.join(path.dirname(root), 'tmp');
  }

  pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async stage(body: Readable, maxBytes = Number.MAX_SAFE_INTEGER): Promise<StagedBlob> {
    const { tmp, size, hashes } = await stageToTempFile(this.tmpDir, body, maxBytes);
    const target = this.pathOf(hashes.sha256);
    return {
      size,
      hashes,
      commit: async () => {
        await fs.promises.mkdir(path.dirname(target), { recursive: true });
        // Written once: identical content may already be there (same name, same bytes).
        if (await this.exists(hashes.sha256)) await fs.promises.rm(tmp, { force: true });
        else await fs.promises.rename(tmp, target);
      },
      discard: () => fs.promises.rm(tmp, { force: true }),
    };
  }

  async open(sha256: string, range?: ByteRange): Promise<{ stream: Readable; size: number }> {
    const file = this.pathOf(sha256);
    const handle = await fs.promises.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw ApiError.notFound('package file content is missing from storage');
      throw err;
    });
    const { size } = await handle.stat();
    return { stream: handle.createReadStream({ highWaterMark: 256 * 1024, start: range?.start, end: range?.end }), size };
  }

  async exists(sha256: string): Promise<boolean> {
    return fs.promises.access(this.pathOf(sha256)).then(
      () => true,
      () => false,
    );
  }

  async delete(sha256: string): Promise<void> {
    await fs.promises.rm(this.pathOf(sha256), { force: true });
  }
}
