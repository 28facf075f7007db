import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Request } from 'express';
import type { Knex } from 'knex';
import semver from 'semver';
import type { KernelHooks, Principal, ScopeLevel, UserInfo } from '@hearth/plugin-api';
import { grants } from '../auth/scopes';
import {
  ApiError,
  toBoolean,
  toNumber,
  type PackageAccess,
  type PackageDownload,
  type PackageFileInfo,
  type PackageRegistry,
  type PackageSpoolOptions,
  type SpooledPackageFile,
  type PackageUpload,
  type PackageVersionInfo,
} from '@hearth/plugin-api';
import { isUniqueViolation, latestCommitted } from '../db/errors';
import { insertId } from '../orgs/org-store';
import { nowUnix } from '../users/models';
import type { PackageDeps } from './package-deps';
import { assertPackageWrite } from '../access/policy';
import type { BlobStore } from '../storage/blob-store';
import { stageToTempFile, uploadTempDir } from '../storage';
import { PackageSigningKeyService } from './signing-keys';

/** The [packages] settings (Gitea's names; -1 means unlimited). */
export interface PackageSettings {
  ENABLED: boolean;
  /** Package versions an owner may have. */
  LIMIT_TOTAL_OWNER_COUNT: number;
  /** Bytes of package files an owner may have. */
  LIMIT_TOTAL_OWNER_SIZE: number;
}

export function packageSettings(config: PackageDeps['config']): PackageSettings {
  const s = (config.packages ?? {}) as Partial<PackageSettings>;
  return {
    ENABLED: s.ENABLED ?? true,
    LIMIT_TOTAL_OWNER_COUNT: s.LIMIT_TOTAL_OWNER_COUNT ?? -1,
    LIMIT_TOTAL_OWNER_SIZE: s.LIMIT_TOTAL_OWNER_SIZE ?? -1,
  };
}

/** Gitea's package API answers a failed permission with a Basic challenge, so clients send credentials. */
const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="Hearth Package API"' };

const VERSION_COLUMNS = [
  'v.id',
  'v.package_id',
  'v.creator_id',
  'v.version',
  'v.created_unix',
  'v.metadata_json',
  'v.download_count',
  'p.owner_id',
  'p.type',
  'p.name',
  'p.semver_compatible',
];
const FILE_COLUMNS = [
  'f.id',
  'f.version_id',
  'f.name',
  'f.composite_key',
  'f.is_lead',
  'f.created_unix',
  'b.size',
  'b.hash_md5',
  'b.hash_sha1',
  'b.hash_sha256',
  'b.hash_sha512',
];

function toVersion(row: any): PackageVersionInfo {
  return {
    id: toNumber(row.id),
    packageId: toNumber(row.package_id),
    ownerId: toNumber(row.owner_id),
    type: row.type,
    name: row.name,
    version: row.version,
    creatorId: toNumber(row.creator_id),
    createdAt: new Date(toNumber(row.created_unix) * 1000),
    downloadCount: toNumber(row.download_count),
    metadata: row.metadata_json ? JSON.parse(row.metadata_json) : null,
  };
}

function toFile(row: any): PackageFileInfo {
  return {
    id: toNumber(row.id),
    versionId: toNumber(row.version_id),
    name: row.name,
    compositeKey: row.composite_key ?? '',
    isLead: toBoolean(row.is_lead),
    size: toNumber(row.size),
    hashes: { md5: row.hash_md5, sha1: row.hash_sha1, sha256: row.hash_sha256, sha512: row.hash_sha512 },
    createdAt: new Date(toNumber(row.created_unix) * 1000),
  };
}

/** Insert a row in a savepoint; on a unique violation (a concurrent insert) return null instead. */
async function insertOrNull(trx: Knex.Transaction, table: string, row: Record<string, unknown>): Promise<number | null> {
  try {
    return await trx.transaction((sp) => insertId(sp, table, row));
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

/** The framework's service: tables, blobs, quotas and the `package.published` hook. */
export class PackageService implements PackageRegistry {
  private readonly accesses = new WeakMap<Request, PackageAccess>();
  readonly signingKeys: PackageSigningKeyService;

  constructor(
    private readonly deps: PackageDeps,
    readonly blobs: BlobStore,
    private readonly settings: PackageSettings,
  ) {
    this.signingKeys = new PackageSigningKeyService(deps);
  }

  private get db(): Knex {
    return this.deps.db;
  }

  /** Called by the mount middleware once the request's access is resolved. */
  setAccess(req: Request, access: PackageAccess): void {
    this.accesses.set(req, access);
  }

  access(req: Request): PackageAccess {
    const access = this.accesses.get(req);
    if (!access) throw new Error('ctx.packages.access(req) is only available under /api/packages/:owner/<type>');
    return access;
  }

  /**
   * The package owner named in a request as the caller may use it, by the access module's
   * packagePermission: 404 when unknown or invisible (alike), 403 when a token lacks
   * `<level>:package`, 401 (with a Basic challenge) or 403 for a change without permission.
   * The registry routers' guard and plugins' own routers (the cargo git index) ask this.
   */
  async ownerAccess(ownerName: string, principal: Principal | null, level: ScopeLevel = 'read'): Promise<PackageAccess> {
    const { owner, canWrite } = await this.deps.repos.access.packageOwner(ownerName, principal);
    if (principal && !grants(principal.scopes, 'package', level)) {
      throw ApiError.forbidden(`token does not have at least one of required scope(s): [${level}:package]`);
    }
    if (level !== 'read') assertPackageWrite(canWrite, principal, CHALLENGE);
    return { owner: this.deps.users.toInfo(owner), principal, canWrite };
  }

  private versionQuery(trx: Knex | Knex.Transaction = this.db) {
    return trx('package_version as v').join('package as p', 'p.id', 'v.package_id').select(VERSION_COLUMNS);
  }

  private fileQuery(trx: Knex | Knex.Transaction = this.db) {
    return trx('package_file as f').join('package_blob as b', 'b.id', 'f.blob_id').select(FILE_COLUMNS);
  }

  async getVersion(ownerId: number, type: string, name: string, version: string): Promise<PackageVersionInfo | null> {
    const row = await this.versionQuery()
      .where({ 'p.owner_id': ownerId, 'p.type': type, 'p.lower_name': name.toLowerCase(), 'v.lower_version': version.toLowerCase() })
      .first();
    return row ? toVersion(row) : null;
  }

  async versionById(id: number): Promise<PackageVersionInfo | null> {
    const row = await this.versionQuery().where('v.id', id).first();
    return row ? toVersion(row) : null;
  }

  async listVersions(ownerId: number, type: string, name: string): Promise<PackageVersionInfo[]> {
    const rows = await this.versionQuery()
      .where({ 'p.owner_id': ownerId, 'p.type': type, 'p.lower_name': name.toLowerCase() })
      .orderBy([{ column: 'v.created_unix' }, { column: 'v.id' }]);
    const versions = rows.map(toVersion);
    if (rows.length && toBoolean(rows[0].semver_compatible)) {
      versions.sort((a, b) => {
        const va = semver.valid(a.version);
        const vb = semver.valid(b.version);
        if (va && vb) return semver.compare(va, vb);
        return va ? 1 : vb ? -1 : 0;
      });
    }
    return versions;
  }

  /** Versions of an owner's (non-internal) packages, newest first, for /api/v1/packages. */
  async searchVersions(
    ownerId: number,
    filter: { type?: string; q?: string },
    paging: { offset: number; limit: number },
  ): Promise<{ items: PackageVersionInfo[]; total: number }> {
    const base = this.db('package_version as v')
      .join('package as p', 'p.id', 'v.package_id')
      .where({ 'p.owner_id': ownerId, 'p.is_internal': false });
    if (filter.type) base.where('p.type', filter.type);
    if (filter.q) base.whereRaw(`p.lower_name like ? escape '!'`, [`%${filter.q.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`]);
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows = await base
      .clone()
      .select(VERSION_COLUMNS)
      .orderBy([
        { column: 'v.created_unix', order: 'desc' },
        { column: 'v.id', order: 'desc' },
      ])
      .offset(paging.offset)
      .limit(paging.limit);
    return { items: rows.map(toVersion), total: toNumber(n) };
  }

  async listFiles(versionId: number): Promise<PackageFileInfo[]> {
    return (await this.fileQuery().where('f.version_id', versionId).orderBy('f.id')).map(toFile);
  }

  async getFile(versionId: number, filename: string, compositeKey = ''): Promise<PackageFileInfo | null> {
    const row = await this.fileQuery()
      .where({ 'f.version_id': versionId, 'f.lower_name': filename.toLowerCase(), 'f.composite_key': compositeKey })
      .first();
    return row ? toFile(row) : null;
  }

  /** Bytes and versions an owner uses now. */
  async ownerUsage(ownerId: number): Promise<{ size: number; count: number }> {
    const [{ size }] = await this.db('package_file as f')
      .join('package_blob as b', 'b.id', 'f.blob_id')
      .join('package_version as v', 'v.id', 'f.version_id')
      .join('package as p', 'p.id', 'v.package_id')
      .where('p.owner_id', ownerId)
      .sum({ size: 'b.size' });
    const [{ count }] = await this.db('package_version as v')
      .join('package as p', 'p.id', 'v.package_id')
      .where('p.owner_id', ownerId)
      .count({ count: '*' });
    return { size: toNumber(size), count: toNumber(count) };
  }

  /** See PackageRegistry.spool: the upload staging of `upload`, kept for the caller to read. */
  async spool(body: Readable, options: PackageSpoolOptions): Promise<SpooledPackageFile> {
    const { maxBytes } = options;
    const tooLarge = options.tooLarge ?? `the upload is larger than ${maxBytes} bytes`;
    const declared = (body as Readable & { headers?: Record<string, unknown> }).headers?.['content-length'];
    if (typeof declared === 'string' && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
      body.resume();
      throw new ApiError(413, tooLarge);
    }
    const { tmp, size, hashes } = await stageToTempFile(uploadTempDir(this.deps.config, 'packages'), body, maxBytes, tooLarge);
    const cleanup = () => fs.promises.rm(tmp, { force: true });
    if (size === 0 && options.empty !== undefined) {
      await cleanup();
      throw ApiError.badRequest(options.empty);
    }
    return { path: tmp, size, hashes, cleanup };
  }

  async upload(input: PackageUpload): Promise<{ version: PackageVersionInfo; file: PackageFileInfo; created: boolean }> {
    const compositeKey = input.compositeKey ?? '';
    for (const [what, value] of [
      ['package name', input.name],
      ['version', input.version],
      ['file name', input.filename],
      ['composite key', compositeKey],
    ] as const) {
      if (value.length > 255) throw ApiError.badRequest(`${what} is longer than 255 characters`);
    }
    if (!input.name || !input.version || !input.filename) throw ApiError.badRequest('package name, version and file name are required');
    const existing = await this.getVersion(input.ownerId, input.type, input.name, input.version);
    if (existing && (input.onExisting ?? 'conflict') === 'conflict' && (await this.getFile(existing.id, input.filename, compositeKey))) {
      throw ApiError.conflict(`package file already exists: ${input.filename}`);
    }

    // Quotas, before a byte of the body is read.
    let maxBytes = Number.MAX_SAFE_INTEGER;
    const { LIMIT_TOTAL_OWNER_COUNT: countLimit, LIMIT_TOTAL_OWNER_SIZE: sizeLimit } = this.settings;
    if (countLimit >= 0 || sizeLimit >= 0) {
      const usage = await this.ownerUsage(input.ownerId);
      if (!existing && countLimit >= 0 && usage.count >= countLimit) {
        throw ApiError.unprocessable(
          `package quota exceeded: the owner has ${usage.count} package versions and the limit ` +
            `(packages.LIMIT_TOTAL_OWNER_COUNT) is ${countLimit}`,
        );
      }
      if (sizeLimit >= 0) {
        maxBytes = Math.max(0, sizeLimit - usage.size);
        if (input.declaredSize !== undefined && input.declaredSize > maxBytes) {
          throw new ApiError(
            413,
            `package quota exceeded: the file has ${input.declaredSize} bytes and the owner has ` +
              `${maxBytes} of ${sizeLimit} bytes left (packages.LIMIT_TOTAL_OWNER_SIZE)`,
          );
        }
      }
    }

    const staged = await this.blobs.stage(input.body, maxBytes);
    if (input.declaredSize !== undefined && staged.size !== input.declaredSize) {
      await staged.discard();
      throw ApiError.badRequest(`the body has ${staged.size} bytes, Content-Length announced ${input.declaredSize}`);
    }
    const now = nowUnix();
    let blobCreated = false;
    let result: { versionId: number; fileId: number; created: boolean; orphans: string[] };
    try {
      result = await this.db.transaction(async (trx) => {
        const lowerName = input.name.toLowerCase();
        const lowerVersion = input.version.toLowerCase();
        let pkg = await trx('package').where({ owner_id: input.ownerId, type: input.type, lower_name: lowerName }).first('id');
        if (!pkg) {
          await insertOrNull(trx, 'package', {
            owner_id: input.ownerId,
            type: input.type,
            name: input.name,
            lower_name: lowerName,
            semver_compatible: input.semverCompatible ?? false,
            is_internal: false,
            repo_id: 0,
            created_unix: now,
          });
          pkg = await latestCommitted(
            trx,
            trx('package').where({ owner_id: input.ownerId, type: input.type, lower_name: lowerName }).first('id'),
          );
        }
        const packageId = toNumber(pkg.id);
        let created = false;
        let version = await trx('package_version').where({ package_id: packageId, lower_version: lowerVersion }).first('id');
        if (!version) {
          const id = await insertOrNull(trx, 'package_version', {
            package_id: packageId,
            creator_id: input.actor?.id ?? 0,
            version: input.version,
            lower_version: lowerVersion,
            created_unix: now,
            metadata_json: input.metadata ? JSON.stringify(input.metadata) : null,
            download_count: 0,
          });
          created = id !== null;
          version = await latestCommitted(
            trx,
            trx('package_version').where({ package_id: packageId, lower_version: lowerVersion }).first('id'),
          );
        }
        const versionId = toNumber(version.id);

        let blob = await trx('package_blob').where({ hash_sha256: staged.hashes.sha256 }).first('id');
        if (!blob) {
          const id = await insertOrNull(trx, 'package_blob', {
            size: staged.size,
            hash_md5: staged.hashes.md5,
            hash_sha1: staged.hashes.sha1,
            hash_sha256: staged.hashes.sha256,
            hash_sha512: staged.hashes.sha512,
            created_unix: now,
          });
          blobCreated = id !== null;
          blob = await latestCommitted(trx, trx('package_blob').where({ hash_sha256: staged.hashes.sha256 }).first('id'));
        }
        await staged.commit();

        const replacedBlobIds: number[] = [];
        const lowerFile = input.filename.toLowerCase();
        const old = await trx('package_file')
          .where({ version_id: versionId, lower_name: lowerFile, composite_key: compositeKey })
          .first('id', 'blob_id');
        if (old) {
          if ((input.onExisting ?? 'conflict') === 'conflict') throw ApiError.conflict(`package file already exists: ${input.filename}`);
          await trx('package_file').where({ id: old.id }).delete();
          replacedBlobIds.push(toNumber(old.blob_id));
        }
        const fileId = await insertOrNull(trx, 'package_file', {
          version_id: versionId,
          blob_id: toNumber(blob.id),
          name: input.filename,
          lower_name: lowerFile,
          composite_key: compositeKey,
          is_lead: input.isLead ?? false,
          created_unix: now,
        });
        if (fileId === null) throw ApiError.conflict(`package file already exists: ${input.filename}`);
        const orphans = await this.deleteUnreferencedBlobs(trx, replacedBlobIds);
        return { versionId, fileId, created, orphans };
      });
    } catch (err) {
      await staged.discard();
      // A blob this upload put on disk whose row did not survive the rollback goes too.
      if (blobCreated && !(await this.db('package_blob').where({ hash_sha256: staged.hashes.sha256 }).first('id'))) {
        await this.blobs.delete(staged.hashes.sha256);
      }
      throw err;
    }
    await this.removeBlobFiles(result.orphans);

    const version = (await this.versionById(result.versionId))!;
    const file = toFile(await this.fileQuery().where('f.id', result.fileId).first());
    if (result.created) await this.published(version, input);
    return { version, file, created: result.created };
  }

  private async published(version: PackageVersionInfo, input: PackageUpload): Promise<void> {
    const owner = await this.deps.users.byId(input.ownerId);
    try {
      await this.deps.hooks.package.published.promise({
        ownerId: input.ownerId,
        ownerName: owner?.name ?? '',
        type: version.type,
        name: version.name,
        version: version.version,
        packageVersionId: version.id,
        actor: input.actor,
      });
    } catch (err) {
      this.deps.log.error({ err }, 'package.published tap failed');
    }
  }

  /** Delete the blob rows of `blobIds` no file references any more; returns their sha256 for removal after commit. */
  private async deleteUnreferencedBlobs(trx: Knex.Transaction, blobIds: number[]): Promise<string[]> {
    const gone: string[] = [];
    for (const id of new Set(blobIds)) {
      const used = await trx('package_file').where({ blob_id: id }).first('id');
      if (used) continue;
      const blob = await trx('package_blob').where({ id }).first('hash_sha256');
      if (!blob) continue;
      await trx('package_blob').where({ id }).delete();
      gone.push(blob.hash_sha256);
    }
    return gone;
  }

  private async removeBlobFiles(sha256s: string[]): Promise<void> {
    for (const sha of sha256s) {
      try {
        await this.blobs.delete(sha);
      } catch (err) {
        this.deps.log.warn({ err, sha256: sha }, 'could not remove an unreferenced package blob');
      }
    }
  }

  async openFile(file: PackageFileInfo): Promise<PackageDownload> {
    const { stream, size } = await this.blobs.open(file.hashes.sha256);
    if (file.isLead) await this.db('package_version').where({ id: file.versionId }).increment('download_count', 1);
    return { file, size, hashes: file.hashes, stream };
  }

  async deleteFile(file: PackageFileInfo, actor: UserInfo | null = null): Promise<void> {
    const version = await this.versionById(file.versionId);
    const { gone, versionGone } = await this.db.transaction(async (trx) => {
      const row = await trx('package_file').where({ id: file.id }).first('id', 'blob_id', 'version_id');
      if (!row) throw ApiError.notFound('package file does not exist');
      await trx('package_file').where({ id: row.id }).delete();
      const last = !(await trx('package_file').where({ version_id: row.version_id }).first('id'));
      if (last) await this.deleteVersionRows(trx, toNumber(row.version_id));
      return { gone: await this.deleteUnreferencedBlobs(trx, [toNumber(row.blob_id)]), versionGone: last };
    });
    await this.removeBlobFiles(gone);
    if (versionGone && version) await this.deleted(version, actor);
  }

  async deleteVersion(versionId: number, actor: UserInfo | null = null): Promise<void> {
    const version = await this.versionById(versionId);
    const gone = await this.db.transaction(async (trx) => {
      const files = await trx('package_file').where({ version_id: versionId }).select('blob_id');
      if (!(await trx('package_version').where({ id: versionId }).first('id'))) throw ApiError.notFound('package version does not exist');
      await trx('package_file').where({ version_id: versionId }).delete();
      await this.deleteVersionRows(trx, versionId);
      return this.deleteUnreferencedBlobs(
        trx,
        files.map((f) => toNumber(f.blob_id)),
      );
    });
    await this.removeBlobFiles(gone);
    if (version) await this.deleted(version, actor);
  }

  /** `package.deleted`, after the deletion committed (taps are contained by the kernel). */
  private async deleted(version: PackageVersionInfo, actor: UserInfo | null): Promise<void> {
    const owner = await this.deps.users.byId(version.ownerId);
    await this.deps.hooks.package.deleted.promise({
      ownerId: version.ownerId,
      ownerName: owner?.name ?? '',
      type: version.type,
      name: version.name,
      version: version.version,
      packageVersionId: version.id,
      actor,
    });
  }

  /**
   * Packages go with their owner: deleting a user who owns packages is refused unless it is a
   * purge, which removes them in the deletion's transaction; blobs no one references are removed
   * from disk once it committed.
   */
  tapOwnerDeletion(hooks: KernelHooks): void {
    this.signingKeys.tapOwnerDeletion(hooks);
    const orphansByOwner = new Map<number, string[]>();
    hooks.user.deleting.tapPromise('hearth:packages', async ({ user, purge, trx }) => {
      const packages = await trx('package').where('owner_id', user.id).select('id');
      if (packages.length === 0) return;
      if (!purge) throw ApiError.unprocessable(`user still owns ${packages.length} packages; delete them first, or delete with purge=true`);
      const packageIds = packages.map((p: { id: number }) => toNumber(p.id));
      const versionIds = (await trx('package_version').whereIn('package_id', packageIds).select('id')).map((v: { id: number }) =>
        toNumber(v.id),
      );
      const blobIds = versionIds.length
        ? (await trx('package_file').whereIn('version_id', versionIds).select('blob_id')).map((f: { blob_id: number }) =>
            toNumber(f.blob_id),
          )
        : [];
      if (versionIds.length) await trx('package_file').whereIn('version_id', versionIds).delete();
      await trx('package_version').whereIn('package_id', packageIds).delete();
      await trx('package').whereIn('id', packageIds).delete();
      orphansByOwner.set(user.id, await this.deleteUnreferencedBlobs(trx, blobIds));
    });
    hooks.user.deleted.tapPromise('hearth:packages', async ({ user }) => {
      await this.removeBlobFiles(orphansByOwner.get(user.id) ?? []);
      orphansByOwner.delete(user.id);
    });
  }

  /** The version row, and its package when that was the last version. */
  private async deleteVersionRows(trx: Knex.Transaction, versionId: number): Promise<void> {
    const version = await trx('package_version').where({ id: versionId }).first('package_id');
    if (!version) return;
    await trx('package_version').where({ id: versionId }).delete();
    if (!(await trx('package_version').where({ package_id: version.package_id }).first('id'))) {
      await trx('package').where({ id: version.package_id }).delete();
    }
  }
}
