/**
 * The webhook form's logic, shared by a repository's webhooks and site administration's system
 * webhooks: a hook as its form shows it, what a sent form says, and the API's hook option of it.
 */
import { ApiError } from '@hearth/plugin-api';
import { text } from './route-parts';
import { HOOK_EVENTS, type HookForm, type HookJson } from '../views/webhook-form';

const REVIEW_EVENTS = new Set(['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment']);
const CHOOSABLE = new Set(HOOK_EVENTS.map(([name]) => name));

/** The `{id}` of a webhook URL or form; anything but a positive number is no page. */
export function hookId(value: unknown): number {
  const raw = String(value);
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1) throw ApiError.notFound('no such webhook');
  return Number(raw);
}

/** A form field as a list (a repeated field arrives as an array). */
function many(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
}

/** A hook as its form shows it: the events it receives folded back into the choices that chose them. */
export function formOfHook(hook: HookJson): HookForm {
  const chosen = [...new Set(hook.events.map((e) => (REVIEW_EVENTS.has(e) ? 'pull_request_review' : e)))];
  const trigger = chosen.length >= HOOK_EVENTS.length ? 'all' : chosen.length === 1 && chosen[0] === 'push' ? 'push' : 'choose';
  return {
    type: hook.type,
    url: hook.config.url ?? '',
    http_method: (hook.config.http_method || 'post').toUpperCase(),
    content_type: hook.config.content_type || 'json',
    branch_filter: hook.branch_filter || '*',
    channel: hook.config.channel ?? '',
    trigger,
    events: trigger === 'choose' ? chosen : [],
    active: hook.active,
  };
}

/** What a sent webhook form says (of a hook of `type`). */
export function formOfBody(type: string, body: Record<string, unknown>): HookForm {
  const trigger = body.events === 'send_everything' ? 'all' : body.events === 'choose_events' ? 'choose' : 'push';
  return {
    type,
    url: text(body.payload_url, 2048).trim(),
    http_method: text(body.http_method, 8) === 'GET' ? 'GET' : 'POST',
    content_type: text(body.content_type, 8) === 'form' ? 'form' : 'json',
    branch_filter: text(body.branch_filter, 1024).trim(),
    channel: text(body.channel, 100).trim(),
    trigger,
    events: many(body.event).filter((e) => CHOOSABLE.has(e)),
    active: body.active === 'on',
  };
}

/**
 * The API's CreateHookOption (with `type`) or EditHookOption of a form; an edit keeps the secret and
 * authorization header left empty. 422 for custom events without any chosen.
 */
export function hookOption(form: HookForm, body: Record<string, unknown>, editing: boolean): Record<string, unknown> {
  if (form.trigger === 'choose' && form.events.length === 0) throw ApiError.unprocessable('Choose at least one event, or another trigger.');
  const events = form.trigger === 'all' ? ['*'] : form.trigger === 'push' ? ['push'] : form.events;
  const config: Record<string, string> = { url: form.url };
  const option: Record<string, unknown> = { config, events, branch_filter: form.branch_filter, active: form.active };
  if (!editing) option.type = form.type;
  if (form.type === 'gitea' || form.type === 'gogs') {
    config.content_type = form.content_type;
    config.http_method = form.http_method;
    const secret = text(body.secret);
    if (secret || !editing) config.secret = secret;
    const authorization = text(body.authorization_header, 4096);
    if (authorization || !editing) option.authorization_header = authorization;
  }
  if (form.type === 'slack') config.channel = form.channel;
  return option;
}
