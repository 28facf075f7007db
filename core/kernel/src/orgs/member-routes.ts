import { ApiError, noContent, type ApiOperation, type ApiRequest } from '@hearth/plugin-api';
import { ownerOf } from '../access/operation-access';
import type { OrgDeps } from './org-deps';
import { orgService } from './org-service';
import { list, str, strs } from './org-schemas';
import { removeOrgMember } from './org-store';
import { orgViews } from './org-views';

/** An organization's members and public members (concealed memberships are seen by members and site admins). */
export function memberOperations(deps: OrgDeps): ApiOperation[] {
  const { db, users } = deps;
  const { userPage } = orgViews(deps);
  const orgs = orgService(deps);

  return [
    {
      method: 'get',
      path: '/orgs/{org}/members',
      operationId: 'orgListMembers',
      tag: 'organization',
      summary: "List an organization's members",
      scopes: ['organization'],
      access: { org: 'visible' },
      params: str('org'),
      paged: true,
      responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => {
        const org = ownerOf(req);
        return userPage(req, orgs.members(org.id, await orgs.seesConcealedMembers(org, req.principal)));
      },
    },
    {
      method: 'get',
      path: '/orgs/{org}/members/{username}',
      operationId: 'orgIsMember',
      tag: 'organization',
      summary: 'Check if a user is a member of an organization',
      scopes: ['organization'],
      access: { org: 'visible' },
      params: strs('org', 'username'),
      responses: { 204: 'user is a member', 404: 'user is not a member' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        const row = await db('org_users').where({ org_id: org.id, uid: user.id }).first('is_public');
        if (!row || (!row.is_public && !(await orgs.seesConcealedMembers(org, req.principal))))
          throw ApiError.notFound('user is not a member of the organization');
        return noContent();
      },
    },
    {
      method: 'delete',
      path: '/orgs/{org}/members/{username}',
      operationId: 'orgDeleteMember',
      tag: 'organization',
      summary: 'Remove a member from an organization',
      scopes: ['organization'],
      access: { org: 'owner' },
      auth: 'required',
      params: strs('org', 'username'),
      responses: { 204: 'member removed', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        await removeOrgMember(db, org.id, user.id);
        return noContent();
      },
    },
    {
      method: 'get',
      path: '/orgs/{org}/public_members',
      operationId: 'orgListPublicMembers',
      tag: 'organization',
      summary: "List an organization's public members",
      scopes: ['organization'],
      access: { org: 'visible' },
      params: str('org'),
      paged: true,
      responses: { 200: list('User') },
      handler: async (req: ApiRequest<unknown, unknown, { org: string }>) => userPage(req, orgs.members(ownerOf(req).id, false)),
    },
    {
      method: 'get',
      path: '/orgs/{org}/public_members/{username}',
      operationId: 'orgIsPublicMember',
      tag: 'organization',
      summary: 'Check if a user is a public member of an organization',
      scopes: ['organization'],
      access: { org: 'visible' },
      params: strs('org', 'username'),
      responses: { 204: 'user is a public member', 404: 'user is not a public member' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        if (!(await db('org_users').where({ org_id: org.id, uid: user.id, is_public: true }).first('id')))
          throw ApiError.notFound('user is not a public member of the organization');
        return noContent();
      },
    },
    ...(['put', 'delete'] as const).map((method): ApiOperation => ({
      method,
      path: '/orgs/{org}/public_members/{username}',
      operationId: method === 'put' ? 'orgPublicizeMember' : 'orgConcealMember',
      tag: 'organization',
      summary: method === 'put' ? "Publicize a user's membership" : "Conceal a user's membership",
      scopes: ['organization'],
      access: { org: 'visible' },
      auth: 'required',
      params: strs('org', 'username'),
      responses: { 204: 'done', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { org: string; username: string }>) => {
        const org = ownerOf(req);
        const user = await users.require(req.params.username);
        if (req.principal!.user.id !== user.id)
          throw ApiError.forbidden(`you cannot ${method === 'put' ? 'publicize' : 'conceal'} another member's membership`);
        const updated = await db('org_users')
          .where({ org_id: org.id, uid: user.id })
          .update({ is_public: method === 'put' });
        if (!updated) throw ApiError.notFound('user is not a member of the organization');
        return noContent();
      },
    })),
  ];
}
