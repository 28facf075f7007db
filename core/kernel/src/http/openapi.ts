import type { JsonSchema } from '@hearth/plugin-api';
import type { SchemaRegistry } from '../schemas';
import { PAGING_QUERY, type RegisteredOperation } from './operations';

/**
 * The served OpenAPI document (Swagger 2.0, the dialect of Gitea's own `swagger.v1.json`, so
 * generated Gitea clients keep working). Built from the same operations and schemas that route
 * and validate requests, so it cannot drift from what the server does.
 */
export function buildOpenApi(
  operations: readonly RegisteredOperation[],
  schemas: SchemaRegistry,
  info: { title: string; version: string; rootUrl: string },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { op, owner } of operations) {
    const parameters: Record<string, unknown>[] = [];
    for (const [name, schema] of Object.entries((op.params?.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: 'path', required: true, ...simpleParam(schema) });
    }
    const query = { ...((op.query?.properties ?? {}) as Record<string, JsonSchema>), ...(op.paged ? PAGING_QUERY : {}) };
    const requiredQuery = new Set((op.query?.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(query)) {
      parameters.push({ name, in: 'query', required: requiredQuery.has(name), ...simpleParam(schema) });
    }
    if (op.bodyType === 'text') {
      parameters.push({ name: 'body', in: 'body', required: !!op.bodyRequired, schema: { type: 'string' } });
    } else if (op.body) {
      parameters.push({ name: 'body', in: 'body', required: !!op.bodyRequired, schema: schemaRef(op.body) });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(op.responses)) {
      // A string names a registered schema, or is only a description.
      if (typeof spec === 'string')
        responses[status] = schemas.has(spec) ? { description: spec, schema: schemaRef(spec) } : { description: spec };
      else responses[status] = { description: spec.description, ...(spec.schema ? { schema: schemaRef(spec.schema) } : {}) };
    }
    for (const status of ['401', '403', '404', '422']) {
      responses[status] ??= { description: 'APIError', schema: { $ref: '#/definitions/APIError' } };
    }
    const path = op.path.replace(/\{(\w+)\*\}/g, '{$1}');
    paths[path] ??= {};
    paths[path][op.method] = {
      tags: [op.tag],
      summary: op.summary,
      operationId: op.operationId,
      consumes: [op.bodyType === 'text' ? 'text/plain' : 'application/json'],
      produces: ['application/json'],
      parameters,
      responses,
      'x-hearth-scopes': op.scopes,
      'x-hearth-auth': op.auth ?? 'optional',
      'x-hearth-access': op.access,
      'x-hearth-plugin': owner,
    };
  }

  const definitions: Record<string, unknown> = {};
  for (const [id, schema] of schemas.all()) definitions[id] = toSwaggerSchema(schema);

  return {
    swagger: '2.0',
    info: {
      title: `${info.title} API`,
      description:
        'The Hearth API speaks the dialect of Gitea /api/v1. x-hearth-scopes lists the token ' +
        'categories an operation needs; the level follows the HTTP method (GET read, DELETE ' +
        'delete, others write). x-hearth-access states what the operation acts on and the access ' +
        'it needs (see the Permissions section of the README).',
      license: { name: 'MIT', url: 'http://opensource.org/licenses/MIT' },
      version: info.version,
    },
    basePath: '/api/v1',
    schemes: [new URL(info.rootUrl).protocol.replace(':', '')],
    consumes: ['application/json', 'text/plain'],
    produces: ['application/json', 'text/html'],
    securityDefinitions: {
      BasicAuth: { type: 'basic' },
      AuthorizationHeaderToken: {
        type: 'apiKey',
        name: 'Authorization',
        in: 'header',
        description: 'API tokens must be prepended with "token" followed by a space.',
      },
      Token: { type: 'apiKey', name: 'token', in: 'query' },
      AccessToken: { type: 'apiKey', name: 'access_token', in: 'query' },
      SudoHeader: {
        type: 'apiKey',
        name: 'Sudo',
        in: 'header',
        description: 'Sudo API request as the user provided as the key. Admin privileges are required.',
      },
      SudoParam: {
        type: 'apiKey',
        name: 'sudo',
        in: 'query',
        description: 'Sudo API request as the user provided as the key. Admin privileges are required.',
      },
    },
    security: [
      { BasicAuth: [] },
      { AuthorizationHeaderToken: [] },
      { Token: [] },
      { AccessToken: [] },
      { SudoHeader: [] },
      { SudoParam: [] },
    ],
    paths,
    definitions,
  };
}

/** Swagger 2.0 parameters carry type/format/enum inline, not a schema. */
function simpleParam(schema: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['type', 'format', 'enum', 'description', 'minimum', 'maximum', 'default', 'pattern', 'maxLength', 'minLength']) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  if (schema.type === 'array') {
    out.items = schema.items;
    out.collectionFormat = 'multi';
  }
  out.type ??= 'string';
  return out;
}

function schemaRef(ref: string | JsonSchema): JsonSchema {
  return typeof ref === 'string' ? { $ref: `#/definitions/${ref}` } : toSwaggerSchema(ref);
}

/** Drop JSON Schema keywords Swagger 2.0 lacks and point `$ref`s at `#/definitions`. */
function toSwaggerSchema(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(toSwaggerSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.startsWith('#') ? value : `#/definitions/${value}`;
    else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toSwaggerSchema(v)]));
    } else out[key] = toSwaggerSchema(value);
  }
  return out;
}
