import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf } from '../page-session';
import { adminPage, requireAdmin } from './admin-parts';
import { formRefusal } from './org-parts';
import { listAll, orNull } from './route-parts';
import { AdminHookFormPage, AdminHooksPage, type HookFormProps } from '../views/admin-hook-pages';
import { HOOK_TYPES, newHookForm, type DeliveryJson, type HookJson } from '../views/webhook-form';
import { formOfBody, formOfHook, hookId, hookOption } from './webhook-form';

const NOTICES: Record<string, string> = { added: 'The webhook was added.', deleted: 'The webhook was deleted.' };

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
      render(req, res, { form: newHookForm(type) });
    }),
  );

  pages.post('/admin/system-hooks/:type/new', async (req, res) => {
    const viewer = viewerOf(req);
    const form = formOfBody(typeOf(req), req.body ?? {});
    try {
      await api.send(viewer, 'post', '/admin/hooks', hookOption(form, req.body ?? {}, false));
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
      render(req, res, { form: formOfHook(hook), hook, deliveries, saved: req.query.saved === '1' });
    }),
  );

  pages.post('/admin/hooks/:id', async (req, res) => {
    const viewer = viewerOf(req);
    const hook = await api.get<HookJson>(viewer, apiPath`/admin/hooks/${hookId(req.params.id)}`);
    const form = formOfBody(hook.type, req.body ?? {});
    try {
      await api.send(viewer, 'patch', apiPath`/admin/hooks/${hook.id}`, hookOption(form, req.body ?? {}, true));
      res.redirect(303, `/admin/hooks/${hook.id}?saved=1`);
    } catch (err) {
      if (!formRefusal(err)) throw err;
      render(req, res, { form, hook, deliveries: await deliveriesOf(viewer, hook.id), error: err.message }, err.status);
    }
  });
}
