import { definePlugin, type OutboundPolicyName } from '@hearth/plugin-api';
import { groupMappingRef } from '@hearth/plugin-group-mapping';
import { webSignInRef } from '@hearth/plugin-web';
import { OidcAccounts } from './accounts';
import { oidcMigrations } from './migrations';
import { PendingLinks } from './pending-links';
import { ProviderClients } from './provider-client';
import { SIGN_IN_PATH, signInRouter } from './sign-in-routes';
import { SignInStore } from './sign-in-store';
import { sourceCommands } from './source-commands';
import { OidcSourceStore, type OidcSource } from './source-store';

export { nameFromClaims } from './accounts';

/** @public */
export interface OidcSettings {
  /**
   * The outbound allow-list the requests to identity providers (discovery, token, keys, userinfo)
   * pass: `webhook` (`webhook.ALLOWED_HOST_LIST`: name the provider's host or network there to
   * reach a provider on a private network) or `migrations` (`migrations.ALLOWED_DOMAINS`,
   * `BLOCKED_DOMAINS`, `ALLOW_LOCALNETWORKS`).
   */
  outboundPolicy: OutboundPolicyName;
  /** Minutes a sign-in may spend at the provider (and a link offer may wait for its password). */
  signInMinutes: number;
}

/**
 * OpenID Connect sign-in: authentication sources administrators manage with
 * `hearth plugins run oidc add-source …` (client secrets sealed at rest), signed in through the web
 * interface at Gitea's URLs with the authorization code flow, PKCE, state and nonce, the ID token
 * verified by openid-client. A first sign-in creates the account (or offers to link an existing
 * one after its password); every sign-in maps the group claim to teams through the group-mapping
 * service.
 */
export default definePlugin<OidcSettings>({
  name: 'oidc',
  version: '0.1.0',
  apiVersion: '^2.2.0',
  description: 'OpenID Connect sign-in with group claims mapped to organization teams',
  requires: [webSignInRef, groupMappingRef],
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      outboundPolicy: { enum: ['webhook', 'migrations'], default: 'webhook' },
      signInMinutes: { type: 'integer', minimum: 1, maximum: 60, default: 10 },
    },
  },
  migrations: oidcMigrations,
  apply(ctx) {
    const lifetimeSeconds = ctx.settings.signInMinutes * 60;
    const sources = new OidcSourceStore(ctx);
    const redirectUri = (source: Pick<OidcSource, 'name'>) =>
      `${ctx.forge.appUrl}${SIGN_IN_PATH.slice(1)}/${encodeURIComponent(source.name)}/callback`;
    const clients = new ProviderClients(ctx.outbound, () => ctx.settings.outboundPolicy, redirectUri);
    const web = ctx.services.get(webSignInRef);

    for (const command of sourceCommands({
      store: sources,
      // The document is read as a sign-in would read it (through the allow-list), so a typo or a refused host shows now.
      checkProvider: async (fields) => void (await clients.discover({ ...fields, id: 0, createdUnix: 0, updatedUnix: 0 })),
      callbackUrl: (name) => redirectUri({ name }),
      changed: (id) => clients.forget(id),
    }))
      ctx.commands.add(command);

    web.addSignInOption(async () =>
      (await sources.names()).map((name) => ({ label: `Sign in with ${name}`, href: `${SIGN_IN_PATH}/${encodeURIComponent(name)}` })),
    );

    const router = signInRouter({
      ctx,
      outbound: ctx.outbound,
      sources,
      clients,
      signIns: new SignInStore(ctx.db, lifetimeSeconds),
      accounts: new OidcAccounts(ctx),
      links: new PendingLinks(ctx.db, lifetimeSeconds),
      web,
      groups: ctx.services.get(groupMappingRef),
      lifetimeSeconds,
      redirectUri,
    });
    // Before the web interface's `/{owner}/{repo}` pages, which would otherwise take `/user/oauth2/…`.
    ctx.hooks.http.routes.tap({ name: 'oidc', stage: -20 }, (routes) => routes.root(SIGN_IN_PATH, router));

    ctx.hooks.user.deleting.tapPromise('oidc', async ({ user, trx }) => {
      await trx('oidc_links').where('user_id', user.id).delete();
      await trx('oidc_pending_links').where('user_id', user.id).delete();
    });
  },
});
