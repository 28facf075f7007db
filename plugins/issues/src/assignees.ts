import { ApiError, principalOf, type PluginContext, type RepositoryTarget } from '@hearth/plugin-api';

/**
 * The user ids of an API request's `assignee` and `assignees` (Gitea's
 * MakeIDsFromAPIAssigneesToAdd: both combined, duplicates dropped, blanks ignored), in order.
 * Every name must be a user who can be assigned: write access to the repository's issues (or
 * pull requests) unit, as Gitea's CanBeAssigned; 422 otherwise.
 */
export async function resolveAssignees(
  deps: Pick<PluginContext, 'users' | 'access'>,
  r: RepositoryTarget,
  isPull: boolean,
  assignee: string | undefined,
  assignees: string[] | undefined,
): Promise<number[]> {
  const names = [...(assignee && assignee.trim() ? [assignee.trim()] : []), ...(assignees ?? []).map((n) => n.trim()).filter(Boolean)];
  const ids: number[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    const user = await deps.users.byName(name);
    if (!user || user.type !== 0) {
      throw ApiError.unprocessable(`user does not exist [name: ${name}]`, {
        errors: [{ field: 'assignees', message: `unknown user ${name}` }],
      });
    }
    const unit = isPull ? 'pulls' : 'issues';
    const level = await deps.access.unitLevel(r, principalOf(user), unit);
    if (!user.isActive || (level !== 'write' && level !== 'admin')) {
      throw ApiError.unprocessable(
        `user ${name} cannot be assigned: assignees need write access to the ${unit} of ${r.owner.name}/${r.name}`,
        { errors: [{ field: 'assignees', message: `${name} has no write access` }] },
      );
    }
    ids.push(user.id);
  }
  return ids;
}
