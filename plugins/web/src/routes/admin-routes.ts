import { h } from 'preact';
import type { WebRoutes } from '../web-routes';
import { pageNumber } from './home-routes';
import { ADMIN_PAGE_SIZE, adminPage, requireAdmin } from './admin-parts';
import { orNull, text } from './route-parts';
import { adminUserRoutes } from './admin-user-routes';
import { adminHookRoutes } from './admin-hook-routes';
import type { RepoJson } from '../views/home-pages';
import type { OrgJson } from '../views/org-pages';
import { AdminConfigPage, AdminDashboardPage, AdminEmailsPage, AdminOrgsPage, AdminReposPage, type EmailJson } from '../views/admin-pages';

/**
 * Site administration at Gitea's URLs: `/admin` (dashboard: counts from the admin lists'
 * X-Total-Count, the version), `/admin/users…`, `/admin/emails`, `/admin/orgs`, `/admin/repos`,
 * `/admin/hooks…` (system webhooks) and `/admin/config` (what `/settings/*` report) — for site
 * administrators, as the API decides.
 */
export function adminRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  pages.get(
    '/admin',
    adminPage(async (req, res, viewer) => {
      const users = await api.list(viewer, '/admin/users', { limit: 1 });
      const [orgs, repos, hooks, version] = await Promise.all([
        api.list(viewer, '/admin/orgs', { limit: 1 }),
        api.list(viewer, '/repos/search', { limit: 1 }),
        orNull(api.list(viewer, '/admin/hooks', { limit: 1 })),
        api.get<{ version: string }>(viewer, '/version'),
      ]);
      const counts = { users: users.total, orgs: orgs.total, repos: repos.total, hooks: hooks ? hooks.total : null };
      renderer.send(res, h(AdminDashboardPage, { kit: renderer.kit(req), counts, version: version.version }));
    }),
  );

  pages.get(
    '/admin/emails',
    adminPage(async (req, res, viewer) => {
      const q = text(req.query.q, 200).trim();
      const page = pageNumber(req);
      const query = { page, limit: ADMIN_PAGE_SIZE, ...(q ? { q } : {}) };
      const { items, total } = await api.list<EmailJson>(viewer, q ? '/admin/emails/search' : '/admin/emails', query);
      renderer.send(res, h(AdminEmailsPage, { kit: renderer.kit(req), q, page, limit: ADMIN_PAGE_SIZE, total, emails: items }));
    }),
  );

  pages.get(
    '/admin/orgs',
    adminPage(async (req, res, viewer) => {
      const page = pageNumber(req);
      const { items, total } = await api.list<OrgJson>(viewer, '/admin/orgs', { page, limit: ADMIN_PAGE_SIZE });
      renderer.send(res, h(AdminOrgsPage, { kit: renderer.kit(req), page, limit: ADMIN_PAGE_SIZE, total, orgs: items }));
    }),
  );

  pages.get(
    '/admin/repos',
    adminPage(async (req, res, viewer) => {
      await requireAdmin(web, viewer);
      const q = text(req.query.q, 200).trim();
      const page = pageNumber(req);
      const query = { page, limit: ADMIN_PAGE_SIZE, sort: 'updated', order: 'desc', ...(q ? { q } : {}) };
      const { items, total } = await api.list(viewer, '/repos/search', query);
      const repos = ((items as unknown as { data?: RepoJson[] }).data ?? items) as RepoJson[];
      renderer.send(res, h(AdminReposPage, { kit: renderer.kit(req), q, page, limit: ADMIN_PAGE_SIZE, total, repos }));
    }),
  );

  pages.get(
    '/admin/config',
    adminPage(async (req, res, viewer) => {
      await requireAdmin(web, viewer);
      const [version, apiSettings, repository, ui, attachment] = await Promise.all([
        api.get<{ version: string }>(viewer, '/version'),
        api.find(viewer, '/settings/api'),
        api.find(viewer, '/settings/repository'),
        api.find(viewer, '/settings/ui'),
        api.find(viewer, '/settings/attachment'),
      ]);
      const config = { version: version.version, api: apiSettings, repository, ui, attachment };
      renderer.send(res, h(AdminConfigPage, { kit: renderer.kit(req), config }));
    }),
  );

  adminUserRoutes(web);
  adminHookRoutes(web);
}
