import type { Knex } from 'knex';

/**
 * A plugin's own table with one row per stored package file (columns `id`, `owner_id`,
 * `version_id` at least): what the format's indexes are built from, kept in step with the
 * framework's package tables (remove a file's row with the file, a version's rows with the
 * version, an owner's rows with the owner). `stamp` fingerprints the rows an index covers, for
 * a StampedCache.
 */
export class PackageFileTable<Row extends { id: number }> {
  constructor(
    protected readonly db: Knex,
    readonly table: string,
  ) {}

  /** Count and highest id of the rows `query` selects: every insert raises the id, every delete lowers the count. */
  protected async stamp(query: Knex.QueryBuilder): Promise<string> {
    const row = (await query.clone().count({ n: '*' }).max({ m: 'id' }).first()) as { n: number | string; m: number | string | null };
    return `${row.n}:${row.m ?? 0}`;
  }

  async insert(row: Omit<Row, 'id'>): Promise<void> {
    await this.db(this.table).insert(row);
  }

  /**
   * Insert the row that makes a just-stored package file visible; when that fails, `undo` (delete
   * the stored file: without its row it would never be indexed) and rethrow.
   */
  async insertOrUndo(row: Omit<Row, 'id'>, undo: () => Promise<unknown>): Promise<void> {
    try {
      await this.insert(row);
    } catch (err) {
      await undo().catch(() => undefined);
      throw err;
    }
  }

  async removeFile(id: number): Promise<void> {
    await this.db(this.table).where({ id }).delete();
  }

  async removeVersion(versionId: number): Promise<void> {
    await this.db(this.table).where({ version_id: versionId }).delete();
  }

  /** In the owner deletion's transaction (`user.deleting`). */
  async removeOwner(ownerId: number, trx: Knex | Knex.Transaction): Promise<void> {
    await trx(this.table).where({ owner_id: ownerId }).delete();
  }
}
