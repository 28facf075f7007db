import type { Request, Response } from 'express';
import type { PageRenderer } from '../render';
import type { PluginPage } from '../sign-in-service';
import { Notice } from './common';
import { Layout } from './layout';
import { SettingsFrame } from './user-settings-pages';

/** Another plugin's page (`webPagesRef`) in the site's layout, or in the user settings frame with its tab marked. */
export function sendPluginPage(renderer: PageRenderer, req: Request, res: Response, page: PluginPage): void {
  const kit = renderer.kit(req);
  const { title, body, notice, error } = page;
  const view = page.settingsTab ? (
    <SettingsFrame kit={kit} tab={page.settingsTab} title={title} notice={notice} error={error}>
      {body}
    </SettingsFrame>
  ) : (
    <Layout kit={kit} title={title}>
      {notice && <Notice kind="success">{notice}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      {body}
    </Layout>
  );
  renderer.send(res, view, page.status ?? 200, page.formTargets);
}
