import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ApiError, KeyedQueue, nowUnix, type PackageFileInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { fieldValue, packagesStanza, poolFileName, type ControlParagraph } from './control-file';
import { IndexFileStore } from './index-files';
import { releaseFile, type IndexFileEntry } from './release-file';
import { FILES, INDEXES, RELEASES } from './tables';

export const TYPE = 'debian';

/** A component and architecture whose Packages index must be rebuilt (`all` touches every architecture). */
export interface Touched {
  component: string;
  architecture: string;
}

export interface PublishedFileRow {
  id: number;
  owner_id: number;
  distribution: string;
  component: string;
  architecture: string;
  name: string;
  version: string;
  pool_name: string;
  package_version_id: number;
  package_file_id: number;
}

export interface ReleaseRow {
  release: string;
  in_release: string;
  release_gpg: string;
}

const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');
const compositeKey = (distribution: string, component: string) => `${distribution}|${component}`;
const packagesPath = (component: string, architecture: string) => `${component}/binary-${architecture}/Packages`;

/**
 * An owner's apt repository: files published into distributions and components, and the indexes
 * over them. Every change rebuilds only the Packages files it affects (one component and
 * architecture, every architecture for `all`), writes them as new immutable files, then switches
 * the distribution's index rows and its signed Release in one transaction. Changes of one
 * distribution are serialized (in this process); each rebuild reads the database, so concurrent
 * uploads all end up in the index.
 */
export class DebianRepository {
  readonly store: IndexFileStore;
  private readonly chain = new KeyedQueue();
  /** When each owner's unused index files were last collected (collection reads the whole directory). */
  private readonly collectedAt = new Map<number, number>();

  constructor(private readonly ctx: PluginContext) {
    this.store = new IndexFileStore(path.join(ctx.forge.dataDir, 'debian'));
  }

  private get db() {
    return this.ctx.db;
  }

  /** Store an uploaded .deb (already parsed) and publish it. Throws 409 when the pool path is taken. */
  async publish(
    owner: UserInfo,
    actor: UserInfo | null,
    distribution: string,
    component: string,
    control: ControlParagraph,
    debPath: string,
    size: number,
  ): Promise<void> {
    const poolName = poolFileName(control);
    const taken = await this.db(FILES).where({ owner_id: owner.id, distribution, component, pool_name: poolName }).first('id');
    if (taken) throw ApiError.conflict(`package file ${poolName} already exists in ${distribution}/${component}`);
    const { version, file } = await this.ctx.packages.upload({
      ownerId: owner.id,
      type: TYPE,
      name: control.name,
      version: control.version,
      filename: poolName,
      compositeKey: compositeKey(distribution, component),
      isLead: true,
      body: fs.createReadStream(debPath),
      declaredSize: size,
      metadata: {
        maintainer: fieldValue(control, 'Maintainer') ?? '',
        description: fieldValue(control, 'Description') ?? '',
        homepage: fieldValue(control, 'Homepage') ?? '',
      },
      actor,
    });
    const filename = `pool/${distribution}/${component}/${poolName}`;
    const row = {
      owner_id: owner.id,
      distribution,
      component,
      architecture: control.architecture,
      name: control.name,
      version: control.version,
      pool_name: poolName,
      package_version_id: version.id,
      package_file_id: file.id,
      stanza: packagesStanza(control, filename, file.size, file.hashes),
      created_unix: nowUnix(),
    };
    try {
      await this.db(FILES).insert(row).onConflict(['owner_id', 'distribution', 'component', 'pool_name']).ignore();
    } catch (err) {
      await this.ctx.packages.deleteFile(file, actor);
      throw err;
    }
    const stored = await this.db(FILES)
      .where({ owner_id: owner.id, distribution, component, pool_name: poolName })
      .first('package_file_id');
    if (Number(stored?.package_file_id) !== file.id) {
      // Another version with the same pool name (differing only in epoch) won the race.
      await this.ctx.packages.deleteFile(file, actor);
      throw ApiError.conflict(`package file ${poolName} already exists in ${distribution}/${component}`);
    }
    await this.rebuild(owner, distribution, [{ component, architecture: control.architecture }]);
  }

  /** Unpublish one file (and the package version with its last file). */
  async remove(owner: UserInfo, actor: UserInfo | null, row: PublishedFileRow): Promise<void> {
    // The row goes first, so that the package.deleted hook this fires finds nothing left to do.
    await this.db(FILES).where({ id: row.id }).delete();
    const file = await this.kernelFile(row);
    if (file) await this.ctx.packages.deleteFile(file, actor);
    await this.rebuild(owner, row.distribution, [{ component: row.component, architecture: row.architecture }]);
  }

  kernelFile(row: PublishedFileRow): Promise<PackageFileInfo | null> {
    return this.ctx.packages.getFile(row.package_version_id, row.pool_name, compositeKey(row.distribution, row.component));
  }

  findFile(
    ownerId: number,
    distribution: string,
    component: string,
    where: Partial<Pick<PublishedFileRow, 'pool_name' | 'name' | 'version' | 'architecture'>>,
  ): Promise<PublishedFileRow | undefined> {
    return this.db(FILES)
      .where({ owner_id: ownerId, distribution, component, ...where })
      .first();
  }

  /** Drop published rows whose package file is gone (a version deleted through /api/v1/packages), and rebuild their indexes. */
  async forgetDeleted(ownerId: number, name: string, version: string): Promise<void> {
    const rows: PublishedFileRow[] = await this.db(FILES).where({ owner_id: ownerId, name, version }).select('*');
    const gone: PublishedFileRow[] = [];
    for (const row of rows) if (!(await this.kernelFile(row))) gone.push(row);
    if (!gone.length) return;
    await this.db(FILES)
      .whereIn(
        'id',
        gone.map((r) => r.id),
      )
      .delete();
    const owner = await this.ctx.users.byId(ownerId);
    if (!owner) return;
    for (const distribution of new Set(gone.map((r) => r.distribution))) {
      await this.rebuild(
        owner,
        distribution,
        gone.filter((r) => r.distribution === distribution),
      );
    }
  }

  release(ownerId: number, distribution: string): Promise<ReleaseRow | undefined> {
    return this.db(RELEASES).where({ owner_id: ownerId, distribution }).first('release', 'in_release', 'release_gpg');
  }

  /** The current index file at `relativePath` (e.g. `main/binary-amd64/Packages.gz`). */
  indexFile(ownerId: number, distribution: string, relativePath: string): Promise<{ sha256: string; size: number } | undefined> {
    return this.db(INDEXES).where({ owner_id: ownerId, distribution, path: relativePath }).first('sha256', 'size');
  }

  /**
   * Rebuild the Packages files `touched` affects (plus any the distribution needs and lacks), then
   * switch the distribution's index rows and its signed Release together. `touched: 'all'` rebuilds everything.
   */
  rebuild(owner: UserInfo, distribution: string, touched: Touched[] | 'all'): Promise<void> {
    return this.chain.run(`${owner.id}/${distribution}`, async () => {
      const present: Touched[] = await this.db(FILES).where({ owner_id: owner.id, distribution }).distinct('component', 'architecture');
      const components = [...new Set(present.map((p) => p.component))].sort();
      const specific = [...new Set(present.map((p) => p.architecture).filter((a) => a !== 'all'))].sort();
      const architectures = specific.length ? specific : present.length ? ['all'] : [];
      const existing: Array<IndexFileEntry & { sha256: string }> = await this.db(INDEXES)
        .where({ owner_id: owner.id, distribution })
        .select('path', 'size', 'md5', 'sha256');
      const existingPaths = new Set(existing.map((e) => e.path));

      const files: IndexFileEntry[] = [];
      for (const component of components) {
        for (const architecture of architectures) {
          const base = packagesPath(component, architecture);
          const stale =
            touched === 'all' ||
            !existingPaths.has(base) ||
            touched.some((t) => t.component === component && (t.architecture === architecture || t.architecture === 'all'));
          if (stale) files.push(...(await this.writePackages(owner.id, distribution, component, architecture)));
          else
            files.push(
              ...existing
                .filter((e) => e.path === base || e.path === `${base}.gz`)
                .map(({ path: p, size, md5: m, sha256 }) => ({ path: p, size: Number(size), md5: m, sha256 })),
            );
        }
      }
      const release = files.length ? await this.signedRelease(owner, distribution, components, architectures, files) : null;
      await this.db.transaction(async (trx) => {
        await trx(INDEXES).where({ owner_id: owner.id, distribution }).delete();
        await trx(RELEASES).where({ owner_id: owner.id, distribution }).delete();
        if (!release) return;
        await trx.batchInsert(
          INDEXES,
          files.map((f) => ({ owner_id: owner.id, distribution, ...f })),
          200,
        );
        await trx(RELEASES).insert({ owner_id: owner.id, distribution, ...release, updated_unix: nowUnix() });
      });
      await this.collectGarbage(owner.id);
    });
  }

  /** Write the Packages and Packages.gz of one component and architecture (`all` packages go into every architecture). */
  private async writePackages(ownerId: number, distribution: string, component: string, architecture: string): Promise<IndexFileEntry[]> {
    const rows: { stanza: string }[] = await this.db(FILES)
      .where({ owner_id: ownerId, distribution, component })
      .whereIn('architecture', architecture === 'all' ? ['all'] : [architecture, 'all'])
      .orderBy([{ column: 'name' }, { column: 'version' }, { column: 'architecture' }, { column: 'id' }])
      .select('stanza');
    const plain = Buffer.from(rows.map((r) => r.stanza).join('\n'), 'utf8');
    const gz = zlib.gzipSync(plain, { level: 6 });
    const base = packagesPath(component, architecture);
    const out: IndexFileEntry[] = [];
    for (const [suffix, content] of [
      ['', plain],
      ['.gz', gz],
    ] as const) {
      const sha256 = await this.store.put(ownerId, content);
      out.push({ path: `${base}${suffix}`, size: content.length, md5: md5(content), sha256 });
    }
    return out;
  }

  private async signedRelease(
    owner: UserInfo,
    distribution: string,
    components: string[],
    architectures: string[],
    files: IndexFileEntry[],
  ): Promise<ReleaseRow> {
    const release = releaseFile({ owner: owner.name, distribution, components, architectures, files, date: new Date() });
    const key = await this.ctx.packages.signingKeys.openpgp(owner.id, TYPE);
    const [inRelease, releaseGpg] = await Promise.all([key.signCleartext(release), key.signDetached(release, { armor: true })]);
    return { release, in_release: inRelease, release_gpg: String(releaseGpg) };
  }

  /** Index files no distribution of the owner lists any more go after a grace period (clients may hold the previous Release). */
  private async collectGarbage(ownerId: number): Promise<void> {
    const last = this.collectedAt.get(ownerId) ?? 0;
    if (Date.now() - last < 60_000) return;
    this.collectedAt.set(ownerId, Date.now());
    const rows: { sha256: string }[] = await this.db(INDEXES).where({ owner_id: ownerId }).select('sha256');
    await this.store
      .collect(ownerId, new Set(rows.map((r) => r.sha256)))
      .catch((err: unknown) => this.ctx.log.warn({ err }, 'debian: removing old index files failed'));
  }
}
