import type { Knex } from 'knex';
import { ApiError, nowUnix, toBoolean, type PluginContext, type SecretSealer } from '@hearth/plugin-api';
import type { GroupTeamMap } from '@hearth/plugin-group-mapping';

/** Where client secrets are sealed (`ctx.secrets`): each bound to its source. */
export const CLIENT_SECRET_PURPOSE = 'oidc-client-secrets';

/** The kind of source in the kernel's registry (`ctx.users.registerSource`). */
export const SOURCE_TYPE = 'oidc';

/** An OpenID Connect authentication source, as administrators configure it. */
export interface OidcSource {
  id: number;
  name: string;
  discoveryUrl: string;
  clientId: string;
  clientSecret: string;
  /** Requested at the provider; always includes `openid`. */
  scopes: string[];
  /** The claim whose values are the user's groups; '' maps no groups (flags and teams stay as they are). */
  groupClaimName: string;
  adminGroup: string;
  restrictedGroup: string;
  groupTeamMap: GroupTeamMap;
  groupTeamMapRemoval: boolean;
  /** Sign-ins through this provider skip the local second factor (Gitea's `--skip-local-2fa`). */
  skipLocal2fa: boolean;
  /** The stored client secret cannot be opened (sealed under another security.SECRET_KEY): set it again. */
  secretUnreadable?: true;
  createdUnix: number;
  updatedUnix: number;
}

/** What `add-source` and `update-source` set (everything but the ids and times). */
export type OidcSourceFields = Omit<OidcSource, 'id' | 'createdUnix' | 'updatedUnix' | 'secretUnreadable'>;

/** `openid` first, each scope once. */
export function normalizeScopes(scopes: readonly string[]): string[] {
  return [...new Set(['openid', ...scopes.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean)])];
}

/** The `oidc_sources` table: the kernel's registry hands out ids and keeps names unique across every plugin's sources. */
export class OidcSourceStore {
  private readonly secrets: SecretSealer;
  private readonly db: Knex;

  constructor(private readonly ctx: Pick<PluginContext, 'db' | 'users' | 'secrets'>) {
    this.db = ctx.db;
    this.secrets = ctx.secrets(CLIENT_SECRET_PURPOSE);
  }

  private sealContext = (id: number) => `oidc-source:${id}`;

  private fromRow(row: Record<string, any>): OidcSource {
    const id = Number(row.id);
    return {
      id,
      name: String(row.name),
      discoveryUrl: String(row.discovery_url),
      clientId: String(row.client_id),
      ...this.openSecret(id, String(row.client_secret)),
      scopes: String(row.scopes).split(' ').filter(Boolean),
      groupClaimName: String(row.group_claim_name),
      adminGroup: String(row.admin_group),
      restrictedGroup: String(row.restricted_group),
      groupTeamMap: JSON.parse(String(row.group_team_map)) as GroupTeamMap,
      groupTeamMapRemoval: toBoolean(row.group_team_map_removal),
      skipLocal2fa: toBoolean(row.skip_local_2fa),
      createdUnix: Number(row.created_unix),
      updatedUnix: Number(row.updated_unix),
    };
  }

  /** A secret sealed under another key (security.SECRET_KEY changed) is reported, not thrown: the source must be given it again. */
  private openSecret(id: number, sealed: string): { clientSecret: string; secretUnreadable?: true } {
    try {
      return { clientSecret: this.secrets.open(sealed, this.sealContext(id)) };
    } catch {
      return { clientSecret: '', secretUnreadable: true };
    }
  }

  private columns(id: number, fields: OidcSourceFields): Record<string, unknown> {
    return {
      name: fields.name,
      lower_name: fields.name.toLowerCase(),
      discovery_url: fields.discoveryUrl,
      client_id: fields.clientId,
      client_secret: this.secrets.seal(fields.clientSecret, this.sealContext(id)),
      scopes: normalizeScopes(fields.scopes).join(' '),
      group_claim_name: fields.groupClaimName,
      admin_group: fields.adminGroup,
      restricted_group: fields.restrictedGroup,
      group_team_map: JSON.stringify(fields.groupTeamMap),
      group_team_map_removal: fields.groupTeamMapRemoval,
      skip_local_2fa: fields.skipLocal2fa,
    };
  }

  async list(): Promise<OidcSource[]> {
    return (await this.db('oidc_sources').orderBy('id')).map((row) => this.fromRow(row));
  }

  /** The sources' names only (the sign-in page's buttons): no secret is opened. */
  async names(): Promise<string[]> {
    return (await this.db('oidc_sources').orderBy('id').select('name')).map((row: { name: unknown }) => String(row.name));
  }

  async byId(id: number): Promise<OidcSource | null> {
    const row = await this.db('oidc_sources').where('id', id).first();
    return row ? this.fromRow(row) : null;
  }

  /** The source a sign-in URL names (`/user/oauth2/{name}`), in any case. */
  async byName(name: string): Promise<OidcSource | null> {
    const row = await this.db('oidc_sources').where('lower_name', name.toLowerCase()).first();
    return row ? this.fromRow(row) : null;
  }

  async add(fields: OidcSourceFields): Promise<OidcSource> {
    const id = await this.ctx.users.registerSource(SOURCE_TYPE, fields.name);
    try {
      const now = nowUnix();
      await this.db('oidc_sources').insert({ id, ...this.columns(id, fields), created_unix: now, updated_unix: now });
    } catch (err) {
      await this.ctx.users.removeSource(id);
      throw err;
    }
    return (await this.byId(id))!;
  }

  async update(id: number, fields: OidcSourceFields): Promise<OidcSource> {
    const current = await this.require(id);
    if (fields.name !== current.name) await this.ctx.users.renameSource(id, fields.name);
    await this.db('oidc_sources')
      .where('id', id)
      .update({ ...this.columns(id, fields), updated_unix: Math.max(nowUnix(), current.updatedUnix + 1) });
    return (await this.byId(id))!;
  }

  /** The kernel refuses (422) while accounts still sign in through the source; linked accounts only lose the link. */
  async remove(id: number): Promise<void> {
    await this.require(id);
    await this.ctx.users.removeSource(id);
    await this.db.transaction(async (trx) => {
      await trx('oidc_links').where('source_id', id).delete();
      await trx('oidc_pending_links').where('source_id', id).delete();
      await trx('oidc_sign_ins').where('source_id', id).delete();
      await trx('oidc_sources').where('id', id).delete();
    });
  }

  async require(id: number): Promise<OidcSource> {
    const source = await this.byId(id);
    if (!source) throw ApiError.notFound(`OpenID Connect source does not exist [id: ${id}]`);
    return source;
  }
}
