import type { Knex } from 'knex';
import { ApiError } from '@hearth/plugin-api';
import { toLabel, type LabelRow } from './issue-store';
import { usableLabels } from './org-labels';

/**
 * The labels a request names for an issue or pull request of `repo` — ids, or names as the label
 * routes also accept — resolved against the repository's own labels and its organization's. A
 * label of another repository or organization is unknown here: 422. In request order, without
 * duplicates.
 */
export async function resolveUsableLabels(
  db: Knex | Knex.Transaction,
  repo: { id: number; ownerId: number },
  refs: ReadonlyArray<number | string>,
): Promise<LabelRow[]> {
  if (refs.length === 0) return [];
  const byIdOnly = refs.every((ref) => typeof ref === 'number');
  const query = usableLabels(db('label'), repo);
  if (byIdOnly) query.whereIn('id', refs as number[]);
  const rows = (await query).map(toLabel);
  const out: LabelRow[] = [];
  for (const ref of refs) {
    const row =
      typeof ref === 'number'
        ? rows.find((l) => l.id === ref)
        : (rows.find((l) => l.name === ref) ?? (/^\d+$/.test(ref) ? rows.find((l) => l.id === Number(ref)) : undefined));
    if (!row)
      throw ApiError.unprocessable(`label does not exist in this repository [${typeof ref === 'number' ? 'id' : 'name'}: ${ref}]`, {
        errors: [{ field: 'labels', message: `unknown label ${ref}` }],
      });
    if (!out.some((l) => l.id === row.id)) out.push(row);
  }
  return out;
}

/** 422 unless `id` is a milestone of the repository (a closed one may still be assigned). */
export async function assertMilestoneOf(db: Knex | Knex.Transaction, repoId: number, id: number): Promise<void> {
  if (!(await db('milestone').where({ repo_id: repoId, id }).first('id'))) {
    throw ApiError.unprocessable(`milestone does not exist in this repository [id: ${id}]`, {
      errors: [{ field: 'milestone', message: `unknown milestone ${id}` }],
    });
  }
}
