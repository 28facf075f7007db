import crypto from 'node:crypto';
import { utils } from 'ssh2';
import { ApiError, isUniqueViolation, insertId, nowUnix, type PluginContext, type PluginMigration } from '@hearth/plugin-api';

/** Every SSH key: a user's (owner_id) or a repository's deploy key (repo_id). One table, so a fingerprint names one identity. */
export const KEYS = 'ssh_key';

export const migrations: PluginMigration[] = [
  {
    name: '001_ssh_keys',
    async up(db) {
      await db.schema.createTable(KEYS, (t) => {
        t.increments('id');
        t.string('kind', 10).notNullable();
        t.integer('owner_id').nullable().index();
        t.integer('repo_id').nullable().index();
        t.string('title', 255).notNullable();
        t.text('content').notNullable();
        t.string('fingerprint', 80).notNullable().unique();
        t.string('algorithm', 40).notNullable();
        t.boolean('read_only').notNullable().defaultTo(false);
        t.bigInteger('created_unix').notNullable();
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists(KEYS);
    },
  },
];

export interface KeyRow {
  id: number;
  kind: 'user' | 'deploy';
  owner_id: number | null;
  repo_id: number | null;
  title: string;
  content: string;
  fingerprint: string;
  algorithm: string;
  read_only: boolean;
  created_unix: number;
}

const MIN_RSA_BITS = 2048;
const ALGORITHMS = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521))$/;

/** A public key as registered: `type base64` (the comment dropped, as Gitea stores it) and its fingerprint. */
export interface ParsedPublicKey {
  algorithm: string;
  content: string;
  fingerprint: string;
}

/** `SHA256:<base64>` of the key blob, as `ssh-keygen -l` prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Parse an OpenSSH public key line: ssh-ed25519, ecdsa-sha2-nistp256/384/521, or ssh-rsa of at
 * least 2048 bits. A private key is refused rather than reduced to its public half.
 */
export function parsePublicKey(text: string): ParsedPublicKey {
  const line = text.trim();
  if (!line) throw ApiError.unprocessable('key is empty: paste the contents of your public key file (e.g. id_ed25519.pub)');
  if (/PRIVATE KEY/.test(line)) throw ApiError.unprocessable('key is a private key: add only the public key (the .pub file)');
  if (line.length > 16384 || /[\r\n]/.test(line)) throw ApiError.unprocessable('key must be one line of an OpenSSH public key');
  const parsed = utils.parseKey(line);
  if (parsed instanceof Error || Array.isArray(parsed)) throw ApiError.unprocessable(`key is not a valid OpenSSH public key`);
  if (parsed.isPrivateKey()) throw ApiError.unprocessable('key is a private key: add only the public key (the .pub file)');
  if (!ALGORITHMS.test(parsed.type)) {
    throw ApiError.unprocessable(`key type ${parsed.type} is not accepted (use ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa)`);
  }
  if (parsed.type === 'ssh-rsa') {
    const bits = crypto.createPublicKey(parsed.getPublicPEM()).asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) throw ApiError.unprocessable(`RSA keys need at least ${MIN_RSA_BITS} bits (this one has ${bits})`);
  }
  const blob = parsed.getPublicSSH();
  return { algorithm: parsed.type, content: `${parsed.type} ${blob.toString('base64')}`, fingerprint: fingerprintOf(blob) };
}

/** Where a new key belongs: a user's, or a repository's deploy key. */
export type KeyOwner = { kind: 'user'; userId: number } | { kind: 'deploy'; repositoryId: number; readOnly: boolean };

export type KeyStore = ReturnType<typeof keyStore>;

/** The stored keys: adding (one fingerprint, one identity; titles unique per owner), listing, removal. */
export function keyStore(ctx: PluginContext) {
  const { db } = ctx;
  const ownerColumns = (owner: KeyOwner) =>
    owner.kind === 'user' ? { kind: 'user', owner_id: owner.userId } : { kind: 'deploy', repo_id: owner.repositoryId };

  async function add(owner: KeyOwner, title: string, keyText: string): Promise<KeyRow> {
    const name = title.trim();
    if (!name) throw ApiError.unprocessable('title is required');
    const key = parsePublicKey(keyText);
    const taken = () => ApiError.unprocessable('this key is already in use (by you, another user or a deploy key)');
    if (await db(KEYS).where({ fingerprint: key.fingerprint }).first()) throw taken();
    if (await db(KEYS).where(ownerColumns(owner)).where({ title: name }).first()) {
      throw ApiError.unprocessable(`a key with the title "${name}" already exists`);
    }
    const row = {
      ...ownerColumns(owner),
      title: name,
      content: key.content,
      fingerprint: key.fingerprint,
      algorithm: key.algorithm,
      read_only: owner.kind === 'deploy' ? owner.readOnly : false,
      created_unix: nowUnix(),
    };
    try {
      const id = await insertId(db, KEYS, row);
      return (await byId(id))!;
    } catch (err) {
      if (isUniqueViolation(err)) throw taken();
      throw err;
    }
  }

  async function byId(id: number): Promise<KeyRow | undefined> {
    return read(await db(KEYS).where({ id }).first());
  }

  async function byFingerprint(fingerprint: string): Promise<KeyRow | undefined> {
    return read(await db(KEYS).where({ fingerprint }).first());
  }

  /** A page of an owner's keys, oldest first, optionally only the one with `fingerprint`. */
  async function list(owner: KeyOwner, filter: { fingerprint?: string; id?: number }, paging: { offset: number; limit: number }) {
    const q = db(KEYS).where(ownerColumns(owner));
    if (filter.fingerprint) q.where({ fingerprint: filter.fingerprint });
    if (filter.id) q.where({ id: filter.id });
    const [{ n }] = await q.clone().count({ n: '*' });
    const rows = await q.clone().orderBy('id').offset(paging.offset).limit(paging.limit);
    return { rows: rows.map((r) => read(r)!), total: Number(n) };
  }

  return {
    add,
    byId,
    byFingerprint,
    list,
    remove: (id: number) => db(KEYS).where({ id }).delete(),
  };
}

function read(row: Record<string, unknown> | undefined): KeyRow | undefined {
  if (!row) return undefined;
  return {
    ...(row as unknown as KeyRow),
    id: Number(row.id),
    owner_id: row.owner_id == null ? null : Number(row.owner_id),
    repo_id: row.repo_id == null ? null : Number(row.repo_id),
    read_only: Boolean(row.read_only),
    created_unix: Number(row.created_unix),
  };
}
