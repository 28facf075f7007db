import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { pageNumber } from './home-routes';
import { listAll, text } from './route-parts';
import { adminRepo, attempt, checked, doneOf, type Refused, type SettingsTarget } from './repo-settings-shared';
import { settingsHref } from '../views/repo-settings-frame';
import {
  HOOK_EVENTS,
  HookPage,
  HooksListPage,
  NEW_HOOK,
  type DeliveryJson,
  type HookForm,
  type HookJson,
} from '../views/repo-settings-hooks';

const DELIVERIES_PER_PAGE = 10;
const REVIEW_EVENTS = new Set(['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment']);
const CHOOSABLE = new Set(HOOK_EVENTS.map(([name]) => name));

/** The `{id}` of a webhook URL; anything but a positive number is no page. */
function hookId(value: unknown): number {
  const raw = String(value);
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1) throw ApiError.notFound('no such webhook');
  return Number(raw);
}

/** A form field as a list (a repeated field arrives as an array). */
function many(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
}

/** A hook as its form shows it: the events it receives back as the choices that chose them. */
function formOfHook(hook: HookJson): HookForm {
  const chosen = [...new Set(hook.events.map((e) => (REVIEW_EVENTS.has(e) ? 'pull_request_review' : e)))];
  const trigger = chosen.length >= HOOK_EVENTS.length ? 'all' : chosen.length === 1 && chosen[0] === 'push' ? 'push' : 'choose';
  return {
    url: hook.config.url,
    http_method: (hook.config.http_method || 'post').toUpperCase(),
    content_type: hook.config.content_type,
    branch_filter: hook.branch_filter || '*',
    trigger,
    events: trigger === 'choose' ? chosen : [],
    active: hook.active,
  };
}

function formOfBody(body: Record<string, unknown>): HookForm {
  const trigger = body.events === 'send_everything' ? 'all' : body.events === 'choose_events' ? 'choose' : 'push';
  return {
    url: text(body.payload_url, 2048).trim(),
    http_method: text(body.http_method, 8) === 'GET' ? 'GET' : 'POST',
    content_type: text(body.content_type, 8) === 'form' ? 'form' : 'json',
    branch_filter: text(body.branch_filter, 1024).trim(),
    trigger,
    events: many(body.event).filter((e) => CHOOSABLE.has(e)),
    active: checked(body, 'active'),
  };
}

/** The API's CreateHookOption/EditHookOption of a form; an edit keeps the secret and authorization header left empty. */
function hookOption(form: HookForm, body: Record<string, unknown>, editing: boolean): Record<string, unknown> {
  if (form.trigger === 'choose' && form.events.length === 0) throw ApiError.unprocessable('Choose at least one event, or another trigger.');
  const events = form.trigger === 'all' ? ['*'] : form.trigger === 'push' ? ['push'] : form.events;
  const config: Record<string, string> = { url: form.url, content_type: form.content_type, http_method: form.http_method };
  const secret = text(body.secret);
  if (secret || !editing) config.secret = secret;
  const authorization = text(body.authorization_header, 4096);
  return {
    config,
    events,
    branch_filter: form.branch_filter,
    active: form.active,
    ...(authorization || !editing ? { authorization_header: authorization } : {}),
  };
}

interface HookView {
  hook: HookJson | null;
  form?: HookForm;
  refused?: Refused;
}

async function showHook(web: WebRoutes, req: Request, res: Response, at: SettingsTarget, view: HookView): Promise<void> {
  const { hook, refused } = view;
  const page = pageNumber(req);
  const history = hook
    ? await web.api.list<DeliveryJson>(at.viewer, `${at.api}${apiPath`/hooks/${hook.id}/deliveries`}`, { page, limit: DELIVERIES_PER_PAGE })
    : { items: [], total: 0 };
  const props = {
    kit: web.renderer.kit(req),
    repo: at.repo,
    hook,
    form: view.form ?? (hook ? formOfHook(hook) : NEW_HOOK),
    deliveries: history.items,
    page,
    limit: DELIVERIES_PER_PAGE,
    total: history.total,
    done: refused ? undefined : doneOf(req),
    error: refused?.error,
  };
  web.renderer.send(res, h(HookPage, props), refused?.status ?? 200);
}

async function showList(web: WebRoutes, req: Request, res: Response, at: SettingsTarget, refused?: Refused): Promise<void> {
  // A 404 page when the webhooks feature is off: the API has no such operation then.
  const hooks = await listAll<HookJson>(web, at.viewer, `${at.api}/hooks`);
  const props = { kit: web.renderer.kit(req), repo: at.repo, hooks, done: refused ? undefined : doneOf(req), error: refused?.error };
  web.renderer.send(res, h(HooksListPage, props), refused?.status ?? 200);
}

/**
 * `/{owner}/{repo}/settings/hooks` at Gitea's URLs: the list, `…/gitea/new` (form and POST),
 * `…/{id}` (edit form, test delivery, history), POST `…/gitea/{id}` (update), `…/{id}/test`,
 * `…/{id}/replay/{uuid}` (redeliver) and `…/delete`, through the API's hook operations.
 */
export function hookSettingsRoutes(web: WebRoutes): void {
  const { api, pages } = web;
  const base = '/:owner/:repo/settings/hooks';
  const hookPath = (at: SettingsTarget, id: number) => `${at.api}${apiPath`/hooks/${id}`}`;
  const back = (at: SettingsTarget, id: number, done: string) => `${settingsHref(at.repo, `/hooks/${id}`)}?done=${done}#deliveries-title`;

  pages.get(base, async (req, res) => showList(web, req, res, await adminRepo(web, req)));

  pages.post(`${base}/delete`, async (req, res) => {
    const at = await adminRepo(web, req);
    const refused = await attempt('hooks', () => api.send(at.viewer, 'delete', hookPath(at, hookId(req.body.id))));
    if (refused) return showList(web, req, res, at, refused);
    res.redirect(303, `${settingsHref(at.repo, '/hooks')}?done=hook-removed`);
  });

  pages.get(`${base}/gitea/new`, async (req, res) => {
    const at = await adminRepo(web, req);
    await api.get(at.viewer, `${at.api}/hooks`, { limit: 1 }); // the feature's 404 when webhooks are off
    await showHook(web, req, res, at, { hook: null });
  });

  pages.post(`${base}/gitea/new`, async (req, res) => {
    const at = await adminRepo(web, req);
    const form = formOfBody(req.body ?? {});
    let created: HookJson | undefined;
    const refused = await attempt('hook', async () => {
      const option = { type: 'gitea', ...hookOption(form, req.body ?? {}, false) };
      created = await api.send<HookJson>(at.viewer, 'post', `${at.api}/hooks`, option);
    });
    if (refused) return showHook(web, req, res, at, { hook: null, form, refused });
    res.redirect(303, back(at, created!.id, 'hook-added'));
  });

  pages.get(`${base}/:id`, async (req, res) => {
    const at = await adminRepo(web, req);
    const hook = await api.get<HookJson>(at.viewer, hookPath(at, hookId(req.params.id)));
    await showHook(web, req, res, at, { hook });
  });

  pages.post(`${base}/:id/test`, async (req, res) => {
    const at = await adminRepo(web, req);
    const id = hookId(req.params.id);
    await api.send(at.viewer, 'post', `${hookPath(at, id)}/tests`);
    res.redirect(303, back(at, id, 'tested'));
  });

  pages.post(`${base}/:id/replay/:uuid`, async (req, res) => {
    const at = await adminRepo(web, req);
    const id = hookId(req.params.id);
    await api.send(at.viewer, 'post', `${hookPath(at, id)}${apiPath`/deliveries/${text(req.params.uuid, 64)}/redeliver`}`);
    res.redirect(303, back(at, id, 'redelivered'));
  });

  pages.post(`${base}/gitea/:id`, async (req, res) => {
    const at = await adminRepo(web, req);
    const hook = await api.get<HookJson>(at.viewer, hookPath(at, hookId(req.params.id)));
    if (hook.type !== 'gitea') throw ApiError.notFound('no such Gitea webhook');
    const form = formOfBody(req.body ?? {});
    const refused = await attempt('hook', () =>
      api.send(at.viewer, 'patch', hookPath(at, hook.id), hookOption(form, req.body ?? {}, true)),
    );
    if (refused) return showHook(web, req, res, at, { hook, form, refused });
    res.redirect(303, `${settingsHref(at.repo, `/hooks/${hook.id}`)}?done=hook-updated`);
  });
}
