import type { PluginContext, UserInfo } from '@hearth/plugin-api';
import { metadataOf, type CookbookRow, type CookbookStore } from './cookbook-store';
import { COOKBOOKS } from './tables';

export type CookbookUrls = ReturnType<typeof cookbookUrls>;

/** The Supermarket API's URLs of an owner's cookbooks and versions. */
export function cookbookUrls(ctx: PluginContext) {
  const apiBase = (owner: UserInfo) => `${ctx.forge.appUrl}api/packages/${encodeURIComponent(owner.name)}/chef/api/v1`;
  const cookbookUrl = (owner: UserInfo, name: string) => `${apiBase(owner)}/cookbooks/${encodeURIComponent(name)}`;
  const versionUrl = (owner: UserInfo, name: string, version: string) => `${cookbookUrl(owner, name)}/versions/${version}`;
  return { apiBase, cookbookUrl, versionUrl };
}

/** The universe of each owner (every cookbook version and its dependencies), generated once and kept until invalidated. */
export function universeCache(ctx: PluginContext, store: CookbookStore, urls: CookbookUrls) {
  const { db } = ctx;
  /** The generated universe per owner, dropped on every publish and delete of a cookbook. */
  const universes = new Map<number, string>();

  async function universe(owner: UserInfo): Promise<string> {
    const cached = universes.get(owner.id);
    if (cached !== undefined) return cached;
    const rows: CookbookRow[] = await db(COOKBOOKS).where({ owner_id: owner.id }).orderBy('lower_name').select('*');
    const body: Record<string, Record<string, unknown>> = {};
    for (const r of rows) {
      const all = await store.versions(owner.id, r.name);
      if (!all.length) continue;
      const entry: Record<string, unknown> = {};
      for (const v of all) {
        entry[v.version] = {
          location_type: 'opscode',
          location_path: urls.apiBase(owner),
          download_url: `${urls.versionUrl(owner, r.name, v.version)}/download`,
          dependencies: metadataOf(v).dependencies ?? {},
        };
      }
      body[r.name] = entry;
    }
    const text = JSON.stringify(body);
    universes.set(owner.id, text);
    return text;
  }

  function invalidate(ownerId?: number): void {
    if (ownerId === undefined) universes.clear();
    else universes.delete(ownerId);
  }

  return { universe, invalidate };
}
