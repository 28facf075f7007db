import { ApiError } from '@hearth/plugin-api';

/**
 * Gitea's LDAP group-mapping JSON, used for every source: groups (as the source names them: an
 * OIDC claim's values, LDAP group DNs) to the teams of organizations their members sit on,
 * `{"<group>": {"<org>": ["<team>", …]}, …}`.
 * @public
 */
export type GroupTeamMap = Record<string, Record<string, string[]>>;

/**
 * Read a group map as an administrator typed it (a CLI option): '' is the empty map; anything but
 * an object of objects of string arrays is a 422 that says where it is wrong.
 */
export function parseGroupTeamMap(text: string): GroupTeamMap {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw ApiError.unprocessable(`the group team map is not JSON: ${(err as Error).message}`);
  }
  const shape = 'the group team map must look like {"<group>": {"<organization>": ["<team>", …]}, …}';
  if (!isObject(value)) throw ApiError.unprocessable(shape);
  for (const [group, orgs] of Object.entries(value)) {
    if (!isObject(orgs)) throw ApiError.unprocessable(`${shape}: the value of group "${group}" is not an object`);
    for (const [org, teams] of Object.entries(orgs)) {
      if (!Array.isArray(teams) || teams.some((t) => typeof t !== 'string' || !t))
        throw ApiError.unprocessable(`${shape}: the teams of "${group}" → "${org}" are not a list of team names`);
    }
  }
  return value as GroupTeamMap;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An organization's team, named as the map names it. */
export interface MappedTeam {
  org: string;
  team: string;
}

/** The key of a team in sets: organization and team names compare in any case, as Gitea's lower names do. */
export const teamKey = ({ org, team }: MappedTeam) => `${org.toLowerCase()}\u0000${team.toLowerCase()}`;

/**
 * What the map says of a user with `groups`: the teams their groups map to (`wanted`), and every
 * team the map mentions at all (`mapped`), each once. A team two groups map to is wanted when the
 * user has either group.
 */
export function teamsOf(map: GroupTeamMap, groups: ReadonlySet<string>): { wanted: MappedTeam[]; mapped: MappedTeam[] } {
  const wanted = new Map<string, MappedTeam>();
  const mapped = new Map<string, MappedTeam>();
  for (const [group, orgs] of Object.entries(map)) {
    for (const [org, teams] of Object.entries(orgs)) {
      for (const team of teams) {
        const entry = { org, team };
        mapped.set(teamKey(entry), entry);
        if (groups.has(group)) wanted.set(teamKey(entry), entry);
      }
    }
  }
  return { wanted: [...wanted.values()], mapped: [...mapped.values()] };
}
