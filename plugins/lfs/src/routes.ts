import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, type Router } from 'express';
import { ApiError, parseByteRange, type PluginContext } from '@hearth/plugin-api';
import { bodyValidator, lfsAccess, lfsRoute, readJson, sendJson, type LfsTarget } from './lfs-http';
import { LfsLocks } from './locks';
import { OID, type LfsObjects, type ObjectRef } from './objects';
import type { LfsSettings } from './tables';

interface BatchRequest {
  operation: 'download' | 'upload';
  transfers?: string[];
  objects: Array<{ oid: string; size: number }>;
  hash_algo?: string;
}

const REF = { type: 'object', properties: { name: { type: 'string' } } };

const batchBody = bodyValidator({
  type: 'object',
  required: ['operation', 'objects'],
  properties: {
    operation: { enum: ['download', 'upload'] },
    transfers: { type: 'array', items: { type: 'string' }, maxItems: 32 },
    ref: REF,
    objects: {
      type: 'array',
      maxItems: 1000,
      items: { type: 'object', required: ['oid', 'size'], properties: { oid: { type: 'string' }, size: { type: 'number' } } },
    },
    hash_algo: { type: 'string' },
  },
});
const verifyBody = bodyValidator({
  type: 'object',
  required: ['oid', 'size'],
  properties: { oid: { type: 'string' }, size: { type: 'integer', minimum: 0 } },
});
const lockBody = bodyValidator({
  type: 'object',
  required: ['path'],
  properties: { path: { type: 'string', minLength: 1, maxLength: 1024 }, ref: REF },
});
const verifyLocksBody = bodyValidator({
  type: 'object',
  properties: { cursor: { type: 'string', maxLength: 20 }, limit: { type: 'integer', minimum: 1 }, ref: REF },
});
const unlockBody = bodyValidator({ type: 'object', properties: { force: { type: 'boolean' }, ref: REF } });

/** A well-formed oid from a path, else 422 (so no other name ever reaches storage). */
function oidParam(req: Request): string {
  const oid = String((req.params as Record<string, string>).oid);
  if (!OID.test(oid)) throw ApiError.unprocessable('the oid must be a sha256: 64 lower-case hex digits');
  return oid;
}

/** The page size of a locks request: at most the configured page (Gitea's LFS_LOCKS_PAGING_NUM). */
function pageLimit(raw: unknown, max: number): number {
  if (raw === undefined || raw === '') return max;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw ApiError.unprocessable('limit must be a positive integer');
  return Math.min(n, max);
}

const queryString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The Git LFS server of a repository at `/{owner}/{repo}.git/info/lfs`: the batch API with the
 * basic transfer (upload, download, verify) and the locking API.
 */
export function lfsRouter(ctx: PluginContext<LfsSettings>, objects: LfsObjects, locks: LfsLocks): Router {
  const router = express.Router({ mergeParams: true });
  router.use((_req, res, next) => {
    res.locals.route = 'git lfs';
    next();
  });
  router.post(
    '/objects/batch',
    lfsRoute((req, res) => batch(ctx, objects, req, res)),
  );
  router.put(
    '/objects/:oid/:size',
    lfsRoute((req, res) => upload(ctx, objects, req, res)),
  );
  router.get(
    '/objects/:oid{/:filename}',
    lfsRoute((req, res) => download(ctx, objects, req, res)),
  );
  router.post(
    '/verify',
    lfsRoute(async (req, res) => {
      const { repository } = await lfsAccess(ctx, req, 'write');
      const body = await readJson<ObjectRef>(req, verifyBody, 'verify');
      const stored = OID.test(body.oid) ? await objects.stored(repository.id, body.oid) : null;
      if (!stored) throw ApiError.notFound(`object does not exist [oid: ${body.oid}]`);
      if (stored.size !== body.size) throw ApiError.unprocessable(`object ${body.oid} has ${stored.size} bytes, not ${body.size}`);
      sendJson(res, 200, {});
    }),
  );
  lockRoutes(router, ctx, locks);
  return router;
}

const wellFormed = (o: ObjectRef) => OID.test(o.oid) && Number.isSafeInteger(o.size) && o.size >= 0;

async function batch(ctx: PluginContext<LfsSettings>, objects: LfsObjects, req: Request, res: Response): Promise<void> {
  const body = await readJson<BatchRequest>(req, batchBody, 'batch');
  const target = await lfsAccess(ctx, req, body.operation === 'upload' ? 'write' : 'read');
  if (body.transfers && body.transfers.length > 0 && !body.transfers.includes('basic'))
    throw ApiError.unprocessable('only the basic transfer adapter is supported');
  if (body.hash_algo !== undefined && body.hash_algo !== 'sha256') throw ApiError.conflict('only the sha256 hash algorithm is supported');
  const known = await objects.metaOf(
    target.repository.id,
    body.objects.filter(wellFormed).map((o) => o.oid),
  );
  const { ownerName, name } = target.repository;
  const base = `${ctx.forge.appUrl}${encodeURIComponent(ownerName)}/${encodeURIComponent(name)}.git/info/lfs/`;
  const action = (href: string) => ({ href, ...(target.authorization ? { header: { Authorization: target.authorization } } : {}) });
  const max = ctx.settings.maxFileSize;
  const answers = [];
  for (const { oid, size } of body.objects) {
    const object = { oid, size, authenticated: true };
    if (!wellFormed({ oid, size })) {
      answers.push({ oid, size, error: { code: 422, message: 'oid or size are invalid' } });
      continue;
    }
    const storedSize = known.get(oid);
    const present = storedSize !== undefined && (await objects.blobs.exists(oid));
    if (body.operation === 'download') {
      if (!present) answers.push({ ...object, error: { code: 404, message: `object does not exist [oid: ${oid}]` } });
      else answers.push({ ...object, size: storedSize, actions: { download: action(`${base}objects/${oid}`) } });
    } else if (max > 0 && size > max) {
      answers.push({ ...object, error: { code: 422, message: `size must be less than or equal to ${max}` } });
    } else if (present && storedSize === size) {
      answers.push(object); // the server has it: nothing to transfer
    } else {
      answers.push({ ...object, actions: { upload: action(`${base}objects/${oid}/${size}`), verify: action(`${base}verify`) } });
    }
  }
  sendJson(res, 200, { transfer: 'basic', objects: answers, hash_algo: 'sha256' });
}

async function upload(ctx: PluginContext<LfsSettings>, objects: LfsObjects, req: Request, res: Response): Promise<void> {
  const { repository } = await lfsAccess(ctx, req, 'write');
  const oid = oidParam(req);
  const sizeParam = String((req.params as Record<string, string>).size);
  const size = /^\d{1,15}$/.test(sizeParam) ? Number(sizeParam) : NaN;
  if (!Number.isSafeInteger(size)) throw ApiError.unprocessable('the size must be a non-negative integer');
  const max = ctx.settings.maxFileSize;
  if (max > 0 && size > max) throw ApiError.unprocessable(`size must be less than or equal to ${max}`);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) !== size)
    throw ApiError.unprocessable(`the body has ${declared} bytes, not the object's size ${size}`);
  await objects.upload(repository.id, { oid, size }, req);
  sendJson(res, 200, {});
}

async function download(ctx: PluginContext<LfsSettings>, objects: LfsObjects, req: Request, res: Response): Promise<void> {
  const { repository } = await lfsAccess(ctx, req, 'read');
  const oid = oidParam(req);
  const stored = await objects.stored(repository.id, oid);
  if (!stored) throw ApiError.notFound(`object does not exist [oid: ${oid}]`);
  const range = parseByteRange(req.headers.range, stored.size);
  if (range === 'unsatisfiable') {
    res.status(416).set('Content-Range', `bytes */${stored.size}`).end();
    return;
  }
  const opened = await objects.open(oid, range ?? undefined);
  res.set({ 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes', 'Cache-Control': 'private, max-age=300' });
  if (range) {
    res
      .status(206)
      .set({ 'Content-Range': `bytes ${range.start}-${range.end}/${stored.size}`, 'Content-Length': String(range.end - range.start + 1) });
  } else res.status(200).set('Content-Length', String(stored.size));
  await pipeline(opened.stream, res).catch(() => res.destroy());
}

/** The locking API. Listing needs read access, everything else write; `force` needs the repository's admin. */
function lockRoutes(router: Router, ctx: PluginContext<LfsSettings>, locks: LfsLocks): void {
  const max = ctx.settings.locksPagingNum;
  const caller = (target: LfsTarget) => {
    if (!target.principal) throw ApiError.unauthorized('credentials are needed for locks');
    return target.principal.user;
  };
  router.get(
    '/locks',
    lfsRoute(async (req, res) => {
      const { repository } = await lfsAccess(ctx, req, 'read');
      const filter = { path: queryString(req.query.path), id: queryString(req.query.id), cursor: queryString(req.query.cursor) };
      sendJson(res, 200, await locks.list(repository.id, { ...filter, limit: pageLimit(req.query.limit, max) }));
    }),
  );
  router.post(
    '/locks',
    lfsRoute(async (req, res) => {
      const body = await readJson<{ path: string }>(req, lockBody, 'lock');
      const target = await lfsAccess(ctx, req, 'write');
      sendJson(res, 201, { lock: await locks.create(target.repository.id, caller(target), body.path) });
    }),
  );
  router.post(
    '/locks/verify',
    lfsRoute(async (req, res) => {
      const body = await readJson<{ cursor?: string; limit?: number }>(req, verifyLocksBody, 'verify locks');
      const target = await lfsAccess(ctx, req, 'write');
      const user = caller(target);
      const page = await locks.list(target.repository.id, { cursor: body.cursor, limit: pageLimit(body.limit, max) });
      const ours = page.locks.filter((l) => l.owner.name === user.name);
      const theirs = page.locks.filter((l) => l.owner.name !== user.name);
      sendJson(res, 200, { ours, theirs, ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) });
    }),
  );
  router.post(
    '/locks/:id/unlock',
    lfsRoute(async (req, res) => {
      const body = await readJson<{ force?: boolean }>(req, unlockBody, 'unlock');
      const target = await lfsAccess(ctx, req, 'write');
      const force = body.force === true;
      if (force && !target.repository.permission.admin)
        throw ApiError.forbidden("only the repository's administrators may force an unlock");
      const id = String((req.params as Record<string, string>).id);
      sendJson(res, 200, { lock: await locks.unlock(target.repository.id, id, caller(target), force) });
    }),
  );
}
