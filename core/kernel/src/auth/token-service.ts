import type { Knex } from 'knex';
import { ApiError, type Paging } from '@hearth/plugin-api';
import { isUniqueViolation } from '../db/errors';
import { AccessTokenRow, UserRow, nowUnix } from '../users/models';
import { CredentialCache } from './credential-cache';
import { expandScopes, normalizeScopes } from './scopes';
import { generateToken, hashToken } from './tokens';

export interface ResolvedToken {
  tokenId: number;
  /** Every `level:category` the stored scope grants, expanded once per cache entry. */
  granted: ReadonlySet<string>;
  publicOnly: boolean;
  user: UserRow;
}

/** Personal access tokens: created once (the only time the secret is shown), stored as a hash. */
export class TokenService {
  constructor(
    private readonly db: Knex,
    /** Shared with the user service, which clears it when a user changes. */
    private readonly cache: CredentialCache<ResolvedToken>,
    /** security.WRITE_SCOPE_IMPLIES_DELETE: `write:<category>` grants `delete:<category>` too. */
    private readonly writeImpliesDelete = false,
  ) {}

  async create(owner: UserRow, name: string, requestedScopes: string[]): Promise<{ row: AccessTokenRow; token: string }> {
    const scope = normalizeScopes(requestedScopes, owner.is_admin);
    if (!owner.is_admin && /(^|,)(read|write|delete):admin(,|$)/.test(scope)) {
      throw ApiError.badRequest('the admin scope category is only available to site administrators');
    }
    const token = generateToken();
    const now = nowUnix();
    try {
      const row = await AccessTokenRow.query(this.db).insertAndFetch({
        uid: owner.id,
        name,
        token_hash: hashToken(token),
        token_last_eight: token.slice(-8),
        scope,
        created_unix: now,
        updated_unix: now,
      } as Partial<AccessTokenRow>);
      return { row, token };
    } catch (err) {
      if (isUniqueViolation(err)) throw ApiError.badRequest(`access token name has been used already [name: ${name}]`);
      throw err;
    }
  }

  async list(owner: UserRow, paging: Paging): Promise<{ rows: AccessTokenRow[]; total: number }> {
    const base = AccessTokenRow.query(this.db).where('uid', owner.id);
    const [rows, total] = await Promise.all([
      base.clone().orderBy('id', 'desc').offset(paging.offset).limit(paging.limit),
      base.clone().resultSize(),
    ]);
    return { rows, total };
  }

  /** Delete by numeric id, or by name (Gitea accepts either in the path). */
  async delete(owner: UserRow, idOrName: string): Promise<void> {
    let id = /^\d+$/.test(idOrName) ? Number(idOrName) : 0;
    if (id === 0) {
      const matches = await AccessTokenRow.query(this.db).where({ uid: owner.id, name: idOrName }).select('id');
      if (matches.length > 1) throw ApiError.unprocessable(`multiple matches for token name "${idOrName}"`);
      if (matches.length === 0) throw ApiError.notFound(`access token does not exist [name: ${idOrName}]`);
      id = matches[0].id;
    }
    const deleted = await AccessTokenRow.query(this.db).delete().where({ id, uid: owner.id });
    this.cache.clear();
    if (deleted === 0) throw ApiError.notFound(`access token does not exist [id: ${idOrName}]`);
  }

  /** The token and its user for a presented secret: one indexed lookup (or a cache hit), no KDF. */
  async resolve(token: string): Promise<ResolvedToken | null> {
    const hash = hashToken(token);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    const found = await this.db('access_tokens as t')
      .join('users as u', 'u.id', 't.uid')
      .where('t.token_hash', hash)
      .first('u.*', 't.id as token_id', 't.scope as token_scope');
    if (!found) return null;
    const { token_id: tokenId, token_scope: scope, ...user } = found;
    const resolved: ResolvedToken = { tokenId, ...expandScopes(scope, this.writeImpliesDelete), user: UserRow.fromDatabaseJson(user) };
    this.cache.set(hash, resolved);
    return resolved;
  }

  toApi(row: AccessTokenRow, secret = ''): Record<string, unknown> {
    return { id: row.id, name: row.name, sha1: secret, token_last_eight: row.token_last_eight, scopes: row.scope.split(',') };
  }
}
