import crypto from 'node:crypto';
import { SignJWT, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, type KeyLike } from 'jose';
import { nowUnix, type PluginContext, type SecretSealer } from '@hearth/plugin-api';

interface SigningKey {
  kid: string;
  privateKey: KeyLike;
  publicJwk: JWK;
}

/**
 * The RS256 key that signs ID tokens: generated on first use and kept in the database, its
 * private half sealed with `ctx.secrets('oauth2-signing-keys')`; the public half is the JWKS.
 */
export class SigningKeys {
  private current?: Promise<SigningKey>;
  private readonly sealer: SecretSealer;

  constructor(private readonly ctx: Pick<PluginContext, 'db' | 'secrets' | 'log'>) {
    this.sealer = ctx.secrets('oauth2-signing-keys');
  }

  private key(): Promise<SigningKey> {
    this.current ??= this.load().catch((err: unknown) => {
      this.current = undefined;
      throw err;
    });
    return this.current;
  }

  private async load(): Promise<SigningKey> {
    const row = await this.ctx.db('oauth2_signing_keys').orderBy('id', 'desc').first();
    if (row) {
      const privateKey = await importPKCS8(this.sealer.open(row.private_key, `kid:${row.kid}`), 'RS256');
      return { kid: row.kid, privateKey, publicJwk: JSON.parse(row.public_jwk) as JWK };
    }
    const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const kid = crypto.randomBytes(12).toString('base64url');
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    await this.ctx.db('oauth2_signing_keys').insert({
      kid,
      private_key: this.sealer.seal(await exportPKCS8(privateKey), `kid:${kid}`),
      public_jwk: JSON.stringify(publicJwk),
      created_unix: nowUnix(),
    });
    this.ctx.log.info({ kid }, 'generated the OAuth2 provider’s ID token signing key');
    return this.load();
  }

  /** Make sure a key exists (at start, so the first sign-in does not wait for the key generation). */
  async ensure(): Promise<void> {
    await this.key();
  }

  /** The JSON Web Key Set of `GET /login/oauth/keys`. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const rows: Array<{ public_jwk: string }> = await this.ctx.db('oauth2_signing_keys').orderBy('id', 'desc').select('public_jwk');
    if (!rows.length) return { keys: [(await this.key()).publicJwk] };
    return { keys: rows.map((r) => JSON.parse(r.public_jwk) as JWK) };
  }

  /** An ID token for `claims`, issued by `issuer` for `audience`, valid `lifetimeSeconds`. */
  async idToken(claims: Record<string, unknown>, issuer: string, audience: string, lifetimeSeconds: number): Promise<string> {
    const { kid, privateKey } = await this.key();
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(nowUnix() + lifetimeSeconds)
      .sign(privateKey);
  }
}
