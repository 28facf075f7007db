/** What the site administration pages share: the admin check, page size, the page wrapper. */
import type { Request, Response } from 'express';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { viewerOf, type PageViewer } from '../page-session';
import { signInFirst } from './org-parts';

export const ADMIN_PAGE_SIZE = 30;

/**
 * The site administrator, or the API's refusal: pages whose data are not an admin operation's ask
 * one first (`GET /admin/orgs`), so the API decides who administers the site (403 otherwise).
 */
export async function requireAdmin(web: WebRoutes, viewer: PageViewer): Promise<void> {
  await web.api.list(viewer, '/admin/orgs', { limit: 1 });
}

/** An admin page handler: anonymous visitors sign in first, then `show` runs as the viewer. */
export function adminPage(show: (req: Request, res: Response, viewer: PageViewer) => Promise<void>) {
  return async (req: Request, res: Response) => {
    if (signInFirst(req, res)) return;
    await show(req, res, viewerOf(req));
  };
}

/** A change whose operation takes a query (`DELETE /admin/users/{u}?purge=true`), with the API's refusal thrown as for `web.api`. */
export async function sendWithQuery(
  web: WebRoutes,
  viewer: PageViewer,
  method: 'post' | 'put' | 'patch' | 'delete',
  path: string,
  query: Record<string, unknown>,
): Promise<void> {
  const response = await web.ctx.api.call(viewer.principal, method, path, { query });
  if (response.status >= 400)
    throw new ApiError(response.status, String((response.body as { message?: string })?.message ?? 'request failed'));
}
