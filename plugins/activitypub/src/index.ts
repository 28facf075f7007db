import { definePlugin, noContent, raw, type ApiOperation, type ApiRequest, type OutboundPolicyName } from '@hearth/plugin-api';
import { verifyInboxSignature } from './inbox-signature';
import { activitypubMigrations } from './migrations';
import { PersonKeys } from './person-keys';
import { ACTIVITY_JSON, LD_JSON_PROFILE, Persons } from './persons';
import { webfingerRouter } from './webfinger';

export { personIri } from './persons';

/** @public */
export interface ActivityPubSettings {
  /**
   * The outbound allow-list the fetches of remote actors' keys pass (for signed inbox requests):
   * `migrations` (`migrations.ALLOWED_DOMAINS`, `BLOCKED_DOMAINS`, `ALLOW_LOCALNETWORKS`) or
   * `webhook` (`webhook.ALLOWED_HOST_LIST`).
   */
  outboundPolicy: OutboundPolicyName;
  /** Seconds the Date of a signed request may differ from the server's clock. */
  clockSkewSeconds: number;
}

type PersonParams = { 'user-id': number };

const USER_ID_PARAM = {
  type: 'object',
  properties: { 'user-id': { type: 'integer', minimum: 1, description: 'user ID of the user' } },
};

/**
 * ActivityPub persons, Gitea's `[federation]`: every individual account is a Person actor whose
 * IRI is built from the numeric user id (so it survives a rename), with a key pair made on first
 * use; its inbox takes HTTP-signed deliveries (verified, then ignored, as Gitea 1.20 does); and
 * WebFinger finds the Person from `acct:name@host`. Off by default, as Gitea's `[federation] ENABLED`.
 */
export default definePlugin<ActivityPubSettings>({
  name: 'activitypub',
  version: '0.1.0',
  apiVersion: '^2.3.0',
  description: 'ActivityPub persons by user id, their HTTP-signed inboxes, and WebFinger',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      outboundPolicy: { enum: ['migrations', 'webhook'], default: 'migrations' },
      clockSkewSeconds: { type: 'integer', minimum: 10, maximum: 3600, default: 300 },
    },
  },
  migrations: activitypubMigrations,
  apply(ctx) {
    const keys = new PersonKeys(ctx.db, ctx.secrets('activitypub'));
    const persons = new Persons(ctx, keys);
    ctx.schemas.add({
      $id: 'ActivityPub',
      type: 'object',
      description: 'An ActivityStreams object (here a Person actor)',
      properties: { '@context': { type: 'array', items: { type: 'string' } } },
    });
    // The access module resolves the user by id: unknown and invisible users are 404 before the handler.
    const access = { user: 'visible' as const, param: 'user-id', by: 'id' as const };
    const common = { tag: 'activitypub', scopes: ['activitypub' as const], access, params: USER_ID_PARAM };
    const operations: ApiOperation[] = [
      {
        ...common,
        method: 'get',
        path: '/activitypub/user-id/{user-id}',
        operationId: 'activitypubPerson',
        summary: 'Returns the Person actor for a user',
        responses: { 200: { description: 'ActivityPub', schema: 'ActivityPub', contentType: ACTIVITY_JSON }, 404: 'APIError' },
        handler: async (req: ApiRequest<unknown, unknown, PersonParams>) => {
          const user = persons.person(req.target);
          const wantsLd = /application\/ld\+json/i.test(String(req.headers.accept ?? ''));
          const type = `${wantsLd ? LD_JSON_PROFILE : ACTIVITY_JSON}; charset=utf-8`;
          return raw(200, type, JSON.stringify(await persons.document(user, req.principal)));
        },
      },
      {
        ...common,
        method: 'post',
        path: '/activitypub/user-id/{user-id}/inbox',
        operationId: 'activitypubPersonInbox',
        summary: 'Send to the inbox',
        // Read as bytes: the Digest header is checked against the body exactly as it was sent.
        bodyType: 'text',
        responses: { 204: 'the signature verified; the activity is ignored', 400: 'APIError', 403: 'APIError', 404: 'APIError' },
        handler: async (req: ApiRequest<string, unknown, PersonParams>) => {
          persons.person(req.target);
          const body = Buffer.isBuffer(req.raw.body) ? req.raw.body : Buffer.from(req.body ?? '', 'utf8');
          const keyId = await verifyInboxSignature(req.raw, body, {
            outbound: ctx.outbound,
            policy: () => ctx.settings.outboundPolicy,
            clockSkewSeconds: ctx.settings.clockSkewSeconds,
          });
          req.log.debug({ keyId }, 'activitypub: signed inbox delivery accepted and ignored');
          return noContent();
        },
      },
    ];
    // Before the web interface's `/{owner}/…` pages.
    ctx.hooks.http.routes.tap({ name: 'activitypub', stage: -20 }, (routes) => {
      for (const op of operations) routes.api(op);
      routes.root(
        '/.well-known',
        webfingerRouter(() => ctx.forge.appUrl, persons),
      );
    });
    ctx.hooks.user.deleting.tapPromise('activitypub', async ({ user, trx }) => {
      await trx('activitypub_user_keys').where('user_id', user.id).delete();
      keys.forget(user.id);
    });
  },
});
