import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { pageNumber } from './home-routes';
import { listAll, text } from './route-parts';
import { adminRepo, attempt, doneOf, type Refused, type SettingsTarget } from './repo-settings-shared';
import { settingsHref } from '../views/repo-settings-frame';
import { HookPage, HooksListPage } from '../views/repo-settings-hooks';
import { newHookForm, type DeliveryJson, type HookForm, type HookJson } from '../views/webhook-form';
import { formOfBody, formOfHook, hookId, hookOption } from './webhook-form';

const DELIVERIES_PER_PAGE = 10;

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
    form: view.form ?? (hook ? formOfHook(hook) : newHookForm('gitea')),
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
    const form = formOfBody('gitea', req.body ?? {});
    let created: HookJson | undefined;
    const refused = await attempt('hook', async () => {
      created = await api.send<HookJson>(at.viewer, 'post', `${at.api}/hooks`, hookOption(form, req.body ?? {}, false));
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
    const form = formOfBody('gitea', req.body ?? {});
    const refused = await attempt('hook', () =>
      api.send(at.viewer, 'patch', hookPath(at, hook.id), hookOption(form, req.body ?? {}, true)),
    );
    if (refused) return showHook(web, req, res, at, { hook, form, refused });
    res.redirect(303, `${settingsHref(at.repo, `/hooks/${hook.id}`)}?done=hook-updated`);
  });
}
