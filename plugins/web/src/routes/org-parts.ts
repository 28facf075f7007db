/** What the organization pages share (and the site administration pages: signing in first, form refusals). */
import type { Request, Response } from 'express';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import { signInHref } from '../views/layout';
import type { OrgJson } from '../views/org-pages';

/** What the viewer is in an organization, as the API answers: owner (or a site admin), member. */
export interface OrgStanding {
  viewer: PageViewer;
  org: OrgJson;
  isOwner: boolean;
  isMember: boolean;
}

/** Whether a GET that answers 204 or 404 answers 204 (other refusals are thrown). */
async function answers(web: WebRoutes, viewer: PageViewer, path: string): Promise<boolean> {
  try {
    await web.api.get(viewer, path);
    return true;
  } catch (err) {
    if (isApiError(err) && err.status === 404) return false;
    throw err;
  }
}

/** The organization `/org/:org` names (the 404 page when the viewer may not see it) and the viewer's place in it. */
export async function orgStanding(web: WebRoutes, req: Request): Promise<OrgStanding> {
  const viewer = viewerOf(req);
  const org = await web.api.get<OrgJson>(viewer, apiPath`/orgs/${String(req.params.org)}`);
  const me = viewer.user;
  if (!me) return { viewer, org, isOwner: false, isMember: false };
  const [permissions, member] = await Promise.all([
    web.api.find<{ is_owner: boolean }>(viewer, apiPath`/users/${me.name}/orgs/${org.name}/permissions`),
    answers(web, viewer, apiPath`/orgs/${org.name}/members/${me.name}`),
  ]);
  return { viewer, org, isOwner: me.isAdmin || Boolean(permissions?.is_owner), isMember: me.isAdmin || member };
}

/** Owners' pages: what the API answers a non-owner who tries to change the organization (403; 401 when signed out). */
export function requireOwner(standing: OrgStanding): void {
  if (!standing.viewer.user) throw ApiError.unauthorized('sign in first');
  if (!standing.isOwner) throw ApiError.forbidden('you must be an owner of the organization');
}

/** Pages for signed-in people send visitors to the sign-in page first (as Gitea); true when they were. */
export function signInFirst(req: Request, res: Response): boolean {
  if (viewerOf(req).user) return false;
  res.redirect(303, signInHref(req.originalUrl));
  return true;
}

/** A refusal the form shows (the API's 400 or 422: bad input) rather than an error page. */
export const formRefusal = (err: unknown): err is ApiError => isApiError(err) && (err.status === 400 || err.status === 422);
