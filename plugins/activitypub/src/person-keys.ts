import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import type { SecretSealer } from '@hearth/plugin-api';

const generateRsa = promisify(generateKeyPair);
/** About 450 bytes each: 10,000 keys keep a few MB. */
const CACHED_KEYS = 10_000;

/**
 * Each person's RSA key pair (2048 bits, as Gitea), made on first use: the public half is
 * published in the Person's `publicKey`; the private half is kept sealed for signing what the
 * person will send (nothing yet: Hearth delivers nothing outbound so far, so nothing opens it).
 */
export class PersonKeys {
  /** Key pairs being made, so that concurrent first requests for one person make one. */
  private readonly pending = new Map<number, Promise<string>>();
  /**
   * Public keys read or made, in insertion order (the oldest is dropped beyond CACHED_KEYS): a key
   * never changes once stored, and goes only with its user (`forget`), so every Person fetch need
   * not read it again.
   */
  private readonly cache = new Map<number, string>();

  constructor(
    private readonly db: Knex,
    private readonly sealer: SecretSealer,
  ) {}

  /** The person's public key (SPKI PEM), made and stored on first use. */
  async publicKeyPem(userId: number): Promise<string> {
    const cached = this.cache.get(userId);
    if (cached) return cached;
    const stored = await this.db('activitypub_user_keys').where('user_id', userId).first('public_key_pem');
    if (stored) return this.remember(userId, String(stored.public_key_pem));
    let making = this.pending.get(userId);
    if (!making) {
      making = this.create(userId).finally(() => this.pending.delete(userId));
      this.pending.set(userId, making);
    }
    return making;
  }

  /** Drop the cached key of a user being deleted (its row goes in the same transaction). */
  forget(userId: number): void {
    this.cache.delete(userId);
  }

  private remember(userId: number, pem: string): string {
    this.cache.set(userId, pem);
    if (this.cache.size > CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as number);
    return pem;
  }

  private async create(userId: number): Promise<string> {
    const { publicKey, privateKey } = await generateRsa('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    // Another server process may have made one meanwhile: the first stored wins, and is what everyone publishes.
    await this.db('activitypub_user_keys')
      .insert({
        user_id: userId,
        public_key_pem: publicKey,
        private_key_sealed: this.sealer.seal(privateKey, sealContext(userId)),
        created_unix: Math.floor(Date.now() / 1000),
      })
      .onConflict('user_id')
      .ignore();
    const row = await this.db('activitypub_user_keys').where('user_id', userId).first('public_key_pem');
    return this.remember(userId, String(row.public_key_pem));
  }
}

const sealContext = (userId: number) => `activitypub-user-key:${userId}`;
