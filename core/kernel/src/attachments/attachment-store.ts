import crypto from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Request } from 'express';
import type { Knex } from 'knex';
import { ApiError, isApiError, rowReader, toNumber, type AttachmentInfo, type KernelHooks } from '@hearth/plugin-api';
import { createBlobStore, type BlobStore } from '../storage';
import { KeyedQueue } from '../db/retry';
import { nowUnix, unixToIso } from '../users/models';
import type { HearthConfig } from '../config/types';

/**
 * Attachments (Gitea's `attachment` table): files of releases, issues and comments, owned by the
 * core whichever feature they belong to. Bytes live in a content-addressed store (the
 * `attachments` storage area), referenced by sha256; a blob goes with its last attachment.
 */

/** Gitea's [attachment] settings. */
export interface AttachmentSettings {
  ENABLED: boolean;
  /** Megabytes. */
  MAX_SIZE: number;
  ALLOWED_TYPES: string;
  MAX_FILES: number;
}

export function attachmentSettings(config: HearthConfig): AttachmentSettings {
  const s = (config.attachment ?? {}) as Partial<AttachmentSettings>;
  return { ENABLED: s.ENABLED ?? true, MAX_SIZE: s.MAX_SIZE ?? 4, ALLOWED_TYPES: s.ALLOWED_TYPES ?? '', MAX_FILES: s.MAX_FILES ?? 5 };
}

/** `repository.release.ALLOWED_TYPES`: what release assets may be; empty allows every type. */
export function releaseAllowedTypes(config: HearthConfig): string {
  return (config.repository?.release?.ALLOWED_TYPES as string | undefined) ?? '';
}

export interface AttachmentRow {
  id: number;
  uuid: string;
  repo_id: number;
  release_id: number;
  /** Set for issue and comment attachments (comment_id 0: the issue's own). */
  issue_id: number;
  comment_id: number;
  uploader_id: number;
  name: string;
  size: number;
  hash_sha256: string;
  download_count: number;
  created_unix: number;
}

const toRow = rowReader<AttachmentRow>({
  numbers: ['id', 'repo_id', 'release_id', 'issue_id', 'comment_id', 'uploader_id', 'size', 'download_count', 'created_unix'],
});

/** An attachment row as the plugin API hands it out. */
export function attachmentInfo(row: AttachmentRow): AttachmentInfo {
  return {
    id: row.id,
    uuid: row.uuid,
    repositoryId: row.repo_id,
    releaseId: row.release_id,
    issueId: row.issue_id,
    commentId: row.comment_id,
    uploaderId: row.uploader_id,
    name: row.name,
    size: row.size,
    downloadCount: row.download_count,
    createdUnix: row.created_unix,
  };
}

/** Serialises blob commit/insert and delete/count per sha256 in this process, so a blob never goes while a new reference is being added. */
const blobQueue = new KeyedQueue();

/** Gitea's `Attachment` object. */
export function attachmentToApi(
  config: HearthConfig,
  row: Pick<AttachmentRow, 'id' | 'uuid' | 'name' | 'size' | 'download_count' | 'created_unix'>,
): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    size: row.size,
    download_count: row.download_count,
    created_at: unixToIso(row.created_unix),
    uuid: row.uuid,
    browser_download_url: `${config.server.ROOT_URL}attachments/${row.uuid}`,
  };
}

/**
 * Whether a file name and its declared mime type pass `attachment.ALLOWED_TYPES` (Gitea's rule:
 * `.ext` entries match the name's extension, `type/*` and `type/sub` entries the mime type,
 * `*` or `*\/*` everything; an empty list allows everything).
 */
export function isAllowedType(allowed: string, fileName: string, mimeType: string): boolean {
  const entries = allowed
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (entries.length === 0) return true;
  const ext = path.extname(fileName).toLowerCase();
  const mime = mimeType.split(';')[0].trim().toLowerCase();
  return entries.some((e) => {
    if (e === '*/*' || e === '*') return true;
    if (e.startsWith('.')) return ext !== '' && e === ext;
    if (e.endsWith('/*')) return mime.startsWith(e.slice(0, -1));
    return e === mime;
  });
}

/** A client's file name made safe to store: the last path segment, no control characters, at most 255 characters. */
export function cleanFileName(name: string): string {
  const base = name.replace(/\\/g, '/').split('/').pop() ?? '';
  const clean = base
    .replace(/[\x00-\x1f\x7f]/g, '')
    .trim()
    .slice(0, 255);
  if (!clean || clean === '.' || clean === '..') throw ApiError.unprocessable(`invalid attachment name [name: ${name}]`);
  return clean;
}

export class AttachmentStore {
  readonly blobs: BlobStore;

  constructor(
    private readonly db: Knex,
    private readonly config: HearthConfig,
  ) {
    this.blobs = createBlobStore(config, 'attachments');
  }

  /** Read per use: the configuration may change after start (tests, `listen`). */
  get settings(): AttachmentSettings {
    return attachmentSettings(this.config);
  }

  async list(releaseIds: number[]): Promise<AttachmentRow[]> {
    if (releaseIds.length === 0) return [];
    return (await this.db('attachment').whereIn('release_id', releaseIds).orderBy('id')).map(toRow);
  }

  async get(releaseId: number, id: number): Promise<AttachmentRow | null> {
    const row = await this.db('attachment').where({ release_id: releaseId, id }).first();
    return row ? toRow(row) : null;
  }

  /** Attachments of issues (their own: comment_id 0) or of comments, oldest first. */
  async listOf(of: 'issue' | 'comment', ids: number[]): Promise<AttachmentRow[]> {
    if (ids.length === 0) return [];
    const q = this.db('attachment').where('release_id', 0);
    if (of === 'issue') q.whereIn('issue_id', ids).where('comment_id', 0);
    else q.whereIn('comment_id', ids);
    return (await q.orderBy('id')).map(toRow);
  }

  /** One attachment of an issue (comment_id 0) or of a comment. */
  async getOf(of: 'issue' | 'comment', ownerId: number, id: number): Promise<AttachmentRow | null> {
    const where = of === 'issue' ? { release_id: 0, issue_id: ownerId, comment_id: 0, id } : { release_id: 0, comment_id: ownerId, id };
    const row = await this.db('attachment').where(where).first();
    return row ? toRow(row) : null;
  }

  async byIds(ids: readonly number[]): Promise<AttachmentRow[]> {
    if (ids.length === 0) return [];
    return (
      await this.db('attachment')
        .whereIn('id', [...ids])
        .orderBy('id')
    ).map(toRow);
  }

  async byUuid(uuid: string): Promise<AttachmentRow | null> {
    const row = await this.db('attachment').where({ uuid }).first();
    return row ? toRow(row) : null;
  }

  async rename(row: AttachmentRow, name: string): Promise<AttachmentRow> {
    await this.db('attachment')
      .where('id', row.id)
      .update({ name: cleanFileName(name) });
    return toRow(await this.db('attachment').where('id', row.id).first());
  }

  /**
   * Read the `attachment` part of a multipart/form-data request, streamed through the limits
   * (type before the first byte, size while writing) into the blob store, and record it.
   * Nothing is stored when a limit refuses the file.
   */
  async upload(
    req: Request,
    target: { repoId: number; releaseId?: number; issueId?: number; commentId?: number; uploaderId: number; name?: string },
  ): Promise<AttachmentRow> {
    const { ENABLED, MAX_SIZE, ALLOWED_TYPES } = this.settings;
    if (!ENABLED) throw ApiError.unprocessable('attachments are disabled on this server (attachment.ENABLED)');
    const maxBytes = MAX_SIZE * 1024 * 1024;
    const declared = Number(req.headers['content-length']);
    // The whole multipart body is a little larger than the file; refuse only what cannot fit.
    if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024) {
      req.resume();
      throw new ApiError(413, `attachment too large: the limit is ${MAX_SIZE} MB (attachment.MAX_SIZE)`);
    }
    if (target.name !== undefined) cleanFileName(target.name);
    // Release assets have their own list, empty (any type) by default, as Gitea's [repository.release].
    const [allowed, allowedKey] = target.releaseId
      ? [releaseAllowedTypes(this.config), 'repository.release.ALLOWED_TYPES']
      : [ALLOWED_TYPES, 'attachment.ALLOWED_TYPES'];
    const handle = async (file: Readable, info: busboy.FileInfo): Promise<AttachmentRow> => {
      const name = cleanFileName(target.name || info.filename || '');
      if (!isAllowedType(allowed, name, info.mimeType || 'application/octet-stream')) {
        file.resume();
        throw ApiError.unprocessable(`this file type is not allowed [name: ${name}, type: ${info.mimeType}] (${allowedKey})`);
      }
      let staged;
      try {
        staged = await this.blobs.stage(file, maxBytes);
      } catch (err) {
        if (isApiError(err) && err.status === 413)
          throw new ApiError(413, `attachment too large: the limit is ${MAX_SIZE} MB (attachment.MAX_SIZE)`);
        throw err;
      }
      const sha = staged.hashes.sha256;
      return blobQueue.run(sha, async () => {
        try {
          await staged.commit();
          const row = {
            uuid: crypto.randomUUID(),
            repo_id: target.repoId,
            release_id: target.releaseId ?? 0,
            issue_id: target.issueId ?? 0,
            comment_id: target.commentId ?? 0,
            uploader_id: target.uploaderId,
            name,
            size: staged.size,
            hash_sha256: sha,
            download_count: 0,
            created_unix: nowUnix(),
          };
          await this.db('attachment').insert(row);
          return (await this.byUuid(row.uuid))!;
        } catch (err) {
          await staged.discard();
          await this.deleteBlobIfUnused(sha);
          throw err;
        }
      });
    };
    return new Promise<AttachmentRow>((resolve, reject) => {
      let settled = false;
      let pending: Promise<AttachmentRow> | null = null;
      let parser: busboy.Busboy;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        req.unpipe();
        req.resume(); // drain what the client still sends, so it reads our answer
        reject(err);
      };
      try {
        parser = busboy({ headers: req.headers, limits: { files: 1, fields: 20, fieldSize: 64 * 1024, parts: 40 } });
      } catch (err) {
        fail(ApiError.badRequest(`the body must be multipart/form-data with a file field "attachment": ${(err as Error).message}`));
        return;
      }
      parser.on('file', (field, file, info) => {
        if (field !== 'attachment' || pending) {
          file.resume();
          return;
        }
        pending = handle(file, info);
        pending.catch(fail);
      });
      parser.on('error', (err) => fail(ApiError.badRequest(`invalid multipart body: ${(err as Error).message}`)));
      parser.on('close', () => {
        if (!pending) fail(ApiError.badRequest('the multipart body has no file field "attachment"'));
        else {
          pending.then((row) => {
            if (settled) return;
            settled = true;
            resolve(row);
          }, fail);
        }
      });
      req.on('aborted', () => fail(ApiError.badRequest('the upload ended before its body was complete')));
      req.pipe(parser);
    });
  }

  /** Delete attachments (by row); their blobs go when nothing references them any more. */
  async remove(rows: AttachmentRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db('attachment')
      .whereIn(
        'id',
        rows.map((r) => r.id),
      )
      .delete();
    await this.deleteOrphanBlobs(rows.map((r) => r.hash_sha256));
  }

  async deleteOrphanBlobs(shas: string[]): Promise<void> {
    for (const sha of new Set(shas)) await blobQueue.run(sha, () => this.deleteBlobIfUnused(sha));
  }

  private async deleteBlobIfUnused(sha: string): Promise<void> {
    const [{ n }] = await this.db('attachment').where('hash_sha256', sha).count({ n: '*' });
    if (toNumber(n) === 0) await this.blobs.delete(sha);
  }

  async countDownload(row: AttachmentRow): Promise<void> {
    await this.db('attachment').where('id', row.id).increment('download_count', 1);
  }
}

/**
 * Delete the attachment rows of repositories (of their releases, issues and comments), inside the
 * caller's transaction (repository deletion, user purge). Returns the sha256 of the blobs that
 * lost a reference: hand them to `deleteOrphanAttachmentBlobs` once the transaction committed.
 */
export async function removeRepoAttachments(trx: Knex | Knex.Transaction, repoIds: number | number[]): Promise<string[]> {
  const ids = Array.isArray(repoIds) ? repoIds : [repoIds];
  if (ids.length === 0) return [];
  const shas = (await trx('attachment').whereIn('repo_id', ids).distinct('hash_sha256')).map((r: { hash_sha256: string }) => r.hash_sha256);
  await trx('attachment').whereIn('repo_id', ids).delete();
  return shas;
}

/**
 * The attachments' part of repository deletion (the core owns them, whichever feature they belong
 * to): rows go inside the deletion transaction, the blobs no attachment references any more once it committed.
 */
export function tapRepositoryLifecycle(hooks: KernelHooks, db: Knex, config: HearthConfig): void {
  hooks.repository.deleting.tapPromise('hearth:attachments', async ({ repositoryId, trx, afterCommit }) => {
    const shas = await removeRepoAttachments(trx, [repositoryId]);
    if (shas.length) afterCommit(() => deleteOrphanAttachmentBlobs(db, config, shas));
  });
}

/** After `removeRepoAttachments` committed: remove the blobs no attachment references any more. */
export async function deleteOrphanAttachmentBlobs(db: Knex, config: HearthConfig, shas: string[]): Promise<void> {
  await new AttachmentStore(db, config).deleteOrphanBlobs(shas);
}
