import type { WebhookRow } from '../model';
import { discordPayload } from './discord';
import { msteamsPayload } from './msteams';
import { slackPayload } from './slack';

/** The Content-Type of a hook's requests. */
export function contentTypeOf(hook: WebhookRow): string {
  const form = (hook.type === 'gitea' || hook.type === 'gogs') && hook.content_type === 2;
  return form ? 'application/x-www-form-urlencoded' : 'application/json';
}

/**
 * The request body for a hook's type: Gitea and Gogs hooks get the payload itself (JSON, or
 * `payload=<json>` as a form); Slack, Discord and Teams get a message of their own format.
 */
export function formatBody(hook: WebhookRow, eventType: string, payload: Record<string, unknown>): { body: string; contentType: string } {
  let json: Record<string, unknown>;
  switch (hook.type) {
    case 'slack':
      json = slackPayload(eventType, payload, hook.meta);
      break;
    case 'discord':
      json = discordPayload(eventType, payload, hook.meta);
      break;
    case 'msteams':
      json = msteamsPayload(eventType, payload);
      break;
    default: {
      const text = JSON.stringify(payload, null, 2);
      if (hook.content_type === 2) return { body: `payload=${encodeURIComponent(text)}`, contentType: 'application/x-www-form-urlencoded' };
      return { body: text, contentType: 'application/json' };
    }
  }
  return { body: JSON.stringify(json), contentType: 'application/json' };
}
