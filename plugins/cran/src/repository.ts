import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { PluginContext } from '@hearth/plugin-api';
import { compareVersions, formatDcf, INDEX_FIELDS, type DcfRecord } from './description';
import { PackageFileTable, StampedCache } from '@hearth/package-kit';
import { characterMatrixRds } from './rds';

type Db = PluginContext['db'];

/** The plugin's table: one row per stored package file, with what its index record needs. */
export const FILES_TABLE = 'cran_file';

/** Where an index lives: `src/contrib` (platform '') or `bin/<platform>/contrib/<rversion>`. */
export interface IndexLocation {
  platform: string;
  rversion: string;
}

export const SOURCE: IndexLocation = { platform: '', rversion: '' };

export interface FileRow {
  id: number;
  owner_id: number;
  version_id: number;
  name: string;
  lower_name: string;
  version: string;
  platform: string;
  rversion: string;
  filename: string;
  md5: string;
  fields: string;
}

export interface IndexFiles {
  text: Buffer;
  gz: Buffer;
  rds: Buffer;
  etag: string;
  /** The latest version of each package, by lower-cased name. */
  latest: Map<string, string>;
}

export function compositeKeyOf(location: IndexLocation): string {
  return location.platform ? `${location.platform}|${location.rversion}` : '';
}

/** The newest row of each package, sorted by package name. */
export function latestRows(rows: FileRow[]): FileRow[] {
  const latest = new Map<string, FileRow>();
  for (const row of rows) {
    const seen = latest.get(row.lower_name);
    if (!seen || compareVersions(row.version, seen.version) > 0) latest.set(row.lower_name, row);
  }
  return [...latest.values()].sort((a, b) => (a.lower_name < b.lower_name ? -1 : a.lower_name > b.lower_name ? 1 : 0));
}

function indexRecord(row: FileRow): DcfRecord {
  const fields = JSON.parse(row.fields) as DcfRecord;
  const record: DcfRecord = {};
  for (const key of INDEX_FIELDS) {
    if (key === 'MD5sum') record.MD5sum = row.md5;
    else if (key === 'Package') record.Package = row.name;
    else if (key === 'Version') record.Version = row.version;
    else if (fields[key] !== undefined && fields[key] !== '') record[key] = fields[key];
  }
  return record;
}

/** The files of an index: PACKAGES, PACKAGES.gz and PACKAGES.rds with the same records. */
export function buildIndex(rows: FileRow[]): IndexFiles {
  const latest = latestRows(rows);
  const records = latest.map(indexRecord);
  const text = Buffer.from(records.map((r) => `${formatDcf(r)}\n`).join('\n'), 'utf8');
  const rds = characterMatrixRds(
    [...INDEX_FIELDS],
    records.map((r) => INDEX_FIELDS.map((f) => r[f] ?? null)),
  );
  return {
    text,
    gz: zlib.gzipSync(text),
    rds,
    etag: `"${crypto.createHash('sha256').update(text).digest('hex').slice(0, 32)}"`,
    latest: new Map(latest.map((r) => [r.lower_name, r.version])),
  };
}

/** The rows of the plugin's table and the cached indexes built from them. */
export class CranRepository extends PackageFileTable<FileRow> {
  private readonly cache = new StampedCache<IndexFiles>();

  constructor(db: Db) {
    super(db, FILES_TABLE);
  }

  private scoped(ownerId: number, location: IndexLocation) {
    return this.db(FILES_TABLE).where({ owner_id: ownerId, platform: location.platform, rversion: location.rversion });
  }

  async index(ownerId: number, location: IndexLocation): Promise<IndexFiles> {
    const stamp = await this.stamp(this.scoped(ownerId, location));
    const key = `${ownerId}|${compositeKeyOf(location)}`;
    return this.cache.get(key, stamp, async () => buildIndex(await this.scoped(ownerId, location).select<FileRow[]>('*')));
  }

  findFile(ownerId: number, location: IndexLocation, filename: string): Promise<FileRow | undefined> {
    return this.scoped(ownerId, location).where({ filename }).first();
  }
}

export async function createTables(db: Db): Promise<void> {
  await db.schema.createTable(FILES_TABLE, (t) => {
    t.increments('id');
    t.integer('owner_id').notNullable();
    t.integer('version_id').notNullable().index();
    t.string('name', 128).notNullable();
    t.string('lower_name', 128).notNullable();
    t.string('version', 64).notNullable();
    t.string('platform', 100).notNullable().defaultTo('');
    t.string('rversion', 16).notNullable().defaultTo('');
    t.string('filename', 255).notNullable();
    t.string('md5', 32).notNullable();
    t.text('fields').notNullable();
    t.unique(['owner_id', 'platform', 'rversion', 'filename']);
    t.index(['owner_id', 'platform', 'rversion']);
  });
}
