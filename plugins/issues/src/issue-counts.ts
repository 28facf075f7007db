import type { Knex } from 'knex';
import type { RepositoryCounts } from '@hearth/plugin-api';

/**
 * The issues feature's part of the repository JSON: open issues and open pull requests, one
 * grouped count over the (repo_id, is_closed, index) index for a whole page of repositories.
 */
export function openIssueCounts(db: Knex) {
  return async (repoIds: readonly number[]): Promise<Map<number, RepositoryCounts>> => {
    const out = new Map<number, RepositoryCounts>(repoIds.map((id) => [id, { open_issues_count: 0, open_pr_counter: 0 }]));
    const rows = await db('issue')
      .whereIn('repo_id', repoIds)
      .where('is_closed', false)
      .groupBy('repo_id', 'is_pull')
      .select('repo_id', 'is_pull')
      .count({ n: '*' });
    for (const row of rows as Array<{ repo_id: unknown; is_pull: unknown; n: unknown }>) {
      const counts = out.get(Number(row.repo_id));
      if (!counts) continue;
      if (row.is_pull === true || Number(row.is_pull) === 1) counts.open_pr_counter += Number(row.n);
      else counts.open_issues_count += Number(row.n);
    }
    return out;
  };
}
