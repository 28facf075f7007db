import type { Knex } from 'knex';
import { ApiError, nowUnix, toBoolean, type PluginContext, type SecretSealer } from '@hearth/plugin-api';
import type { GroupTeamMap } from '@hearth/plugin-group-mapping';

/** Where bind passwords are sealed (`ctx.secrets`): each bound to its source. */
export const BIND_PASSWORD_PURPOSE = 'ldap-bind-passwords';

/** The kind of source in the kernel's registry (`ctx.users.registerSource`). */
export const SOURCE_TYPE = 'ldap';

export type LdapSecurity = 'unencrypted' | 'ldaps' | 'starttls';

/** An LDAP (bind DN) authentication source, as administrators configure it. */
export interface LdapSource {
  id: number;
  name: string;
  /** Inactive sources check nobody: their accounts cannot sign in. */
  active: boolean;
  host: string;
  port: number;
  security: LdapSecurity;
  skipTlsVerify: boolean;
  /** Who searches the directory; '' binds anonymously. */
  bindDn: string;
  bindPassword: string;
  userBase: string;
  /** An LDAP filter in which `%s` stands for the login name (escaped), e.g. `(&(objectClass=inetOrgPerson)(uid=%s))`. */
  userFilter: string;
  /** Users the filter matches (on their own entry) are site administrators; '' leaves the flag alone. */
  adminFilter: string;
  restrictedFilter: string;
  /** The attribute that names the account ('': the login name as typed). */
  usernameAttribute: string;
  emailAttribute: string;
  fullNameAttribute: string;
  /** Where groups are searched; '' turns group search off. */
  groupSearchBase: string;
  /** The group attribute that lists members, e.g. `member` (DNs) or `memberUid` (user names). */
  groupMemberAttribute: string;
  /** What the member attribute holds of a user: '' or `dn` for the user's DN, else one of the user's attributes, e.g. `uid`. */
  userAttributeInGroup: string;
  /** When set, only members of a group this filter matches may sign in. */
  groupFilter: string;
  /** Group DNs to teams, Gitea's group-mapping JSON. */
  groupTeamMap: GroupTeamMap;
  groupTeamMapRemoval: boolean;
  /** The stored bind password cannot be opened (sealed under another security.SECRET_KEY): set it again. */
  secretUnreadable?: true;
  updatedUnix: number;
}

export type LdapSourceFields = Omit<LdapSource, 'id' | 'updatedUnix' | 'secretUnreadable'>;

/** The `ldap_sources` table: the kernel's registry hands out ids and keeps names unique across every plugin's sources. */
export class LdapSourceStore {
  private readonly secrets: SecretSealer;
  private readonly db: Knex;

  constructor(private readonly ctx: Pick<PluginContext, 'db' | 'users' | 'secrets'>) {
    this.db = ctx.db;
    this.secrets = ctx.secrets(BIND_PASSWORD_PURPOSE);
  }

  private sealContext = (id: number) => `ldap-source:${id}`;

  private fromRow(row: Record<string, any>): LdapSource {
    const id = Number(row.id);
    return {
      id,
      name: String(row.name),
      active: toBoolean(row.is_active),
      host: String(row.host),
      port: Number(row.port),
      security: String(row.security) as LdapSecurity,
      skipTlsVerify: toBoolean(row.skip_tls_verify),
      bindDn: String(row.bind_dn),
      ...this.openPassword(id, String(row.bind_password)),
      userBase: String(row.user_base),
      userFilter: String(row.user_filter),
      adminFilter: String(row.admin_filter),
      restrictedFilter: String(row.restricted_filter),
      usernameAttribute: String(row.username_attribute),
      emailAttribute: String(row.email_attribute),
      fullNameAttribute: String(row.full_name_attribute),
      groupSearchBase: String(row.group_search_base),
      groupMemberAttribute: String(row.group_member_attribute),
      userAttributeInGroup: String(row.user_attribute_in_group),
      groupFilter: String(row.group_filter),
      groupTeamMap: JSON.parse(String(row.group_team_map)) as GroupTeamMap,
      groupTeamMapRemoval: toBoolean(row.group_team_map_removal),
      updatedUnix: Number(row.updated_unix),
    };
  }

  /** A password sealed under another key (security.SECRET_KEY changed) is reported, not thrown: the source must be given it again. */
  private openPassword(id: number, sealed: string): { bindPassword: string; secretUnreadable?: true } {
    if (!sealed) return { bindPassword: '' };
    try {
      return { bindPassword: this.secrets.open(sealed, this.sealContext(id)) };
    } catch {
      return { bindPassword: '', secretUnreadable: true };
    }
  }

  private columns(id: number, f: LdapSourceFields): Record<string, unknown> {
    return {
      name: f.name,
      is_active: f.active,
      host: f.host,
      port: f.port,
      security: f.security,
      skip_tls_verify: f.skipTlsVerify,
      bind_dn: f.bindDn,
      bind_password: f.bindPassword ? this.secrets.seal(f.bindPassword, this.sealContext(id)) : '',
      user_base: f.userBase,
      user_filter: f.userFilter,
      admin_filter: f.adminFilter,
      restricted_filter: f.restrictedFilter,
      username_attribute: f.usernameAttribute,
      email_attribute: f.emailAttribute,
      full_name_attribute: f.fullNameAttribute,
      group_search_base: f.groupSearchBase,
      group_member_attribute: f.groupMemberAttribute,
      user_attribute_in_group: f.userAttributeInGroup,
      group_filter: f.groupFilter,
      group_team_map: JSON.stringify(f.groupTeamMap),
      group_team_map_removal: f.groupTeamMapRemoval,
    };
  }

  async list(): Promise<LdapSource[]> {
    return (await this.db('ldap_sources').orderBy('id')).map((row) => this.fromRow(row));
  }

  async byId(id: number): Promise<LdapSource | null> {
    const row = await this.db('ldap_sources').where('id', id).first();
    return row ? this.fromRow(row) : null;
  }

  async require(id: number): Promise<LdapSource> {
    const source = await this.byId(id);
    if (!source) throw ApiError.notFound(`LDAP source does not exist [id: ${id}]`);
    return source;
  }

  async add(fields: LdapSourceFields): Promise<LdapSource> {
    const id = await this.ctx.users.registerSource(SOURCE_TYPE, fields.name);
    try {
      const now = nowUnix();
      await this.db('ldap_sources').insert({ id, ...this.columns(id, fields), created_unix: now, updated_unix: now });
    } catch (err) {
      await this.ctx.users.removeSource(id);
      throw err;
    }
    return this.require(id);
  }

  async update(id: number, fields: LdapSourceFields): Promise<LdapSource> {
    const current = await this.require(id);
    if (fields.name !== current.name) await this.ctx.users.renameSource(id, fields.name);
    await this.db('ldap_sources')
      .where('id', id)
      .update({ ...this.columns(id, fields), updated_unix: nowUnix() });
    return this.require(id);
  }

  /** The kernel refuses (422) while accounts still sign in through the source. */
  async remove(id: number): Promise<void> {
    await this.require(id);
    await this.ctx.users.removeSource(id);
    await this.db('ldap_sources').where('id', id).delete();
  }
}
