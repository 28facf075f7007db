import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import semver from 'semver';
import { ApiError, type PackageAccess, type PackageVersionInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { CRATE_NAME, normalizeName, splitPublishBody, toIndexEntry, validateCrate, withoutBuild, type IndexEntry } from './crate';
import type { IndexService } from './index-service';
import { KeyedChain } from './queue';
import { CRATES, TYPE, YANKED, type CargoSettings, type CrateRow } from './tables';

export type CrateService = ReturnType<typeof crateService>;

export const crateFileName = (v: { name: string; version: string }) => `${v.name}-${v.version}.crate`;

/** An owner's crates: publishing, search, versions and yanking, over the kernel's packages and the plugin's tables. */
export function crateService(ctx: PluginContext<CargoSettings>, index: IndexService) {
  const { db, packages } = ctx;
  const publishes = new KeyedChain<number>();

  /** The crate's row, dropped when the package is gone (deleted through /api/v1/packages). */
  async function crateRow(ownerId: number, name: string): Promise<CrateRow | null> {
    const row: CrateRow | undefined = await db(CRATES)
      .where({ owner_id: ownerId, norm_name: normalizeName(name) })
      .first();
    if (!row) return null;
    if ((await packages.listVersions(ownerId, TYPE, row.name)).length === 0) {
      await db(CRATES).where({ id: row.id }).delete();
      return null;
    }
    return row;
  }

  async function findVersion(owner: UserInfo, name: string, version: string): Promise<PackageVersionInfo> {
    if (!CRATE_NAME.test(name)) throw ApiError.notFound(`crate \`${name}\` does not exist`);
    const found = await packages.getVersion(owner.id, TYPE, name, version);
    if (!found) throw ApiError.notFound(`crate \`${name}\` version \`${version}\` does not exist`);
    return found;
  }

  /** Publish a crate from cargo's publish body (metadata + .crate). */
  async function publish(access: PackageAccess, body: Buffer): Promise<void> {
    const { meta, crate } = splitPublishBody(body);
    const cksum = crypto.createHash('sha256').update(crate).digest('hex');
    const entry: IndexEntry = toIndexEntry(meta, cksum, new Date());
    await validateCrate(crate, entry.name, entry.vers);

    const ownerId = access.owner.id;
    // One publish of an owner at a time (in this process): the name and version checks, the
    // upload and the index commit go together, so each publish makes its own commit.
    await publishes.run(ownerId, async () => {
      const existing = await crateRow(ownerId, entry.name);
      if (existing && existing.name !== entry.name) {
        throw ApiError.conflict(
          `crate \`${entry.name}\` conflicts with the existing crate \`${existing.name}\` (names are ` +
            `unique ignoring case and '-'/'_'); publish it as \`${existing.name}\``,
        );
      }
      const versions = await packages.listVersions(ownerId, TYPE, entry.name);
      const same = versions.find((v) => withoutBuild(v.version) === withoutBuild(entry.vers));
      if (same) throw ApiError.conflict(`crate version \`${entry.name}@${same.version}\` is already uploaded`);

      await packages.upload({
        ownerId,
        type: TYPE,
        name: entry.name,
        version: entry.vers,
        filename: crateFileName({ name: entry.name, version: entry.vers }),
        body: Readable.from([crate]),
        declaredSize: crate.length,
        metadata: entry as unknown as Record<string, unknown>,
        semverCompatible: true,
        isLead: true,
        actor: access.principal?.user ?? null,
      });

      const description = typeof meta.description === 'string' ? meta.description.slice(0, 1000) : null;
      if (existing) await db(CRATES).where({ id: existing.id }).update({ description });
      else
        await db(CRATES)
          .insert({ owner_id: ownerId, name: entry.name, norm_name: normalizeName(entry.name), description })
          .onConflict(['owner_id', 'norm_name'])
          .ignore();
      await index.crateChanged(access.owner, entry.name, `Publish ${entry.name} ${entry.vers}`);
    });
  }

  /** Crates of an owner whose normalized name contains `q`, with their highest unyanked version. */
  async function search(owner: UserInfo, q: string, perPage: number) {
    const query = db(CRATES).where({ owner_id: owner.id });
    if (q) query.whereRaw(`norm_name like ? escape '!'`, [`%${normalizeName(q).replace(/[!%_]/g, (c) => `!${c}`)}%`]);
    const rows: CrateRow[] = await query.clone().orderBy('norm_name').limit(perPage).select('*');
    const counted = await query.clone().count({ n: '*' }).first();
    let total = Number((counted as { n: number | string } | undefined)?.n ?? 0);
    const crates: { name: string; max_version: string; description: string }[] = [];
    for (const row of rows) {
      const versions = await packages.listVersions(owner.id, TYPE, row.name);
      if (!versions.length) {
        await db(CRATES).where({ id: row.id }).delete();
        total--;
        continue;
      }
      const yanked = await index.yankedIds(versions.map((v) => v.id));
      const live = versions.filter((v) => !yanked.has(v.id));
      const pool = (live.length ? live : versions).map((v) => v.version);
      const max = pool.reduce((a, b) => (semver.valid(a) && semver.valid(b) && semver.gt(b, a) ? b : a));
      crates.push({ name: row.name, max_version: max, description: row.description ?? '' });
    }
    return { crates, meta: { total } };
  }

  /** Whether the owner has a crate of that name with versions. */
  async function exists(owner: UserInfo, name: string): Promise<boolean> {
    return (
      CRATE_NAME.test(name) && Boolean(await crateRow(owner.id, name)) && (await packages.listVersions(owner.id, TYPE, name)).length > 0
    );
  }

  async function yank(owner: UserInfo, version: PackageVersionInfo): Promise<void> {
    await db(YANKED).insert({ version_id: version.id }).onConflict('version_id').ignore();
    await index.crateChanged(owner, version.name, `Yank ${version.name} ${version.version}`);
  }

  async function unyank(owner: UserInfo, version: PackageVersionInfo): Promise<void> {
    await db(YANKED).where({ version_id: version.id }).delete();
    await index.crateChanged(owner, version.name, `Unyank ${version.name} ${version.version}`);
  }

  return { findVersion, publish, search, exists, yank, unyank };
}
