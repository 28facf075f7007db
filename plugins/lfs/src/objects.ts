import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { ApiError, KeyedQueue, isApiError, isUniqueViolation, nowUnix, type BlobStorage, type ByteRange } from '@hearth/plugin-api';
import { META, type MetaRow } from './tables';

/** An LFS object id: a sha256, lower-case hex. Anything else never reaches storage or a path. */
export const OID = /^[0-9a-f]{64}$/;

export interface ObjectRef {
  oid: string;
  size: number;
}

/**
 * LFS objects: blobs in the plugin's blob area named by their oid (shared by every repository
 * and fork that holds them), and meta rows saying which repository holds which. A blob goes when
 * the last row naming it goes. Uploads and removals of one oid run one after the other (in this
 * process), so a removal never deletes a blob an upload has just claimed.
 */
export class LfsObjects {
  private readonly perOid = new KeyedQueue();

  constructor(
    private readonly db: Knex,
    readonly blobs: BlobStorage,
  ) {}

  /** The meta rows of `oids` in a repository, by oid. */
  async metaOf(repositoryId: number, oids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < oids.length; i += 500) {
      const rows: MetaRow[] = await this.db(META)
        .where('repository_id', repositoryId)
        .whereIn('oid', oids.slice(i, i + 500));
      for (const row of rows) out.set(row.oid, Number(row.size));
    }
    return out;
  }

  /** One object of a repository whose bytes are stored, or null. */
  async stored(repositoryId: number, oid: string): Promise<ObjectRef | null> {
    if (!OID.test(oid)) return null;
    const size = (await this.metaOf(repositoryId, [oid])).get(oid);
    if (size === undefined || !(await this.blobs.exists(oid))) return null;
    return { oid, size };
  }

  /**
   * Store an upload: streamed to a temporary file while hashed, then kept only when its sha256
   * and size are what the client announced (422 otherwise, and nothing is stored).
   */
  async upload(repositoryId: number, expected: ObjectRef, body: Readable): Promise<void> {
    const staged = await this.blobs.stage(body, expected.size).catch((err: unknown) => {
      if (isApiError(err) && err.status === 413) throw ApiError.unprocessable(`the upload is larger than its size ${expected.size}`);
      throw err;
    });
    try {
      if (staged.size !== expected.size) throw ApiError.unprocessable(`the upload has ${staged.size} bytes, not its size ${expected.size}`);
      if (staged.sha256 !== expected.oid)
        throw ApiError.unprocessable(`the upload's sha256 is ${staged.sha256}, not its oid ${expected.oid}`);
      await this.perOid.run(expected.oid, async () => {
        await staged.commit();
        await this.claim(repositoryId, expected);
      });
    } finally {
      await staged.discard();
    }
  }

  /** Record that a repository holds an object (idempotent). */
  private async claim(repositoryId: number, object: ObjectRef): Promise<void> {
    try {
      await this.db(META).insert({ repository_id: repositoryId, oid: object.oid, size: object.size, created_unix: nowUnix() });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }

  /** The bytes of a stored object (a range of them). */
  open(oid: string, range?: ByteRange) {
    return this.blobs.open(oid, range);
  }

  /** A fork holds what its source holds: the rows are copied, the blobs shared. */
  async copy(fromRepositoryId: number, toRepositoryId: number): Promise<number> {
    const rows: MetaRow[] = await this.db(META).where('repository_id', fromRepositoryId);
    const now = nowUnix();
    for (let i = 0; i < rows.length; i += 200) {
      const batch = rows.slice(i, i + 200).map((r) => ({ repository_id: toRepositoryId, oid: r.oid, size: r.size, created_unix: now }));
      await this.db(META).insert(batch);
    }
    return rows.length;
  }

  /** Inside a repository's deletion: drop its rows; returns the oids whose blobs may now be unreferenced. */
  async forget(trx: Knex.Transaction, repositoryId: number): Promise<string[]> {
    const oids = (await trx(META).where('repository_id', repositoryId).select('oid')).map((r: { oid: string }) => r.oid);
    await trx(META).where('repository_id', repositoryId).delete();
    return oids;
  }

  /** After the deletion committed: remove the blobs no repository holds any more. */
  async removeUnreferenced(oids: readonly string[]): Promise<void> {
    for (const oid of oids) {
      await this.perOid.run(oid, async () => {
        if (!(await this.db(META).where('oid', oid).first('id'))) await this.blobs.delete(oid);
      });
    }
  }

  /** The LFS bytes of each repository, for the repository's `size` (KiB). */
  async sizes(repositoryIds: readonly number[]): Promise<Map<number, { size: number }>> {
    const rows: Array<{ repository_id: number; total: number | string | null }> = await this.db(META)
      .whereIn('repository_id', repositoryIds)
      .groupBy('repository_id')
      .select('repository_id')
      .sum({ total: 'size' });
    return new Map(rows.map((r) => [Number(r.repository_id), { size: Math.floor(Number(r.total ?? 0) / 1024) }]));
  }
}
