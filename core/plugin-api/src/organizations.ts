/**
 * Organizations and their teams as the core owns them (API 2.1): what features read of
 * memberships and teams (review requests to teams, issue search by team, organization feeds).
 * Plain data; the tables stay the core's.
 */

/** A team of an organization. @public */
export interface TeamInfo {
  id: number;
  orgId: number;
  name: string;
}

/** `ctx.organizations`. @public */
export interface OrganizationDirectory {
  /** Whether `userId` is a member of the organization (in any of its teams). */
  isMember(orgId: number, userId: number): Promise<boolean>;
  /** The members of an organization. */
  memberIds(orgId: number): Promise<number[]>;
  /** A team of the organization by name (any case), or null. */
  teamByName(orgId: number, name: string): Promise<TeamInfo | null>;
  /** The teams `userId` belongs to, in any organization. */
  teamIdsOf(userId: number): Promise<number[]>;
  /** The repositories a team covers: null when it covers all of its organization's (the Owners team, or includes_all_repositories). */
  teamRepositoryIds(teamId: number): Promise<number[] | null>;
  /** Gitea's `Team` JSON (without its organization) of teams, by id; unknown ids are absent. */
  teamsToApi(teamIds: readonly number[]): Promise<Map<number, Record<string, unknown>>>;
}
