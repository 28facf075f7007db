import { isApiError, type Logger, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { teamKey, teamsOf, type GroupTeamMap, type MappedTeam } from './group-map';

/** One sign-in's groups and what the source's settings say to do with them. @public */
export interface GroupSyncInput {
  /** The individual account that signed in. */
  user: UserInfo;
  /** The groups the source says the user has now (claim values, group DNs…), compared exactly. */
  groups: readonly string[];
  /** The source's group → team map. */
  map: GroupTeamMap;
  /** Take the user off mapped teams none of whose groups they have any more (never off unmapped teams). */
  removal: boolean;
  /** A group whose members are site administrators (set with it, cleared without it); '' or unset: not managed. */
  adminGroup?: string;
  /** A group whose members are restricted users; '' or unset: not managed. */
  restrictedGroup?: string;
  /** The administrator flag as the source decided it otherwise (an LDAP admin filter); wins over `adminGroup`. */
  isAdmin?: boolean;
  /** The restricted flag as the source decided it otherwise (an LDAP restricted filter); wins over `restrictedGroup`. */
  isRestricted?: boolean;
  /** Names the source in log lines (e.g. `oidc source "corp"`). */
  source: string;
}

/** What a sync changed, and what it could not do. @public */
export interface GroupSyncReport {
  /** The user after the sync (flags updated). */
  user: UserInfo;
  added: MappedTeam[];
  removed: MappedTeam[];
  /**
   * What the map names but the forge does not have (an organization or team that does not exist),
   * and changes the forge refused (the last owner of an organization, the last site administrator).
   * Reported and logged, never fatal: the sign-in goes on.
   */
  problems: string[];
}

/** The service (`groupMappingRef`) the OIDC and LDAP plugins call on every sign-in. @public */
export interface GroupMapping {
  sync(input: GroupSyncInput): Promise<GroupSyncReport>;
}

type Resolved = MappedTeam & { teamId: number };

/** Group → team mapping over the plugin API's user and organization contracts. */
export function groupMapping(ctx: Pick<PluginContext, 'users' | 'organizations'>, log: Logger): GroupMapping {
  /** The team ids of mapped teams; names the forge does not have become problems. */
  async function resolve(teams: MappedTeam[], problems: string[]): Promise<Resolved[]> {
    const out: Resolved[] = [];
    const orgs = new Map<string, UserInfo | null>();
    for (const entry of teams) {
      const key = entry.org.toLowerCase();
      if (!orgs.has(key)) orgs.set(key, await ctx.users.byName(entry.org));
      const org = orgs.get(key);
      if (!org || org.type !== 1) {
        problems.push(`the organization "${entry.org}" in the group map does not exist`);
        orgs.set(key, null);
        continue;
      }
      const team = await ctx.organizations.teamByName(org.id, entry.team);
      if (!team) problems.push(`the team "${entry.team}" of the organization "${entry.org}" in the group map does not exist`);
      else out.push({ ...entry, teamId: team.id });
    }
    return out.filter((entry, i) => out.findIndex((o) => o.teamId === entry.teamId) === i);
  }

  /** Run one change; a refusal (an ApiError) becomes a problem instead of failing the sign-in. */
  async function attempt(problems: string[], what: string, change: () => Promise<unknown>): Promise<boolean> {
    try {
      await change();
      return true;
    } catch (err) {
      if (!isApiError(err)) throw err;
      problems.push(`${what}: ${err.message}`);
      return false;
    }
  }

  async function syncTeams(input: GroupSyncInput, report: GroupSyncReport): Promise<void> {
    const { wanted, mapped } = teamsOf(input.map, new Set(input.groups));
    const wantedKeys = new Set(wanted.map(teamKey));
    // Unknown names are reported once, from the full list of mapped teams.
    const resolved = await resolve(mapped, report.problems);
    const seats = new Set(await ctx.organizations.teamIdsOf(input.user.id));
    for (const entry of resolved) {
      const want = wantedKeys.has(teamKey(entry));
      if (want && !seats.has(entry.teamId)) {
        const what = `adding ${input.user.name} to ${entry.org}/${entry.team}`;
        if (await attempt(report.problems, what, () => ctx.organizations.addTeamMember(entry.teamId, input.user.id)))
          report.added.push({ org: entry.org, team: entry.team });
      } else if (!want && input.removal && seats.has(entry.teamId)) {
        const what = `removing ${input.user.name} from ${entry.org}/${entry.team}`;
        if (await attempt(report.problems, what, () => ctx.organizations.removeTeamMember(entry.teamId, input.user.id)))
          report.removed.push({ org: entry.org, team: entry.team });
      }
    }
  }

  async function syncFlags(input: GroupSyncInput, report: GroupSyncReport): Promise<void> {
    const groups = new Set(input.groups);
    const isAdmin = input.isAdmin ?? (input.adminGroup ? groups.has(input.adminGroup) : undefined);
    const isRestricted = input.isRestricted ?? (input.restrictedGroup ? groups.has(input.restrictedGroup) : undefined);
    const flags: { isAdmin?: boolean; isRestricted?: boolean } = {};
    if (isAdmin !== undefined && isAdmin !== report.user.isAdmin) flags.isAdmin = isAdmin;
    if (isRestricted !== undefined && isRestricted !== report.user.isRestricted) flags.isRestricted = isRestricted;
    if (flags.isAdmin === undefined && flags.isRestricted === undefined) return;
    await attempt(report.problems, `setting the flags of ${input.user.name}`, async () => {
      report.user = await ctx.users.setFlags(input.user.id, flags);
    });
  }

  return {
    async sync(input) {
      if (input.user.type !== 0) throw new Error(`group mapping is for individual accounts, not ${input.user.name}`);
      const report: GroupSyncReport = { user: input.user, added: [], removed: [], problems: [] };
      await syncTeams(input, report);
      await syncFlags(input, report);
      const { added, removed, problems } = report;
      if (problems.length) log.warn({ user: input.user.name, source: input.source, problems }, 'group mapping: not everything was applied');
      if (added.length || removed.length)
        log.info({ user: input.user.name, source: input.source, added, removed }, 'group mapping applied');
      return report;
    },
  };
}
