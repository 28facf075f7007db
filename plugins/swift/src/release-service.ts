import crypto from 'node:crypto';
import { ApiError, type PackageVersionInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { byPrecedenceDescending, normalizeRepositoryUrl, type PackageIdentity } from './identity';
import { releasePublisher } from './release-publish';
import { TYPE, type ReleaseRecord, type SwiftSettings } from './release-record';
import { MANIFESTS, REPOSITORY_URLS } from './tables';
import type { Manifest } from './zip-archive';

export { TYPE, type ReleaseRecord, type ReleaseSigning, type SwiftSettings } from './release-record';

export type ReleaseService = ReturnType<typeof releaseService>;

/** Releases of Swift packages: publishing (multipart), listing, manifests and repository URL lookup. */
export function releaseService(ctx: PluginContext<SwiftSettings>) {
  const { db, packages } = ctx;
  const { publish } = releasePublisher(ctx);
  const baseUrl = (owner: UserInfo) => `${ctx.forge.appUrl}api/packages/${encodeURIComponent(owner.name)}/swift`;
  const releaseUrl = (owner: UserInfo, v: PackageVersionInfo) => {
    const record = v.metadata as unknown as ReleaseRecord;
    return `${baseUrl(owner)}/${record.scope}/${record.name}/${v.version}`;
  };

  async function releases(ownerId: number, pkg: PackageIdentity): Promise<PackageVersionInfo[]> {
    return byPrecedenceDescending(await packages.listVersions(ownerId, TYPE, pkg.id));
  }

  async function release(ownerId: number, pkg: PackageIdentity, version: string): Promise<PackageVersionInfo> {
    const found = await packages.getVersion(ownerId, TYPE, pkg.id, version);
    if (!found) throw ApiError.notFound(`release ${pkg.id} ${version} does not exist`);
    return found;
  }

  async function manifests(versionId: number): Promise<Manifest[]> {
    const rows: { filename: string; swift_version: string | null; tools_version: string | null; content: string }[] = await db(MANIFESTS)
      .where({ version_id: versionId })
      .orderBy('filename')
      .select('filename', 'swift_version', 'tools_version', 'content');
    return rows.map((r) => ({
      filename: r.filename,
      swiftVersion: r.swift_version ?? undefined,
      toolsVersion: r.tools_version ?? undefined,
      content: r.content,
    }));
  }

  async function identifiers(ownerId: number, url: string): Promise<string[]> {
    const normalized = normalizeRepositoryUrl(url);
    const hash = crypto.createHash('sha256').update(normalized).digest('hex');
    const rows: { package_id: string; version_id: number }[] = await db(REPOSITORY_URLS)
      .where({ owner_id: ownerId, url_hash: hash })
      .select('package_id', 'version_id');
    const ids = new Map<string, string>();
    for (const row of rows) {
      const key = row.package_id.toLowerCase();
      if (ids.has(key)) continue;
      // The kernel's package name is the identity as first published; a row may outlive its version.
      const live = await packages.listVersions(ownerId, TYPE, row.package_id);
      if (live.length) ids.set(key, live[0].name);
    }
    return [...ids.values()].sort();
  }

  /** Forget what the plugin's tables hold about a deleted version. */
  async function forget(versionId: number): Promise<void> {
    await db(MANIFESTS).where({ version_id: versionId }).delete();
    await db(REPOSITORY_URLS).where({ version_id: versionId }).delete();
  }

  return { baseUrl, releaseUrl, releases, release, manifests, identifiers, forget, publish };
}
