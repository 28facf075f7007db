import fs from 'node:fs';
import path from 'node:path';
import { ApiError, nowUnix, type PackageFileInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { fieldValue, packagesStanza, poolFileName, type ControlParagraph } from './control-file';
import { DistributionIndexes, TYPE } from './distribution-index';
import { FILES } from './tables';

export { TYPE };

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

const compositeKey = (distribution: string, component: string) => `${distribution}|${component}`;

/**
 * An owner's apt repository: files published into distributions and components. A publish or
 * delete changes the file rows and marks the distribution changed; its indexes are rebuilt on
 * the next read (DistributionIndexes), so a publish does not depend on the size of the index.
 */
export class DebianRepository {
  readonly indexes: DistributionIndexes;

  constructor(private readonly ctx: PluginContext) {
    this.indexes = new DistributionIndexes(ctx, path.join(ctx.forge.dataDir, 'debian'));
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
    await this.indexes.changed(owner.id, distribution);
  }

  /** Unpublish one file (and the package version with its last file). */
  async remove(owner: UserInfo, actor: UserInfo | null, row: PublishedFileRow): Promise<void> {
    // The row goes first, so that the package.deleted hook this fires finds nothing left to do.
    await this.db(FILES).where({ id: row.id }).delete();
    const file = await this.kernelFile(row);
    if (file) await this.ctx.packages.deleteFile(file, actor);
    await this.indexes.changed(owner.id, row.distribution);
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

  /** Drop published rows whose package file is gone (a version deleted through /api/v1/packages); their indexes follow on the next read. */
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
    for (const distribution of new Set(gone.map((r) => r.distribution))) await this.indexes.changed(ownerId, distribution);
  }
}
