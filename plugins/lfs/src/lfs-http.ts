import Ajv, { type ValidateFunction } from 'ajv';
import type { NextFunction, Request, Response } from 'express';
import { ApiError, isApiError, parseJsonBody, type JsonSchema, type PluginContext, type Principal } from '@hearth/plugin-api';
import type { LfsSettings } from './tables';

/** The media type of every LFS API request and answer. */
export const LFS_JSON = 'application/vnd.git-lfs+json';

/** git-lfs asks for credentials when a 401 carries this (the git credential helper answers). */
const CHALLENGE = { 'LFS-Authenticate': 'Basic realm="Hearth Git LFS"', 'WWW-Authenticate': 'Basic realm="Hearth Git LFS"' };

/** Request bodies are small JSON documents; a batch of many objects stays far below this. */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false });

/** A compiled validator for a request body schema. */
export function bodyValidator(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}

/** Answer in the LFS error shape (`{ message, request_id }`), with the challenge on a 401. */
function sendError(res: Response, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(err.status).set({ ...(err.headers ?? {}), ...(err.status === 401 ? CHALLENGE : {}) });
  res.type(LFS_JSON).send(JSON.stringify({ message: err.message, ...(err.details ?? {}), request_id: res.locals.requestId }));
}

/** An Express handler whose client errors are LFS errors; anything else goes on to the kernel (a logged 500). */
export function lfsRoute(handler: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      await handler(req, res);
    } catch (err) {
      if (!isApiError(err)) return next(err);
      // Let an unread request body drain, so that the client reads the answer.
      if (!req.readableEnded) req.resume();
      sendError(res, err);
    }
  };
}

/** Read and validate a JSON request body. */
export async function readJson<T>(req: Request, validate: ValidateFunction, what: string): Promise<T> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) throw new ApiError(413, `${what}: the body is larger than ${MAX_JSON_BYTES} bytes`);
    chunks.push(chunk);
  }
  const body = chunks.length === 0 ? {} : parseJsonBody(Buffer.concat(chunks), what);
  if (!validate(body)) {
    const first = validate.errors?.[0];
    throw ApiError.unprocessable(`${what}: ${first ? `${first.instancePath || 'body'} ${first.message}` : 'invalid body'}`);
  }
  return body as T;
}

/** Send an LFS JSON answer. */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type(LFS_JSON).send(JSON.stringify(body));
}

/** The repository of a request and what its caller may do with it. */
export interface LfsTarget {
  repository: Awaited<ReturnType<PluginContext['access']['repository']>>;
  principal: Principal | null;
  /** The Authorization header the client sent, echoed in action headers (the client holds it already). */
  authorization?: string;
}

/**
 * The access of an LFS request, as for git over HTTP: the caller (password or token through
 * `auth.authenticate`), the token's `repository` scope, and the one access rule for the code unit.
 * An anonymous caller refused (invisible repository, or a write) gets 401 so that git-lfs asks for credentials.
 */
export async function lfsAccess(ctx: PluginContext<LfsSettings>, req: Request, need: 'read' | 'write'): Promise<LfsTarget> {
  const principal = await ctx.http.authenticate(req);
  const params = req.params as Record<string, string>;
  const repoName = params.repo.replace(/\.git$/i, '');
  if (principal && !ctx.http.hasScope(principal, 'repository', need))
    throw ApiError.forbidden(`token does not have at least one of required scope(s): [${need}:repository]`);
  try {
    const repository = await ctx.access.repository(params.owner, repoName, principal, need, 'code');
    if (need === 'write' && repository.isArchived) throw ApiError.forbidden('repository is archived');
    return { repository, principal, authorization: req.headers.authorization };
  } catch (err) {
    if (!principal && isApiError(err) && (err.status === 404 || err.status === 403))
      throw ApiError.unauthorized('credentials are needed for this repository');
    throw err;
  }
}
