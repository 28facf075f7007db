import crypto from 'node:crypto';
import fs from 'node:fs';
import { ApiError, nowUnix, type PackageFileInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import type { Request } from 'express';
import { signedIndex, indexStanza, type SignedIndex } from './apk-index';
import { ApkFormatError, readApk, type PkgInfo } from './apk-package';
import { PackageFileTable, StampedCache } from '@hearth/package-kit';

export const TYPE = 'alpine';
export const FILES_TABLE = 'alpine_file';
const NOARCH = 'noarch';

export interface AlpineSettings {
  maxUploadSize: number;
}

/** A branch/repository pair, e.g. `v3.19`/`main`. */
export interface RepositoryRef {
  branch: string;
  repository: string;
}

interface FileRow {
  id: number;
  version_id: number;
  file_id: number;
  arch: string;
  stanza: string;
  created_unix: number;
}

export const apkFileName = (i: Pick<PkgInfo, 'pkgname' | 'pkgver'>) => `${i.pkgname}-${i.pkgver}.apk`;

/** The owner's RSA key name as apk needs it in `/etc/apk/keys/` (stable across renames: from the key itself). */
export function keyNameOf(publicKeyPem: string): string {
  const der = crypto.createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return `hearth-${crypto.createHash('sha256').update(der).digest('hex').slice(0, 16)}.rsa.pub`;
}

/**
 * Alpine repositories of an owner: `{branch}/{repository}/{arch}`. Each stored .apk gets a row
 * with its ready-made APKINDEX record; an index is the records of the arch plus `noarch`,
 * signed with the owner's RSA key, built on the first read after a change and then kept in
 * memory under a stamp of its rows (count and highest id) that every read takes from the
 * database: every process serving the database sees every publish and delete at once, for the
 * one indexed read the request makes anyway. A build is deterministic (records in a fixed order,
 * tar times from the newest row, gzip without a time, PKCS#1 v1.5 signature), so two processes
 * serve the same bytes and ETag for one state of the repository.
 */
export class AlpineRepositories extends PackageFileTable<FileRow> {
  private readonly indexes = new StampedCache<SignedIndex>();
  constructor(private readonly ctx: PluginContext<AlpineSettings>) {
    super(ctx.db, FILES_TABLE);
  }

  async publish(req: Request, owner: UserInfo, actor: UserInfo | null, ref: RepositoryRef): Promise<PkgInfo> {
    const limit = this.ctx.settings.maxUploadSize;
    const spooled = await this.ctx.packages.spool(req, {
      maxBytes: limit,
      tooLarge: `the package is larger than ${limit} bytes`,
      empty: 'the request body is empty: send the package file',
    });
    try {
      let apk;
      try {
        apk = await readApk(spooled.path);
      } catch (err) {
        if (err instanceof ApkFormatError) throw ApiError.badRequest(`invalid apk package: ${err.message}`);
        throw err;
      }
      const { info } = apk;
      const { file, version } = await this.ctx.packages.upload({
        ownerId: owner.id,
        type: TYPE,
        name: info.pkgname,
        version: info.pkgver,
        filename: apkFileName(info),
        compositeKey: `${ref.branch}|${ref.repository}|${info.arch}`,
        body: fs.createReadStream(spooled.path),
        declaredSize: spooled.size,
        isLead: true,
        metadata: { description: info.pkgdesc, url: info.url, license: info.license, maintainer: info.maintainer },
        semverCompatible: false,
        actor,
      });
      try {
        await this.ctx.db(FILES_TABLE).insert({
          owner_id: owner.id,
          branch: ref.branch,
          repository: ref.repository,
          arch: info.arch,
          name: info.pkgname,
          version: info.pkgver,
          version_id: version.id,
          file_id: file.id,
          stanza: indexStanza(apk, file.size),
          created_unix: nowUnix(),
        });
      } catch (err) {
        await this.ctx.packages.deleteFile(file, actor).catch(() => undefined);
        throw err;
      }
      return info;
    } finally {
      await spooled.cleanup();
    }
  }

  /** `{name}-{version}.apk` as apk requests it under an arch directory: that arch's build, or the noarch one. */
  async findFile(ownerId: number, ref: RepositoryRef, arch: string, filename: string): Promise<{ file: PackageFileInfo; row: FileRow }> {
    const rows: (FileRow & { name: string; version: string })[] = await this.ctx
      .db(FILES_TABLE)
      .where({ owner_id: ownerId, branch: ref.branch, repository: ref.repository })
      .whereIn('arch', [arch, NOARCH])
      .select('id', 'version_id', 'file_id', 'arch', 'name', 'version');
    // The arch's own build wins over a noarch one of the same name and version.
    const row = rows
      .filter((r) => apkFileName({ pkgname: r.name, pkgver: r.version }) === filename)
      .sort((a, b) => Number(a.arch !== arch) - Number(b.arch !== arch))[0];
    const file = row ? (await this.ctx.packages.listFiles(row.version_id)).find((f) => f.id === Number(row.file_id)) : undefined;
    if (!row || !file) throw ApiError.notFound('package file does not exist');
    return { file, row };
  }

  async remove(owner: UserInfo, actor: UserInfo | null, ref: RepositoryRef, arch: string, filename: string): Promise<void> {
    const { file, row } = await this.findFile(owner.id, ref, arch, filename);
    await this.removeFile(row.id);
    await this.ctx.packages.deleteFile(file, actor);
  }

  /** The signed APKINDEX.tar.gz of `arch`, or null when the branch/repository holds no package at all. */
  async index(owner: UserInfo, ref: RepositoryRef, arch: string): Promise<SignedIndex | null> {
    const inRepository = () => this.db(FILES_TABLE).where({ owner_id: owner.id, branch: ref.branch, repository: ref.repository });
    // A noarch package is in every arch's index.
    const rows = () => inRepository().whereIn('arch', arch === NOARCH ? [NOARCH] : [arch, NOARCH]);
    const stamp = await this.stamp(rows());
    if (stamp.startsWith('0:') && !(await inRepository().first('id'))) return null;
    // The owner's name is in the index's DESCRIPTION.
    return this.indexes.get(`${owner.id}/${ref.branch}/${ref.repository}/${arch}`, `${stamp}/${owner.name}`, async () => {
      const records: FileRow[] = await rows()
        .orderBy([{ column: 'name' }, { column: 'version' }, { column: 'id' }])
        .select('stanza', 'created_unix');
      const key = await this.ctx.packages.signingKeys.rsa(owner.id, TYPE);
      const description = `${owner.name} ${ref.branch}/${ref.repository}`;
      const newest = records.reduce((t, r) => Math.max(t, Number(r.created_unix)), 0);
      return signedIndex(
        records.map((r) => r.stanza),
        description,
        keyNameOf(key.publicKeyPem),
        (data) => key.sign(data, 'sha1'),
        newest,
      );
    });
  }
}
