import type { Request, Response } from 'express';
import { h, type VNode } from 'preact';
import { isApiError, type PluginContext, type Principal, type UserInfo } from '@hearth/plugin-api';
import type { WebPages } from '@hearth/plugin-web';

export const SETTINGS_PATH = '/user/settings/applications/oauth2';

interface AppJson {
  id: number;
  name: string;
  client_id: string;
  client_secret: string;
  confidential_client: boolean;
  redirect_uris: string[];
}

interface PageState {
  apps: AppJson[];
  csrf: string;
  created?: AppJson;
  error?: string;
  form?: { name: string; uris: string; confidential: boolean };
}

function settingsBody(state: PageState): VNode<any> {
  const form = state.form ?? { name: '', uris: '', confidential: true };
  const csrf = h('input', { type: 'hidden', name: '_csrf', value: state.csrf });
  return h(
    'section',
    null,
    h('h1', null, 'OAuth2 applications'),
    h(
      'p',
      { class: 'muted' },
      'Applications (a CI system, a chat bot) that sign you in with this forge and use the API as the users who consent.',
    ),
    state.error ? h('p', { class: 'notice error', role: 'alert' }, state.error) : null,
    state.created
      ? h(
          'div',
          { class: 'notice success' },
          h(
            'p',
            null,
            'Application ',
            h('strong', null, state.created.name),
            ' was created. Copy the secret now: it will not be shown again.',
          ),
          h('p', null, 'Client ID: ', h('code', { id: 'client-id' }, state.created.client_id)),
          h('p', null, 'Client secret: ', h('code', { id: 'client-secret' }, state.created.client_secret)),
        )
      : null,
    state.apps.length === 0
      ? h('p', { class: 'empty' }, 'You have no OAuth2 applications.')
      : h(
          'ul',
          { class: 'rows' },
          state.apps.map((app) =>
            h(
              'li',
              null,
              h('span', { class: 'title' }, app.name),
              ' ',
              h('code', { class: 'muted' }, app.client_id),
              ' ',
              h('span', { class: 'badge' }, app.confidential_client ? 'confidential' : 'public'),
              ' ',
              h('span', { class: 'muted' }, app.redirect_uris.join(' ')),
              h(
                'form',
                { method: 'post', action: `${SETTINGS_PATH}/${app.id}/delete`, class: 'inline row-action' },
                csrf,
                h('button', { type: 'submit', class: 'danger', 'aria-label': `Delete application ${app.name}` }, 'Delete'),
              ),
            ),
          ),
        ),
    h(
      'form',
      { method: 'post', action: SETTINGS_PATH, class: 'stacked settings-form' },
      h('h2', null, 'Register a new application'),
      csrf,
      h('label', { for: 'app-name' }, 'Application name'),
      h('input', { id: 'app-name', name: 'name', value: form.name, required: true, maxLength: 255 }),
      h('label', { for: 'app-uris' }, 'Redirect URIs (one per line)'),
      h('textarea', { id: 'app-uris', name: 'redirect_uris', rows: 3, required: true }, form.uris),
      h(
        'label',
        null,
        h('input', { type: 'checkbox', name: 'confidential_client', value: 'true', checked: form.confidential }),
        ' Confidential client (it keeps the secret on a server; uncheck for apps on users’ devices, which must use PKCE)',
      ),
      h('button', { type: 'submit', class: 'primary' }, 'Register application'),
    ),
  );
}

/**
 * `/user/settings/applications/oauth2`: the signed-in user's applications — list, register (the
 * secret shown once), delete — through the API's own operations called as the user.
 */
export function settingsPages(ctx: Pick<PluginContext, 'api'>, web: WebPages): void {
  const { pages } = web;
  web.addSettingsTab({ href: SETTINGS_PATH, label: 'OAuth2 applications' });
  const principal = (user: UserInfo): Principal => ({ user, method: 'session', scopes: null, publicOnly: false });

  async function render(req: Request, res: Response, user: UserInfo, extra: Partial<PageState> = {}, status = 200) {
    const { body } = await ctx.api.call(principal(user), 'get', '/user/applications/oauth2', { query: { limit: 50 } });
    const state = { apps: body as AppJson[], csrf: web.viewer(req).csrfToken, ...extra };
    web.send(req, res, { title: 'OAuth2 applications', body: settingsBody(state), status, settingsTab: SETTINGS_PATH });
  }
  const signedIn = (req: Request, res: Response) => {
    const { user } = web.viewer(req);
    if (!user) res.redirect(303, `/user/login?redirect_to=${encodeURIComponent(SETTINGS_PATH)}`);
    return user;
  };

  pages.get(SETTINGS_PATH, async (req, res) => {
    const user = signedIn(req, res);
    if (user) await render(req, res, user);
  });
  pages.post(SETTINGS_PATH, async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const form = {
      name: String(req.body.name ?? '').trim(),
      uris: String(req.body.redirect_uris ?? ''),
      confidential: req.body.confidential_client === 'true',
    };
    const body = { name: form.name, redirect_uris: form.uris.split(/\s+/).filter(Boolean), confidential_client: form.confidential };
    try {
      const created = await ctx.api.call(principal(user), 'post', '/user/applications/oauth2', { body });
      await render(req, res, user, { created: created.body as AppJson }, 201);
    } catch (err) {
      if (!isApiError(err) || err.status >= 500) throw err;
      await render(req, res, user, { error: err.message, form }, err.status);
    }
  });
  pages.post(`${SETTINGS_PATH}/:id/delete`, async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await ctx.api.call(principal(user), 'delete', `/user/applications/oauth2/${encodeURIComponent(String(req.params.id))}`);
    res.redirect(303, SETTINGS_PATH);
  });
}
