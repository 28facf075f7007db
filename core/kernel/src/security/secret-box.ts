import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HearthConfig } from '../config/types';

const VERSION = 'v1';
const KEY_FILE = 'secret_key';

/**
 * Authenticated encryption (AES-256-GCM) of secrets kept in the database. The key is derived
 * (HKDF-SHA256) from `security.SECRET_KEY`; when that is empty, from a random key generated once
 * and kept in `DATA_DIR/secret_key` (mode 0600). Each sealed value carries its own random nonce
 * and is bound to a context string (e.g. the row it belongs to), so it cannot be moved to
 * another row. Format: `v1:` + base64(nonce ‖ tag ‖ ciphertext).
 */
export class SecretBox {
  private key?: Buffer;

  constructor(
    private readonly config: HearthConfig,
    private readonly purpose: string,
  ) {}

  seal(plain: string, context: string): string {
    const nonce = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.derivedKey(), nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plain text, or an Error when the value was sealed under another key or context, or altered. */
  open(sealed: string, context: string): string {
    const [version, data] = sealed.split(':', 2);
    if (version !== VERSION || !data) throw new Error('stored secret has an unknown format');
    const raw = Buffer.from(data, 'base64');
    if (raw.length < 28) throw new Error('stored secret is truncated');
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.derivedKey(), raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('stored secret cannot be decrypted (was security.SECRET_KEY or DATA_DIR/secret_key changed?)');
    }
  }

  private derivedKey(): Buffer {
    if (!this.key) {
      const material = this.config.security.SECRET_KEY || loadOrCreateKeyFile(this.config.server.DATA_DIR);
      this.key = Buffer.from(
        crypto.hkdfSync('sha256', Buffer.from(material, 'utf8'), Buffer.from('hearth'), Buffer.from(this.purpose, 'utf8'), 32),
      );
    }
    return this.key;
  }
}

/** The generated key of this data directory; created on first use (exclusively, so two starts agree). */
function loadOrCreateKeyFile(dataDir: string): string {
  const file = path.join(dataDir, KEY_FILE);
  const read = () => fs.readFileSync(file, 'utf8').trim();
  if (fs.existsSync(file)) return read();
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, `${crypto.randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return read();
}
