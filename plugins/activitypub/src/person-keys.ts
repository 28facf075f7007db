import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import type { SecretSealer } from '@hearth/plugin-api';

const generateRsa = promisify(generateKeyPair);

/**
 * Each person's RSA key pair (2048 bits, as Gitea), made on first use: the public half is
 * published in the Person's `publicKey`, the private half is kept sealed for signing what the
 * person sends (not yet: Hearth federates nothing outbound so far).
 */
export class PersonKeys {
  /** Key pairs being made, so that concurrent first requests for one person make one. */
  private readonly pending = new Map<number, Promise<string>>();

  constructor(
    private readonly db: Knex,
    private readonly sealer: SecretSealer,
  ) {}

  /** The person's public key (SPKI PEM), made and stored on first use. */
  async publicKeyPem(userId: number): Promise<string> {
    const stored = await this.db('activitypub_user_keys').where('user_id', userId).first('public_key_pem');
    if (stored) return String(stored.public_key_pem);
    let making = this.pending.get(userId);
    if (!making) {
      making = this.create(userId).finally(() => this.pending.delete(userId));
      this.pending.set(userId, making);
    }
    return making;
  }

  /** The person's private key (PKCS#8 PEM), or null when none was made yet. */
  async privateKeyPem(userId: number): Promise<string | null> {
    const row = await this.db('activitypub_user_keys').where('user_id', userId).first('private_key_sealed');
    return row ? this.sealer.open(String(row.private_key_sealed), sealContext(userId)) : null;
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
    return String(row.public_key_pem);
  }
}

const sealContext = (userId: number) => `activitypub-user-key:${userId}`;
