import fs from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { Decompress } from 'fzstd';
import bz2 from 'unbzip2-stream';
import { ApiError } from '@hearth/plugin-api';
import { ArchiveError, scanTar, ZipFile } from '@hearth/package-kit';

export type PackageFormat = '.tar.bz2' | '.conda';

/** Package names, versions and build strings as conda accepts them (no `-` in versions and builds: it separates them in file names). */
export const PACKAGE_NAME = /^[a-z0-9_][a-z0-9_.+-]{0,127}$/;
const VERSION = /^[A-Za-z0-9_.+!*]{1,64}$/;
const BUILD = /^[A-Za-z0-9_.+]{1,64}$/;
export const SUBDIR = /^(noarch|[a-z0-9]+-[a-z0-9_]+)$/;

const INFO_FILES = ['info/index.json', 'info/about.json'];
const MAX_INFO_FILE = 4 * 1024 * 1024;
const MAX_INFO_TAR = 256 * 1024 * 1024;

/** A package's repodata record, from info/index.json (the hashes and size are added when stored). */
export interface IndexRecord {
  name: string;
  version: string;
  build: string;
  build_number: number;
  depends: string[];
  constrains?: string[];
  subdir: string;
  [field: string]: unknown;
}

export interface CondaPackage {
  format: PackageFormat;
  record: IndexRecord;
  /** Selected fields of info/about.json (for channeldata.json). */
  about: Record<string, string>;
}

export function formatOf(filename: string): PackageFormat | null {
  if (filename.endsWith('.tar.bz2')) return '.tar.bz2';
  if (filename.endsWith('.conda')) return '.conda';
  return null;
}

async function infoFromTarBz2(file: string, maxUnpacked: number): Promise<Map<string, Buffer>> {
  // unbzip2-stream is a classic (through) stream: pipe it into a modern one to iterate, forwarding errors.
  const input = fs.createReadStream(file);
  const decoder = bz2();
  const output = new PassThrough();
  const fail = (err: unknown) => output.destroy(new ArchiveError(`not a valid bzip2 file (${String((err as Error)?.message ?? err)})`));
  input.on('error', fail);
  decoder.on('error', fail);
  input.pipe(decoder).pipe(output);
  try {
    return await scanTar(output, {
      want: (p) => INFO_FILES.includes(p),
      done: (found) => found.size === INFO_FILES.length,
      maxEntrySize: MAX_INFO_FILE,
      maxTotal: maxUnpacked,
    });
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`not a valid bzip2 file (${String((err as Error)?.message ?? err)})`);
  } finally {
    input.unpipe();
    input.destroy();
    decoder.destroy();
    output.destroy();
  }
}

/** zstd-decompress into a buffer, refusing more than `limit` bytes. */
function unzstd(data: Buffer, limit: number): Buffer {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const stream = new Decompress((chunk) => {
    size += chunk.length;
    if (size > limit) throw new ArchiveError(`the info archive unpacks to more than ${limit} bytes`);
    chunks.push(chunk);
  });
  try {
    stream.push(data, true);
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`not valid zstd data (${(err as Error).message})`);
  }
  return Buffer.concat(chunks);
}

/** A .conda file: a zip whose `info-<stem>.tar.zst` member holds the info/ tree. */
async function infoFromConda(file: string, stem: string): Promise<Map<string, Buffer>> {
  const zip = await ZipFile.open(file);
  try {
    const member = zip.find((n) => n === `info-${stem}.tar.zst`) ?? zip.find((n) => /^info-[^/]*\.tar\.zst$/.test(n));
    if (!member) throw new ArchiveError('the .conda archive has no info-*.tar.zst member');
    const tar = unzstd(await zip.readBytes(member, MAX_INFO_TAR), MAX_INFO_TAR);
    return await scanTar(Readable.from([tar]), {
      want: (p) => INFO_FILES.includes(p),
      maxEntrySize: MAX_INFO_FILE,
      maxTotal: MAX_INFO_TAR,
    });
  } finally {
    await zip.close();
  }
}

function parseJson(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw ApiError.badRequest(`${what} is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw ApiError.badRequest(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

const stringList = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === 'string' && v.length <= 1000);

/** Check index.json and keep the repodata fields conda clients read. */
export function toIndexRecord(index: Record<string, unknown>): IndexRecord {
  const { name, version, build } = index;
  if (typeof name !== 'string' || !PACKAGE_NAME.test(name))
    throw ApiError.badRequest('info/index.json: invalid or missing name (lower-case letters, digits and _ . + -)');
  if (typeof version !== 'string' || !VERSION.test(version)) throw ApiError.badRequest('info/index.json: invalid or missing version');
  if (typeof build !== 'string' || !BUILD.test(build)) throw ApiError.badRequest('info/index.json: invalid or missing build string');
  const subdir = index.subdir ?? (index.noarch ? 'noarch' : undefined);
  if (typeof subdir !== 'string' || !SUBDIR.test(subdir))
    throw ApiError.badRequest('info/index.json: invalid or missing subdir (e.g. noarch, linux-64)');
  const buildNumber = index.build_number ?? 0;
  if (!Number.isInteger(buildNumber) || (buildNumber as number) < 0)
    throw ApiError.badRequest('info/index.json: build_number must be a non-negative integer');
  const depends = index.depends ?? [];
  if (!stringList(depends)) throw ApiError.badRequest('info/index.json: depends must be a list of strings');
  const record: IndexRecord = { name, version, build, build_number: buildNumber as number, depends: depends as string[], subdir };
  for (const key of ['constrains', 'track_features_list']) if (stringList(index[key])) record[key] = index[key];
  for (const key of ['license', 'license_family', 'arch', 'platform', 'track_features', 'python_site_packages_path']) {
    if (typeof index[key] === 'string' && (index[key] as string).length <= 1000) record[key] = index[key];
  }
  if (index.noarch === 'python' || index.noarch === 'generic') record.noarch = index.noarch;
  if (typeof index.features === 'string') record.features = index.features;
  if (Number.isInteger(index.timestamp) && (index.timestamp as number) > 0) record.timestamp = index.timestamp;
  return record;
}

function aboutFields(about: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const key of ['summary', 'description', 'home', 'license', 'doc_url', 'dev_url', 'source_url']) {
    if (typeof about[key] === 'string') kept[key] = (about[key] as string).slice(0, 10_000);
  }
  return kept;
}

/**
 * Read an uploaded conda package: info/index.json (required) and info/about.json (optional)
 * from a .tar.bz2, or from the info-*.tar.zst member of a .conda; the file name must be
 * `<name>-<version>-<build>` with the format's extension.
 */
export async function readCondaPackage(file: string, filename: string, maxUnpacked: number): Promise<CondaPackage> {
  const format = formatOf(filename);
  if (!format) throw ApiError.badRequest('the file name must end with .tar.bz2 or .conda');
  const stem = filename.slice(0, -format.length);
  let info: Map<string, Buffer>;
  try {
    info = format === '.conda' ? await infoFromConda(file, stem) : await infoFromTarBz2(file, maxUnpacked);
  } catch (err) {
    if (err instanceof ArchiveError) throw ApiError.badRequest(`invalid ${format} package: ${err.message}`);
    throw err;
  }
  const indexJson = info.get('info/index.json');
  if (!indexJson) throw ApiError.badRequest(`invalid ${format} package: no info/index.json`);
  const record = toIndexRecord(parseJson(indexJson, 'info/index.json'));
  const expected = `${record.name}-${record.version}-${record.build}`;
  if (stem !== expected) throw ApiError.badRequest(`the file name must be ${expected}${format} (name-version-build from info/index.json)`);
  const aboutJson = info.get('info/about.json');
  return { format, record, about: aboutJson ? aboutFields(parseJson(aboutJson, 'info/about.json')) : {} };
}
