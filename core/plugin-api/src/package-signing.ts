/** An owner's OpenPGP key for one package format, created on first use. (API 2.1) @public */
export interface OpenPgpSigningKey {
  /** ASCII-armored public key (serve it as the repository key). */
  publicKeyArmored: string;
  /** Upper-case hex v4 fingerprint, and its last 16 hex digits. */
  fingerprint: string;
  keyId: string;
  /** A detached signature over `data`: binary (armor false, the default) or ASCII-armored. SHA-256. */
  signDetached(data: Buffer | string, options?: { armor?: boolean }): Promise<Buffer | string>;
  /** A cleartext-signed message (e.g. InRelease). */
  signCleartext(text: string): Promise<string>;
}
/** An owner's RSA key pair for one package format (Alpine signs indexes with it). @public */
export interface RsaSigningKey {
  publicKeyPem: string;
  sign(data: Buffer, hash: 'sha1' | 'sha256'): Buffer;
}
/** Per-owner signing keys for package formats, created on first use and stored encrypted. @public */
export interface PackageSigningKeys {
  openpgp(ownerId: number, format: string): Promise<OpenPgpSigningKey>;
  rsa(ownerId: number, format: string): Promise<RsaSigningKey>;
}
