import type { Knex } from 'knex';
import type { Principal } from '@hearth/plugin-api';

/**
 * The ids of the repositories a caller may read, as one SQL subquery, so lists (feeds,
 * notification threads, watched repositories) filter and count in the database. It states
 * RepoService's repository-wide rule (`RepoService.permission(...).pull`) in SQL:
 * - site admins: every repository (null is returned: no filter);
 * - anonymous callers and public-only tokens: public repositories whose owner is a user or a
 *   public organization;
 * - a signed-in user: their own repositories; nothing of a private organization they have no team
 *   in; otherwise public repositories, repositories they collaborate on, and repositories one of
 *   their teams covers (the Owners team, all repositories, or listed in team_repos) with a
 *   permission of at least read.
 * Unit-level narrowing (a team's units_map) is not applied here: lists show what the repository
 * rule allows, single items are checked with RepoService.
 */
export function readableRepoIds(db: Knex, principal: Principal | null): Knex.QueryBuilder | null {
  if (principal && principal.user.isAdmin && !principal.publicOnly) return null;
  const q = db('repositories as rr').join('users as ro', 'ro.id', 'rr.owner_id').select('rr.id');
  if (!principal || principal.publicOnly) {
    return q.where('rr.is_private', false).where((w) => w.where('ro.type', '<>', 1).orWhere('ro.visibility', 0));
  }
  const uid = principal.user.id;
  const inTeamOfOrg = (w: Knex.QueryBuilder) => w.select(db.raw('1')).from('team_users as tu0').whereRaw('tu0.org_id = ro.id').where('tu0.uid', uid);
  return q.where((outer) => {
    outer.where('rr.owner_id', uid).orWhere((w) => {
      w.whereNot((p) => p.where('ro.type', 1).where('ro.visibility', 2).whereNotExists(inTeamOfOrg))
        .where((any) => {
          any.where('rr.is_private', false)
            .orWhereExists((c) => c.select(db.raw('1')).from('collaborations as c0').whereRaw('c0.repo_id = rr.id').where('c0.user_id', uid).where('c0.mode', '>=', 1))
            .orWhereExists((t) => t.select(db.raw('1')).from('team_users as tu1')
              .join('teams as t1', 't1.id', 'tu1.team_id')
              .leftJoin('team_repos as tr1', (j) => j.on('tr1.team_id', '=', 't1.id').andOn('tr1.repo_id', '=', 'rr.id'))
              .where('tu1.uid', uid)
              .whereRaw('tu1.org_id = rr.owner_id')
              .where('t1.authorize', '>=', 1)
              .where((cov) => cov.where('t1.authorize', '>=', 4).orWhere('t1.includes_all_repositories', true).orWhereNotNull('tr1.id')));
        });
    });
  });
}

/** Restrict `query` to rows whose `column` names a repository the caller may read. */
export function whereReadable<Q extends Knex.QueryBuilder>(db: Knex, query: Q, column: string, principal: Principal | null): Q {
  const ids = readableRepoIds(db, principal);
  if (ids) query.whereIn(column, ids);
  return query;
}

/** A principal for a user acting as themselves (no token restrictions): used to check what a recipient may read. */
export function principalOf(user: Principal['user']): Principal {
  return { user, method: 'internal', scopes: null, publicOnly: false };
}
