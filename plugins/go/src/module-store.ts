import fs from 'node:fs';
import { Readable } from 'node:stream';
import semver from 'semver';
import { ApiError, KeyedQueue } from '@hearth/plugin-api';
import type { PackageAccess, PackageDownload, PackageVersionInfo, PluginContext } from '@hearth/plugin-api';
import { synthesizedGoMod } from './go-mod';
import { isPseudoVersion } from './module-path';
import type { ModuleZipContents } from './module-zip';

export const TYPE = 'go';

/** What the proxy knows of one stored version. */
export interface ModuleVersion {
  id: number;
  version: string;
  time: Date;
}

/** Stored with each version (the framework's metadata JSON). */
export interface GoVersionMetadata {
  /** Whether the zip had a go.mod (otherwise `.mod` is the synthesized `module` line). */
  goMod: boolean;
  files: number;
  uncompressedSize: number;
}

const CACHE_LIMIT = 2000;
const GO_MOD_CACHE_MAX_SIZE = 64 * 1024;

export const zipFileName = (version: string) => `${version}.zip`;
export const modFileName = (version: string) => `${version}.mod`;

/** Go's order of preference for `@latest`: the highest release, else pre-release, else pseudo-version. */
export function latestOf(versions: ModuleVersion[]): ModuleVersion | null {
  const rank = (v: ModuleVersion) => (isPseudoVersion(v.version) ? 0 : semver.prerelease(v.version) ? 1 : 2);
  let best: ModuleVersion | null = null;
  for (const v of versions) {
    if (!best || rank(v) > rank(best) || (rank(v) === rank(best) && semver.compare(v.version, best.version) > 0)) best = v;
  }
  return best;
}

/** `@v/list`: releases and pre-releases, one a line, in semver order (pseudo-versions are not listed). */
export function versionList(versions: ModuleVersion[]): string {
  const listed = versions.filter((v) => !isPseudoVersion(v.version)).map((v) => v.version);
  return listed.length ? `${listed.join('\n')}\n` : '';
}

/** `.info` and `@latest`: Go's RFC 3339 time, without fractional seconds. */
export function infoJson(v: ModuleVersion): string {
  return JSON.stringify({ Version: v.version, Time: v.time.toISOString().replace(/\.\d{3}Z$/, 'Z') });
}

/**
 * The Go modules of each owner, stored with the package framework: one package per module path
 * (type `go`), one version per module version, with the zip as the lead file and the go.mod as
 * a second file. Version lists are cached per module and dropped on publish and delete (the
 * `package.*` hooks cover deletes through /api/v1/packages too).
 */
export class ModuleStore {
  /** Per owner and lower-cased module path: the stored (display-cased) path and its versions, or null for no module. */
  private readonly cache = new Map<string, { modulePath: string; versions: ModuleVersion[] } | null>();
  /** Bumped on every invalidation, so that a read which started before it is not cached after it. */
  private readonly generations = new Map<string, number>();
  private readonly publishes = new KeyedQueue();
  /** go.mod bytes by version id (a deleted and re-uploaded version gets a new id). */
  private readonly goMods = new Map<number, Buffer>();

  constructor(private readonly ctx: PluginContext<unknown>) {}

  private key(ownerId: number, modulePath: string): string {
    return `${ownerId}\n${modulePath.toLowerCase()}`;
  }

  invalidate(ownerId: number, modulePath: string): void {
    const key = this.key(ownerId, modulePath);
    this.cache.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }

  /** A version this process just stored: added to a cached list in place (an incremental index, no re-read). */
  private added(ownerId: number, modulePath: string, version: ModuleVersion): void {
    const key = this.key(ownerId, modulePath);
    const entry = this.cache.get(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    if (entry === undefined) return;
    if (entry === null) this.cache.set(key, { modulePath, versions: [version] });
    else entry.versions = sortVersions([...entry.versions, version]);
  }

  /** The versions of a module in semver order, or null when the owner has no module with exactly this path. */
  async versions(ownerId: number, modulePath: string): Promise<ModuleVersion[] | null> {
    const entry = await this.entry(ownerId, modulePath);
    // Names match case-insensitively in the framework; module paths do not.
    return entry && entry.modulePath === modulePath ? entry.versions : null;
  }

  /** The cached module (display-cased path and versions) whose path equals `modulePath` ignoring case. */
  private async entry(ownerId: number, modulePath: string): Promise<{ modulePath: string; versions: ModuleVersion[] } | null> {
    const key = this.key(ownerId, modulePath);
    let entry = this.cache.get(key);
    if (entry === undefined) {
      const generation = this.generations.get(key) ?? 0;
      const stored = await this.ctx.packages.listVersions(ownerId, TYPE, modulePath);
      const versions = sortVersions(stored.map((v) => ({ id: v.id, version: v.version, time: v.createdAt })));
      entry = stored.length ? { modulePath: stored[0].name, versions } : null;
      if ((this.generations.get(key) ?? 0) === generation) {
        if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(key, entry);
      }
    }
    return entry;
  }

  /** The stored version with exactly this module path and version, or null. */
  async find(ownerId: number, modulePath: string, version: string): Promise<PackageVersionInfo | null> {
    const found = await this.ctx.packages.getVersion(ownerId, TYPE, modulePath, version);
    return found && found.name === modulePath && found.version === version ? found : null;
  }

  /**
   * The go.mod served for a version: the zip's own, or the synthesized `module` line. Small ones
   * are kept in memory (immutable per version id).
   */
  async goMod(version: PackageVersionInfo): Promise<Buffer | PackageDownload> {
    const cached = this.goMods.get(version.id);
    if (cached) return cached;
    const metadata = version.metadata as GoVersionMetadata | null;
    const file = await this.ctx.packages.getFile(version.id, modFileName(version.version));
    if (file && file.size > GO_MOD_CACHE_MAX_SIZE) return this.ctx.packages.openFile(file);
    if (file) {
      const download = await this.ctx.packages.openFile(file);
      const chunks: Buffer[] = [];
      for await (const chunk of download.stream) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      if (this.goMods.size >= CACHE_LIMIT) this.goMods.delete(this.goMods.keys().next().value!);
      this.goMods.set(version.id, bytes);
      return bytes;
    }
    if (metadata && metadata.goMod === false) return synthesizedGoMod(version.name);
    throw ApiError.notFound(`${version.name}@${version.version}: go.mod is not stored (the upload may still be in progress)`);
  }

  async zip(version: PackageVersionInfo): Promise<PackageDownload> {
    const file = await this.ctx.packages.getFile(version.id, zipFileName(version.version));
    if (!file) throw ApiError.notFound(`${version.name}@${version.version}: the module zip is not stored`);
    return this.ctx.packages.openFile(file);
  }

  /**
   * Store a validated module zip (on disk at `zipFile`) as a new version. One publish per
   * module at a time (in this process); an existing version, or a module path or version that
   * differs from a stored one only in case, is a 409. The zip goes first: when it fails (a quota)
   * nothing is stored; when the go.mod then fails, the version is removed again.
   */
  async publish(access: PackageAccess, zipFile: string, zipSize: number, contents: ModuleZipContents): Promise<PackageVersionInfo> {
    const { modulePath, version } = contents;
    const ownerId = access.owner.id;
    const actor = access.principal?.user ?? null;
    return this.publishes.run(this.key(ownerId, modulePath), async () => {
      // The cached list (kept current by this method and the delete hook): no re-read of every version per publish.
      const existing = await this.entry(ownerId, modulePath);
      if (existing && existing.modulePath !== modulePath) {
        throw ApiError.conflict(
          `module path "${modulePath}" differs only in case from the stored module ` +
            `"${existing.modulePath}"; an owner's module paths must differ ignoring case`,
        );
      }
      const same = existing?.versions.find((v) => v.version.toLowerCase() === version.toLowerCase());
      if (same)
        throw ApiError.conflict(
          `module version ${modulePath}@${same.version} already ` +
            `exists${same.version === version ? '' : ` (it differs from ${version} only in case)`}`,
        );

      const metadata: GoVersionMetadata = {
        goMod: contents.goMod !== null,
        files: contents.fileCount,
        uncompressedSize: contents.uncompressedSize,
      };
      const { version: stored } = await this.ctx.packages.upload({
        ownerId,
        type: TYPE,
        name: modulePath,
        version,
        filename: zipFileName(version),
        isLead: true,
        body: fs.createReadStream(zipFile),
        declaredSize: zipSize,
        metadata: metadata as unknown as Record<string, unknown>,
        semverCompatible: true,
        actor,
      });
      try {
        const goMod = contents.goMod ?? synthesizedGoMod(modulePath);
        await this.ctx.packages.upload({
          ownerId,
          type: TYPE,
          name: modulePath,
          version,
          filename: modFileName(version),
          body: Readable.from([goMod]),
          declaredSize: goMod.length,
          actor,
        });
      } catch (err) {
        await this.ctx.packages.deleteVersion(stored.id, actor).catch((cleanup: unknown) => {
          this.ctx.log.error({ err: cleanup }, 'removing a half-published Go module version failed');
        });
        this.invalidate(ownerId, modulePath);
        throw err;
      }
      this.added(ownerId, modulePath, { id: stored.id, version: stored.version, time: stored.createdAt });
      return stored;
    });
  }
}

function sortVersions(versions: ModuleVersion[]): ModuleVersion[] {
  return versions.filter((v) => semver.valid(v.version)).sort((a, b) => semver.compare(a.version, b.version));
}
