import path from 'node:path';
import type { PackageVersionInfo, PluginContext, UserInfo } from '@hearth/plugin-api';
import type { IndexEntry } from './crate';
import { GitIndexStore, indexPath, type IndexChange } from './git-index';
import { CRATES, TYPE, YANKED, type CargoSettings } from './tables';

/** Publish order: by creation, then by id (creation times have second resolution). */
function publishOrder(versions: PackageVersionInfo[]): PackageVersionInfo[] {
  return [...versions].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
}

/**
 * The index content shared by both protocols: a crate's index file (one JSON line per version,
 * in publish order) and config.json, computed from the database. The git index repository holds
 * the same files, committed on every publish, yank and unyank.
 */
export function indexService(ctx: PluginContext<CargoSettings>) {
  const { db, packages } = ctx;
  const store = new GitIndexStore(path.join(ctx.forge.dataDir, 'cargo-index'), ctx.log);

  async function yankedIds(versionIds: number[]): Promise<Set<number>> {
    if (!versionIds.length) return new Set();
    const rows: { version_id: number | string }[] = await db(YANKED).whereIn('version_id', versionIds).select('version_id');
    return new Set(rows.map((r) => Number(r.version_id)));
  }

  /** The index file of a crate (lower-cased name), or null when it has no versions. */
  async function crateFile(ownerId: number, name: string): Promise<string | null> {
    const versions = publishOrder(await packages.listVersions(ownerId, TYPE, name.toLowerCase())).filter((v) => v.metadata);
    if (!versions.length) return null;
    const yanked = await yankedIds(versions.map((v) => v.id));
    const lines = versions.map((v) => {
      const m = v.metadata as unknown as IndexEntry;
      const line: Record<string, unknown> = {
        name: m.name,
        vers: m.vers,
        deps: m.deps,
        cksum: m.cksum,
        features: m.features,
        yanked: yanked.has(v.id),
        links: m.links ?? null,
        v: m.v ?? 2,
      };
      if (m.features2) line.features2 = m.features2;
      if (m.rust_version) line.rust_version = m.rust_version;
      if (m.pubtime) line.pubtime = m.pubtime;
      return JSON.stringify(line);
    });
    return `${lines.join('\n')}\n`;
  }

  function config(owner: UserInfo): { dl: string; api: string; 'auth-required': boolean } {
    const base = `${ctx.forge.appUrl}api/packages/${encodeURIComponent(owner.name)}/cargo`;
    return { dl: `${base}/api/v1/crates`, api: base, 'auth-required': owner.visibility !== 'public' };
  }
  const configFile = (owner: UserInfo): IndexChange => ({ path: 'config.json', content: `${JSON.stringify(config(owner), null, 2)}\n` });

  /** Every file of an owner's index, from the database. */
  async function allFiles(owner: UserInfo): Promise<IndexChange[]> {
    const rows: { name: string }[] = await db(CRATES).where({ owner_id: owner.id }).orderBy('norm_name').select('name');
    const files: IndexChange[] = [configFile(owner)];
    for (const { name } of rows) {
      const content = await crateFile(owner.id, name);
      if (content !== null) files.push({ path: indexPath(name), content });
    }
    return files;
  }

  /** Recreate an owner's git index from the database (one commit). */
  function rebuild(owner: UserInfo, reason = 'Rebuild the index from the registry database'): Promise<{ head: string; files: number }> {
    return store.serialize(owner.id, async () => {
      const files = await allFiles(owner);
      const head = await store.create(owner.id, files, reason);
      return { head, files: files.length };
    });
  }

  /**
   * Bring the git index up to date after a crate changed: one commit with its index file (and
   * config.json when the owner's name, visibility or the public URL changed). The owner's first
   * publish (or first fetch: cargo reads the index before publishing) creates the repository. An
   * update whose content the index has already (a concurrent publish committed it) makes no
   * commit. A failure is logged: the database stays the truth, and the next change of the crate
   * or `rebuild-index` repairs the index.
   */
  async function crateChanged(owner: UserInfo, name: string, message: string): Promise<void> {
    try {
      await store.serialize(owner.id, async () => {
        if (!store.exists(owner.id)) {
          await store.create(owner.id, await allFiles(owner), message);
          return;
        }
        await store.commit(owner.id, [configFile(owner), { path: indexPath(name), content: await crateFile(owner.id, name) }], message);
      });
    } catch (err) {
      ctx.log.error(
        { err, owner: owner.name, crate: name },
        'updating the cargo git index failed; run `hearth plugins run cargo rebuild-index` to repair it',
      );
    }
  }

  /** Create the owner's index from the database unless it exists. */
  function ensure(owner: UserInfo): Promise<void> {
    return store.serialize(owner.id, async () => {
      if (!store.exists(owner.id)) await store.create(owner.id, await allFiles(owner), 'Create the index');
    });
  }

  /** Refresh config.json (after a rename). */
  async function configChanged(owner: UserInfo): Promise<void> {
    if (!store.exists(owner.id)) return;
    try {
      await store.serialize(owner.id, () => store.commit(owner.id, [configFile(owner)], 'Update config.json'));
    } catch (err) {
      ctx.log.error({ err, owner: owner.name }, 'updating the cargo index config.json failed');
    }
  }

  return { store, yankedIds, crateFile, config, rebuild, ensure, crateChanged, configChanged };
}

export type IndexService = ReturnType<typeof indexService>;
