import crypto from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import { ApiError, contentDisposition, isApiError, stream, type KernelHooks, type Principal } from '@hearth/plugin-api';
import { createBlobStore, type BlobStore } from '../storage';
import { KeyedQueue } from '../db/retry';
import { grants } from '../auth/scopes';
import { send } from '../http/operations';
import { nowUnix, unixToIso } from '../users/models';
import type { HearthConfig } from '../config/types';
import type { KernelServices } from '../kernel-services';
import type { RepoService, ResolvedRepo } from '../repos/repo-service';
import type { RepoUnit } from '../repos/models';

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

const num = (v: unknown): number => Number(v ?? 0);

function toRow(raw: any): AttachmentRow {
  return { ...raw, id: num(raw.id), repo_id: num(raw.repo_id), release_id: num(raw.release_id), issue_id: num(raw.issue_id), comment_id: num(raw.comment_id), uploader_id: num(raw.uploader_id), size: num(raw.size), download_count: num(raw.download_count), created_unix: num(raw.created_unix) };
}

/** Serialises blob commit/insert and delete/count per sha256 in this process, so a blob never goes while a new reference is being added. */
const blobQueue = new KeyedQueue();

/** Gitea's `Attachment` object. */
export function attachmentToApi(config: HearthConfig, row: AttachmentRow): Record<string, unknown> {
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
  const entries = allowed.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
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
  const clean = base.replace(/[\x00-\x1f\x7f]/g, '').trim().slice(0, 255);
  if (!clean || clean === '.' || clean === '..') throw ApiError.unprocessable(`invalid attachment name [name: ${name}]`);
  return clean;
}

export class AttachmentStore {
  readonly blobs: BlobStore;
  readonly settings: AttachmentSettings;

  constructor(private readonly db: Knex, private readonly config: HearthConfig) {
    this.blobs = createBlobStore(config, 'attachments');
    this.settings = attachmentSettings(config);
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

  async byUuid(uuid: string): Promise<AttachmentRow | null> {
    const row = await this.db('attachment').where({ uuid }).first();
    return row ? toRow(row) : null;
  }

  async rename(row: AttachmentRow, name: string): Promise<AttachmentRow> {
    await this.db('attachment').where('id', row.id).update({ name: cleanFileName(name) });
    return toRow(await this.db('attachment').where('id', row.id).first());
  }

  /**
   * Read the `attachment` part of a multipart/form-data request, streamed through the limits
   * (type before the first byte, size while writing) into the blob store, and record it.
   * Nothing is stored when a limit refuses the file.
   */
  async upload(req: Request, target: { repoId: number; releaseId?: number; issueId?: number; commentId?: number; uploaderId: number; name?: string }): Promise<AttachmentRow> {
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
    const handle = async (file: Readable, info: busboy.FileInfo): Promise<AttachmentRow> => {
      const name = cleanFileName(target.name || info.filename || '');
      if (!isAllowedType(ALLOWED_TYPES, name, info.mimeType || 'application/octet-stream')) {
        file.resume();
        throw ApiError.unprocessable(`this file type is not allowed [name: ${name}, type: ${info.mimeType}] (attachment.ALLOWED_TYPES)`);
      }
      let staged;
      try {
        staged = await this.blobs.stage(file, maxBytes);
      } catch (err) {
        if (isApiError(err) && err.status === 413) throw new ApiError(413, `attachment too large: the limit is ${MAX_SIZE} MB (attachment.MAX_SIZE)`);
        throw err;
      }
      const sha = staged.hashes.sha256;
      return blobQueue.run(sha, async () => {
        try {
          await staged.commit();
          const row = { uuid: crypto.randomUUID(), repo_id: target.repoId, release_id: target.releaseId ?? 0, issue_id: target.issueId ?? 0, comment_id: target.commentId ?? 0, uploader_id: target.uploaderId, name, size: staged.size, hash_sha256: sha, download_count: 0, created_unix: nowUnix() };
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
    await this.db('attachment').whereIn('id', rows.map((r) => r.id)).delete();
    await this.deleteOrphanBlobs(rows.map((r) => r.hash_sha256));
  }

  async deleteOrphanBlobs(shas: string[]): Promise<void> {
    for (const sha of new Set(shas)) await blobQueue.run(sha, () => this.deleteBlobIfUnused(sha));
  }

  private async deleteBlobIfUnused(sha: string): Promise<void> {
    const [{ n }] = await this.db('attachment').where('hash_sha256', sha).count({ n: '*' });
    if (num(n) === 0) await this.blobs.delete(sha);
  }

  async countDownload(row: AttachmentRow): Promise<void> {
    await this.db('attachment').where('id', row.id).increment('download_count', 1);
  }
}

/**
 * Delete the releases and attachment rows of repositories, inside the caller's transaction
 * (repository deletion, user purge). Returns the sha256 of the attachment blobs that lost a
 * reference: hand them to `deleteOrphanAttachmentBlobs` once the transaction committed.
 */
export async function removeRepoReleases(trx: Knex | Knex.Transaction, repoIds: number | number[]): Promise<string[]> {
  const ids = Array.isArray(repoIds) ? repoIds : [repoIds];
  if (ids.length === 0) return [];
  const shas = (await trx('attachment').whereIn('repo_id', ids).distinct('hash_sha256')).map((r: { hash_sha256: string }) => r.hash_sha256);
  await trx('attachment').whereIn('repo_id', ids).delete();
  await trx('release').whereIn('repo_id', ids).delete();
  return shas;
}

/**
 * The releases feature's part of repository deletion: releases and attachment rows go inside the
 * deletion transaction, the blobs no attachment references any more once it committed.
 */
export function tapRepositoryLifecycle(hooks: KernelHooks, db: Knex, config: HearthConfig): void {
  hooks.repository.deleting.tapPromise('hearth:releases', async ({ repositoryId, trx, afterCommit }) => {
    const shas = await removeRepoReleases(trx, [repositoryId]);
    if (shas.length) afterCommit(() => deleteOrphanAttachmentBlobs(db, config, shas));
  });
}

/** After `removeRepoReleases` committed: remove the blobs no attachment references any more. */
export async function deleteOrphanAttachmentBlobs(db: Knex, config: HearthConfig, shas: string[]): Promise<void> {
  await new AttachmentStore(db, config).deleteOrphanBlobs(shas);
}

/** Whether the caller sees a repository's draft releases and their attachments: writers of the releases unit (Gitea's CanWrite(unit.TypeReleases)). */
export async function seesReleaseDrafts(repos: RepoService, r: ResolvedRepo, principal: Principal | null): Promise<boolean> {
  return ['write', 'admin'].includes(await repos.access.unitPermission(r.repo, principal, 'releases', r.owner));
}

export interface AttachmentRouterDeps extends Pick<KernelServices, 'db' | 'config' | 'repos'> {
  authenticate(req: Request): Promise<Principal | null>;
}

/**
 * The browser download of an attachment, `ROOT_URL attachments/{uuid}` (Gitea's
 * browser_download_url): the repository's read access, the releases unit, drafts only for
 * writers; streamed with Content-Length, a sanitised Content-Disposition and nosniff. Mount at '/'.
 */
export function attachmentsRouter(deps: AttachmentRouterDeps): Router {
  const store = new AttachmentStore(deps.db, deps.config);
  const router = express.Router();
  const missing = () => ApiError.notFound('attachment does not exist');
  const isTrue = (v: unknown) => v === true || v === 1 || v === '1';

  /** The attachment's repository for the caller, read access on `unit`; any refusal looks like a missing attachment (the uuid names no repository). */
  const readable = async (repoId: number, principal: Principal | null, unit: RepoUnit): Promise<ResolvedRepo> => {
    const repo = await deps.repos.byId(repoId);
    if (!repo) throw missing();
    return deps.repos.access.resolveRepo(repo.owner_name, repo.name, principal, 'read', unit).catch((err: unknown) => {
      throw isApiError(err) && err.status === 404 ? missing() : err;
    });
  };

  router.get('/attachments/:uuid', async (req: Request, res: Response) => {
    res.locals.route = 'site attachment';
    const principal = await deps.authenticate(req);
    if (principal && !grants(principal.scopes, 'repository', 'read')) {
      throw ApiError.forbidden('token does not have at least one of required scope(s): [read:repository]');
    }
    const uuid = String(req.params.uuid);
    const row = /^[0-9a-f-]{36}$/i.test(uuid) ? await store.byUuid(uuid.toLowerCase()) : null;
    if (!row) throw missing();
    if (row.release_id > 0) {
      const release = await deps.db('release').where({ id: row.release_id, repo_id: row.repo_id }).first('is_draft');
      if (!release) throw missing();
      const resolved = await readable(row.repo_id, principal, 'releases');
      if (isTrue(release.is_draft) && !(await seesReleaseDrafts(deps.repos, resolved, principal))) throw missing();
    } else {
      // An issue's or comment's attachment: readable with the issues (or pulls) of its repository.
      const issue = row.issue_id ? await deps.db('issue').where({ id: row.issue_id, repo_id: row.repo_id }).first('is_pull') : null;
      if (!issue) throw missing();
      await readable(row.repo_id, principal, isTrue(issue.is_pull) ? 'pulls' : 'issues');
    }
    const blob = await store.blobs.open(row.hash_sha256);
    await store.countDownload(row);
    await send(res, stream(200, 'application/octet-stream', blob.stream, {
      'Content-Length': String(blob.size),
      'Content-Disposition': contentDisposition(row.name),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, max-age=300',
    }));
  });
  return router;
}
