/** What the repository settings routes share: the repository of a settings URL (its admins only), form fields, refusals. */
import type { Request } from 'express';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import type { PageViewer } from '../page-session';
import { loadRepo, refusal, text } from './route-parts';
import type { FormError, SettingsRepoJson } from '../views/repo-settings-frame';

/** A settings page's repository, as its administrator sees it through the API. */
export interface SettingsTarget {
  viewer: PageViewer;
  repo: SettingsRepoJson;
  /** `/repos/{owner}/{repo}` in the API. */
  api: string;
}

/**
 * The repository of a `/{owner}/{repo}/settings…` URL, for its administrators only: the API's own
 * answers decide — a repository the viewer may not see is its 404, and one they may see but not
 * administer is refused as the API refuses its admin operations (403).
 */
export async function adminRepo(web: WebRoutes, req: Request): Promise<SettingsTarget> {
  const { viewer, repo } = await loadRepo<SettingsRepoJson>(web, req);
  if (!repo.permissions?.admin) throw ApiError.forbidden('you do not have admin access to this repository');
  return { viewer, repo, api: apiPath`/repos/${repo.owner.login}/${repo.name}` };
}

/** Whether the webhooks feature serves this repository (its settings menu entry and pages). */
export function hooksOn(web: WebRoutes): boolean {
  return web.ctx.forge.raw.plugins?.webhooks?.enabled !== false;
}

/** A checkbox of a urlencoded form. */
export function checked(body: Record<string, unknown>, name: string): boolean {
  return body[name] === 'on';
}

/** The `?done=` key of a page after a change. */
export function doneOf(req: Request): string | undefined {
  return typeof req.query.done === 'string' ? req.query.done.slice(0, 40) : undefined;
}

/** The form's fields as text (what a failed form shows again); passwords and the CSRF token are left out. */
export function keptFields(body: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(body ?? {})) {
    if (name === '_csrf' || /password|secret|authorization/i.test(name)) continue;
    kept[name] = Array.isArray(value) ? value.map(String).join(',') : text(value, 4096);
  }
  return kept;
}

/** A form's refused change: the message to show above it and the status to answer with. */
export interface Refused {
  error: FormError;
  status: number;
}

/**
 * Run an API change for `form`: null when it went through, the refusal (a 4xx the API answered:
 * a validation message, a missing user…) to show the person otherwise. Failures of the forge are thrown.
 */
export async function attempt(form: string, change: () => Promise<unknown>): Promise<Refused | null> {
  try {
    await change();
    return null;
  } catch (err) {
    if (refusal(err)) return { error: { form, message: err.message }, status: err.status };
    throw err;
  }
}

/** A list of names typed into one field: separated by commas, spaces or lines; empty entries dropped. */
export function names(value: unknown): string[] {
  return [
    ...new Set(
      text(value, 8192)
        .split(/[\s,]+/)
        .filter(Boolean),
    ),
  ];
}
