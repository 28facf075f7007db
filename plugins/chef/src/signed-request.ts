import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '@hearth/plugin-api';

/** The signing protocol versions of mixlib-authentication (knife, chef-client, Berkshelf). */
export type SignVersion = '1.0' | '1.1' | '1.3';
const ALGORITHM: Record<SignVersion, 'sha1' | 'sha256'> = { '1.0': 'sha1', '1.1': 'sha1', '1.3': 'sha256' };
/** DER prefix of a PKCS#1 v1.5 DigestInfo for SHA-256 (RFC 8017 §9.2 note 1). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');
const MAX_SIGNATURE_LINES = 32;

export interface SignedHeaders {
  version: SignVersion;
  algorithm: 'sha1' | 'sha256';
  userId: string;
  timestamp: string;
  contentHash: string;
  serverApiVersion: string;
  signature: Buffer;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** True when a request carries Chef's signed headers (it is then Chef's to accept or reject). */
export function carriesSignedHeaders(headers: IncomingHttpHeaders): boolean {
  return (
    header(headers, 'x-ops-userid') !== undefined ||
    header(headers, 'x-ops-sign') !== undefined ||
    header(headers, 'x-ops-authorization-1') !== undefined
  );
}

const reject = (why: string) => new ApiError(401, `Chef request signature rejected: ${why}`);

/** Parse and sanity-check the X-Ops headers (not the signature itself). */
export function parseSignedHeaders(headers: IncomingHttpHeaders, now: number, maxSkewSeconds: number): SignedHeaders {
  const sign = header(headers, 'x-ops-sign');
  const userId = header(headers, 'x-ops-userid');
  const timestamp = header(headers, 'x-ops-timestamp');
  const contentHash = header(headers, 'x-ops-content-hash');
  if (!sign || !userId || !timestamp || !contentHash)
    throw reject('X-Ops-Sign, X-Ops-Userid, X-Ops-Timestamp and X-Ops-Content-Hash are all required');
  const description = new Map<string, string>();
  for (const part of sign.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) description.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const version = (description.get('version') ?? '1.0') as SignVersion;
  if (!(version in ALGORITHM)) throw reject(`unsupported signing protocol version "${version}" (1.0, 1.1 and 1.3 are supported)`);
  const algorithm = ALGORITHM[version];
  if ((description.get('algorithm') ?? 'sha1') !== algorithm) throw reject(`protocol ${version} signs with ${algorithm}`);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(timestamp) || Number.isNaN(Date.parse(timestamp)))
    throw reject('X-Ops-Timestamp must be UTC ISO 8601 (YYYY-MM-DDThh:mm:ssZ)');
  if (Math.abs(now - Date.parse(timestamp)) > maxSkewSeconds * 1000)
    throw reject(`X-Ops-Timestamp is more than ${maxSkewSeconds} seconds away from the server's clock`);
  const lines: string[] = [];
  for (let i = 1; i <= MAX_SIGNATURE_LINES; i++) {
    const line = header(headers, `x-ops-authorization-${i}`);
    if (line === undefined) break;
    lines.push(line.trim());
  }
  const joined = lines.join('');
  if (!joined || !/^[A-Za-z0-9+/]+={0,2}$/.test(joined)) throw reject('X-Ops-Authorization-1…N must hold a base64 signature');
  return {
    version,
    algorithm,
    userId,
    timestamp,
    contentHash,
    serverApiVersion: header(headers, 'x-ops-server-api-version') ?? '0',
    signature: Buffer.from(joined, 'base64'),
  };
}

const b64hash = (algorithm: 'sha1' | 'sha256', data: string | Buffer) => crypto.createHash(algorithm).update(data).digest('base64');

/** Mixlib's canonical path: repeated slashes collapsed, a trailing slash removed. */
export function canonicalPath(path: string): string {
  const collapsed = path.replace(/\/+/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
}

/** The string a client signs (mixlib-authentication's canonicalize_request). */
export function canonicalRequest(s: SignedHeaders, method: string, path: string): string {
  const userId = s.version === '1.1' ? b64hash('sha1', s.userId) : s.userId;
  if (s.version === '1.3') {
    return [
      `Method:${method.toUpperCase()}`,
      `Path:${canonicalPath(path)}`,
      `X-Ops-Content-Hash:${s.contentHash}`,
      'X-Ops-Sign:version=1.3',
      `X-Ops-Timestamp:${s.timestamp}`,
      `X-Ops-UserId:${userId}`,
      `X-Ops-Server-API-Version:${s.serverApiVersion}`,
    ].join('\n');
  }
  return [
    `Method:${method.toUpperCase()}`,
    `Hashed Path:${b64hash('sha1', canonicalPath(path))}`,
    `X-Ops-Content-Hash:${s.contentHash}`,
    `X-Ops-Timestamp:${s.timestamp}`,
    `X-Ops-UserId:${userId}`,
  ].join('\n');
}

/**
 * What the signature proves, recovered with the RSA public operation: for 1.0/1.1 the canonical
 * string itself (the client "private-encrypts" it with PKCS#1 type-1 padding), for 1.3 the SHA-256
 * of it (a PKCS#1 v1.5 signature's DigestInfo). Recovering first lets the signature be checked
 * before the request path is known (see SignatureCheck); a wrong key or padding is a 401.
 */
export function recoverSigned(s: SignedHeaders, publicKey: crypto.KeyObject): Buffer {
  let recovered: Buffer;
  try {
    recovered = crypto.publicDecrypt({ key: publicKey, padding: crypto.constants.RSA_PKCS1_PADDING }, s.signature);
  } catch {
    throw reject("the signature does not verify with the user's registered Chef public key");
  }
  if (s.version !== '1.3') return recovered;
  if (recovered.length !== SHA256_DIGEST_INFO.length + 32 || !recovered.subarray(0, SHA256_DIGEST_INFO.length).equals(SHA256_DIGEST_INFO)) {
    throw reject('the signature is not a PKCS#1 v1.5 SHA-256 signature');
  }
  return recovered.subarray(SHA256_DIGEST_INFO.length);
}

/** Whether the recovered signed data matches the request as received at `path`. */
export function matchesRequest(s: SignedHeaders, recovered: Buffer, method: string, path: string): boolean {
  const canonical = Buffer.from(canonicalRequest(s, method, path), 'utf8');
  const expected = s.version === '1.3' ? crypto.createHash('sha256').update(canonical).digest() : canonical;
  return expected.length === recovered.length && crypto.timingSafeEqual(expected, recovered);
}

/** Compare an X-Ops-Content-Hash with body digests (base64 of SHA-1 or SHA-256), in constant time. */
export function contentHashMatches(s: SignedHeaders, digests: Buffer[]): boolean {
  const claimed = Buffer.from(s.contentHash, 'base64');
  return digests.some((d) => d.length === claimed.length && crypto.timingSafeEqual(d, claimed));
}
