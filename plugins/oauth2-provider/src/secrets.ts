import crypto from 'node:crypto';

/** SHA-256 hex of a random secret: codes, tokens and client secrets are high-entropy, so a fast hash suffices. */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

/** A new secret: `prefix` and 32 random bytes, URL-safe. */
export function newSecret(prefix: string): string {
  return `${prefix}${crypto.randomBytes(32).toString('base64url')}`;
}

/** Constant-time equality of two strings (hashes, PKCE challenges). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Prefixes that tell the provider's credentials apart from everything else a client may send. */
export const CLIENT_SECRET_PREFIX = 'hcs_';
export const ACCESS_TOKEN_PREFIX = 'hoa_';
export const REFRESH_TOKEN_PREFIX = 'hor_';
export const CODE_PREFIX = 'hoc_';
