import { created, noContent, ok, type ApiOperation, type ApiRequest, type PluginContext } from '@hearth/plugin-api';
import { applicationJson, type ApplicationFields, type ApplicationStore } from './applications';

export const APPLICATION_SCHEMA = {
  $id: 'OAuth2Application',
  description: 'An OAuth2 application; client_secret is set only in the answers that generated it (create, update)',
  type: 'object',
  properties: {
    id: { type: 'integer', format: 'int64' },
    name: { type: 'string' },
    client_id: { type: 'string' },
    client_secret: { type: 'string' },
    confidential_client: { type: 'boolean' },
    redirect_uris: { type: 'array', items: { type: 'string' } },
    created: { type: 'string', format: 'date-time' },
  },
};

const OPTIONS_SCHEMA = {
  $id: 'CreateOAuth2ApplicationOptions',
  description: 'The name, redirect URIs and kind (confidential or public) of an OAuth2 application',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'redirect_uris'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    redirect_uris: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string', minLength: 1, maxLength: 1024 } },
    confidential_client: { type: 'boolean' },
  },
};

const ID_PARAMS = { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } };

/** Gitea's `/user/applications/oauth2` operations: the caller's own applications, category `user`. */
export function applicationOperations(ctx: PluginContext, apps: ApplicationStore): ApiOperation[] {
  ctx.schemas.add(APPLICATION_SCHEMA);
  ctx.schemas.add(OPTIONS_SCHEMA);
  const common = { tag: 'user', access: 'caller' as const };
  const userId = (req: ApiRequest<unknown, unknown, unknown>) => req.principal!.user.id;
  return [
    {
      ...common,
      scopes: ['user'],
      method: 'get',
      path: '/user/applications/oauth2',
      operationId: 'userGetOauth2Application',
      summary: "List the authenticated user's oauth2 applications",
      paged: true,
      responses: { 200: { description: 'OAuth2ApplicationList', schema: { type: 'array', items: { $ref: 'OAuth2Application' } } } },
      handler: async (req) => {
        const { apps: list, total } = await apps.list(userId(req), req.paging.offset, req.paging.limit);
        return ctx.http.paged(
          req,
          list.map((app) => applicationJson(app)),
          total,
        );
      },
    },
    {
      ...common,
      scopes: ['user'],
      method: 'post',
      path: '/user/applications/oauth2',
      operationId: 'userCreateOAuth2Application',
      summary: 'creates a new OAuth2 application',
      body: 'CreateOAuth2ApplicationOptions',
      bodyRequired: true,
      responses: { 201: 'OAuth2Application', 400: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<ApplicationFields>) => {
        const { app, secret } = await apps.create(userId(req), req.body);
        return created(applicationJson(app, secret));
      },
    },
    {
      ...common,
      scopes: ['user'],
      method: 'get',
      path: '/user/applications/oauth2/{id}',
      operationId: 'userGetOAuth2Application',
      summary: 'get an OAuth2 Application',
      params: ID_PARAMS,
      responses: { 200: 'OAuth2Application', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) =>
        ok(applicationJson(await apps.ownedBy(userId(req), req.params.id))),
    },
    {
      ...common,
      scopes: ['user'],
      method: 'patch',
      path: '/user/applications/oauth2/{id}',
      operationId: 'userUpdateOAuth2Application',
      summary: 'update an OAuth2 Application, this includes regenerating the client secret',
      params: ID_PARAMS,
      body: 'CreateOAuth2ApplicationOptions',
      bodyRequired: true,
      responses: { 200: 'OAuth2Application', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<ApplicationFields, unknown, { id: number }>) => {
        const { app, secret } = await apps.update(userId(req), req.params.id, req.body);
        return ok(applicationJson(app, secret));
      },
    },
    {
      ...common,
      scopes: ['user'],
      method: 'delete',
      path: '/user/applications/oauth2/{id}',
      operationId: 'userDeleteOAuth2Application',
      summary: 'delete an OAuth2 Application (its grants and tokens end with it)',
      params: ID_PARAMS,
      responses: { 204: { description: 'APIEmpty' }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, { id: number }>) => {
        await apps.delete(userId(req), req.params.id);
        return noContent();
      },
    },
  ];
}
