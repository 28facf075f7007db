import path from 'node:path';
import type { HearthConfig } from '../config/types';
import { FileBlobStore, type BlobStore } from './blob-store';
import { S3BlobStore } from './s3-blob-store';

export type { BlobStore, StagedBlob } from './blob-store';
export { stageToTempFile } from './blob-store';

/** The areas that keep file bytes, each under its own directory or key prefix: the core's, or a plugin's (`ctx.blobs`). */
export type StorageArea = 'packages' | 'attachments' | (string & {});

/** The areas the core owns; a plugin's area has another name. */
export const CORE_STORAGE_AREAS: readonly string[] = ['packages', 'attachments'];

/**
 * The blob store of one area, from the `[storage]` settings: the data directory by default
 * (`<DATA_DIR>/<area>/blobs`), or an S3-compatible bucket when STORAGE_TYPE is `minio`
 * (keys `<MINIO_BASE_PATH><area>/…`). Temporary upload files stay in `<DATA_DIR>/<area>/tmp`.
 */
/** Where the uploads of an area are staged: `<DATA_DIR>/<area>/tmp` (files `upload-*`, see maintenance/leftovers). */
export function uploadTempDir(config: HearthConfig, area: StorageArea): string {
  return path.resolve(config.server.DATA_DIR, area, 'tmp');
}

export function createBlobStore(config: HearthConfig, area: StorageArea): BlobStore {
  const dir = path.resolve(config.server.DATA_DIR, area);
  const storage = config.storage ?? {};
  if (storage.STORAGE_TYPE !== 'minio') return new FileBlobStore(path.join(dir, 'blobs'));
  return new S3BlobStore(
    {
      endpoint: storage.MINIO_ENDPOINT,
      accessKeyId: storage.MINIO_ACCESS_KEY_ID,
      secretAccessKey: storage.MINIO_SECRET_ACCESS_KEY,
      bucket: storage.MINIO_BUCKET,
      location: storage.MINIO_LOCATION,
      useSsl: storage.MINIO_USE_SSL,
      basePath: storage.MINIO_BASE_PATH,
    },
    area,
    uploadTempDir(config, area),
  );
}
