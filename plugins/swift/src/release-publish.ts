import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Request } from 'express';
import { ApiError, parseJsonBody, type PackageAccess, type PackageVersionInfo, type PluginContext } from '@hearth/plugin-api';
import { normalizeRepositoryUrl, type PackageIdentity } from './identity';
import { boundaryOf } from './multipart';
import { validateMetadata } from './release-metadata';
import { cleanupReleaseParts, readReleaseParts, signingOf, type ReleaseParts } from './release-parts';
import { TYPE, type ReleaseRecord, type SwiftSettings } from './release-record';
import { MANIFESTS, REPOSITORY_URLS } from './tables';
import { readManifests, type Manifest } from './zip-archive';

/** Publishing a release (SE-0391): the multipart parts, the kernel's package version, the plugin's manifests and repository URLs. */
export function releasePublisher(ctx: PluginContext<SwiftSettings>) {
  const { db, packages } = ctx;

  async function publish(req: Request, access: PackageAccess, pkg: PackageIdentity, version: string): Promise<PackageVersionInfo> {
    const owner = access.owner;
    if (await packages.getVersion(owner.id, TYPE, pkg.id, version))
      throw ApiError.conflict(`a release with version ${version} already exists`);
    const boundary = boundaryOf(req.headers['content-type']);
    const parts: ReleaseParts = {};
    try {
      await readReleaseParts(ctx, req, boundary, parts);
      const archive = await parts.archive?.spooled;
      if (!archive) throw ApiError.unprocessable('the multipart part "source-archive" is required');
      const signing = signingOf(req.headers['x-swift-package-signature-format'], parts.signature);
      const found = await readManifests(archive.path);
      const metadata = parts.metadata?.length ? validateMetadata(parseJsonBody(parts.metadata, 'metadata')) : {};
      const record: ReleaseRecord = { scope: pkg.scope, name: pkg.name, metadata, ...(signing ? { signing } : {}) };
      const { version: stored } = await packages.upload({
        ownerId: owner.id,
        type: TYPE,
        name: pkg.id,
        version,
        filename: `${pkg.name}-${version}.zip`.toLowerCase(),
        isLead: true,
        body: fs.createReadStream(archive.path),
        declaredSize: archive.size,
        metadata: record as unknown as Record<string, unknown>,
        semverCompatible: true,
        actor: access.principal?.user ?? null,
      });
      try {
        await saveIndexes(owner.id, stored, found, metadata);
      } catch (err) {
        // Nothing half-published: without its manifests the release is unusable.
        await packages.deleteVersion(stored.id, access.principal?.user ?? null);
        throw err;
      }
      return stored;
    } catch (err) {
      // Drain what the client still sends, so that it reads the error instead of a reset.
      req.resume();
      throw err;
    } finally {
      await cleanupReleaseParts(parts);
    }
  }

  async function saveIndexes(
    ownerId: number,
    stored: PackageVersionInfo,
    found: Manifest[],
    metadata: Record<string, unknown>,
  ): Promise<void> {
    await db.transaction(async (trx) => {
      for (const m of found) {
        await trx(MANIFESTS).insert({
          version_id: stored.id,
          filename: m.filename,
          swift_version: m.swiftVersion ?? null,
          tools_version: m.toolsVersion ?? null,
          content: m.content,
        });
      }
      const urls = new Set(((metadata.repositoryURLs as string[] | undefined) ?? []).map(normalizeRepositoryUrl));
      for (const url of urls) {
        const hash = crypto.createHash('sha256').update(url).digest('hex');
        await trx(REPOSITORY_URLS).insert({ owner_id: ownerId, version_id: stored.id, package_id: stored.name, url_hash: hash, url });
      }
    });
  }

  return { publish };
}
