import fs from 'node:fs';
import { ApiError, parseJsonBody, type PackageAccess, type PackageVersionInfo, type PluginContext } from '@hearth/plugin-api';
import { compareVersionsDescending, parseCookbookMetadata, type CookbookMetadata } from './cookbook-metadata';
import { cookbookStore, metadataOf, TYPE } from './cookbook-store';
import { readCookbookMetadata } from './cookbook-tarball';
import { cookbookUrls, universeCache } from './cookbook-universe';
import { COOKBOOKS } from './tables';
import type { ReceivedUpload } from './upload-body';

export { TYPE, type CookbookRow } from './cookbook-store';

export type CookbookService = ReturnType<typeof cookbookService>;

const now = () => Math.floor(Date.now() / 1000);

/** The category a share names in its `cookbook` field (Supermarket's default: Other). */
function categoryOf(upload: ReceivedUpload): string {
  if (!upload.cookbook) return 'Other';
  const field = parseJsonBody(upload.cookbook, 'cookbook');
  const value = (field as { category?: unknown } | null)?.category;
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 100) : 'Other';
}

/** Cookbooks of an owner: uploads (metadata from the tarball), listing, search, the universe, deletes. */
export function cookbookService(ctx: PluginContext) {
  const { db, packages } = ctx;
  const store = cookbookStore(ctx);
  const urls = cookbookUrls(ctx);
  const { universe, invalidate } = universeCache(ctx, store, urls);
  const { versions, row, cookbook, version } = store;

  async function publish(
    access: PackageAccess,
    upload: ReceivedUpload,
  ): Promise<{ metadata: CookbookMetadata; version: PackageVersionInfo }> {
    const metadata = parseCookbookMetadata(await readCookbookMetadata(upload.file));
    const category = categoryOf(upload);
    const owner = access.owner;
    const existing = await row(owner.id, metadata.name);
    if (existing && existing.name !== metadata.name)
      throw ApiError.conflict(`cookbook ${metadata.name} conflicts with ${existing.name} (names are unique ignoring case)`);
    if (existing && (await versions(owner.id, existing.name)).some((v) => compareVersionsDescending(v.version, metadata.version) === 0)) {
      throw ApiError.conflict(`cookbook ${metadata.name} version ${metadata.version} already exists`);
    }
    const { version: uploaded } = await packages.upload({
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
    return { metadata, version: uploaded };
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
    ...urls,
    ...store,
    universe,
    invalidate,
    publish,
    deleteVersion,
    deleteCookbook,
    metadataOf,
  };
}
