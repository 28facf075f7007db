import crypto from 'node:crypto';
import type { PluginContext } from '@hearth/plugin-api';
import { PackageFileTable, StampedCache } from '@hearth/package-kit';
import type { IndexRecord } from './conda-package';

type Db = PluginContext['db'];

/** The plugin's table: one row per stored package file, with its repodata record. */
export const FILES_TABLE = 'conda_file';

export interface FileRow {
  id: number;
  owner_id: number;
  version_id: number;
  channel: string;
  subdir: string;
  filename: string;
  name: string;
  version: string;
  /** The repodata record (JSON) with md5, sha256 and size. */
  record: string;
  /** Selected info/about.json fields (JSON). */
  about: string;
  created_unix: number | string;
}

export interface JsonDocument {
  body: Buffer;
  etag: string;
}

export function compositeKeyOf(channel: string, subdir: string): string {
  return `${channel}|${subdir}`;
}

function document(value: unknown): JsonDocument {
  const body = Buffer.from(JSON.stringify(value, null, 1));
  return { body, etag: `"${crypto.createHash('sha256').update(body).digest('hex').slice(0, 32)}"` };
}

/** repodata.json of one subdir: .tar.bz2 files under `packages`, .conda files under `packages.conda`, keyed by file name. */
export function buildRepodata(subdir: string, rows: FileRow[]): JsonDocument {
  const packages: Record<string, unknown> = {};
  const condaPackages: Record<string, unknown> = {};
  for (const row of [...rows].sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0))) {
    (row.filename.endsWith('.conda') ? condaPackages : packages)[row.filename] = JSON.parse(row.record);
  }
  return document({ info: { subdir }, packages, 'packages.conda': condaPackages, removed: [], repodata_version: 1 });
}

/** Compare conda versions well enough to pick the newest for channeldata.json (numeric parts numerically). */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[._+!-]/);
  const pb = b.split(/[._+!-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return 0;
}

/** channeldata.json: per package, its newest version, the subdirs it is in and its about.json summary. */
export function buildChanneldata(rows: FileRow[]): JsonDocument {
  const byName = new Map<string, { latest: FileRow; subdirs: Set<string> }>();
  for (const row of rows) {
    const seen = byName.get(row.name);
    if (!seen) byName.set(row.name, { latest: row, subdirs: new Set([row.subdir]) });
    else {
      seen.subdirs.add(row.subdir);
      if (compareVersions(row.version, seen.latest.version) > 0) seen.latest = row;
    }
  }
  const packages: Record<string, unknown> = {};
  for (const name of [...byName.keys()].sort()) {
    const { latest, subdirs } = byName.get(name)!;
    const record = JSON.parse(latest.record) as IndexRecord;
    const about = JSON.parse(latest.about) as Record<string, string>;
    packages[name] = {
      ...about,
      license: about.license ?? record.license,
      version: latest.version,
      timestamp: typeof record.timestamp === 'number' ? record.timestamp : Number(latest.created_unix) * 1000,
      subdirs: [...subdirs].sort(),
    };
  }
  return document({ channeldata_version: 1, packages, subdirs: [...new Set(rows.map((r) => r.subdir))].sort() });
}

/** The rows of the plugin's table and the cached documents built from them (checked against the rows' count and highest id). */
export class ChannelStore extends PackageFileTable<FileRow> {
  private readonly cache = new StampedCache<JsonDocument>();

  constructor(db: Db) {
    super(db, FILES_TABLE);
  }

  async repodata(ownerId: number, channel: string, subdir: string): Promise<JsonDocument> {
    const query = this.db(FILES_TABLE).where({ owner_id: ownerId, channel, subdir });
    return this.cache.get(`r|${ownerId}|${channel}|${subdir}`, await this.stamp(query), async () =>
      buildRepodata(subdir, await query.clone().select<FileRow[]>('*')),
    );
  }

  async channeldata(ownerId: number, channel: string): Promise<JsonDocument> {
    const query = this.db(FILES_TABLE).where({ owner_id: ownerId, channel });
    return this.cache.get(`c|${ownerId}|${channel}`, await this.stamp(query), async () =>
      buildChanneldata(await query.clone().select<FileRow[]>('*')),
    );
  }

  findFile(ownerId: number, channel: string, subdir: string, filename: string): Promise<FileRow | undefined> {
    return this.db(FILES_TABLE).where({ owner_id: ownerId, channel, subdir, filename }).first();
  }
}

export async function createTables(db: Db): Promise<void> {
  await db.schema.createTable(FILES_TABLE, (t) => {
    t.increments('id');
    t.integer('owner_id').notNullable();
    t.integer('version_id').notNullable().index();
    t.string('channel', 200).notNullable().defaultTo('');
    t.string('subdir', 32).notNullable();
    t.string('filename', 255).notNullable();
    t.string('name', 128).notNullable();
    t.string('version', 64).notNullable();
    t.text('record').notNullable();
    t.text('about').notNullable();
    t.bigInteger('created_unix').notNullable();
    t.unique(['owner_id', 'channel', 'subdir', 'filename']);
    t.index(['owner_id', 'channel', 'subdir']);
  });
}
