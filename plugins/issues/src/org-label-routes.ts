import {
  ApiError,
  created,
  insertId,
  noContent,
  nowUnix,
  ok,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type UserInfo,
} from '@hearth/plugin-api';
import { list, type IssueDeps } from './issue-context';
import { inTransaction, labelColor, labelPatch, toLabel, type LabelBody, type LabelRow } from './issue-store';
import { dropOrgLabelsFromRepo, removeOrgLabels } from './org-labels';

type OrgParams = { org: string };
type OrgIdParams = OrgParams & { id: number };

const ORG_PARAMS: JsonSchema = {
  type: 'object',
  properties: { org: { type: 'string', maxLength: 255, description: 'name of the organization' } },
  required: ['org'],
};
const ORG_ID_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    org: { type: 'string', maxLength: 255, description: 'name of the organization' },
    id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'id of the label' },
  },
  required: ['org', 'id'],
};

const ownerOf = (req: ApiRequest<any, any, any>): UserInfo => req.target.owner!;

/** An organization's labels go with it (and off the issues that carry them). */
export function tapOrgLabelCleanup({ hooks, db }: IssueDeps): void {
  hooks.user.deleting.tapPromise('issues', async ({ user, trx }) => removeOrgLabels(trx, user.id));
  // The old organization's labels are not usable in the repository's new home: off its issues they go.
  hooks.repository.transferred.tapPromise('issues', ({ repositoryId, oldOwnerId }) => dropOrgLabelsFromRepo(db, repositoryId, oldOwnerId));
}

/**
 * `/orgs/{org}/labels…`: labels of an organization (rows with `org_id`, `repo_id` 0), usable on
 * the issues of all its repositories. Reading needs the organization to be visible to the caller;
 * changes need an owner of the organization (or a site admin), as Gitea's reqOrgOwnership: both declared.
 */
export function orgLabelOperations(deps: IssueDeps): ApiOperation[] {
  const { db, http } = deps;
  const labelJson = (org: UserInfo, l: LabelRow) => ({
    id: l.id,
    name: l.name,
    exclusive: l.exclusive,
    color: l.color.replace(/^#/, ''),
    description: l.description,
    url: `${deps.forge.appUrl}api/v1/orgs/${encodeURIComponent(org.name)}/labels/${l.id}`,
  });
  const labelOf = async (org: UserInfo, id: number): Promise<LabelRow> => {
    const row = await db('label').where({ id, org_id: org.id, repo_id: 0 }).first();
    if (!row) throw ApiError.notFound(`label does not exist [id: ${id}]`);
    return toLabel(row);
  };

  const base = { tag: 'organization', scopes: ['organization'] as ['organization'] };
  return [
    {
      ...base,
      method: 'get',
      path: '/orgs/{org}/labels',
      operationId: 'orgListLabels',
      access: { org: 'visible' },
      summary: "List an organization's labels",
      params: ORG_PARAMS,
      paged: true,
      responses: { 200: list('Label'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OrgParams>) => {
        const org = ownerOf(req);
        const q = db('label').where({ org_id: org.id, repo_id: 0 });
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = (
          await q
            .clone()
            .orderBy([
              { column: 'name', order: 'asc' },
              { column: 'id', order: 'asc' },
            ])
            .offset(req.paging.offset)
            .limit(req.paging.limit)
        ).map(toLabel);
        return http.paged(
          req,
          rows.map((l) => labelJson(org, l)),
          Number(n),
        );
      },
    },
    {
      ...base,
      method: 'post',
      path: '/orgs/{org}/labels',
      operationId: 'orgCreateLabel',
      access: { org: 'owner' },
      summary: 'Create a label for an organization',
      auth: 'required',
      params: ORG_PARAMS,
      body: 'CreateLabelOption',
      bodyRequired: true,
      responses: { 201: 'Label', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<Required<Pick<LabelBody, 'name' | 'color'>> & LabelBody, unknown, OrgParams>) => {
        const org = ownerOf(req);
        const now = nowUnix();
        const id = await insertId(db, 'label', {
          repo_id: 0,
          org_id: org.id,
          name: req.body.name,
          color: labelColor(req.body.color),
          description: req.body.description ?? '',
          exclusive: req.body.exclusive ?? false,
          created_unix: now,
          updated_unix: now,
        });
        return created(labelJson(org, await labelOf(org, id)));
      },
    },
    {
      ...base,
      method: 'get',
      path: '/orgs/{org}/labels/{id}',
      operationId: 'orgGetLabel',
      access: { org: 'visible' },
      summary: 'Get a single label',
      params: ORG_ID_PARAMS,
      responses: { 200: 'Label', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OrgIdParams>) => {
        const org = ownerOf(req);
        return ok(labelJson(org, await labelOf(org, req.params.id)));
      },
    },
    {
      ...base,
      method: 'patch',
      path: '/orgs/{org}/labels/{id}',
      operationId: 'orgEditLabel',
      access: { org: 'owner' },
      summary: 'Update a label',
      auth: 'required',
      params: ORG_ID_PARAMS,
      body: 'EditLabelOption',
      bodyRequired: true,
      responses: { 200: 'Label', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<LabelBody, unknown, OrgIdParams>) => {
        const org = ownerOf(req);
        const label = await labelOf(org, req.params.id);
        await db('label').where('id', label.id).update(labelPatch(req.body, nowUnix()));
        return ok(labelJson(org, await labelOf(org, label.id)));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/orgs/{org}/labels/{id}',
      operationId: 'orgDeleteLabel',
      access: { org: 'owner' },
      summary: 'Delete a label',
      auth: 'required',
      params: ORG_ID_PARAMS,
      responses: { 204: 'label deleted', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, OrgIdParams>) => {
        const org = ownerOf(req);
        const label = await labelOf(org, req.params.id);
        await inTransaction(db, async (trx) => {
          await trx('issue_label').where('label_id', label.id).delete();
          await trx('label').where('id', label.id).delete();
        });
        return noContent();
      },
    },
  ];
}
