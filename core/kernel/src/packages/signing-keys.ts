import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { KernelHooks, OpenPgpSigningKey, PackageSigningKeys, RsaSigningKey } from '@hearth/plugin-api';
import { isUniqueViolation, latestCommitted } from '../db/errors';
import { SecretBox } from '../security/secret-box';
import { nowUnix } from '../users/models';
import type { PackageDeps } from './package-deps';

/**
 * The openpgp package ships CommonJS (`require` export) next to its ESM build; types come with it.
 * It is loaded by the first OpenPGP key used, not at start (a few MB of heap most servers never need).
 */
const loadOpenPgp = () => import('openpgp');

const TABLE = 'package_signing_keys';
/** RSA: what apt's gpgv, rpm 4.18's own OpenPGP parser and dnf (librepo/gpgme) all verify. */
const OPENPGP_ALGORITHM = 'openpgp-rsa3072';
/** Gitea makes 4096-bit keys for Alpine; apk verifies any RSA size. */
const RSA_ALGORITHM = 'rsa4096';
const FORMAT_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
/**
 * SHA-256 signatures; no salt notation (openpgp.js adds one to v4 signatures by default, a
 * subpacket older verifiers need not know about and that RSA PKCS#1 v1.5 signatures do not need).
 */
const signConfig = (openpgp: typeof import('openpgp')) => ({
  preferredHashAlgorithm: openpgp.enums.hash.sha256,
  nonDeterministicSignaturesViaNotation: false,
});

interface StoredKey {
  publicKey: string;
  privateKey: string;
}

/**
 * One signing key pair per owner and package format (and algorithm), generated on first use.
 * The private key is sealed with the server secret (SecretBox bound to the row's owner, format
 * and algorithm) and never leaves this service; plugins get signing functions. Two callers
 * racing on first use get the same key: the loser of the unique insert re-reads the winner's row.
 * Keys go with their owner (`user.deleting`).
 */
export class PackageSigningKeyService implements PackageSigningKeys {
  private readonly box: SecretBox;
  /** Parsed keys of this process, by owner/format/algorithm (parsing a private key costs milliseconds). */
  private readonly loaded = new Map<string, Promise<OpenPgpSigningKey | RsaSigningKey>>();

  constructor(private readonly deps: PackageDeps) {
    this.box = new SecretBox(deps.config, 'package-signing-keys');
  }

  openpgp(ownerId: number, format: string): Promise<OpenPgpSigningKey> {
    return this.memoized(ownerId, format, OPENPGP_ALGORITHM, async () => {
      const stored = await this.stored(ownerId, format, OPENPGP_ALGORITHM, () => this.generateOpenPgp(ownerId, format));
      return openPgpSigner(stored);
    }) as Promise<OpenPgpSigningKey>;
  }

  rsa(ownerId: number, format: string): Promise<RsaSigningKey> {
    return this.memoized(ownerId, format, RSA_ALGORITHM, async () => {
      const stored = await this.stored(ownerId, format, RSA_ALGORITHM, generateRsa);
      return rsaSigner(stored);
    }) as Promise<RsaSigningKey>;
  }

  /** Delete an owner's keys with the owner (inside the deletion transaction). */
  tapOwnerDeletion(hooks: KernelHooks): void {
    hooks.user.deleting.tapPromise('hearth:package-signing-keys', async ({ user, trx }) => {
      await trx(TABLE).where('owner_id', user.id).delete();
    });
    hooks.user.deleted.tapPromise('hearth:package-signing-keys', async ({ user }) => {
      for (const key of [...this.loaded.keys()]) if (key.startsWith(`${user.id}/`)) this.loaded.delete(key);
    });
  }

  private memoized(ownerId: number, format: string, algorithm: string, load: () => Promise<OpenPgpSigningKey | RsaSigningKey>) {
    if (!Number.isSafeInteger(ownerId) || ownerId <= 0) throw new Error(`package signing key: invalid owner id ${ownerId}`);
    if (!FORMAT_PATTERN.test(format)) throw new Error(`package signing key: invalid format name "${format}"`);
    const cacheKey = `${ownerId}/${format}/${algorithm}`;
    let pending = this.loaded.get(cacheKey);
    if (!pending) {
      pending = load();
      this.loaded.set(cacheKey, pending);
      pending.catch(() => this.loaded.delete(cacheKey));
    }
    return pending;
  }

  /** The stored key pair, generated and inserted when there is none yet. */
  private async stored(ownerId: number, format: string, algorithm: string, generate: () => Promise<StoredKey>): Promise<StoredKey> {
    const existing = await this.read(this.deps.db, ownerId, format, algorithm);
    if (existing) return existing;
    const fresh = await generate();
    const context = sealContext(ownerId, format, algorithm);
    try {
      await this.deps.db(TABLE).insert({
        owner_id: ownerId,
        format,
        algorithm,
        public_key: fresh.publicKey,
        private_key_sealed: this.box.seal(fresh.privateKey, context),
        created_unix: nowUnix(),
      });
      return fresh;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const winner = await this.read(this.deps.db, ownerId, format, algorithm, true);
      if (!winner) throw err;
      return winner;
    }
  }

  private async read(db: Knex, ownerId: number, format: string, algorithm: string, latest = false): Promise<StoredKey | null> {
    const query = db(TABLE).where({ owner_id: ownerId, format, algorithm }).first('public_key', 'private_key_sealed');
    const row = await (latest ? latestCommitted(db, query) : query);
    if (!row) return null;
    return { publicKey: row.public_key, privateKey: this.box.open(row.private_key_sealed, sealContext(ownerId, format, algorithm)) };
  }

  private async generateOpenPgp(ownerId: number, format: string): Promise<StoredKey> {
    const owner = await this.deps.users.byId(ownerId);
    const openpgp = await loadOpenPgp();
    const { privateKey, publicKey } = await openpgp.generateKey({
      type: 'rsa',
      rsaBits: 3072,
      userIDs: [{ name: `${owner?.name ?? `owner ${ownerId}`} ${format} packages (Hearth)` }],
      format: 'armored',
      config: signConfig(openpgp),
    });
    return { publicKey, privateKey };
  }
}

function sealContext(ownerId: number, format: string, algorithm: string): string {
  return `package-signing-key:${ownerId}:${format}:${algorithm}`;
}

async function generateRsa(): Promise<StoredKey> {
  const { publicKey, privateKey } = await new Promise<{ publicKey: string; privateKey: string }>((resolve, reject) => {
    crypto.generateKeyPair(
      'rsa',
      { modulusLength: 4096, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } },
      (err, pub, priv) => (err ? reject(err) : resolve({ publicKey: pub, privateKey: priv })),
    );
  });
  return { publicKey, privateKey };
}

function rsaSigner(stored: StoredKey): RsaSigningKey {
  const privateKey = crypto.createPrivateKey(stored.privateKey);
  return {
    publicKeyPem: stored.publicKey,
    sign: (data, hash) => crypto.sign(hash, data, privateKey),
  };
}

async function openPgpSigner(stored: StoredKey): Promise<OpenPgpSigningKey> {
  const openpgp = await loadOpenPgp();
  const SIGN_CONFIG = signConfig(openpgp);
  const signingKey = await openpgp.readPrivateKey({ armoredKey: stored.privateKey });
  const fingerprint = signingKey.getFingerprint().toUpperCase();
  return {
    publicKeyArmored: stored.publicKey,
    fingerprint,
    keyId: fingerprint.slice(-16),
    async signDetached(data, options = {}) {
      // Always a binary signature (class 0x00) over the exact bytes: no line-ending canonicalization to disagree about.
      const message = await openpgp.createMessage({ binary: typeof data === 'string' ? Buffer.from(data, 'utf8') : data });
      if (options.armor) return openpgp.sign({ message, signingKeys: signingKey, detached: true, format: 'armored', config: SIGN_CONFIG });
      const binary = await openpgp.sign({ message, signingKeys: signingKey, detached: true, format: 'binary', config: SIGN_CONFIG });
      return Buffer.from(binary);
    },
    async signCleartext(text) {
      const message = await openpgp.createCleartextMessage({ text });
      // openpgp.js writes the message lines with CRLF; the signature is over canonical (CRLF) text
      // whatever the file uses, and apt's parser and most tools expect the file's native LF.
      return (await openpgp.sign({ message, signingKeys: signingKey, config: SIGN_CONFIG })).replace(/\r\n/g, '\n');
    },
  };
}
