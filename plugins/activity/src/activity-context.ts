import type { Knex } from 'knex';
import type { PluginContext, Principal } from '@hearth/plugin-api';
import type { IssuesService } from '@hearth/plugin-issues';

/** The plugin context with the issues service when the issues feature is enabled (notifications are about issues). */
export type ActivityDeps = PluginContext & { issues: IssuesService | undefined };

export const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });

/** The Repository JSON of repositories by id whose owners exist, for many rows pointing at few repositories. */
export async function repositoryJsons(
  deps: ActivityDeps,
  ids: number[],
  viewer: Principal | null,
): Promise<Map<number, Record<string, unknown>>> {
  const found = [...(await deps.repositories.byIds([...new Set(ids)])).values()];
  const ownerIds = [...new Set(found.map((repo) => repo.ownerId))];
  const owners = new Set<number>();
  for (const id of ownerIds) if (await deps.users.byId(id)) owners.add(id);
  const kept = found.filter((repo) => owners.has(repo.ownerId));
  // One batch for the page (owners, counts, permissions), not a lookup per repository.
  const jsons = await deps.repositories.toApiPage(kept, viewer);
  return new Map(kept.map((repo, i) => [repo.id, jsons[i]]));
}

/** Restrict `query` to rows whose `column` names a repository the caller may read. */
export function whereReadable<Q extends Knex.QueryBuilder>(deps: ActivityDeps, query: Q, column: string, principal: Principal | null): Q {
  const ids = deps.access.readableRepositoryIds(principal);
  if (ids) query.whereIn(column, ids);
  return query;
}
