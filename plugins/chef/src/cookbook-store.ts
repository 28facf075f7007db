import { ApiError, type PackageVersionInfo, type PluginContext } from '@hearth/plugin-api';
import { compareVersionsDescending, COOKBOOK_NAME, COOKBOOK_VERSION, type CookbookMetadata } from './cookbook-metadata';
import { COOKBOOKS } from './tables';

export const TYPE = 'chef';

export interface CookbookRow {
  id: number;
  owner_id: number;
  name: string;
  lower_name: string;
  description: string;
  maintainer: string;
  category: string;
  created_unix: number | string;
  updated_unix: number | string;
}

export type CookbookStore = ReturnType<typeof cookbookStore>;

export const metadataOf = (v: PackageVersionInfo) => v.metadata as unknown as CookbookMetadata & { category?: string };

/** Reading an owner's cookbooks: their rows (the plugin's table) and versions (the kernel's packages). */
export function cookbookStore(ctx: PluginContext) {
  const { db, packages } = ctx;

  /** Versions of a cookbook, highest first; the row goes when the last version went elsewhere (/api/v1/packages). */
  async function versions(ownerId: number, name: string): Promise<PackageVersionInfo[]> {
    const all = await packages.listVersions(ownerId, TYPE, name);
    return all.sort((a, b) => compareVersionsDescending(a.version, b.version));
  }

  async function row(ownerId: number, name: string): Promise<CookbookRow | null> {
    if (!COOKBOOK_NAME.test(name)) return null;
    const found: CookbookRow | undefined = await db(COOKBOOKS).where({ owner_id: ownerId, lower_name: name.toLowerCase() }).first();
    if (!found) return null;
    if (!(await packages.listVersions(ownerId, TYPE, found.name)).length) {
      await db(COOKBOOKS).where({ id: found.id }).delete();
      return null;
    }
    return found;
  }

  async function cookbook(ownerId: number, name: string): Promise<{ row: CookbookRow; versions: PackageVersionInfo[] }> {
    const found = await row(ownerId, name);
    if (!found) throw ApiError.notFound(`cookbook ${name.slice(0, 100)} does not exist`);
    return { row: found, versions: await versions(ownerId, found.name) };
  }

  /** A version by number (`1.0.0`, knife's `1_0_0`) or `latest`. */
  async function version(ownerId: number, name: string, wanted: string): Promise<{ row: CookbookRow; version: PackageVersionInfo }> {
    const { row: found, versions: all } = await cookbook(ownerId, name);
    const normalized = wanted.replace(/_/g, '.');
    if (wanted !== 'latest' && !COOKBOOK_VERSION.test(normalized))
      throw ApiError.badRequest(`invalid cookbook version "${wanted.slice(0, 64)}"`);
    const hit = wanted === 'latest' ? all[0] : all.find((v) => v.version === normalized);
    if (!hit) throw ApiError.notFound(`cookbook ${found.name} has no version ${normalized}`);
    return { row: found, version: hit };
  }

  /** Rows of an owner, optionally filtered by a search term over name and description. */
  async function list(
    ownerId: number,
    options: { q?: string; start: number; items: number; order?: string },
  ): Promise<{ total: number; rows: CookbookRow[] }> {
    const query = db(COOKBOOKS).where({ owner_id: ownerId });
    if (options.q) {
      const term = `%${options.q.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
      query.where((w) => w.whereRaw(`lower_name like ? escape '!'`, [term]).orWhereRaw(`lower(description) like ? escape '!'`, [term]));
    }
    const counted = await query.clone().count({ n: '*' }).first();
    const ordered =
      options.order === 'recently_updated'
        ? query.orderBy('updated_unix', 'desc')
        : options.order === 'recently_added'
          ? query.orderBy('created_unix', 'desc')
          : query;
    const rows: CookbookRow[] = await ordered.orderBy('lower_name').offset(options.start).limit(options.items).select('*');
    return { total: Number((counted as { n: number | string } | undefined)?.n ?? 0), rows };
  }

  return { versions, row, cookbook, version, list };
}
