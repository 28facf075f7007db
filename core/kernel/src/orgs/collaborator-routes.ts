import { ApiError, noContent, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { repoOf } from '../access/operation-access';
import { collaboratorService } from './collaborator-service';
import type { OrgDeps } from './org-deps';
import { list, strs } from './org-schemas';
import { orgViews } from './org-views';

type CollaboratorParams = { owner: string; repo: string; collaborator: string };

/** A repository's collaborators and a user's permissions to it (section category: repository). */
export function collaboratorOperations(deps: OrgDeps): ApiOperation[] {
  const { users } = deps;
  const { userPage } = orgViews(deps);
  const collaborators = collaboratorService(deps);

  return [
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/collaborators',
      operationId: 'repoListCollaborators',
      tag: 'repository',
      summary: "List a repository's collaborators",
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: strs('owner', 'repo'),
      paged: true,
      responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { owner: string; repo: string }>) => {
        const { repo } = repoOf(req);
        return userPage(
          req,
          users.query().whereIn('users.id', (s) => s.select('user_id').from('collaborations').where('repo_id', repo.id)),
        );
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/collaborators/{collaborator}',
      operationId: 'repoCheckCollaborator',
      tag: 'repository',
      summary: 'Check if a user is a collaborator of a repository',
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      params: strs('owner', 'repo', 'collaborator'),
      responses: { 204: 'user is a collaborator', 404: 'user is not a collaborator', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, CollaboratorParams>) => {
        const { repo } = repoOf(req);
        const user = await collaborators.collaboratorUser(req.params.collaborator);
        if (!(await collaborators.isCollaborator(repo, user))) throw ApiError.notFound('user is not a collaborator');
        return noContent();
      },
    },
    {
      method: 'put',
      path: '/repos/{owner}/{repo}/collaborators/{collaborator}',
      operationId: 'repoAddCollaborator',
      tag: 'repository',
      summary: 'Add a collaborator to a repository',
      scopes: ['repository'],
      access: { repo: { need: 'admin' } },
      auth: 'required',
      params: strs('owner', 'repo', 'collaborator'),
      body: 'AddCollaboratorOption',
      responses: { 204: 'added', 422: 'APIError' },
      handler: async (req: ApiRequest<{ permission?: 'read' | 'write' | 'admin' } | undefined, unknown, CollaboratorParams>) => {
        const { repo } = repoOf(req);
        const user = await collaborators.collaboratorUser(req.params.collaborator);
        await collaborators.setCollaborator(repo, user, req.body?.permission);
        return noContent();
      },
    },
    {
      method: 'delete',
      path: '/repos/{owner}/{repo}/collaborators/{collaborator}',
      operationId: 'repoDeleteCollaborator',
      tag: 'repository',
      summary: 'Remove a collaborator from a repository',
      scopes: ['repository'],
      access: { repo: { need: 'admin' } },
      auth: 'required',
      params: strs('owner', 'repo', 'collaborator'),
      responses: { 204: 'removed', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, CollaboratorParams>) => {
        const { repo } = repoOf(req);
        await collaborators.removeCollaborator(repo, await collaborators.collaboratorUser(req.params.collaborator));
        return noContent();
      },
    },
    {
      method: 'get',
      path: '/repos/{owner}/{repo}/collaborators/{collaborator}/permission',
      operationId: 'repoGetRepoPermissions',
      tag: 'repository',
      summary: 'Get repository permissions for a user',
      scopes: ['repository'],
      access: { repo: { need: 'read' } },
      auth: 'required',
      params: strs('owner', 'repo', 'collaborator'),
      responses: { 200: 'RepoCollaboratorPermission', 403: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, CollaboratorParams>) => {
        const resolved = repoOf(req);
        const user = await collaborators.collaboratorUser(req.params.collaborator, (message) => ApiError.notFound(message));
        return ok(await collaborators.permissionOf(resolved, user, req.principal!));
      },
    },
  ];
}
