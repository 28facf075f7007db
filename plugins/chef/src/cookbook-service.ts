import fs from 'node:fs';
import {
  ApiError,
  parseJsonBody,
  type PackageAccess,
  type PackageVersionInfo,
  type PluginContext,
  type UserInfo,
} from '@hearth/plugin-api';
import {
  compareVersionsDescending,
  COOKBOOK_NAME,
  COOKBOOK_VERSION,
  parseCookbookMetadata,
  type CookbookMetadata,
} from './cookbook-metadata';
import { readCookbookMetadata } from './cookbook-tarball';
import { COOKBOOKS } from './tables';
import type { ReceivedUpload } from './upload-body';

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

export type CookbookService = ReturnType<typeof cookbookService>;

const now = () => Math.floor(Date.now() / 1000);
const metadataOf = (v: PackageVersionInfo) => v.metadata as unknown as CookbookMetadata & { category?: string };

/** Cookbooks of an owner: uploads (metadata from the tarball), listing, search, the universe, deletes. */
export function cookbookService(ctx: PluginContext) {
  const { db, packages } = ctx;
  /** The generated universe per owner, dropped on every publish and delete of a cookbook. */
  const universes = new Map<number, string>();

  const apiBase = (owner: UserInfo) => `${ctx.forge.appUrl}api/packages/${encodeURIComponent(owner.name)}/chef/api/v1`;
  const cookbookUrl = (owner: UserInfo, name: string) => `${apiBase(owner)}/cookbooks/${encodeURIComponent(name)}`;
  const versionUrl = (owner: UserInfo, name: string, version: string) => `${cookbookUrl(owner, name)}/versions/${version}`;

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

  async function universe(owner: UserInfo): Promise<string> {
    const cached = universes.get(owner.id);
    if (cached !== undefined) return cached;
    const rows: CookbookRow[] = await db(COOKBOOKS).where({ owner_id: owner.id }).orderBy('lower_name').select('*');
    const body: Record<string, Record<string, unknown>> = {};
    for (const r of rows) {
      const all = await versions(owner.id, r.name);
      if (!all.length) continue;
      const entry: Record<string, unknown> = {};
      for (const v of all) {
        entry[v.version] = {
          location_type: 'opscode',
          location_path: apiBase(owner),
          download_url: `${versionUrl(owner, r.name, v.version)}/download`,
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

  async function publish(
    access: PackageAccess,
    upload: ReceivedUpload,
  ): Promise<{ metadata: CookbookMetadata; version: PackageVersionInfo }> {
    const metadata = parseCookbookMetadata(await readCookbookMetadata(upload.file));
    let category = 'Other';
    if (upload.cookbook) {
      const field = parseJsonBody(upload.cookbook, 'cookbook');
      const value = (field as { category?: unknown } | null)?.category;
      if (typeof value === 'string' && value.trim()) category = value.trim().slice(0, 100);
    }
    const owner = access.owner;
    const existing = await row(owner.id, metadata.name);
    if (existing && existing.name !== metadata.name)
      throw ApiError.conflict(`cookbook ${metadata.name} conflicts with ${existing.name} (names are unique ignoring case)`);
    if (existing && (await versions(owner.id, existing.name)).some((v) => compareVersionsDescending(v.version, metadata.version) === 0)) {
      throw ApiError.conflict(`cookbook ${metadata.name} version ${metadata.version} already exists`);
    }
    const { version } = await packages.upload({
      ownerId: owner.id,
      type: TYPE,
      name: metadata.name,
      version: metadata.version,
      filename: `${metadata.name}-${metadata.version}.tar.gz`.toLowerCase(),
      isLead: true,
      body: fs.createReadStream(upload.file),
      declaredSize: upload.size,
      metadata: { ...metadata, category } as unknown as Record<string, unknown>,
      semverCompatible: false,
      actor: access.principal?.user ?? null,
    });
    const fields = { description: metadata.description.slice(0, 1000), maintainer: metadata.maintainer, category, updated_unix: now() };
    if (existing) await db(COOKBOOKS).where({ id: existing.id }).update(fields);
    else
      await db(COOKBOOKS)
        .insert({ owner_id: owner.id, name: metadata.name, lower_name: metadata.name.toLowerCase(), created_unix: now(), ...fields })
        .onConflict(['owner_id', 'lower_name'])
        .merge(fields);
    invalidate(owner.id);
    return { metadata, version };
  }

  async function deleteVersion(access: PackageAccess, name: string, wanted: string): Promise<void> {
    const { row: found, version: v } = await version(access.owner.id, name, wanted);
    await packages.deleteVersion(v.id, access.principal?.user ?? null);
    await row(access.owner.id, found.name);
    invalidate(access.owner.id);
  }

  async function deleteCookbook(access: PackageAccess, name: string): Promise<void> {
    const { row: found, versions: all } = await cookbook(access.owner.id, name);
    for (const v of all) await packages.deleteVersion(v.id, access.principal?.user ?? null);
    await db(COOKBOOKS).where({ id: found.id }).delete();
    invalidate(access.owner.id);
  }

  return {
    apiBase,
    cookbookUrl,
    versionUrl,
    versions,
    row,
    cookbook,
    version,
    list,
    universe,
    invalidate,
    publish,
    deleteVersion,
    deleteCookbook,
    metadataOf,
  };
}
