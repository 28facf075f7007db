import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ApiError, type AuthRequest, type PluginContext, type Principal } from '@hearth/plugin-api';
import {
  canonicalRequest,
  carriesSignedHeaders,
  contentHashMatches,
  matchesRequest,
  parseSignedHeaders,
  recoverSigned,
  type SignedHeaders,
} from './signed-request';
import type { UserKeyStore } from './user-keys';

export interface ChefAuthSettings {
  maxClockSkewSeconds: number;
}

/** A signature checked by the tap, waiting for the router to bind it to the full path. */
interface SignatureCheck {
  signed: SignedHeaders;
  recovered: Buffer;
  pathVerified: boolean;
}

/** Chef routes as the package mount hands their path to auth taps (relative to `/api/packages/:owner/chef`). */
const CHEF_ROUTE = /^\/(?:universe|api\/v1\/(?:universe|search|cookbooks(?:\/[^?]*)?))\/?$/;
/** The same routes as a full path, should the kernel pass one. */
const FULL_CHEF_PATH = /^(?:\/[^?]*)?\/api\/packages\/[^/]+\/chef\/[^?]*$/;
const MAX_BODY_FOR_HASH = 64 * 1024;
/** What a signed request may do: the chef mount's package operations, nothing else of the API. */
const PACKAGE_SCOPES: ReadonlySet<string> = new Set(['read:package', 'write:package', 'delete:package']);

const reject = (why: string) => new ApiError(401, `Chef request signature rejected: ${why}`);

/**
 * Chef's signed-header authentication as an `auth.authenticate` tap. It claims only requests that
 * carry X-Ops headers on a Chef route; others pass to the next tap.
 *
 * The kernel hands taps the path relative to the package mount, while the client signed the full
 * path (`/api/packages/{owner}/chef/api/v1/…`). So the tap checks what it can (user, key, clock
 * skew, and the signature with the RSA public operation, which yields the signed canonical string
 * for 1.0/1.1 and its SHA-256 for 1.3), and `bindSignature` in the chef router finishes the check
 * against the full path before any handler runs. Requests are matched to their pending check by
 * their headers object (the one the tap saw).
 */
export function chefAuthentication(ctx: PluginContext<ChefAuthSettings>, keys: UserKeyStore) {
  const checks = new WeakMap<IncomingHttpHeaders, SignatureCheck>();
  const rootPrefix = new URL(ctx.forge.appUrl).pathname.replace(/\/$/, '');

  async function authenticate(req: AuthRequest): Promise<Principal | undefined> {
    if (!carriesSignedHeaders(req.headers)) return undefined;
    const full = FULL_CHEF_PATH.test(req.path);
    if (!full && !CHEF_ROUTE.test(req.path)) return undefined;
    const signed = parseSignedHeaders(req.headers, Date.now(), ctx.settings.maxClockSkewSeconds);
    const user = await ctx.users.byName(signed.userId);
    if (!user || user.type !== 0) throw reject(`unknown user "${signed.userId.slice(0, 64)}"`);
    if (user.prohibitLogin) throw ApiError.forbidden('this account is prohibited from signing in; contact your site administrator');
    if (!user.isActive) throw ApiError.forbidden('this account is not activated');
    const key = await keys.keyObject(user.id);
    if (!key) throw reject(`${user.name} has no Chef public key registered (PUT /api/v1/user/chef/key)`);
    const recovered = recoverSigned(signed, key);
    if (signed.version !== '1.3') {
      // Everything but the path line can be compared now.
      const expected = canonicalRequest(signed, req.method, '/').split('\n');
      const got = recovered.toString('utf8').split('\n');
      if (got.length !== expected.length || [0, 2, 3, 4].some((i) => got[i] !== expected[i]))
        throw reject('the signature does not match the request');
    }
    const pathVerified = full && candidates(req.path).some((p) => matchesRequest(signed, recovered, req.method, p));
    if (full && !pathVerified) throw reject('the signature does not match the request');
    checks.set(req.headers, { signed, recovered, pathVerified });
    return { user, method: 'chef', scopes: PACKAGE_SCOPES, publicOnly: false };
  }

  /** The path as received, and with the public URL's path prefix when a proxy strips it. */
  function candidates(path: string): string[] {
    return rootPrefix && !path.startsWith(`${rootPrefix}/`) ? [path, `${rootPrefix}${path}`] : [path];
  }

  /**
   * First middleware of the chef router: a request the tap accepted is bound to its full path, and
   * a bodiless one to its content hash (uploads check theirs in the handler). Sets
   * `res.locals.chefSigned` for the upload.
   */
  async function bindSignature(req: Request, res: Response, next: NextFunction): Promise<void> {
    const check = checks.get(req.headers);
    if (!check) {
      if (ctx.packages.access(req).principal?.method === 'chef') throw reject('the signature was not checked for this route');
      return next();
    }
    const path = req.originalUrl.split('?')[0];
    if (!check.pathVerified && !candidates(path).some((p) => matchesRequest(check.signed, check.recovered, req.method, p))) {
      throw reject('the signature does not match the request');
    }
    if (!(req.method === 'POST' && /^\/api\/v1\/cookbooks\/?$/.test(req.path))) {
      const body = await readSmallBody(req);
      if (!contentHashMatches(check.signed, [crypto.createHash(check.signed.algorithm).update(body).digest()])) {
        throw reject('X-Ops-Content-Hash does not match the request body');
      }
    }
    res.locals.chefSigned = check.signed;
    next();
  }

  return { authenticate, bindSignature };
}

async function readSmallBody(req: Request): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_FOR_HASH) throw new ApiError(413, `request body larger than ${MAX_BODY_FOR_HASH} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
