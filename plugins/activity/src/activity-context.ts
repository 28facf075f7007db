import type { Knex } from 'knex';
import type { PluginContext, Principal, RepositoryInfo } from '@hearth/plugin-api';
import type { IssuesService } from '@hearth/plugin-issues';

/** The plugin context with the issues service when the issues feature is enabled (notifications are about issues). */
export type ActivityDeps = PluginContext & { issues: IssuesService | undefined };

export const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });

/** Repositories by id whose owners exist, for JSON of many rows pointing at few repositories. */
export async function loadRepos(deps: ActivityDeps, ids: number[]): Promise<Map<number, RepositoryInfo>> {
  const out = new Map<number, RepositoryInfo>();
  const found = await deps.repositories.byIds([...new Set(ids)]);
  for (const [id, repo] of found) if (await deps.users.byId(repo.ownerId)) out.set(id, repo);
  return out;
}

/** Restrict `query` to rows whose `column` names a repository the caller may read. */
export function whereReadable<Q extends Knex.QueryBuilder>(deps: ActivityDeps, query: Q, column: string, principal: Principal | null): Q {
  const ids = deps.access.readableRepositoryIds(principal);
  if (ids) query.whereIn(column, ids);
  return query;
}
