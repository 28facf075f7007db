import { createHash } from 'node:crypto';
import * as httpSignature from '@peertube/http-signature';
import { ApiError, type OutboundNetwork, type OutboundPolicyName } from '@hearth/plugin-api';
import type { Request } from 'express';
import { ACTIVITY_JSON, LD_JSON_PROFILE } from './persons';

/** What a signed inbox request must sign, as Mastodon and Gitea send it. */
const SIGNED_HEADERS = ['(request-target)', 'host', 'date', 'digest'];
const ALGORITHMS = ['rsa-sha256', 'hs2019'];
const DIGESTS: Record<string, string> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

export interface SignatureOptions {
  outbound: OutboundNetwork;
  policy: () => OutboundPolicyName;
  /** Seconds the Date header may differ from the server's clock. */
  clockSkewSeconds: number;
}

/** A request Gitea would not take (400): no, a malformed or an unverifiable signature. */
const refused = (reason: string) => ApiError.badRequest(`request signature verification failed: ${reason}`);

/**
 * Check the HTTP Signature (draft-cavage, as Mastodon and Gitea use it) of a request to an inbox:
 * the signature covers the request target, Host, a recent Date and a Digest that matches the body,
 * and verifies with the public key its `keyId` names, fetched from the actor's server through the
 * outbound allow-list. Returns the key id; throws 400 for what cannot be checked, 403 for a
 * signature the key does not verify.
 */
export async function verifyInboxSignature(req: Request, body: Buffer, options: SignatureOptions): Promise<string> {
  if (!req.headers.signature) throw refused('no Signature header');
  const date = Date.parse(String(req.headers.date ?? ''));
  if (Number.isNaN(date)) throw refused('no valid Date header');
  let parsed: httpSignature.ParsedSignature;
  try {
    parsed = httpSignature.parseRequest(
      { method: req.method, url: req.originalUrl, httpVersion: req.httpVersion, headers: req.headers },
      { headers: SIGNED_HEADERS, algorithms: ALGORITHMS, clockSkew: options.clockSkewSeconds, authorizationHeaderName: 'signature' },
    );
  } catch (err) {
    throw refused((err as Error).message);
  }
  checkDigest(String(req.headers.digest ?? ''), body);
  const publicKeyPem = await fetchPublicKey(parsed.keyId, options);
  let verified: boolean;
  try {
    verified = httpSignature.verifySignature(parsed, publicKeyPem);
  } catch (err) {
    throw refused(`the key ${parsed.keyId} cannot be used: ${(err as Error).message}`);
  }
  if (!verified) throw ApiError.forbidden('request signature verification failed');
  return parsed.keyId;
}

/** Every digest of an algorithm we know must match the body, and there must be one. */
function checkDigest(header: string, body: Buffer): void {
  let checked = 0;
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    const algorithm = DIGESTS[part.slice(0, at).trim().toLowerCase()];
    if (at < 0 || !algorithm) continue;
    if (createHash(algorithm).update(body).digest('base64') !== part.slice(at + 1).trim())
      throw refused('the Digest does not match the body');
    checked++;
  }
  if (!checked) throw refused('no SHA-256 or SHA-512 Digest header');
}

/**
 * The PEM of the key `keyId` names: the document at the key id (without its fragment) is the actor
 * whose `publicKey` has that id, or the key itself.
 */
async function fetchPublicKey(keyId: string, options: SignatureOptions): Promise<string> {
  let url: URL;
  try {
    url = new URL(keyId);
  } catch {
    throw refused('the keyId is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused('the keyId is not an http(s) URL');
  url.hash = '';
  let document: unknown;
  try {
    const res = await options.outbound.request(
      url.toString(),
      { headers: { accept: `${ACTIVITY_JSON}, ${LD_JSON_PROFILE}` }, maxRedirects: 3 },
      options.policy(),
    );
    if (res.status !== 200 || res.truncated)
      throw new Error(`the key's document answered ${res.status}${res.truncated ? ' (too large)' : ''}`);
    document = JSON.parse(res.body);
  } catch (err) {
    if (options.outbound.isRefusal(err)) throw refused(`the key's host is refused: ${(err as Error).message}`);
    throw refused(`the key ${keyId} cannot be fetched: ${(err as Error).message}`);
  }
  const pem = keyIn(document, keyId);
  if (!pem) throw refused(`the document at ${url} has no public key ${keyId}`);
  return pem;
}

function keyIn(document: unknown, keyId: string): string | null {
  if (!document || typeof document !== 'object') return null;
  const candidates = [document, ...[(document as { publicKey?: unknown }).publicKey].flat()];
  for (const key of candidates) {
    if (!key || typeof key !== 'object') continue;
    const { id, publicKeyPem } = key as { id?: unknown; publicKeyPem?: unknown };
    if (id === keyId && typeof publicKeyPem === 'string') return publicKeyPem;
  }
  return null;
}
