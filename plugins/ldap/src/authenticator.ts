import type { Entry } from 'ldapts';
import { ApiError, isApiError, type PasswordCheck, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import type { GroupMapping, GroupTeamMap } from '@hearth/plugin-group-mapping';
import { Directory, attributeOf, canonicalDn } from './directory';
import type { LdapSource, LdapSourceStore } from './source-store';

/** What `auth.verifyPassword` taps answer: the user, null to refuse the password, undefined to pass to the next source. */
type Verdict = UserInfo | null | undefined;

/** The group map with its keys (group DNs) in the spelling the directory's DNs are compared in. */
function canonicalMap(map: GroupTeamMap): GroupTeamMap {
  const out: GroupTeamMap = {};
  for (const [group, orgs] of Object.entries(map)) {
    const key = canonicalDn(group);
    out[key] = { ...(out[key] ?? {}), ...orgs };
  }
  return out;
}

/**
 * Checks logins and passwords against the LDAP sources (the plugin's `auth.verifyPassword` tap):
 * an account that exists is checked by its own source only (and passed on when it is not an LDAP
 * account); a login no account has is looked up in every active source in turn, and a good bind
 * creates its account. Each sign-in applies the admin and restricted filters and maps the user's
 * groups to teams.
 */
export class LdapAuthenticator {
  constructor(
    private readonly ctx: Pick<PluginContext, 'users' | 'log' | 'forge'>,
    private readonly sources: LdapSourceStore,
    private readonly groups: GroupMapping,
  ) {}

  async verify({ login, password }: PasswordCheck): Promise<Verdict> {
    const sources = (await this.sources.list()).filter((source) => {
      if (source.secretUnreadable)
        this.ctx.log.warn(
          { source: source.name },
          'LDAP source skipped: its bind password cannot be read; set it again with update-source',
        );
      return !source.secretUnreadable;
    });
    if (!sources.length || !login) return undefined;
    const existing = (await this.ctx.users.byName(login)) ?? (login.includes('@') ? await this.ctx.users.byEmail(login) : null);
    if (existing) {
      const source = sources.find((s) => s.id === existing.loginSource);
      if (!source || existing.type !== 0) return undefined;
      // An account of an inactive source, or one its directory no longer has, cannot sign in.
      if (!source.active) return null;
      return this.authenticate(source, existing.loginName || existing.name, password, existing);
    }
    for (const source of sources.filter((s) => s.active)) {
      const verdict = await this.authenticate(source, login, password, null);
      if (verdict !== undefined) return verdict;
    }
    return undefined;
  }

  /** One source's answer for `login`: undefined when it does not know the login (and no account says it should). */
  private async authenticate(source: LdapSource, login: string, password: string, existing: UserInfo | null): Promise<Verdict> {
    const unknown = existing ? null : undefined;
    const directory = new Directory(source);
    let entry: Entry | null;
    try {
      entry = await directory.findUser(login);
      if (!entry) return unknown;
      if (!(await directory.passwordBinds(entry.dn, password))) return null;
      if (source.groupFilter && !(await directory.groupsOf(entry, source.groupFilter)).length) {
        this.ctx.log.info({ source: source.name, login }, 'LDAP sign-in refused: the user is in no group the group filter matches');
        return null;
      }
    } catch (err) {
      // The directory is down or refuses the bind DN: its users cannot sign in meanwhile; others pass on.
      this.ctx.log.warn({ err, source: source.name }, 'LDAP source cannot be reached or searched');
      return unknown;
    }
    const user = existing ?? (await this.accountOf(source, entry, login));
    if (user.prohibitLogin || !user.isActive) return user; // the kernel refuses these with 403
    return this.syncGroups(source, directory, entry, user);
  }

  /** The account of a directory user who signed in: found by source and login name, or created. */
  private async accountOf(source: LdapSource, entry: Entry, login: string): Promise<UserInfo> {
    const name = attributeOf(entry, source.usernameAttribute) || login;
    const known = await this.ctx.users.byLogin(source.id, name);
    if (known) return known;
    const noReply = String(this.ctx.forge.raw.service?.NO_REPLY_ADDRESS ?? 'noreply.localhost');
    // Gitea gives directory users without an address a placeholder one.
    const email = attributeOf(entry, source.emailAttribute) || `${name.toLowerCase()}@${noReply}`;
    try {
      const user = await this.ctx.users.createExternal({
        name,
        email,
        fullName: attributeOf(entry, source.fullNameAttribute),
        sourceId: source.id,
        loginName: name,
      });
      this.ctx.log.info({ user: user.name, source: source.name }, 'created an account on its first LDAP sign-in');
      return user;
    } catch (err) {
      if (!isApiError(err)) throw err;
      // Two first sign-ins at once (git's parallel requests): the other one created it.
      const raced = await this.ctx.users.byLogin(source.id, name);
      if (raced) return raced;
      throw ApiError.forbidden(`the account of LDAP user "${name}" cannot be created: ${err.message}; ask a site administrator`);
    }
  }

  private async syncGroups(source: LdapSource, directory: Directory, entry: Entry, user: UserInfo): Promise<UserInfo> {
    const mapsGroups = Boolean(source.groupSearchBase) && (Object.keys(source.groupTeamMap).length > 0 || source.groupTeamMapRemoval);
    if (!mapsGroups && !source.adminFilter && !source.restrictedFilter) return user;
    let isAdmin: boolean | undefined;
    let isRestricted: boolean | undefined;
    let groups: string[] = [];
    try {
      if (source.adminFilter) isAdmin = await directory.entryMatches(entry.dn, source.adminFilter);
      // As Gitea: an administrator is never made restricted.
      if (source.restrictedFilter && !isAdmin) isRestricted = await directory.entryMatches(entry.dn, source.restrictedFilter);
      if (mapsGroups) groups = (await directory.groupsOf(entry)).map(canonicalDn);
    } catch (err) {
      // The password was right: the sign-in goes on, with teams and flags as they were.
      this.ctx.log.warn({ err, source: source.name, user: user.name }, 'LDAP group search failed; teams and flags left as they were');
      return user;
    }
    const report = await this.groups.sync({
      user,
      groups,
      map: mapsGroups ? canonicalMap(source.groupTeamMap) : {},
      removal: mapsGroups && source.groupTeamMapRemoval,
      isAdmin,
      isRestricted,
      source: `ldap source "${source.name}"`,
    });
    return report.user;
  }
}
