import crypto from 'node:crypto';

/** A new token: 20 random bytes as 40 hex characters, the shape Gitea clients expect. */
export function generateToken(): string {
  return crypto.randomBytes(20).toString('hex');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export function looksLikeToken(value: string): boolean {
  return /^[0-9a-f]{40}$/.test(value);
}
