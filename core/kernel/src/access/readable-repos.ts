import type { Knex } from 'knex';
import type { Principal } from '@hearth/plugin-api';
import { VISIBILITY } from '../users/models';
import { OWNER_MODE, actsAsAdmin } from './policy';

/**
 * The ids of the repositories a caller may read, as one SQL subquery, so that every list (search,
 * a user's or organization's repositories, stars, watches, feeds, notifications, issue search,
 * topics) filters and counts in the database. It is AccessPolicy's repository rule stated in SQL,
 * and the permission matrix test checks the two agree:
 * - site admins: every repository (null: no filter);
 * - anonymous callers and public-only tokens: public repositories of public owners;
 * - a signed-in user: their own; those they collaborate on; those one of their teams covers (the
 *   Owners team, all repositories, or listed in team_repos); and, unless they are restricted,
 *   public repositories of owners they may see (public or limited owners, organizations they belong to).
 * Unit-level narrowing (a team's units_map) is not applied: lists show what the repository rule allows.
 */
export function readableRepoIds(db: Knex, principal: Principal | null): Knex.QueryBuilder | null {
  if (actsAsAdmin(principal)) return null;
  const q = db('repositories as rr').join('users as ro', 'ro.id', 'rr.owner_id').select('rr.id');
  if (!principal || principal.publicOnly) return q.where('rr.is_private', false).where('ro.visibility', VISIBILITY.public);
  const uid = principal.user.id;
  const restricted = principal.user.isRestricted;
  return q.where((any) => {
    any.where('rr.owner_id', uid)
      .orWhereExists((c) => c.select(db.raw('1')).from('collaborations as c0').whereRaw('c0.repo_id = rr.id').where('c0.user_id', uid).where('c0.mode', '>=', 1))
      .orWhereExists((t) => t.select(db.raw('1')).from('team_users as tu1')
        .join('teams as t1', 't1.id', 'tu1.team_id')
        .leftJoin('team_repos as tr1', (j) => j.on('tr1.team_id', '=', 't1.id').andOn('tr1.repo_id', '=', 'rr.id'))
        .where('tu1.uid', uid)
        .whereRaw('tu1.org_id = rr.owner_id')
        .where('t1.authorize', '>=', 1)
        .where((cov) => cov.where('t1.authorize', '>=', OWNER_MODE).orWhere('t1.includes_all_repositories', true).orWhereNotNull('tr1.id')));
    if (!restricted) {
      any.orWhere((pub) => pub.where('rr.is_private', false).where((visible) => visible
        .whereIn('ro.visibility', [VISIBILITY.public, VISIBILITY.limited])
        .orWhereExists((m) => m.select(db.raw('1')).from('org_users as ou').whereRaw('ou.org_id = ro.id').where('ou.uid', uid))));
    }
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
