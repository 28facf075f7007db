import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { listAll, orNull, text } from './route-parts';
import { adminRepo, attempt, checked, doneOf, hooksOn, keptFields, type Refused, type SettingsTarget } from './repo-settings-shared';
import { branchSettingsRoutes } from './repo-settings-branches-routes';
import { collaborationRoutes } from './repo-settings-collab-routes';
import { hookSettingsRoutes } from './repo-settings-hooks-routes';
import { repoHref, userHref } from '../views/common';
import { settingsHref, type SettingsRepoJson } from '../views/repo-settings-frame';
import { MERGE_FLAGS, OptionsPage, UNITS, type PushMirrorJson } from '../views/repo-settings-options';

/**
 * The repository settings pages at Gitea's URLs, for the repository's administrators:
 * `/{owner}/{repo}/settings` (name, description, website, visibility, template, units and merge
 * styles, push mirrors, transfer, archive, delete — one POST with Gitea's `action` field),
 * `…/settings/collaboration` (collaborators and teams), `…/settings/branches` (default branch,
 * protection rules) and `…/settings/hooks` (webhooks, test delivery, delivery history). Every
 * change goes through the API's own operations as the viewer.
 */
export function repoSettingsRoutes(web: WebRoutes): void {
  optionsRoutes(web);
  collaborationRoutes(web);
  branchSettingsRoutes(web);
  hookSettingsRoutes(web);
}

/** What a settings action answers: where to go after it went through, or why it was refused. */
type Outcome = string | Refused;
type Action = (web: WebRoutes, at: SettingsTarget, body: Record<string, unknown>) => Promise<Outcome>;

/** Whether the typed confirmation names the repository (its full name, case aside, as Gitea compares). */
function confirmed(at: SettingsTarget, body: Record<string, unknown>): boolean {
  return text(body.repo_name).trim().toLowerCase() === at.repo.full_name.toLowerCase();
}

function unconfirmed(form: string, at: SettingsTarget): Refused {
  return { error: { form, message: `Type the repository’s full name, ${at.repo.full_name}, to confirm.` }, status: 422 };
}

/** PATCH /repos/{owner}/{repo}, then back to the settings (at its new URL after a rename). */
async function edit(web: WebRoutes, at: SettingsTarget, form: string, change: Record<string, unknown>, done: string): Promise<Outcome> {
  let updated: SettingsRepoJson = at.repo;
  const refused = await attempt(form, async () => {
    updated = await web.api.send<SettingsRepoJson>(at.viewer, 'patch', at.api, change);
  });
  return refused ?? `${settingsHref(updated)}?done=${done}`;
}

const ACTIONS: Record<string, Action> = {
  update: (web, at, body) =>
    edit(
      web,
      at,
      'update',
      {
        name: text(body.repo_name, 100).trim(),
        description: text(body.description, 2048),
        website: text(body.website, 2048).trim(),
        private: checked(body, 'private'),
        template: checked(body, 'template'),
      },
      'updated',
    ),

  // Every unit is sent: turning them all off is the API's to refuse (at least one stays on), and its message is shown.
  advanced: (web, at, body) => {
    const change: Record<string, unknown> = { default_merge_style: text(body.default_merge_style, 32) || 'merge' };
    for (const [name] of [...UNITS, ...MERGE_FLAGS]) change[name] = checked(body, name);
    return edit(web, at, 'advanced', change, 'units');
  },

  archive: (web, at) => edit(web, at, 'archive', { archived: true }, 'archived'),
  unarchive: (web, at) => edit(web, at, 'archive', { archived: false }, 'unarchived'),

  transfer: async (web, at, body) => {
    if (!confirmed(at, body)) return unconfirmed('transfer', at);
    let moved: SettingsRepoJson = at.repo;
    const refused = await attempt('transfer', async () => {
      moved = await web.api.send<SettingsRepoJson>(at.viewer, 'post', `${at.api}/transfer`, {
        new_owner: text(body.new_owner_name).trim(),
      });
    });
    if (refused) return refused;
    if (moved.full_name === at.repo.full_name) return `${settingsHref(at.repo)}?done=transfer-pending`;
    return moved.permissions?.admin ? `${settingsHref(moved)}?done=transferred` : repoHref(moved.full_name);
  },

  delete: async (web, at, body) => {
    if (!confirmed(at, body)) return unconfirmed('delete', at);
    return (await attempt('delete', () => web.api.send(at.viewer, 'delete', at.api))) ?? userHref(at.repo.owner.login);
  },

  'push-mirror-add': async (web, at, body) => {
    const mirror = {
      remote_address: text(body.push_mirror_address, 2048).trim(),
      remote_username: text(body.push_mirror_username),
      remote_password: text(body.push_mirror_password),
      interval: text(body.push_mirror_interval, 32).trim(),
      sync_on_commit: checked(body, 'push_mirror_sync_on_commit'),
    };
    const refused = await attempt('push-mirror', () => web.api.send(at.viewer, 'post', `${at.api}/push_mirrors`, mirror));
    return refused ?? `${settingsHref(at.repo)}?done=mirror-added#mirrors-title`;
  },

  'push-mirror-sync': async (web, at) =>
    (await attempt('push-mirror', () => web.api.send(at.viewer, 'post', `${at.api}/push_mirrors-sync`))) ??
    `${settingsHref(at.repo)}?done=mirror-sync#mirrors-title`,

  'push-mirror-remove': async (web, at, body) => {
    const name = text(body.push_mirror, 64);
    const path = `${at.api}${apiPath`/push_mirrors/${name}`}`;
    return (
      (await attempt('push-mirror', () => web.api.send(at.viewer, 'delete', path))) ??
      `${settingsHref(at.repo)}?done=mirror-removed#mirrors-title`
    );
  },
};

async function showOptions(web: WebRoutes, req: Request, res: Response, at: SettingsTarget, refused?: Refused): Promise<void> {
  // Null when push mirrors are off (the API has no such operation, or refuses them on this server).
  const mirrors = await orNull(listAll<PushMirrorJson>(web, at.viewer, `${at.api}/push_mirrors`));
  const props = {
    kit: web.renderer.kit(req),
    repo: at.repo,
    mirrors,
    hooks: hooksOn(web),
    done: refused ? undefined : doneOf(req),
    error: refused?.error,
    kept: refused ? keptFields(req.body) : undefined,
  };
  web.renderer.send(res, h(OptionsPage, props), refused?.status ?? 200);
}

function optionsRoutes(web: WebRoutes): void {
  web.pages.get('/:owner/:repo/settings', async (req, res) => showOptions(web, req, res, await adminRepo(web, req)));

  web.pages.post('/:owner/:repo/settings', async (req, res) => {
    const at = await adminRepo(web, req);
    const name = text(req.body.action, 40);
    if (!Object.hasOwn(ACTIONS, name)) throw ApiError.badRequest('unknown settings action');
    const outcome = await ACTIONS[name](web, at, req.body ?? {});
    if (typeof outcome === 'string') return res.redirect(303, outcome);
    await showOptions(web, req, res, at, outcome);
  });
}
