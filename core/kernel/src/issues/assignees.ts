import { ApiError } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import type { OpenedRepo } from './issue-context';
import { principalOf } from '../access/readable-repos';

/**
 * The user ids of an API request's `assignee` and `assignees` (Gitea's
 * MakeIDsFromAPIAssigneesToAdd: both combined, duplicates dropped, blanks ignored), in order.
 * Every name must be a user who can be assigned: write access to the repository's issues (or
 * pull requests) unit, as Gitea's CanBeAssigned; 422 otherwise.
 */
export async function resolveAssignees(deps: KernelServices, o: OpenedRepo, isPull: boolean, assignee: string | undefined, assignees: string[] | undefined): Promise<number[]> {
  const names = [...(assignee && assignee.trim() ? [assignee.trim()] : []), ...(assignees ?? []).map((n) => n.trim()).filter(Boolean)];
  const ids: number[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    const row = await deps.users.byName(name);
    if (!row || Number(row.type) !== 0) {
      throw ApiError.unprocessable(`user does not exist [name: ${name}]`, { errors: [{ field: 'assignees', message: `unknown user ${name}` }] });
    }
    const principal = principalOf(deps.users.toInfo(row));
    const unit = isPull ? 'pulls' : 'issues';
    const level = await deps.repos.access.unitPermission(o.r.repo, principal, unit, o.r.owner);
    if (!row.is_active || (level !== 'write' && level !== 'admin')) {
      throw ApiError.unprocessable(`user ${name} cannot be assigned: assignees need write access to the ${unit} of ${o.r.owner.name}/${o.r.repo.name}`, { errors: [{ field: 'assignees', message: `${name} has no write access` }] });
    }
    ids.push(row.id);
  }
  return ids;
}
