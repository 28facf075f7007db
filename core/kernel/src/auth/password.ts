import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLEL = 1;

/**
 * Password hashes use scrypt, a memory-hard KDF built into Node (no native addon). The stored
 * form carries its parameters, `scrypt$N$r$p$salt$hash` (base64), so the cost can be raised
 * later without invalidating existing hashes.
 */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { N: cost, r: BLOCK_SIZE, p: PARALLEL, maxmem: maxmem(cost, BLOCK_SIZE) });
  return ['scrypt', cost, BLOCK_SIZE, PARALLEL, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: maxmem(N, r) });
  return crypto.timingSafeEqual(key, expected);
}

function maxmem(N: number, r: number): number {
  return 128 * N * r * 2;
}
