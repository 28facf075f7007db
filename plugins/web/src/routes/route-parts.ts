/** What the repository, issue and pull request routes share: the repository of a URL, whole lists, refusals, fields. */
import type { Request } from 'express';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import type { RepoJson } from '../views/home-pages';

/** The API's largest page; lists a page needs whole (labels, milestones, a timeline, reviews, branches) are walked with it. */
export const API_PAGE = 50;

/** The repository `/:owner/:repo` names, as the API shows it to the viewer (the 404 page when they may not see it). */
export async function loadRepo<R extends RepoJson = RepoJson>(web: WebRoutes, req: Request): Promise<{ viewer: PageViewer; repo: R }> {
  const viewer = viewerOf(req);
  const repo = await web.api.get<R>(viewer, apiPath`/repos/${String(req.params.owner)}/${String(req.params.repo)}`);
  return { viewer, repo };
}

/** Every item of a paged API list, page by page, at most `maxPages` pages: a page never grows without bound. */
export async function listAll<T>(
  web: WebRoutes,
  viewer: PageViewer,
  path: string,
  query: Record<string, unknown> = {},
  maxPages = 20,
): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const { items, total } = await web.api.list<T>(viewer, path, { ...query, page, limit: API_PAGE });
    all.push(...items);
    if (items.length < API_PAGE || all.length >= total) break;
  }
  return all;
}

/** Whether an API refusal is about the request (shown to the person) rather than a failure of the forge. */
export const refusal = (err: unknown): err is ApiError => isApiError(err) && err.status < 500;

/** `load`'s answer, or null when the API refuses it (a unit or the code the viewer may not read). */
export async function orNull<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load;
  } catch (err) {
    if (refusal(err)) return null;
    throw err;
  }
}

/** A form or query field as text of at most `max` characters ('' when it is missing or repeated). */
export function text(value: unknown, max = 255): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/** The `{index}` of an issue or pull request URL; anything but a positive number is no page. */
export function issueIndex(value: unknown): number {
  const raw = String(value);
  const index = Number(raw);
  if (!/^\d{1,10}$/.test(raw) || index < 1 || index > 2147483647) throw ApiError.notFound();
  return index;
}

/** Markdown of comments, issues and pull requests, rendered by the forge with the repository as context. */
export function commentMarkdown(web: WebRoutes, repoFullName: string): (markdown: string) => string {
  return (markdown) => web.markdown.render(markdown ?? '', { mode: 'comment', context: repoFullName });
}
