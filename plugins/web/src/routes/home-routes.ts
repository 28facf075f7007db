import type { Request, Response } from 'express';
import { h } from 'preact';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf } from '../page-session';
import { orNull } from './route-parts';
import { DashboardPage, ExplorePage, LandingPage, ProfilePage, type ExploreKind, type UserJson } from '../views/home-pages';

/** The page number of `?page=` (1 when missing or not a positive number). */
export function pageNumber(req: Request): number {
  const page = Number(req.query.page);
  return Number.isInteger(page) && page > 0 && page < 1e6 ? page : 1;
}

const PAGE_SIZE = 20;

/** Home (landing or dashboard), explore lists and user/organization profiles. */
export function homeRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  pages.get('/', async (req, res) => {
    const viewer = viewerOf(req);
    const kit = renderer.kit(req);
    if (!viewer.user) return renderer.send(res, h(LandingPage, { kit }));
    const [feed, repos] = await Promise.all([
      api.find(viewer, apiPath`/users/${viewer.user.name}/activities/feeds`, { limit: 30 }),
      api.get(viewer, '/user/repos', { limit: 50 }),
    ]);
    renderer.send(res, h(DashboardPage, { kit, feed, repos }));
  });

  const explore = (kind: ExploreKind) => async (req: Request, res: Response) => {
    const viewer = viewerOf(req);
    const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 200) : '';
    const page = pageNumber(req);
    const query = { page, limit: PAGE_SIZE, ...(q ? { q } : {}) };
    const props = { kit: renderer.kit(req), kind, q, page, limit: PAGE_SIZE };
    if (kind === 'repos') {
      const { items, total } = await api.list(viewer, '/repos/search', { ...query, sort: 'updated', order: 'desc' });
      return renderer.send(res, h(ExplorePage, { ...props, total, repos: (items as any).data ?? items }));
    }
    const { items, total } = await api.list<UserJson>(viewer, kind === 'users' ? '/users/search' : '/orgs', query);
    renderer.send(res, h(ExplorePage, { ...props, total, users: (items as any).data ?? items }));
  };
  for (const kind of ['repos', 'users', 'organizations'] as const) pages.get(`/explore/${kind}`, explore(kind));
  pages.get('/explore', (_req, res) => res.redirect(303, '/explore/repos'));

  pages.get('/:owner', async (req, res) => {
    const viewer = viewerOf(req);
    const name = req.params.owner as string;
    // An organization is not a user to `/users/{name}`: ask `/orgs/{name}` first.
    const org = await api.find<UserJson & { name: string }>(viewer, apiPath`/orgs/${name}`);
    const owner: UserJson = org ? { ...org, login: org.name } : await api.get<UserJson>(viewer, apiPath`/users/${name}`);
    const page = pageNumber(req);
    const reposPath = org ? apiPath`/orgs/${owner.login}/repos` : apiPath`/users/${owner.login}/repos`;
    const { items: repos, total } = await api.list(viewer, reposPath, { page, limit: PAGE_SIZE });
    const [members, teams] = org
      ? await Promise.all([
          orNull(api.get(viewer, apiPath`/orgs/${owner.login}/members`, { limit: 50 })),
          orNull(api.get(viewer, apiPath`/orgs/${owner.login}/teams`, { limit: 50 })),
        ])
      : [null, null];
    renderer.send(
      res,
      h(ProfilePage, { kit: renderer.kit(req), owner, isOrg: Boolean(org), repos, page, limit: PAGE_SIZE, total, members, teams }),
    );
  });
}
