import { ok, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { userOf } from '../users/user-routes';
import { actsAsAdmin } from '../access/policy';
import type { OrgDeps } from './org-deps';
import { orgService } from './org-service';
import { list, str, strs } from './org-schemas';
import { orgViews } from './org-views';

/** A user's organizations and their permissions in one (section category: organization). */
export function userOrgOperations(deps: OrgDeps): ApiOperation[] {
  const { repos } = deps;
  const { orgPage } = orgViews(deps);
  const orgs = orgService(deps);

  return [
    {
      method: 'get',
      path: '/user/orgs',
      operationId: 'orgListCurrentUserOrgs',
      tag: 'organization',
      summary: "List the current user's organizations",
      scopes: ['user', 'organization'],
      access: 'caller',
      auth: 'required',
      paged: true,
      responses: { 200: list('Organization') },
      handler: async (req) => orgPage(req, orgs.memberOrgs(req.principal!.user.id, req.principal, true)),
    },
    {
      method: 'get',
      path: '/users/{username}/orgs',
      operationId: 'orgListUserOrgs',
      tag: 'organization',
      summary: "List a user's organizations",
      scopes: ['user', 'organization'],
      access: { user: 'visible' },
      auth: 'required',
      params: str('username'),
      paged: true,
      responses: { 200: list('Organization') },
      handler: async (req: ApiRequest<unknown, unknown, { username: string }>) => {
        const user = userOf(req);
        const p = req.principal!;
        return orgPage(req, orgs.memberOrgs(user.id, p, actsAsAdmin(p) || (!p.publicOnly && p.user.id === user.id)));
      },
    },
    {
      method: 'get',
      path: '/users/{username}/orgs/{org}/permissions',
      operationId: 'orgGetUserPermissions',
      tag: 'organization',
      summary: "Get a user's permissions in an organization",
      scopes: ['user', 'organization'],
      access: { user: 'visible' },
      auth: 'required',
      params: strs('username', 'org'),
      responses: { 200: 'OrganizationPermissions' },
      handler: async (req: ApiRequest<unknown, unknown, { username: string; org: string }>) => {
        const user = userOf(req);
        const org = await repos.access.resolveOrg(req.params.org, req.principal, 'visible');
        return ok(await orgs.permissions(org, user));
      },
    },
  ];
}
