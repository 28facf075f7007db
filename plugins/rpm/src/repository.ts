import fs from 'node:fs';
import { Readable } from 'node:stream';
import { ApiError, nowUnix, type PackageFileInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import type { Request } from 'express';
import { signedPrefix } from './header-signing';
import { readRpmLayout, RpmFormatError } from './rpm-header';
import { packageMetadata, registryVersion, rpmFileName, type RpmPackageMetadata } from './rpm-metadata';
import { DATA_TYPES, dataFile, packageFragments, repomd, type DataFile } from './repo-metadata';
import { LruCache, PackageFileTable, StampedCache } from '@hearth/package-kit';

export const TYPE = 'rpm';
export const FILES_TABLE = 'rpm_file';

export interface RpmSettings {
  maxUploadSize: number;
  signPackages: boolean;
}

/** One generation of a repository's metadata. */
export interface RepoSnapshot {
  repomd: Buffer;
  /** ASCII-armored detached signature of `repomd`. */
  signature: Buffer;
  files: Map<string, DataFile>;
  byType: Map<string, DataFile>;
  revision: number;
}

interface FileRow {
  id: number;
  owner_id: number;
  group_name: string;
  version_id: number;
  file_id: number;
  name: string;
  version: string;
  arch: string;
  primary_xml: string;
  filelists_xml: string;
  other_xml: string;
}

/** The URL of a package file relative to the repository's baseurl: a distinct file name per package (dnf caches by it). */
export function packageHref(m: Pick<RpmPackageMetadata, 'name' | 'epoch' | 'version' | 'release' | 'arch'>): string {
  const e = encodeURIComponent;
  return `package/${e(m.name)}/${e(registryVersion(m))}/${e(m.arch)}/${e(rpmFileName(m))}`;
}

/** Data files kept in memory by their content-addressed names, for clients holding an older repomd.xml. */
const RECENT_FILES_BYTES = 64 * 1024 * 1024;

/**
 * RPM repositories of an owner: one per group (a path like `el9/stable`, '' for the root).
 * Uploads are parsed and signed here; each stored file gets a row with its ready-made
 * primary/filelists/other fragments, so generating the metadata is concatenation and gzip,
 * done on the first read after a change. The metadata is then kept in memory under a stamp of
 * the group's rows (count and highest id) that every repomd.xml read takes from the database, so
 * every process serving the database sees every publish and delete at once. Data files named by
 * their hash (as repomd.xml names them) never change: they are served from memory without a
 * database read, also after the group has moved on (a client may hold the previous repomd.xml).
 */
export class RpmRepositories extends PackageFileTable<FileRow> {
  private readonly snapshots = new StampedCache<RepoSnapshot>();
  private readonly recentFiles = new LruCache<DataFile>(RECENT_FILES_BYTES, (f) => f.gz.length);
  constructor(private readonly ctx: PluginContext<RpmSettings>) {
    super(ctx.db, FILES_TABLE);
  }

  private key(ownerId: number, group: string): string {
    return `${ownerId}/${group}`;
  }

  /** Parse, sign and store an uploaded .rpm into `group`; 400 for anything that is not a valid package, 409 for a duplicate. */
  async publish(req: Request, owner: UserInfo, actor: UserInfo | null, group: string): Promise<RpmPackageMetadata> {
    const { packages, db } = this.ctx;
    const limit = this.ctx.settings.maxUploadSize;
    const spooled = await this.ctx.packages.spool(req, {
      maxBytes: limit,
      tooLarge: `the package is larger than ${limit} bytes`,
      empty: 'the request body is empty: send the package file',
    });
    try {
      const handle = await fs.promises.open(spooled.path, 'r');
      let layout;
      try {
        layout = await readRpmLayout(handle);
      } catch (err) {
        if (err instanceof RpmFormatError) throw ApiError.badRequest(`invalid RPM package: ${err.message}`);
        throw err;
      } finally {
        await handle.close();
      }
      let metadata: RpmPackageMetadata;
      try {
        metadata = packageMetadata(layout);
      } catch (err) {
        if (err instanceof RpmFormatError) throw ApiError.badRequest(`invalid RPM package: ${err.message}`);
        throw err;
      }

      let prefix: Buffer = Buffer.alloc(0);
      let restStart = 0;
      if (this.ctx.settings.signPackages) {
        const key = await packages.signingKeys.openpgp(owner.id, TYPE);
        const signature = await key.signDetached(layout.mainBytes, { armor: false });
        prefix = signedPrefix(layout, Buffer.isBuffer(signature) ? signature : Buffer.from(signature));
        restStart = layout.main.start;
        // The header moved with the new signature header: the header range clients read shifts with it.
        const shift = prefix.length - layout.main.start;
        metadata = { ...metadata, headerStart: metadata.headerStart + shift, headerEnd: metadata.headerEnd + shift };
      }
      const rest = fs.createReadStream(spooled.path, { start: restStart });
      const body = Readable.from(
        (async function* () {
          if (prefix.length) yield prefix;
          yield* rest;
        })(),
      );
      const { file, version } = await packages
        .upload({
          ownerId: owner.id,
          type: TYPE,
          name: metadata.name,
          version: registryVersion(metadata),
          filename: rpmFileName(metadata),
          compositeKey: group,
          body,
          declaredSize: prefix.length + spooled.size - restStart,
          isLead: true,
          metadata: {
            summary: metadata.summary,
            description: metadata.description,
            url: metadata.url,
            license: metadata.license,
            epoch: metadata.epoch,
            version: metadata.version,
            release: metadata.release,
          },
          semverCompatible: false,
          actor,
        })
        .finally(() => rest.destroy());

      const stored = { sha256: file.hashes.sha256, size: file.size, href: packageHref(metadata), time: nowUnix() };
      const fragments = packageFragments(metadata, stored);
      try {
        await db(FILES_TABLE).insert({
          owner_id: owner.id,
          group_name: group,
          version_id: version.id,
          file_id: file.id,
          name: metadata.name,
          version: version.version,
          arch: metadata.arch,
          primary_xml: fragments.primary,
          filelists_xml: fragments.filelists,
          other_xml: fragments.other,
          created_unix: nowUnix(),
        });
      } catch (err) {
        // Without its row the file would be stored but never indexed: take it back.
        await packages.deleteFile(file, actor).catch(() => undefined);
        throw err;
      }
      return metadata;
    } finally {
      await spooled.cleanup();
    }
  }

  /** The stored file of `name`/`version`/`arch` in `group`, or 404. */
  async findFile(ownerId: number, group: string, name: string, version: string, arch: string): Promise<PackageFileInfo> {
    const { packages } = this.ctx;
    const row: FileRow | undefined = await this.ctx
      .db(FILES_TABLE)
      .where({ owner_id: ownerId, group_name: group, name, version, arch })
      .first();
    const found = row ? (await packages.listFiles(row.version_id)).find((f) => f.id === Number(row.file_id)) : undefined;
    if (!found) throw ApiError.notFound('package does not exist');
    return found;
  }

  async remove(owner: UserInfo, actor: UserInfo | null, group: string, name: string, version: string, arch: string): Promise<void> {
    const file = await this.findFile(owner.id, group, name, version, arch);
    await this.ctx.db(FILES_TABLE).where({ file_id: file.id }).delete();
    await this.ctx.packages.deleteFile(file, actor);
  }

  /** An owner went away: its data files leave memory (its rows went in the deletion's transaction). */
  ownerGone(ownerId: number): void {
    this.recentFiles.deletePrefix(`${ownerId}/`);
  }

  /** The current metadata of a group (built now when its rows changed since the last build). */
  async snapshot(ownerId: number, group: string): Promise<RepoSnapshot> {
    const key = this.key(ownerId, group);
    const stamp = await this.stamp(this.ctx.db(FILES_TABLE).where({ owner_id: ownerId, group_name: group }));
    return this.snapshots.get(key, stamp, async () => {
      const snapshot = await this.build(ownerId, group);
      for (const file of snapshot.files.values()) this.recentFiles.set(`${key}/${file.name}`, file);
      return snapshot;
    });
  }

  /** A data file by its content-addressed name (from memory when it was built lately), or by its type name (the current one). */
  async dataFileNamed(ownerId: number, group: string, name: string): Promise<DataFile | undefined> {
    const recent = this.recentFiles.get(`${this.key(ownerId, group)}/${name}`);
    if (recent) return recent;
    const current = await this.snapshot(ownerId, group);
    return current.files.get(name) ?? current.byType.get(name);
  }

  private async build(ownerId: number, group: string): Promise<RepoSnapshot> {
    const rows: FileRow[] = await this.ctx
      .db(FILES_TABLE)
      .where({ owner_id: ownerId, group_name: group })
      .orderBy([{ column: 'name' }, { column: 'version' }, { column: 'arch' }, { column: 'id' }])
      .select('primary_xml', 'filelists_xml', 'other_xml');
    const columns = { primary: 'primary_xml', filelists: 'filelists_xml', other: 'other_xml' } as const;
    const files = DATA_TYPES.map((type) =>
      dataFile(
        type,
        rows.map((r) => r[columns[type]]),
      ),
    );
    const revision = nowUnix();
    const document = Buffer.from(repomd(files, revision), 'utf8');
    const key = await this.ctx.packages.signingKeys.openpgp(ownerId, TYPE);
    const signature = await key.signDetached(document, { armor: true });
    return {
      repomd: document,
      signature: Buffer.from(signature),
      files: new Map(files.map((f) => [f.name, f])),
      byType: new Map(files.map((f) => [`${f.type}.xml.gz`, f])),
      revision,
    };
  }
}
