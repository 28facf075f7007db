import crypto from 'node:crypto';
import fs from 'node:fs';
import { ApiError, created, noContent, ok, type ApiOperation, type PluginCommand, type PluginContext } from '@hearth/plugin-api';
import { USER_KEYS } from './tables';

const MIN_BITS = 2048;
const MAX_PEM_LENGTH = 16 * 1024;

export interface StoredKey {
  publicKey: string;
  fingerprint: string;
  createdAt: Date;
}

/** `SHA256:<base64>` of the key's DER SubjectPublicKeyInfo, as ssh-keygen prints fingerprints. */
function fingerprintOf(key: crypto.KeyObject): string {
  return `SHA256:${crypto
    .createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('base64')
    .replace(/=+$/, '')}`;
}

/**
 * Parse a public key a user registers: PEM, RSA (Chef signs with RSA only), at least 2048 bits.
 * A private key is refused rather than silently reduced to its public half: it must never be
 * uploaded.
 */
export function parsePublicKey(pem: unknown): crypto.KeyObject {
  if (typeof pem !== 'string' || !pem.trim()) throw ApiError.unprocessable('public_key must be a PEM-encoded RSA public key');
  if (pem.length > MAX_PEM_LENGTH) throw ApiError.unprocessable('public_key is too long');
  if (/PRIVATE KEY/.test(pem))
    throw ApiError.unprocessable('public_key is a private key: register only the public half (openssl rsa -in key.pem -pubout)');
  if (!/^-----BEGIN (RSA )?PUBLIC KEY-----[\s\S]+-----END (RSA )?PUBLIC KEY-----\s*$/.test(pem.trim())) {
    throw ApiError.unprocessable('public_key must be PEM: -----BEGIN PUBLIC KEY----- or -----BEGIN RSA PUBLIC KEY-----');
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw ApiError.unprocessable('public_key is not a valid PEM public key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw ApiError.unprocessable(`public_key must be an RSA key, not ${key.asymmetricKeyType}`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_BITS) throw ApiError.unprocessable(`public_key must have at least ${MIN_BITS} bits (it has ${bits})`);
  return key;
}

export type UserKeyStore = ReturnType<typeof userKeyStore>;

/** The Chef public keys of users: one per user, replaced on each registration. */
export function userKeyStore(ctx: PluginContext) {
  const { db } = ctx;
  // Parsed keys by user, so that verifying a signature does not parse PEM each time.
  const parsed = new Map<number, { pem: string; key: crypto.KeyObject }>();

  async function get(userId: number): Promise<StoredKey | null> {
    const row: { public_key: string; fingerprint: string; created_unix: number | string } | undefined = await db(USER_KEYS)
      .where({ user_id: userId })
      .first();
    return row ? { publicKey: row.public_key, fingerprint: row.fingerprint, createdAt: new Date(Number(row.created_unix) * 1000) } : null;
  }

  async function keyObject(userId: number): Promise<crypto.KeyObject | null> {
    const stored = await get(userId);
    if (!stored) return null;
    const cached = parsed.get(userId);
    if (cached && cached.pem === stored.publicKey) return cached.key;
    const key = crypto.createPublicKey(stored.publicKey);
    parsed.set(userId, { pem: stored.publicKey, key });
    return key;
  }

  async function set(userId: number, key: crypto.KeyObject): Promise<StoredKey> {
    const publicKey = key.export({ type: 'spki', format: 'pem' }).toString();
    const row = { public_key: publicKey, fingerprint: fingerprintOf(key), created_unix: Math.floor(Date.now() / 1000) };
    await db.transaction(async (trx) => {
      await trx(USER_KEYS).where({ user_id: userId }).delete();
      await trx(USER_KEYS).insert({ user_id: userId, ...row });
    });
    parsed.delete(userId);
    return { publicKey, fingerprint: row.fingerprint, createdAt: new Date(row.created_unix * 1000) };
  }

  async function remove(userId: number): Promise<boolean> {
    parsed.delete(userId);
    return (await db(USER_KEYS).where({ user_id: userId }).delete()) > 0;
  }

  return { get, keyObject, set, remove };
}

const toJson = (k: StoredKey) => ({ public_key: k.publicKey, fingerprint: k.fingerprint, created_at: k.createdAt.toISOString() });

const KEY_SCHEMA = {
  type: 'object',
  properties: {
    public_key: { type: 'string', description: 'PEM', example: '-----BEGIN PUBLIC KEY-----…' },
    fingerprint: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

/**
 * `/api/v1/user/chef/key`: the signed-in user manages their own Chef public key (Gitea keeps one
 * per user in its package settings). GET shows it, PUT registers one, POST generates a key pair
 * and returns the private half once (Gitea's "regenerate"), DELETE removes it.
 */
export function keyOperations(store: UserKeyStore): ApiOperation[] {
  const common = {
    path: '/user/chef/key',
    tag: 'user',
    scopes: ['user'] as ['user'],
    auth: 'required' as const,
    access: 'caller' as const,
  };
  return [
    {
      ...common,
      method: 'get',
      operationId: 'userGetChefKey',
      summary: "Get the signed-in user's Chef public key",
      responses: { 200: { description: 'ChefKey', schema: KEY_SCHEMA }, 404: 'APIError' },
      handler: async (req) => {
        const key = await store.get(req.principal!.user.id);
        if (!key) throw ApiError.notFound('no Chef public key is registered');
        return ok(toJson(key));
      },
    },
    {
      ...common,
      method: 'put',
      operationId: 'userSetChefKey',
      summary: "Register the signed-in user's Chef public key (replaces the previous one)",
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['public_key'],
        properties: { public_key: { type: 'string', maxLength: MAX_PEM_LENGTH } },
      },
      bodyRequired: true,
      responses: { 200: { description: 'ChefKey', schema: KEY_SCHEMA }, 422: 'APIError' },
      handler: async (req) =>
        ok(toJson(await store.set(req.principal!.user.id, parsePublicKey((req.body as { public_key: unknown }).public_key)))),
    },
    {
      ...common,
      method: 'post',
      operationId: 'userGenerateChefKey',
      summary: 'Generate a Chef key pair: the public half is registered, the private half returned once',
      responses: {
        201: {
          description: 'ChefKeyPair',
          schema: { ...KEY_SCHEMA, properties: { ...KEY_SCHEMA.properties, private_key: { type: 'string' } } },
        },
      },
      handler: async (req) => {
        const pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
        const stored = await store.set(req.principal!.user.id, pair.publicKey);
        return created({ ...toJson(stored), private_key: pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() });
      },
    },
    {
      ...common,
      method: 'delete',
      operationId: 'userDeleteChefKey',
      summary: "Remove the signed-in user's Chef public key",
      responses: { 204: { description: 'removed' }, 404: 'APIError' },
      handler: async (req) => {
        if (!(await store.remove(req.principal!.user.id))) throw ApiError.notFound('no Chef public key is registered');
        return noContent();
      },
    },
  ];
}

/** `hearth plugins run chef set-key <user> <public-key.pem>` and `remove-key <user>`, for administrators. */
export function keyCommands(ctx: PluginContext, store: UserKeyStore): PluginCommand[] {
  const userNamed = async (name: string) => {
    const user = await ctx.users.byName(name);
    if (!user || user.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
    return user;
  };
  return [
    {
      name: 'set-key',
      usage: '<user> <public-key.pem>',
      description: "register a user's Chef public key (PEM, RSA ≥ 2048 bits)",
      async run(args, out) {
        if (args.length !== 2) throw ApiError.badRequest('usage: hearth plugins run chef set-key <user> <public-key.pem>');
        const user = await userNamed(args[0]);
        let pem: string;
        try {
          pem = fs.readFileSync(args[1], 'utf8');
        } catch (err) {
          throw ApiError.badRequest(`cannot read ${args[1]}: ${(err as Error).message}`);
        }
        const stored = await store.set(user.id, parsePublicKey(pem));
        out(`registered the Chef public key of ${user.name} (${stored.fingerprint})`);
      },
    },
    {
      name: 'remove-key',
      usage: '<user>',
      description: "remove a user's Chef public key",
      async run(args, out) {
        if (args.length !== 1) throw ApiError.badRequest('usage: hearth plugins run chef remove-key <user>');
        const user = await userNamed(args[0]);
        out((await store.remove(user.id)) ? `removed the Chef public key of ${user.name}` : `${user.name} has no Chef public key`);
      },
    },
  ];
}
