import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { ValidateFunction } from 'ajv';
import {
  ApiError,
  type AccessTarget,
  type ApiOperation,
  type OperationAccess,
  type ApiRequest,
  type ApiResponse,
  type JsonSchema,
  type Logger,
  type Paging,
  type Principal,
  jsonNestingDepth,
  lazy,
  MAX_JSON_DEPTH,
} from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import { SchemaRegistry, describeErrors } from '../schemas';
import { grants, levelForMethod } from '../auth/scopes';

/** An operation as registered, with who registered it (for clash messages and the docs). */
export interface RegisteredOperation {
  op: ApiOperation;
  owner: string;
}

export interface OperationDeps {
  schemas: SchemaRegistry;
  config: HearthConfig;
  /** Resolve the caller of a request (auth hook + sudo). */
  authenticate(req: Request): Promise<Principal | null>;
  /** Resolve the operation's declared target for the caller (the access module): 404 invisible, 403 not allowed. */
  resolveAccess(access: OperationAccess, params: Record<string, unknown>, principal: Principal | null): Promise<AccessTarget>;
}

/** `/users/{username}` → `/users/:username`; `{path*}` → Express 5's named wildcard `*path`. */
export function toExpressPath(openApiPath: string): string {
  // Names with a hyphen (Gitea's `{user-id}`) are quoted, as Express 5 requires.
  return openApiPath
    .replace(/\{(\w+)\*\}/g, '*$1')
    .replace(/\{(\w+)\}/g, ':$1')
    .replace(/\{([\w-]+)\}/g, ':"$1"');
}

/** Paging query parameters every paged operation accepts (Gitea: page is 1-based; limit is clamped to MAX_RESPONSE_ITEMS). */
export const PAGING_QUERY: Record<string, JsonSchema> = {
  page: { type: 'integer', description: 'page number of results to return (1-based)' },
  limit: { type: 'integer', description: 'page size of results' },
};

/**
 * Compiles registered operations into one Express router. Each request runs: authenticate →
 * auth requirement → token scope → validate params, query, body → handler → send. The order
 * means a caller without the right credentials learns nothing about input rules.
 */
/** The largest id the databases store (a 32-bit INTEGER column on PostgreSQL and MariaDB). */
export const MAX_ID = 2147483647;

/**
 * An operation whose integer path and query parameters without an upper bound get MAX_ID as
 * one, so a number no row can have is a 422 at validation, not a database range error (a 500).
 * Applied when operations are registered, so the published OpenAPI shows the same bound.
 */
export function withBoundedIntegers(op: ApiOperation): ApiOperation {
  const bound = (schema: JsonSchema | undefined): JsonSchema | undefined => {
    const properties = schema?.properties as Record<string, JsonSchema> | undefined;
    if (!properties) return schema;
    const bounded = Object.fromEntries(
      Object.entries(properties).map(([name, prop]) => [
        name,
        prop && prop.type === 'integer' && prop.maximum === undefined ? { ...prop, maximum: MAX_ID } : prop,
      ]),
    );
    return { ...schema, properties: bounded };
  };
  return { ...op, params: bound(op.params), query: bound(op.query) };
}

export function buildApiRouter(operations: readonly RegisteredOperation[], deps: OperationDeps): express.Router {
  const router = express.Router({ caseSensitive: false, strict: false });
  const readBody = express.raw({ type: () => true, limit: deps.config.server.MAX_BODY_SIZE });
  // Operations are grouped by their first path segment (always literal in Gitea's API): a request
  // is matched only against its group, so adding features does not slow every call down.
  const groups = new Map<string, { router: express.Router; methodsByPath: Map<string, Set<string>> }>();
  for (const { op } of byLiteralFirst(operations)) {
    const [, first, ...rest] = toExpressPath(op.path).split('/');
    let group = groups.get(first.toLowerCase());
    if (!group) {
      group = { router: express.Router({ caseSensitive: false, strict: false }), methodsByPath: new Map() };
      groups.set(first.toLowerCase(), group);
      router.use(`/${first}`, group.router);
    }
    const path = `/${rest.join('/')}`;
    const methods = group.methodsByPath.get(path) ?? new Set<string>();
    methods.add(op.method.toUpperCase());
    group.methodsByPath.set(path, methods);
    group.router[op.method](path, compile(op, deps, readBody));
  }
  // A known path with another method: 405 naming the allowed ones, not a misleading 404.
  for (const { router: groupRouter, methodsByPath } of groups.values()) {
    for (const [path, methods] of methodsByPath) {
      const allow = [...methods].concat(methods.has('GET') ? ['HEAD'] : []).join(', ');
      groupRouter.all(path, (req, _res, next) =>
        next(new ApiError(405, `method ${req.method} is not allowed here; allowed: ${allow}`, undefined, { Allow: allow })),
      );
    }
  }
  return router;
}

/**
 * The operations in matching order: where two paths could match one URL, the one with a literal
 * segment where the other has a parameter comes first (`/repos/issues/search` before
 * `/repos/{owner}/{repo}`), whichever feature area registered first. Otherwise registration order
 * is kept (the sort is stable).
 */
export function byLiteralFirst(operations: readonly RegisteredOperation[]): RegisteredOperation[] {
  const shape = (p: string) => p.split('/').map((seg) => (seg.startsWith('{') ? 1 : 0));
  return [...operations].sort((a, b) => {
    const x = shape(a.op.path);
    const y = shape(b.op.path);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  });
}

/** What one run of an operation gets, whether from HTTP or from an in-process call (`ctx.api`). */
export interface OperationInput {
  principal: Principal | null;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** Read the body; called only once the target is resolved (a caller who may not see it learns nothing from input rules). */
  readBody(): Promise<unknown>;
  headers: ApiRequest['headers'];
  requestId: string;
  log: Logger;
  raw: Request;
}

/** An operation ready to run: the checks of every call (auth, scope, access, validation), then its handler. */
export type PreparedOperation = (input: OperationInput) => Promise<ApiResponse>;

export function prepareOperation(op: ApiOperation, deps: OperationDeps): PreparedOperation {
  const { schemas, config } = deps;
  const querySchema = op.paged
    ? { type: 'object', ...(op.query ?? {}), properties: { ...((op.query?.properties as object) ?? {}), ...PAGING_QUERY } }
    : op.query;
  // Validators compile on first use: most operations of a server are never called, and compiled
  // validators are the largest part of its idle memory. A schema error still surfaces at start,
  // because an unknown body $ref is checked here.
  const validateParams = op.params ? lazy(() => schemas.stringValidator({ ...op.params, type: 'object' })) : undefined;
  const validateQuery = querySchema ? lazy(() => schemas.stringValidator(querySchema)) : undefined;
  if (typeof op.body === 'string' && !schemas.has(op.body))
    throw new Error(`${op.method.toUpperCase()} ${op.path}: no schema registered as "${op.body}"`);
  const validateBody = op.body && op.bodyType !== 'text' ? lazy(() => schemas.bodyValidator(op.body!)) : undefined;
  const level = levelForMethod(op.method);
  const needed = op.scopes === 'public' ? [] : op.scopes.map((c) => `${level}:${c}`);

  return async (input) => {
    const { principal } = input;
    assertAuthRequirement(op, principal);
    if (principal && op.scopes !== 'public' && !op.scopes.every((c) => grants(principal.scopes, c, level))) {
      throw ApiError.forbidden(`token does not have at least one of required scope(s): [${needed.join(' ')}]`);
    }
    const params = { ...input.params };
    for (const [key, value] of Object.entries(params)) if (Array.isArray(value)) params[key] = value.join('/');
    if (validateParams) check(validateParams(), params, 'path');
    // The target is resolved before the query and body are read: a caller who may not see it
    // learns nothing from input rules, and every operation answers 404/403 the same way.
    const target = await deps.resolveAccess(op.access, params, principal);
    const query = { ...input.query };
    if (validateQuery) check(validateQuery(), query, 'query');
    const body = op.body || op.bodyType === 'text' ? await input.readBody() : undefined;
    if (validateBody) check(validateBody(), body, 'body');
    return op.handler({
      principal,
      params: params as Record<string, string>,
      query,
      body,
      paging: pagingOf(query, config),
      headers: input.headers,
      target,
      requestId: input.requestId,
      log: input.log,
      raw: input.raw,
    });
  };
}

function compile(op: ApiOperation, deps: OperationDeps, readBody: RequestHandler): RequestHandler {
  const run = prepareOperation(op, deps);
  return async (req: Request, res: Response) => {
    res.locals.route = op.path;
    const principal = await deps.authenticate(req);
    const result = await run({
      principal,
      params: req.params as Record<string, unknown>,
      query: req.query as Record<string, unknown>,
      readBody: () => parseBody(req, res, op, readBody),
      headers: req.headers,
      requestId: res.locals.requestId,
      log: res.locals.log as Logger,
      raw: req,
    });
    await send(res, result);
  };
}

function assertAuthRequirement(op: ApiOperation, principal: Principal | null): void {
  const need = op.auth ?? 'optional';
  if (need === 'optional') return;
  if (!principal) throw ApiError.unauthorized('authentication required: send a token (Authorization: token …) or basic auth');
  if (need === 'siteAdmin' && !principal.user.isAdmin) throw ApiError.forbidden('user should be a site administrator');
  // A web session (the web interface's in-process calls; /api/v1 never accepts its cookie) was
  // started by a password or an identity provider the administrator configured, never by a token.
  if (need === 'basic' && principal.method !== 'basic' && principal.method !== 'session') {
    throw ApiError.unauthorized('auth method not allowed: this route needs basic authentication with a password');
  }
}

function check(validate: ValidateFunction, data: unknown, where: string): void {
  if (validate(data)) return;
  const problems = describeErrors(validate.errors, where, data);
  throw ApiError.unprocessable(problems.join('; '), { errors: problems });
}

async function parseBody(req: Request, res: Response, op: ApiOperation, readBody: RequestHandler): Promise<unknown> {
  await new Promise<void>((resolve, reject) => readBody(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  const buffer: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (op.bodyType === 'text') return buffer.toString('utf8');
  if (buffer.length === 0) {
    if (op.bodyRequired) throw ApiError.unprocessable('body: a JSON request body is required');
    return {};
  }
  // Parsed whatever the Content-Type says: `curl -d '{…}'` sends JSON labelled as a form, and Gitea accepts it.
  const depth = jsonNestingDepth(buffer);
  if (depth > MAX_JSON_DEPTH)
    throw ApiError.badRequest(`body: JSON nested ${depth > MAX_JSON_DEPTH * 4 ? 'far ' : ''}deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(buffer.toString('utf8'));
  } catch (err) {
    throw ApiError.unprocessable(`body: invalid JSON: ${(err as Error).message}`);
  }
}

export function pagingOf(query: Record<string, unknown>, config: HearthConfig): Paging {
  const { DEFAULT_PAGING_NUM, MAX_RESPONSE_ITEMS } = config.api;
  const page = typeof query.page === 'number' && query.page > 0 ? Math.floor(query.page) : 1;
  let limit = typeof query.limit === 'number' && query.limit > 0 ? Math.floor(query.limit) : DEFAULT_PAGING_NUM;
  limit = Math.min(limit, MAX_RESPONSE_ITEMS);
  return { page, limit, offset: (page - 1) * limit };
}

/** Write the handler's answer. JSON goes straight to Node's response: this is every API call's hot path. */
export async function send(res: Response, result: ApiResponse): Promise<void> {
  res.statusCode = result.status;
  if (result.headers) for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
  if (result.body === undefined || result.status === 204) {
    res.end();
    return;
  }
  if (result.body instanceof Readable) {
    res.setHeader('Content-Type', result.contentType ?? 'application/octet-stream');
    // pipeline destroys the source when the client disconnects, so no git process outlives its request.
    await pipeline(result.body, res).catch(() => undefined);
    return;
  }
  const payload = result.contentType ? (result.body as string | Buffer) : JSON.stringify(result.body);
  res.setHeader('Content-Type', result.contentType ?? 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.end(payload);
}
