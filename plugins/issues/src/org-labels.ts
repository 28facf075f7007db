import type { Knex } from 'knex';

/**
 * Restrict a `label` query to the labels usable on issues of `repo`: its own labels and, when the
 * owner is an organization, the organization's labels (`repo_id` 0, `org_id` the owner). Users and
 * organizations share one id space, so a user-owned repository simply has no organization labels.
 * `prefix` qualifies the columns when `label` is joined under an alias.
 */
export function usableLabels<Q extends Knex.QueryBuilder>(q: Q, repo: { id: number; ownerId: number }, prefix = ''): Q {
  const c = (name: string) => (prefix ? `${prefix}.${name}` : name);
  return q.where((w) => {
    w.where(c('repo_id'), repo.id).orWhere((o) => o.where(c('repo_id'), 0).where(c('org_id'), repo.ownerId).where(c('org_id'), '>', 0));
  }) as Q;
}

/** Remove an organization's labels and take them off every issue (the organization is being deleted). */
export async function removeOrgLabels(trx: Knex | Knex.Transaction, orgId: number): Promise<void> {
  await trx('issue_label')
    .whereIn('label_id', trx('label').where({ org_id: orgId, repo_id: 0 }).select('id'))
    .delete();
  await trx('label').where({ org_id: orgId, repo_id: 0 }).delete();
}

/**
 * Take the labels of organization `orgId` off the issues of repository `repoId` (the repository
 * leaves the organization: they are not usable there any more).
 */
export async function dropOrgLabelsFromRepo(trx: Knex | Knex.Transaction, repoId: number, orgId: number): Promise<void> {
  await trx('issue_label')
    .whereIn('label_id', trx('label').where({ org_id: orgId, repo_id: 0 }).select('id'))
    .whereIn('issue_id', trx('issue').where('repo_id', repoId).select('id'))
    .delete();
}
