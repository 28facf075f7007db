import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { listAll, orNull, text } from './route-parts';
import { adminRepo, attempt, doneOf, hooksOn, keptFields, type Refused, type SettingsTarget } from './repo-settings-shared';
import { settingsHref } from '../views/repo-settings-frame';
import { CollaborationPage, type CollaboratorView, type TeamJson } from '../views/repo-settings-collab';

const MODES = new Set(['read', 'write', 'admin']);

/** The permission a form names; anything else is the form's mistake. */
function modeOf(value: unknown): string {
  const mode = text(value, 16);
  if (!MODES.has(mode)) throw ApiError.unprocessable('choose a permission: read, write or admin');
  return mode;
}

async function showCollaboration(web: WebRoutes, req: Request, res: Response, at: SettingsTarget, refused?: Refused): Promise<void> {
  const { viewer, repo, api } = at;
  const [users, teams] = await Promise.all([
    listAll<{ login: string; avatar_url?: string }>(web, viewer, `${api}/collaborators`),
    // 404 for a user's repository: teams belong to organizations.
    web.api.find<TeamJson[]>(viewer, `${api}/teams`),
  ]);
  const [collaborators, orgTeams] = await Promise.all([
    Promise.all(
      users.map(async (user): Promise<CollaboratorView> => {
        const found = await web.api.find<{ permission: string }>(viewer, `${api}${apiPath`/collaborators/${user.login}/permission`}`);
        return { login: user.login, avatar_url: user.avatar_url, permission: found?.permission ?? 'read' };
      }),
    ),
    teams ? orNull(listAll<TeamJson>(web, viewer, apiPath`/orgs/${repo.owner.login}/teams`)) : Promise.resolve(null),
  ]);
  const props = {
    kit: web.renderer.kit(req),
    repo,
    collaborators,
    teams,
    orgTeams,
    hooks: hooksOn(web),
    done: refused ? undefined : doneOf(req),
    error: refused?.error,
    kept: refused ? keptFields(req.body) : undefined,
  };
  web.renderer.send(res, h(CollaborationPage, props), refused?.status ?? 200);
}

/**
 * `/{owner}/{repo}/settings/collaboration` and its forms (Gitea's URLs): add a collaborator
 * (POST `…/collaboration`), change one's permission (`…/access_mode`), remove one (`…/delete`);
 * add and remove a team (`…/team`, `…/team/delete`), through the API's collaborator and team
 * repository operations.
 */
export function collaborationRoutes(web: WebRoutes): void {
  const { pages } = web;
  const base = '/:owner/:repo/settings/collaboration';

  /** Run a change; back to the page with `done`, or the page again with the refusal. */
  const change = (form: string, done: string, run: (at: SettingsTarget, body: Record<string, unknown>) => Promise<unknown>) => {
    return async (req: Request, res: Response) => {
      const at = await adminRepo(web, req);
      const refused = await attempt(form, () => run(at, req.body ?? {}));
      if (refused) return showCollaboration(web, req, res, at, refused);
      res.redirect(303, `${settingsHref(at.repo, '/collaboration')}?done=${done}`);
    };
  };
  const collaborator = (at: SettingsTarget, name: unknown) => `${at.api}${apiPath`/collaborators/${text(name).trim()}`}`;
  const teamRepo = (at: SettingsTarget, id: unknown) => {
    const team = Number(id);
    if (!Number.isInteger(team) || team < 1) throw ApiError.unprocessable('choose a team');
    return apiPath`/teams/${team}/repos/${at.repo.owner.login}/${at.repo.name}`;
  };

  pages.get(base, async (req, res) => showCollaboration(web, req, res, await adminRepo(web, req)));
  pages.post(
    base,
    change('collaborator', 'collaborator-added', async (at, body) => {
      if (!text(body.collaborator).trim()) throw ApiError.unprocessable('type the user name of the collaborator to add');
      await web.api.send(at.viewer, 'put', collaborator(at, body.collaborator), { permission: modeOf(body.mode) });
    }),
  );
  pages.post(
    `${base}/access_mode`,
    change('collaborator', 'collaborator-changed', (at, body) =>
      web.api.send(at.viewer, 'put', collaborator(at, body.name), { permission: modeOf(body.mode) }),
    ),
  );
  pages.post(
    `${base}/delete`,
    change('collaborator', 'collaborator-removed', (at, body) => web.api.send(at.viewer, 'delete', collaborator(at, body.name))),
  );
  pages.post(
    `${base}/team`,
    change('team', 'team-added', (at, body) => web.api.send(at.viewer, 'put', teamRepo(at, body.team_id))),
  );
  pages.post(
    `${base}/team/delete`,
    change('team', 'team-removed', (at, body) => web.api.send(at.viewer, 'delete', teamRepo(at, body.team_id))),
  );
}
