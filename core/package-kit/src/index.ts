/**
 * @hearth/package-kit: what package registry plugins share besides the kernel's package
 * framework (`@hearth/plugin-api`): readers and writers of the archive formats packages come in,
 * and caches of generated repository indexes. Plain Node, no kernel dependency.
 */
export { ArchiveError } from './errors';
export { scanTar, readTar, tarFile, TAR_END, type TarScanOptions, type TarEntry } from './tar';
export { ZipFile, writeZip, type ZipEntry, type ZipInput } from './zip';
export { ArFile, type ArMember } from './ar';
export { gzipMember, type GzipMember } from './gzip';
export { LruCache, StampedCache } from './snapshot-cache';
export { PackageFileTable } from './file-table';
export {
  etagMatches,
  immutableCacheControl,
  sendBytes,
  sendDownload,
  sendStoredFile,
  type BytesOptions,
  type DownloadOptions,
  type StoredFile,
} from './download';
