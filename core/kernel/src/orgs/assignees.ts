import { ok, principalOf, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { repoOf } from '../access/operation-access';
import type { UserRow } from '../users/models';
import type { OrgDeps } from './org-deps';
import { list, strs } from './org-schemas';

/**
 * The users who may be assigned to a repository's issues or pull requests (Gitea's
 * GetRepoAssignees): collaborators and organization team members with write access to the issues
 * or pull requests unit, sorted by name, then the owner when it is a user. Inactive accounts are
 * left out, as they cannot be assigned (the issues feature refuses them).
 */
async function assignableUsers(deps: OrgDeps, req: ApiRequest<any, any, any>): Promise<UserRow[]> {
  const { db, users, repos } = deps;
  const { repo, owner } = repoOf(req);
  const candidateIds = db
    .select('user_id as id')
    .from('collaborations')
    .where('repo_id', repo.id)
    .union((u) =>
      u
        .select('tu.uid as id')
        .from('team_users as tu')
        .join('teams as t', 't.id', 'tu.team_id')
        .where('t.org_id', owner.id)
        .where((w) =>
          w
            .where('t.includes_all_repositories', true)
            .orWhereExists((e) => e.select('tr.id').from('team_repos as tr').whereRaw('tr.team_id = t.id').where('tr.repo_id', repo.id)),
        ),
    );
  const candidates = await users.query().whereIn('id', candidateIds).where('type', 0).where('is_active', true).orderBy('lower_name');
  const out: UserRow[] = [];
  for (const row of candidates) {
    if (row.id === owner.id) continue;
    const principal = principalOf(users.toInfo(row));
    const levels = await Promise.all([
      repos.access.unitPermission(repo, principal, 'issues', owner),
      repos.access.unitPermission(repo, principal, 'pulls', owner),
    ]);
    if (levels.some((l) => l === 'write' || l === 'admin')) out.push(row);
  }
  if (owner.type === 0 && owner.is_active) out.push(owner);
  return out;
}

export function assigneeOperations(deps: OrgDeps): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/assignees',
      operationId: 'repoGetAssignees',
      tag: 'repository',
      summary: 'Return all users that have write access and can be assigned to issues',
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      // As Gitea 1.20 (reqToken): signed-in callers only.
      auth: 'required',
      params: strs('owner', 'repo'),
      responses: { 200: list('User'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) =>
        ok((await assignableUsers(deps, req)).map((u) => deps.users.toApi(u, req.principal))),
    },
  ];
}
