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
  /**
   * Seat an individual user on a team, and so in its organization, as `PUT /teams/{id}/members/{username}`
   * does; false when they sat there already. 404 for an unknown team or user. (API 2.2)
   */
  addTeamMember(teamId: number, userId: number): Promise<boolean>;
  /**
   * Take a user off a team as `DELETE /teams/{id}/members/{username}` does (their organization
   * membership goes with their last team); false when they were not on it. 422 for the last member of
   * the Owners team, 404 for an unknown team or user. (API 2.2)
   */
  removeTeamMember(teamId: number, userId: number): Promise<boolean>;
}
