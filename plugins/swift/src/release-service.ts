import crypto from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { Request } from 'express';
import {
  ApiError,
  parseJsonBody,
  type PackageAccess,
  type PackageVersionInfo,
  type PluginContext,
  type SpooledPackageFile,
  type UserInfo,
} from '@hearth/plugin-api';
import { byPrecedenceDescending, normalizeRepositoryUrl, type PackageIdentity } from './identity';
import { boundaryOf, readMultipart, type PartSink } from './multipart';
import { MANIFESTS, REPOSITORY_URLS } from './tables';
import { readManifests, type Manifest } from './zip-archive';

export const TYPE = 'swift';

export interface SwiftSettings {
  maxArchiveSize: number;
}

/** Signature data of a signed release, as SE-0292 §4.2.1 names it. */
export interface ReleaseSigning {
  signatureBase64Encoded: string;
  signatureFormat: string;
}

/** What the kernel's version row holds for a Swift release. */
export interface ReleaseRecord {
  scope: string;
  name: string;
  /** The client's release metadata (Appendix B), as published. */
  metadata: Record<string, unknown>;
  signing?: ReleaseSigning;
}

const MAX_METADATA_BYTES = 32 * 1024;
const MAX_SIGNATURE_BYTES = 64 * 1024;
const MAX_REPOSITORY_URLS = 20;
const SIGNATURE_FORMAT = /^[a-z0-9][a-z0-9.-]{0,31}$/i;

/** Appendix B of the registry specification: the types of the known keys; other keys pass through. */
function validateMetadata(value: unknown): Record<string, unknown> {
  const bad = (why: string) => ApiError.unprocessable(`invalid metadata: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not a JSON object');
  const m = value as Record<string, unknown>;
  const optionalString = (obj: Record<string, unknown>, key: string, where: string) => {
    if (obj[key] !== undefined && typeof obj[key] !== 'string') throw bad(`${where}${key} must be a string`);
  };
  for (const key of ['description', 'licenseURL', 'readmeURL', 'originalPublicationTime']) optionalString(m, key, '');
  if (typeof m.originalPublicationTime === 'string' && Number.isNaN(Date.parse(m.originalPublicationTime)))
    throw bad('originalPublicationTime must be an ISO 8601 date-time');
  if (m.author !== undefined) {
    if (typeof m.author !== 'object' || m.author === null || Array.isArray(m.author)) throw bad('author must be an object');
    const author = m.author as Record<string, unknown>;
    if (typeof author.name !== 'string') throw bad('author.name is required');
    for (const key of ['email', 'description', 'url']) optionalString(author, key, 'author.');
    if (author.organization !== undefined) {
      const org = author.organization as Record<string, unknown>;
      if (typeof org !== 'object' || org === null || typeof org.name !== 'string') throw bad('author.organization.name is required');
      for (const key of ['email', 'description', 'url']) optionalString(org, key, 'author.organization.');
    }
  }
  if (m.repositoryURLs !== undefined) {
    const urls = m.repositoryURLs;
    if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string' || !u.trim() || u.length > 2048))
      throw bad('repositoryURLs must be an array of URLs');
    if (urls.length > MAX_REPOSITORY_URLS) throw bad(`at most ${MAX_REPOSITORY_URLS} repositoryURLs`);
  }
  return m;
}

/** Collects a small part in memory, refusing more than `limit` bytes. */
function bufferSink(what: string, limit: number, done: (data: Buffer) => void): PartSink {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    write(chunk) {
      size += chunk.length;
      if (size > limit) throw new ApiError(413, `the ${what} part is larger than ${limit} bytes`);
      chunks.push(chunk);
    },
    end() {
      done(Buffer.concat(chunks));
    },
  };
}

/**
 * Streams a part into `packages.spool` (a temporary file, hashed, at most the spool's limit):
 * `spooled` settles once the part ended (or the spool failed, e.g. 413, which fails the part).
 */
function spoolSink(
  spool: (body: Readable) => Promise<SpooledPackageFile>,
): PartSink & { spooled: Promise<SpooledPackageFile>; abort(): void } {
  const body = new PassThrough();
  const spooled = spool(body);
  spooled.catch(() => undefined);
  return {
    spooled,
    async write(chunk) {
      if (!body.write(chunk)) await Promise.race([once(body, 'drain'), spooled]);
    },
    async end() {
      body.end();
      await spooled;
    },
    abort: () => body.destroy(),
  };
}

const discard: PartSink = { write() {}, end() {} };

export type ReleaseService = ReturnType<typeof releaseService>;

/** Releases of Swift packages: publishing (multipart), listing, manifests and repository URL lookup. */
export function releaseService(ctx: PluginContext<SwiftSettings>) {
  const { db, packages } = ctx;
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

  async function publish(req: Request, access: PackageAccess, pkg: PackageIdentity, version: string): Promise<PackageVersionInfo> {
    const owner = access.owner;
    if (await packages.getVersion(owner.id, TYPE, pkg.id, version))
      throw ApiError.conflict(`a release with version ${version} already exists`);
    const boundary = boundaryOf(req.headers['content-type']);
    let sink: ReturnType<typeof spoolSink> | undefined;
    let archive: SpooledPackageFile | undefined;
    let metadataBytes: Buffer | undefined;
    let signature: Buffer | undefined;
    const seen = new Set<string>();
    try {
      const limit = ctx.settings.maxArchiveSize;
      await readMultipart(req, boundary, limit + 2 * MAX_SIGNATURE_BYTES + MAX_METADATA_BYTES + 64 * 1024, (part) => {
        if (seen.has(part.name)) throw ApiError.badRequest(`the multipart part "${part.name}" appears twice`);
        seen.add(part.name);
        switch (part.name) {
          case 'source-archive':
            sink = spoolSink((body) =>
              packages.spool(body, { maxBytes: limit, tooLarge: `the source archive is larger than ${limit} bytes` }),
            );
            return sink;
          case 'metadata':
            return bufferSink('metadata', MAX_METADATA_BYTES, (data) => (metadataBytes = data));
          case 'source-archive-signature':
            return bufferSink('source-archive-signature', MAX_SIGNATURE_BYTES, (data) => (signature = data));
          case 'metadata-signature':
            // Accepted as the spec allows; the metadata is not signed-checked (no CMS verifier here).
            return bufferSink('metadata-signature', MAX_SIGNATURE_BYTES, () => undefined);
          default:
            return discard;
        }
      });
      archive = await sink?.spooled;
      if (!archive) throw ApiError.unprocessable('the multipart part "source-archive" is required');
      const format = req.headers['x-swift-package-signature-format'];
      let signing: ReleaseSigning | undefined;
      if (signature?.length) {
        if (typeof format !== 'string' || !SIGNATURE_FORMAT.test(format)) {
          throw ApiError.unprocessable('a signed release needs the X-Swift-Package-Signature-Format header (e.g. cms-1.0.0)');
        }
        signing = { signatureBase64Encoded: signature.toString('base64'), signatureFormat: format };
      }
      const found = await readManifests(archive.path);
      const metadata = metadataBytes?.length ? validateMetadata(parseJsonBody(metadataBytes, 'metadata')) : {};
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
      sink?.abort();
      await sink?.spooled.then(
        (spooled) => spooled.cleanup(),
        () => undefined,
      );
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

  return { baseUrl, releaseUrl, releases, release, manifests, identifiers, forget, publish };
}
