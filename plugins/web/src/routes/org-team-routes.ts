import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import type { PageViewer } from '../page-session';
import { formRefusal, orgStanding, requireOwner, signInFirst, type OrgStanding } from './org-parts';
import { listAll, orNull, text } from './route-parts';
import type { RepoJson, UserJson } from '../views/home-pages';
import { orgHref } from '../views/org-pages';
import {
  TEAM_UNITS,
  TeamFormPage,
  TeamPage,
  TeamsPage,
  teamHref,
  unitField,
  type TeamForm,
  type TeamFormProps,
  type TeamJson,
  type UnitMode,
} from '../views/org-team-pages';

const NOTICES: Record<string, string> = {
  added: 'The member was added.',
  removed: 'The member was removed.',
  'repo-added': 'The repository was added.',
  'repo-removed': 'The repository was removed.',
};

/** The team `/:team` names, by name within the organization (a 404 page when there is none), as the API shows it. */
async function loadTeam(web: WebRoutes, viewer: PageViewer, org: string, name: string): Promise<TeamJson> {
  const found = await web.api.get<{ data: TeamJson[] }>(viewer, apiPath`/orgs/${org}/teams/search`, {
    q: name,
    include_desc: false,
    limit: 50,
  });
  const summary = (found.data ?? []).find((t) => t.name.toLowerCase() === name.toLowerCase());
  if (!summary) throw ApiError.notFound(`team does not exist [name: ${name}]`);
  return web.api.get<TeamJson>(viewer, apiPath`/teams/${summary.id}`);
}

/** The form's values of an existing team (or a new one: read access to code, issues and pull requests). */
function formOf(team?: TeamJson): TeamForm {
  const units = Object.fromEntries(
    TEAM_UNITS.map(({ unit }) => {
      const mode = team ? team.units_map[unit] : ['repo.code', 'repo.issues', 'repo.pulls'].includes(unit) ? 'read' : 'none';
      return [unit, (mode === 'read' || mode === 'write' ? mode : mode === 'none' || !mode ? 'none' : 'write') as UnitMode];
    }),
  );
  return {
    team_name: team?.name ?? '',
    description: team?.description ?? '',
    includes_all_repositories: team?.includes_all_repositories ?? false,
    can_create_org_repo: team?.can_create_org_repo ?? false,
    admin: team ? team.permission === 'admin' || team.permission === 'owner' : false,
    units,
  };
}

/** The form as sent. */
function sentForm(body: Record<string, unknown>): TeamForm {
  const units = Object.fromEntries(
    TEAM_UNITS.map(({ unit, readOnly }) => {
      const value = body[unitField(unit)];
      const mode: UnitMode = value === 'write' && !readOnly ? 'write' : value === 'read' || value === 'write' ? 'read' : 'none';
      return [unit, mode];
    }),
  );
  return {
    team_name: text(body.team_name).trim(),
    description: text(body.description),
    includes_all_repositories: body.repo_access === 'all',
    can_create_org_repo: body.can_create_org_repo === 'on',
    admin: body.permission === 'admin',
    units,
  };
}

/** CreateTeamOption/EditTeamOption of a form; the Owners team changes only its description. */
function teamBody(form: TeamForm, owners: boolean): Record<string, unknown> {
  if (owners) return { description: form.description };
  return {
    name: form.team_name,
    description: form.description,
    includes_all_repositories: form.includes_all_repositories,
    can_create_org_repo: form.can_create_org_repo,
    ...(form.admin ? { permission: 'admin' } : { units_map: form.units }),
  };
}

/**
 * `/org/{org}/teams`, `/teams/new`, `/teams/{team}` (members), `/teams/{team}/repositories`,
 * `/teams/{team}/edit`, `/teams/{team}/delete` and the member and repository actions
 * (`/teams/{team}/action/{add|remove}`, `/teams/{team}/action/repo/{add|remove}`).
 */
export function teamRoutes(web: WebRoutes): void {
  teamListRoutes(web);
  teamFormRoutes(web);
  teamActionRoutes(web);
}

function teamListRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  pages.get('/org/:org/teams', async (req, res) => {
    if (signInFirst(req, res)) return;
    const { viewer, org, isOwner } = await orgStanding(web, req);
    const teams = await listAll<TeamJson>(web, viewer, apiPath`/orgs/${org.name}/teams`);
    const summaries = await Promise.all(
      teams.map(async (team) => {
        const members = await orNull(api.list(viewer, apiPath`/teams/${team.id}/members`, { limit: 1 }));
        return { ...team, memberCount: members ? members.total : null };
      }),
    );
    renderer.send(res, h(TeamsPage, { kit: renderer.kit(req), org, teams: summaries, isOwner }));
  });

  const teamPage = (tab: 'members' | 'repositories') => async (req: Request, res: Response) => {
    if (signInFirst(req, res)) return;
    const { viewer, org, isOwner } = await orgStanding(web, req);
    const team = await loadTeam(web, viewer, org.name, String(req.params.team));
    const members = tab === 'members' ? await listAll<UserJson>(web, viewer, apiPath`/teams/${team.id}/members`) : undefined;
    const repos = tab === 'repositories' ? await listAll<RepoJson>(web, viewer, apiPath`/teams/${team.id}/repos`) : undefined;
    const notice = NOTICES[String(req.query.done)];
    renderer.send(res, h(TeamPage, { kit: renderer.kit(req), org, team, tab, members, repos, isOwner, notice }));
  };
  pages.get('/org/:org/teams/new', async (req, res) => {
    if (signInFirst(req, res)) return;
    const standing = await orgStanding(web, req);
    requireOwner(standing);
    renderer.send(res, h(TeamFormPage, { kit: renderer.kit(req), org: standing.org, form: formOf() }));
  });
  pages.get('/org/:org/teams/:team', teamPage('members'));
  pages.get('/org/:org/teams/:team/repositories', teamPage('repositories'));
}

function teamFormRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const render = (req: Request, res: Response, props: Omit<TeamFormProps, 'kit'>, status = 200) =>
    renderer.send(res, h(TeamFormPage, { kit: renderer.kit(req), ...props }), status);

  pages.post('/org/:org/teams/new', async (req, res) => {
    const standing = await orgStanding(web, req);
    const { viewer, org } = standing;
    const form = sentForm(req.body ?? {});
    try {
      const team = await api.send<TeamJson>(viewer, 'post', apiPath`/orgs/${org.name}/teams`, teamBody(form, false));
      res.redirect(303, teamHref(org.name, team.name));
    } catch (err) {
      if (!formRefusal(err)) throw err;
      render(req, res, { org, form, error: err.message }, err.status);
    }
  });

  /** The organization and the team to edit, for its owners only. */
  const editing = async (req: Request): Promise<OrgStanding & { team: TeamJson }> => {
    const standing = await orgStanding(web, req);
    requireOwner(standing);
    return { ...standing, team: await loadTeam(web, standing.viewer, standing.org.name, String(req.params.team)) };
  };

  pages.get('/org/:org/teams/:team/edit', async (req, res) => {
    if (signInFirst(req, res)) return;
    const { org, team } = await editing(req);
    render(req, res, { org, team, form: formOf(team), saved: req.query.saved === '1' });
  });

  pages.post('/org/:org/teams/:team/edit', async (req, res) => {
    const { viewer, org, team } = await editing(req);
    const owners = team.permission === 'owner';
    const form = owners ? { ...formOf(team), description: text(req.body.description) } : sentForm(req.body ?? {});
    try {
      const saved = await api.send<TeamJson>(viewer, 'patch', apiPath`/teams/${team.id}`, teamBody(form, owners));
      res.redirect(303, teamHref(org.name, saved.name, '/edit?saved=1'));
    } catch (err) {
      if (!formRefusal(err)) throw err;
      render(req, res, { org, team, form, error: err.message }, err.status);
    }
  });

  pages.post('/org/:org/teams/:team/delete', async (req, res) => {
    const { viewer, org, team } = await editing(req);
    if (text(req.body.team_name_confirm).trim() !== team.name) {
      const deleteError = `To delete the team, type its name, ${team.name}, exactly.`;
      return render(req, res, { org, team, form: formOf(team), deleteError }, 422);
    }
    try {
      await api.send(viewer, 'delete', apiPath`/teams/${team.id}`);
      res.redirect(303, orgHref(org.name, '/teams'));
    } catch (err) {
      if (!formRefusal(err)) throw err;
      render(req, res, { org, team, form: formOf(team), deleteError: err.message }, err.status);
    }
  });
}

function teamActionRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  /** A member or repository change; a refused name (no such user, not the organization's repository) is shown on the team page. */
  const act = async (
    req: Request,
    res: Response,
    tab: 'members' | 'repositories',
    change: (s: OrgStanding, team: TeamJson) => Promise<string>,
  ) => {
    const standing = await orgStanding(web, req);
    const { viewer, org, isOwner } = standing;
    const team = await loadTeam(web, viewer, org.name, String(req.params.team));
    try {
      const done = await change(standing, team);
      res.redirect(303, teamHref(org.name, team.name, `${tab === 'members' ? '' : '/repositories'}?done=${done}`));
    } catch (err) {
      if (!(formRefusal(err) || (err instanceof ApiError && err.status === 404 && isOwner))) throw err;
      const members = tab === 'members' ? await listAll<UserJson>(web, viewer, apiPath`/teams/${team.id}/members`) : undefined;
      const repos = tab === 'repositories' ? await listAll<RepoJson>(web, viewer, apiPath`/teams/${team.id}/repos`) : undefined;
      const props = { kit: renderer.kit(req), org, team, tab, members, repos, isOwner, error: err.message };
      renderer.send(res, h(TeamPage, props), err.status);
    }
  };

  pages.post('/org/:org/teams/:team/action/:action', (req, res) => {
    const action = String(req.params.action);
    if (action !== 'add' && action !== 'remove') throw ApiError.notFound('no such action');
    return act(req, res, 'members', async ({ viewer }, team) => {
      const uname = text(req.body.uname, 40).trim();
      if (!uname) throw ApiError.unprocessable('Name the user to add.');
      await api.send(viewer, action === 'add' ? 'put' : 'delete', apiPath`/teams/${team.id}/members/${uname}`);
      return action === 'add' ? 'added' : 'removed';
    });
  });

  pages.post('/org/:org/teams/:team/action/repo/:action', (req, res) => {
    const action = String(req.params.action);
    if (action !== 'add' && action !== 'remove') throw ApiError.notFound('no such action');
    return act(req, res, 'repositories', async ({ viewer, org }, team) => {
      const repo = text(req.body.repo_name, 100).trim();
      if (!repo) throw ApiError.unprocessable('Name the repository to add.');
      await api.send(viewer, action === 'add' ? 'put' : 'delete', apiPath`/teams/${team.id}/repos/${org.name}/${repo}`);
      return action === 'add' ? 'repo-added' : 'repo-removed';
    });
  });
}
