import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError, insertId, nowUnix, unixToIso } from '@hearth/plugin-api';
import { CLIENT_SECRET_PREFIX, hashSecret, newSecret, sameSecret } from './secrets';

export interface OAuth2Application {
  id: number;
  userId: number;
  name: string;
  clientId: string;
  confidential: boolean;
  redirectUris: string[];
  createdUnix: number;
}

export interface ApplicationFields {
  name: string;
  redirect_uris: string[];
  confidential_client?: boolean;
}

interface ApplicationRow {
  id: number;
  user_id: number;
  name: string;
  client_id: string;
  secret_hash: string;
  confidential: boolean | number;
  redirect_uris: string;
  created_unix: number | string;
}

const MAX_REDIRECT_URIS = 10;

function fromRow(row: ApplicationRow): OAuth2Application {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    clientId: row.client_id,
    confidential: Boolean(row.confidential),
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    createdUnix: Number(row.created_unix),
  };
}

/**
 * A redirect URI an application may register: absolute (a scheme and, for http(s), a host), no
 * fragment (RFC 6749 §3.1.2). Custom schemes (`myapp:/callback`) are allowed for native clients.
 */
export function checkRedirectUris(uris: string[]): string[] {
  if (uris.length === 0) throw ApiError.unprocessable('redirect_uris must name at least one URI the application receives codes at');
  if (uris.length > MAX_REDIRECT_URIS) throw ApiError.unprocessable(`redirect_uris may name at most ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw ApiError.unprocessable(`redirect URI "${uri}" is not an absolute URI`);
    }
    if (/^https?:$/.test(url.protocol) && !url.host) throw ApiError.unprocessable(`redirect URI "${uri}" has no host`);
    if (url.hash || uri.includes('#')) throw ApiError.unprocessable(`redirect URI "${uri}" must not have a fragment`);
    if (/^(javascript|data|vbscript|file):$/i.test(url.protocol))
      throw ApiError.unprocessable(`redirect URI "${uri}" has a forbidden scheme`);
  }
  return [...new Set(uris)];
}

/** The OAuth2 applications users register; the client secret is shown once and stored as its hash. */
export class ApplicationStore {
  /** `revoked` runs after grants and tokens were deleted (the token cache forgets them). */
  constructor(
    private readonly db: Knex,
    private readonly revoked: () => void,
  ) {}

  async create(userId: number, fields: ApplicationFields): Promise<{ app: OAuth2Application; secret: string }> {
    const uris = checkRedirectUris(fields.redirect_uris);
    const secret = newSecret(CLIENT_SECRET_PREFIX);
    const now = nowUnix();
    const row = {
      user_id: userId,
      name: fields.name.trim(),
      client_id: crypto.randomUUID(),
      secret_hash: hashSecret(secret),
      confidential: fields.confidential_client ?? true,
      redirect_uris: JSON.stringify(uris),
      created_unix: now,
      updated_unix: now,
    };
    const id = await insertId(this.db, 'oauth2_applications', row);
    return { app: fromRow({ ...row, id }), secret };
  }

  async list(userId: number, offset: number, limit: number): Promise<{ apps: OAuth2Application[]; total: number }> {
    const [{ n }] = await this.db('oauth2_applications').where('user_id', userId).count({ n: '*' });
    const rows: ApplicationRow[] = await this.db('oauth2_applications').where('user_id', userId).orderBy('id').offset(offset).limit(limit);
    return { apps: rows.map(fromRow), total: Number(n) };
  }

  /** The caller's application `id`; another user's is a 404, as on Gitea. */
  async ownedBy(userId: number, id: number): Promise<OAuth2Application> {
    const row: ApplicationRow | undefined = await this.db('oauth2_applications').where({ id, user_id: userId }).first();
    if (!row) throw ApiError.notFound(`OAuth Application does not exist [id: ${id}]`);
    return fromRow(row);
  }

  async byClientId(clientId: string): Promise<OAuth2Application | null> {
    const row: ApplicationRow | undefined = await this.db('oauth2_applications').where('client_id', clientId).first();
    return row ? fromRow(row) : null;
  }

  /** The application whose id and secret these are, or null. */
  async authenticate(clientId: string, secret: string): Promise<OAuth2Application | null> {
    const row: ApplicationRow | undefined = await this.db('oauth2_applications').where('client_id', clientId).first();
    return row && sameSecret(row.secret_hash, hashSecret(secret)) ? fromRow(row) : null;
  }

  /** Change name, URIs and kind; a new secret is generated and returned (as Gitea's update does). */
  async update(userId: number, id: number, fields: ApplicationFields): Promise<{ app: OAuth2Application; secret: string }> {
    const app = await this.ownedBy(userId, id);
    const uris = checkRedirectUris(fields.redirect_uris);
    const secret = newSecret(CLIENT_SECRET_PREFIX);
    const changes = {
      name: fields.name.trim(),
      redirect_uris: JSON.stringify(uris),
      confidential: fields.confidential_client ?? app.confidential,
      secret_hash: hashSecret(secret),
      updated_unix: nowUnix(),
    };
    await this.db('oauth2_applications').where({ id }).update(changes);
    return { app: { ...app, name: changes.name, redirectUris: uris, confidential: changes.confidential }, secret };
  }

  /** Delete an application with everything issued for it: grants, codes, tokens. */
  async delete(userId: number, id: number): Promise<void> {
    await this.ownedBy(userId, id);
    await this.db.transaction(async (trx) => {
      await deleteGrants(trx, trx('oauth2_grants').where('application_id', id).select('id'));
      await trx('oauth2_applications').where({ id }).delete();
    });
    this.revoked();
  }

  /** A deleted user's applications (and what they issued), and their grants to other applications. */
  async deleteUser(trx: Knex.Transaction, userId: number): Promise<void> {
    const apps = trx('oauth2_applications').where('user_id', userId).select('id');
    await deleteGrants(trx, trx('oauth2_grants').whereIn('application_id', apps).orWhere('user_id', userId).select('id'));
    await trx('oauth2_applications').where('user_id', userId).delete();
    this.revoked();
  }
}

/** Grants with their codes and tokens: what an application or a user leaves behind. */
async function deleteGrants(trx: Knex.Transaction, grantIds: Knex.QueryBuilder): Promise<void> {
  const ids = (await grantIds).map((r: { id: number }) => r.id);
  if (!ids.length) return;
  await trx('oauth2_tokens').whereIn('grant_id', ids).delete();
  await trx('oauth2_codes').whereIn('grant_id', ids).delete();
  await trx('oauth2_grants').whereIn('id', ids).delete();
}

/** Gitea's `OAuth2Application` JSON; the secret only where it was just generated. */
export function applicationJson(app: OAuth2Application, secret = ''): Record<string, unknown> {
  return {
    id: app.id,
    name: app.name,
    client_id: app.clientId,
    client_secret: secret,
    confidential_client: app.confidential,
    redirect_uris: app.redirectUris,
    created: unixToIso(app.createdUnix),
  };
}
