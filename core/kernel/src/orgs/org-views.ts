import type { Knex } from 'knex';
import type { ApiRequest } from '@hearth/plugin-api';
import { UserRow, VISIBILITY_NAMES } from '../users/models';
import type { OrgDeps } from './org-deps';
import { ACCESS_MODES, TEAM_UNITS, normalizeTeam, type TeamRow } from './org-store';

export type OrgViews = ReturnType<typeof orgViews>;

type AnyRequest = ApiRequest<any, any, any>;

/** The JSON of organizations and teams (Gitea's Organization and Team), and the pages of users, organizations, teams and repositories. */
export function orgViews(deps: OrgDeps) {
  const { db, users, repos, http } = deps;

  const orgJson = async (org: UserRow): Promise<Record<string, unknown>> => {
    const settings = await db('org_settings').where('org_id', org.id).first('repo_admin_change_team_access');
    return {
      id: org.id,
      name: org.name,
      full_name: org.full_name,
      avatar_url: users.avatarUrl(org.email || `${org.lower_name}@org`),
      description: org.description,
      website: org.website,
      location: org.location,
      visibility: VISIBILITY_NAMES[org.visibility] ?? 'public',
      repo_admin_change_team_access: Boolean(settings?.repo_admin_change_team_access),
      username: org.name,
    };
  };

  const teamJson = async (team: TeamRow, org?: UserRow): Promise<Record<string, unknown>> => {
    const owner = org ?? (await users.byId(team.org_id))!;
    const unitsMap = JSON.parse(team.units_map) as Record<string, string>;
    return {
      id: team.id,
      name: team.name,
      description: team.description,
      organization: await orgJson(owner),
      includes_all_repositories: team.includes_all_repositories,
      permission: ACCESS_MODES[team.authorize] ?? 'none',
      units: TEAM_UNITS.filter((u) => unitsMap[u] && unitsMap[u] !== 'none'),
      units_map: unitsMap,
      can_create_org_repo: team.can_create_org_repo,
    };
  };

  const userPage = async (req: AnyRequest, query: ReturnType<typeof users.query>) => {
    const [rows, total] = await Promise.all([
      query.clone().orderBy('users.id').offset(req.paging.offset).limit(req.paging.limit),
      query.clone().resultSize(),
    ]);
    return http.paged(
      req,
      rows.map((r) => users.toApi(r, req.principal)),
      total,
    );
  };

  const orgPage = async (req: AnyRequest, query: ReturnType<typeof users.query>) => {
    const [rows, total] = await Promise.all([
      query.clone().orderBy('users.id').offset(req.paging.offset).limit(req.paging.limit),
      query.clone().resultSize(),
    ]);
    const items = [];
    for (const r of rows) items.push(await orgJson(r));
    return http.paged(req, items, total);
  };

  /** A page of teams from a query of the teams table; `org` is their organization when known. */
  const teamPage = async (req: AnyRequest, q: Knex.QueryBuilder, orderBy: string, org?: UserRow) => {
    const [rows, [{ n }]] = await Promise.all([
      q.clone().orderBy(orderBy).offset(req.paging.offset).limit(req.paging.limit),
      q.clone().count<{ n: number }[]>({ n: '*' }),
    ]);
    const items = [];
    for (const r of rows) items.push(await teamJson(normalizeTeam(r), org));
    return http.paged(req, items, Number(n));
  };

  const repoPage = async (req: AnyRequest, q: ReturnType<typeof repos.query>) => {
    const [rows, total] = await Promise.all([
      q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit),
      q.clone().resultSize(),
    ]);
    return http.paged(req, await repos.toApiPage(rows, req.principal), total);
  };

  return { orgJson, teamJson, userPage, orgPage, teamPage, repoPage };
}
