import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf } from '../page-session';
import { pageNumber } from './home-routes';
import { formRefusal, orgStanding, requireOwner, signInFirst } from './org-parts';
import { listAll, refusal, text } from './route-parts';
import { teamRoutes } from './org-team-routes';
import { userHref } from '../views/common';
import type { UserJson } from '../views/home-pages';
import { visibilityOf } from '../views/org-admin-parts';
import {
  OrgCreatePage,
  OrgMembersPage,
  OrgSettingsPage,
  orgHref,
  type OrgCreateForm,
  type OrgJson,
  type OrgSettingsForm,
  type OrgSettingsProps,
} from '../views/org-pages';

const MEMBERS_PER_PAGE = 20;

/**
 * The organization pages at Gitea's URLs: `/org/create`, `/org/{org}/settings` (and
 * `/settings/delete`), `/org/{org}/members` (and `/members/action/{action}`) and the team pages
 * (`/org/{org}/teams…`), each through the API's own operations as the viewer.
 */
export function orgRoutes(web: WebRoutes): void {
  createRoutes(web);
  settingsRoutes(web);
  memberRoutes(web);
  teamRoutes(web);
}

function createRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const render = (req: Request, res: Response, form: OrgCreateForm, error?: string, status = 200) =>
    renderer.send(res, h(OrgCreatePage, { kit: renderer.kit(req), form, error }), status);

  pages.get('/org/create', (req, res) => {
    if (signInFirst(req, res)) return;
    render(req, res, { org_name: '', full_name: '', visibility: 'public', repo_admin_change_team_access: true });
  });

  pages.post('/org/create', async (req, res) => {
    const viewer = viewerOf(req);
    if (!viewer.user) throw ApiError.unauthorized('sign in first');
    const form: OrgCreateForm = {
      org_name: text(req.body.org_name).trim(),
      full_name: text(req.body.full_name, 100),
      visibility: visibilityOf(req.body.visibility),
      repo_admin_change_team_access: req.body.repo_admin_change_team_access === 'on',
    };
    try {
      const org = await api.send<OrgJson>(viewer, 'post', '/orgs', {
        username: form.org_name,
        full_name: form.full_name,
        visibility: form.visibility,
        repo_admin_change_team_access: form.repo_admin_change_team_access,
      });
      res.redirect(303, userHref(org.name));
    } catch (err) {
      if (refusal(err)) return render(req, res, form, err.message, err.status);
      throw err;
    }
  });
}

function settingsRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const formOf = (org: OrgJson): OrgSettingsForm => ({
    full_name: org.full_name,
    description: org.description,
    website: org.website,
    location: org.location,
    visibility: org.visibility,
    repo_admin_change_team_access: org.repo_admin_change_team_access,
  });
  const render = (req: Request, res: Response, props: Omit<OrgSettingsProps, 'kit'>, status = 200) =>
    renderer.send(res, h(OrgSettingsPage, { kit: renderer.kit(req), ...props }), status);

  pages.get('/org/:org/settings', async (req, res) => {
    if (signInFirst(req, res)) return;
    const standing = await orgStanding(web, req);
    requireOwner(standing);
    render(req, res, { org: standing.org, form: formOf(standing.org), saved: req.query.saved === '1' });
  });

  pages.post('/org/:org/settings', async (req, res) => {
    const viewer = viewerOf(req);
    const name = String(req.params.org);
    const form: OrgSettingsForm = {
      full_name: text(req.body.full_name, 100),
      description: text(req.body.description),
      website: text(req.body.website).trim(),
      location: text(req.body.location, 50),
      visibility: visibilityOf(req.body.visibility),
      repo_admin_change_team_access: req.body.repo_admin_change_team_access === 'on',
    };
    try {
      await api.send(viewer, 'patch', apiPath`/orgs/${name}`, form);
      res.redirect(303, orgHref(name, '/settings?saved=1'));
    } catch (err) {
      if (!formRefusal(err)) throw err;
      const org = await api.get<OrgJson>(viewer, apiPath`/orgs/${name}`);
      render(req, res, { org, form, error: err.message }, err.status);
    }
  });

  pages.get('/org/:org/settings/delete', (req, res) => res.redirect(303, orgHref(String(req.params.org), '/settings#delete')));

  pages.post('/org/:org/settings/delete', async (req, res) => {
    const standing = await orgStanding(web, req);
    requireOwner(standing);
    const { viewer, org } = standing;
    if (text(req.body.org_name).trim() !== org.name) {
      const deleteError = `To delete the organization, type its name, ${org.name}, exactly.`;
      return render(req, res, { org, form: formOf(org), deleteError }, 422);
    }
    try {
      await api.send(viewer, 'delete', apiPath`/orgs/${org.name}`);
      res.redirect(303, '/');
    } catch (err) {
      if (formRefusal(err)) return render(req, res, { org, form: formOf(org), deleteError: err.message }, err.status);
      throw err;
    }
  });
}

function memberRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  pages.get('/org/:org/members', async (req, res) => {
    const { viewer, org, isOwner, isMember } = await orgStanding(web, req);
    const page = pageNumber(req);
    const { items, total } = await api.list<UserJson>(viewer, apiPath`/orgs/${org.name}/members`, { page, limit: MEMBERS_PER_PAGE });
    const publicNames = new Set(
      (await listAll<UserJson>(web, viewer, apiPath`/orgs/${org.name}/public_members`)).map((u) => u.login.toLowerCase()),
    );
    const roles = await Promise.all(
      items.map(async (user) => {
        if (!viewer.user) return null;
        const permissions = await api.find<{ is_owner: boolean }>(viewer, apiPath`/users/${user.login}/orgs/${org.name}/permissions`);
        return permissions ? (permissions.is_owner ? 'Owner' : 'Member') : null;
      }),
    );
    const members = items.map((user, i) => ({ user, isPublic: publicNames.has(user.login.toLowerCase()), role: roles[i] }));
    const notice = {
      public: 'Your membership is now public.',
      private: 'Your membership is now private.',
      removed: 'The member was removed.',
    }[String(req.query.done)];
    const props = { kit: renderer.kit(req), org, members, page, limit: MEMBERS_PER_PAGE, total, isMember, isOwner, notice };
    renderer.send(res, h(OrgMembersPage, props));
  });

  pages.post('/org/:org/members/action/:action', async (req, res) => {
    const viewer = viewerOf(req);
    const me = viewer.user;
    if (!me) throw ApiError.unauthorized('sign in first');
    const org = String(req.params.org);
    const action = String(req.params.action);
    if (action === 'public' || action === 'private') {
      await api.send(viewer, action === 'public' ? 'put' : 'delete', apiPath`/orgs/${org}/public_members/${me.name}`);
      return res.redirect(303, orgHref(org, `/members?done=${action}`));
    }
    if (action === 'remove') {
      const uname = text(req.body.uname).trim();
      if (!uname) throw ApiError.badRequest('no member named');
      await api.send(viewer, 'delete', apiPath`/orgs/${org}/members/${uname}`);
      return res.redirect(303, orgHref(org, '/members?done=removed'));
    }
    throw ApiError.notFound('no such action');
  });
}
