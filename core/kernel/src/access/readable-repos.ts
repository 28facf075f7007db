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
  if (!principal || principal.publicOnly) {
    return db('repositories as rr')
      .join('users as ro', 'ro.id', 'rr.owner_id')
      .select('rr.id')
      .where('rr.is_private', false)
      .where('ro.visibility', VISIBILITY.public);
  }
  const uid = principal.user.id;
  // A UNION of branches that each start from an index (owner, collaboration, team seat), rather than
  // one OR of correlated EXISTS: the OR makes the databases scan every repository.
  const branches: Knex.QueryBuilder[] = [
    db('collaborations as c0').select('c0.repo_id as id').where('c0.user_id', uid).where('c0.mode', '>=', 1),
    db('team_users as tu1')
      .join('teams as t1', 't1.id', 'tu1.team_id')
      .join('team_repos as tr1', 'tr1.team_id', 't1.id')
      .select('tr1.repo_id as id')
      .where('tu1.uid', uid)
      .where('t1.authorize', '>=', 1),
    db('team_users as tu2')
      .join('teams as t2', 't2.id', 'tu2.team_id')
      .join('repositories as r2', 'r2.owner_id', 'tu2.org_id')
      .select('r2.id as id')
      .where('tu2.uid', uid)
      .where('t2.authorize', '>=', 1)
      .where((all) => all.where('t2.authorize', '>=', OWNER_MODE).orWhere('t2.includes_all_repositories', true)),
  ];
  if (!principal.user.isRestricted) {
    branches.push(
      db('repositories as r3')
        .join('users as o3', 'o3.id', 'r3.owner_id')
        .select('r3.id as id')
        .where('r3.is_private', false)
        .whereIn('o3.visibility', [VISIBILITY.public, VISIBILITY.limited]),
      db('org_users as ou')
        .join('repositories as r4', 'r4.owner_id', 'ou.org_id')
        .select('r4.id as id')
        .where('ou.uid', uid)
        .where('r4.is_private', false),
    );
  }
  return db('repositories as rr').select('rr.id as id').where('rr.owner_id', uid).union(branches);
}

/** Restrict `query` to rows whose `column` names a repository the caller may read. */
export function whereReadable<Q extends Knex.QueryBuilder>(db: Knex, query: Q, column: string, principal: Principal | null): Q {
  const ids = readableRepoIds(db, principal);
  if (ids) query.whereIn(column, ids);
  return query;
}

export { principalOf } from '@hearth/plugin-api';
