import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf } from '../page-session';
import { adminPage, requireAdmin } from './admin-parts';
import { formRefusal } from './org-parts';
import { listAll, orNull, text } from './route-parts';
import {
  AdminHookFormPage,
  AdminHooksPage,
  HOOK_EVENTS,
  HOOK_TYPES,
  type DeliveryJson,
  type EventMode,
  type HookForm,
  type HookFormProps,
  type HookJson,
} from '../views/admin-hook-pages';

/** Event types a delivery can carry (the API lists a hook's events by these); a hook with all of them sends everything. */
const EVENT_TYPE_COUNT = 23;
const CHOOSABLE = new Set(HOOK_EVENTS.map(([name]) => name));

const NOTICES: Record<string, string> = { added: 'The webhook was added.', deleted: 'The webhook was deleted.' };

function many(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
}

/** The form of an existing hook: its event types folded back into the choosable events. */
function formOf(hook: HookJson): HookForm {
  const chosen = [
    ...new Set(hook.events.map((e) => (/^pull_request_review_(approved|rejected|comment)$/.test(e) ? 'pull_request_review' : e))),
  ];
  const mode: EventMode =
    hook.events.length >= EVENT_TYPE_COUNT ? 'all' : hook.events.length === 1 && hook.events[0] === 'push' ? 'push' : 'choose';
  return {
    type: hook.type,
    url: hook.config.url ?? '',
    http_method: hook.config.http_method ?? 'post',
    content_type: hook.config.content_type ?? 'json',
    branch_filter: hook.branch_filter,
    channel: hook.config.channel ?? '',
    mode,
    events: mode === 'choose' ? chosen : [],
    active: hook.active,
  };
}

function sentForm(type: string, body: Record<string, unknown>): HookForm {
  const mode = (['push', 'all', 'choose'] as const).find((m) => m === body.events_mode) ?? 'push';
  return {
    type,
    url: text(body.url, 2048).trim(),
    http_method: text(body.http_method, 8) === 'GET' ? 'GET' : 'POST',
    content_type: body.content_type === 'form' ? 'form' : 'json',
    branch_filter: text(body.branch_filter).trim(),
    channel: text(body.channel, 100).trim(),
    mode,
    events: many(body.events).filter((e) => CHOOSABLE.has(e)),
    active: body.active === 'on',
  };
}

/** CreateHookOption/EditHookOption of the form; an empty secret on edit keeps the stored one. */
function hookBody(form: HookForm, secret: string, editing: boolean): Record<string, unknown> {
  const config: Record<string, string> = { url: form.url };
  if (form.type === 'gitea' || form.type === 'gogs') {
    config.http_method = form.http_method;
    config.content_type = form.content_type;
    if (secret || !editing) config.secret = secret;
  }
  if (form.type === 'slack') config.channel = form.channel;
  const events = form.mode === 'all' ? ['*'] : form.mode === 'push' ? ['push'] : form.events;
  return { ...(editing ? {} : { type: form.type }), config, events, branch_filter: form.branch_filter, active: form.active };
}

/** A hook id of a URL or form (a 404 page for anything else). */
function hookId(value: unknown): number {
  const raw = String(value);
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1) throw ApiError.notFound();
  return Number(raw);
}

/**
 * System webhooks at Gitea's URLs: `/admin/hooks` (list), `/admin/system-hooks/{type}/new`,
 * `/admin/hooks/{id}` (edit, recent deliveries) and `/admin/hooks/delete`, through the API's
 * `/admin/hooks` operations (served by the webhooks plugin: without it, the list says so).
 */
export function adminHookRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const render = (req: Request, res: Response, props: Omit<HookFormProps, 'kit'>, status = 200) =>
    renderer.send(res, h(AdminHookFormPage, { kit: renderer.kit(req), ...props }), status);

  pages.get(
    '/admin/hooks',
    adminPage(async (req, res, viewer) => {
      await requireAdmin(web, viewer);
      let hooks: HookJson[] = [];
      let disabled = false;
      try {
        hooks = await listAll<HookJson>(web, viewer, '/admin/hooks');
      } catch (err) {
        if (!(isApiError(err) && err.status === 404)) throw err;
        disabled = true;
      }
      renderer.send(res, h(AdminHooksPage, { kit: renderer.kit(req), hooks, disabled, notice: NOTICES[String(req.query.done)] }));
    }),
  );

  const typeOf = (req: Request) => {
    const type = String(req.params.type);
    if (!(type in HOOK_TYPES)) throw ApiError.notFound('no such webhook type');
    return type;
  };

  pages.get(
    '/admin/system-hooks/:type/new',
    adminPage(async (req, res, viewer) => {
      const type = typeOf(req);
      await requireAdmin(web, viewer);
      const form: HookForm = {
        type,
        url: '',
        http_method: 'POST',
        content_type: 'json',
        branch_filter: '*',
        channel: '',
        mode: 'push',
        events: [],
        active: true,
      };
      render(req, res, { form });
    }),
  );

  pages.post('/admin/system-hooks/:type/new', async (req, res) => {
    const viewer = viewerOf(req);
    const form = sentForm(typeOf(req), req.body ?? {});
    try {
      if (form.mode === 'choose' && form.events.length === 0) throw ApiError.unprocessable('Choose at least one event.');
      await api.send(viewer, 'post', '/admin/hooks', hookBody(form, text(req.body.secret), false));
      res.redirect(303, '/admin/hooks?done=added');
    } catch (err) {
      if (!formRefusal(err)) throw err;
      await requireAdmin(web, viewer);
      render(req, res, { form, error: err.message }, err.status);
    }
  });

  // Before `/admin/hooks/:id`, which would take `delete` as an id.
  pages.post('/admin/hooks/delete', async (req, res) => {
    const viewer = viewerOf(req);
    await api.send(viewer, 'delete', apiPath`/admin/hooks/${hookId(req.body.id)}`);
    res.redirect(303, '/admin/hooks?done=deleted');
  });

  const deliveriesOf = async (viewer: ReturnType<typeof viewerOf>, id: number) =>
    (await orNull(api.list<DeliveryJson>(viewer, apiPath`/admin/hooks/${id}/deliveries`, { limit: 10 })))?.items ?? [];

  pages.get(
    '/admin/hooks/:id',
    adminPage(async (req, res, viewer) => {
      const hook = await api.get<HookJson>(viewer, apiPath`/admin/hooks/${hookId(req.params.id)}`);
      const deliveries = await deliveriesOf(viewer, hook.id);
      render(req, res, { form: formOf(hook), hook, deliveries, saved: req.query.saved === '1' });
    }),
  );

  pages.post('/admin/hooks/:id', async (req, res) => {
    const viewer = viewerOf(req);
    const hook = await api.get<HookJson>(viewer, apiPath`/admin/hooks/${hookId(req.params.id)}`);
    const form = sentForm(hook.type, req.body ?? {});
    try {
      if (form.mode === 'choose' && form.events.length === 0) throw ApiError.unprocessable('Choose at least one event.');
      await api.send(viewer, 'patch', apiPath`/admin/hooks/${hook.id}`, hookBody(form, text(req.body.secret), true));
      res.redirect(303, `/admin/hooks/${hook.id}?saved=1`);
    } catch (err) {
      if (!formRefusal(err)) throw err;
      render(req, res, { form, hook, deliveries: await deliveriesOf(viewer, hook.id), error: err.message }, err.status);
    }
  });
}
