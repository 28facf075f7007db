import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import type { UserRow } from '../users/models';
import { whereProfileVisible } from '../access/visible-profiles';
import { ownerOf } from '../access/operation-access';
import { readableRepoIds } from '../access/readable-repos';
import { collaboratorOperations } from './collaborator-routes';
import { assigneeOperations } from './assignees';
import { memberOperations } from './member-routes';
import type { OrgDeps } from './org-deps';
import { orgService } from './org-service';
import { list, str } from './org-schemas';
import { createOrg, updateOrg, type CreateOrgInput, type EditOrgInput } from './org-store';
import { orgViews } from './org-views';
import { teamMemberOperations } from './team-member-routes';
import { teamRepoOperations } from './team-repo-routes';
import { teamListingOperations, teamOperations } from './team-routes';
import { userOrgOperations } from './user-org-routes';

/** Organizations, members, teams and collaborators (section category: organization; collaborators: repository). */
export function orgOperations(deps: OrgDeps): ApiOperation[] {
  return [
    ...organizationOperations(deps),
    ...memberOperations(deps),
    ...userOrgOperations(deps),
    ...teamOperations(deps),
    ...teamMemberOperations(deps),
    ...teamRepoOperations(deps),
    ...teamListingOperations(deps),
    ...collaboratorOperations(deps),
    ...assigneeOperations(deps),
  ];
}

/** Organizations themselves: creating (by users and site admins), listing, reading, editing, deleting; and their repositories. */
export function organizationOperations(deps: OrgDeps): ApiOperation[] {
  const { db, users, repos } = deps;
  const { orgJson, orgPage, repoPage } = orgViews(deps);
  const orgs = orgService(deps);

  const createOrgFor = async (req: ApiRequest<CreateOrgInput>, owner: UserRow) => {
    const org = await createOrg(db, req.body, owner.id);
    return created(await orgJson(org));
  };

  return [
    {
      method: 'post',
      path: '/orgs',
      operationId: 'orgCreate',
      tag: 'organization',
      summary: 'Create an organization',
      scopes: ['organization'],
      access: 'caller',
      auth: 'required',
      body: 'CreateOrgOption',
      bodyRequired: true,
      responses: { 201: 'Organization', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateOrgInput>) => {
        const me = (await users.rowOf(req.principal!))!;
        if (!me.is_admin && (!me.allow_create_organization || me.is_restricted))
          throw ApiError.forbidden('you may not create organizations');
        return createOrgFor(req, me);
      },
    },
    {
      method: 'get',
      path: '/orgs',
      operationId: 'orgGetAll',
      tag: 'organization',
      summary: 'Get list of organizations',
      scopes: ['organization'],
      access: 'anyone',
      paged: true,
      responses: { 200: list('Organization') },
      handler: async (req) => orgPage(req, whereProfileVisible(users.query().where('users.type', 1), req.principal)),
    },
    {
      method: 'get',
      path: '/admin/orgs',
      operationId: 'adminGetAllOrgs',
      tag: 'admin',
      summary: 'List all organizations',
      scopes: ['admin'],
      access: 'site-admin',
      auth: 'siteAdmin',
      paged: true,
      responses: { 200: list('Organization') },
      handler: async (req) => orgPage(req, users.query().where('type', 1)),
    },
    {
      method: 'post',
      path: '/admin/users/{username}/orgs',
      operationId: 'adminCreateOrg',
      tag: 'admin',
      summary: 'Create an organization',
      scopes: ['admin'],
      access: 'site-admin',
      auth: 'siteAdmin',
      params: str('username'),
      body: 'CreateOrgOption',
      bodyRequired: true,
      responses: { 201: 'Organization', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateOrgInput, unknown, { username: string }>) =>
        createOrgFor(req, await users.require(req.params.username)),
    },
    {
      method: 'get',
      path: '/orgs/{org}',
      operationId: 'orgGet',
      tag: 'organization',
      summary: 'Get an organization',
      scopes: ['organization'],
      access: { org: 'visible' },
      params: str('org'),
      responses: { 200: 'Organization', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => ok(await orgJson(ownerOf(req))),
    },
    {
      method: 'patch',
      path: '/orgs/{org}',
      operationId: 'orgEdit',
      tag: 'organization',
      summary: 'Edit an organization',
      scopes: ['organization'],
      access: { org: 'owner' },
      auth: 'required',
      params: str('org'),
      body: 'EditOrgOption',
      bodyRequired: true,
      responses: { 200: 'Organization' },
      handler: async (req: ApiRequest<EditOrgInput, unknown, { org: string }>) => {
        const org = ownerOf(req);
        await updateOrg(db, org.id, req.body);
        return ok(await orgJson((await users.byId(org.id))!));
      },
    },
    {
      method: 'delete',
      path: '/orgs/{org}',
      operationId: 'orgDelete',
      tag: 'organization',
      summary: 'Delete an organization',
      scopes: ['organization'],
      access: { org: 'owner' },
      auth: 'required',
      params: str('org'),
      responses: { 204: 'deleted', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        await orgs.deleteOrg(ownerOf(req), req.principal!.user);
        return noContent();
      },
    },
    {
      method: 'get',
      path: '/orgs/{org}/repos',
      operationId: 'orgListRepos',
      tag: 'organization',
      summary: "List an organization's repos",
      scopes: ['organization'],
      access: { org: 'visible' },
      params: str('org'),
      paged: true,
      responses: { 200: list('Repository') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        let q = repos.query().where('owner_id', org.id);
        const readable = readableRepoIds(db, req.principal);
        if (readable) q = q.whereIn('id', readable);
        return repoPage(req, q);
      },
    },
  ];
}
