import type { QueryBuilder } from 'objection';
import type { Principal } from '@hearth/plugin-api';
import { VISIBILITY, type UserRow } from '../users/models';
import { actsAsAdmin } from './policy';

/**
 * Restrict a query of users and organizations to the profiles the caller may see, for lists:
 * AccessPolicy.profileVisible (ownerVisible for organizations) stated in SQL. Site admins see
 * everyone; anonymous callers and public-only tokens public ones; others themselves, the
 * organizations they belong to and — unless restricted, who see only public users — public and
 * limited profiles and the private users they share an organization with.
 */
export function whereProfileVisible<Q extends QueryBuilder<UserRow, UserRow[]>>(query: Q, principal: Principal | null): Q {
  if (actsAsAdmin(principal)) return query;
  if (!principal || principal.publicOnly) return query.where('users.visibility', VISIBILITY.public);
  const { id: uid, isRestricted } = principal.user;
  return query.where((visible) => {
    visible
      .where('users.id', uid)
      .orWhere((org) =>
        org
          .where('users.type', 1)
          .whereExists((m) => m.select('om.id').from('org_users as om').whereRaw('om.org_id = users.id').where('om.uid', uid)),
      );
    if (isRestricted) {
      visible.orWhere((pub) => pub.where('users.type', 0).where('users.visibility', VISIBILITY.public));
    } else {
      visible
        .orWhereIn('users.visibility', [VISIBILITY.public, VISIBILITY.limited])
        .orWhere((shared) =>
          shared
            .where('users.type', 0)
            .whereExists((m) =>
              m
                .select('su.id')
                .from('org_users as su')
                .join('org_users as sm', 'sm.org_id', 'su.org_id')
                .whereRaw('su.uid = users.id')
                .where('sm.uid', uid),
            ),
        );
    }
  });
}
