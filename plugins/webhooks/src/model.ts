import { ApiError, rowReader, unixToIso, type SecretSealer } from '@hearth/plugin-api';

/** Hook types this server can deliver (Gitea's HookType names). */
export const HOOK_TYPES = ['gitea', 'gogs', 'slack', 'discord', 'msteams'] as const;
export type HookType = (typeof HOOK_TYPES)[number];

/**
 * The events a hook can choose, as Gitea's API names them in `events`. `pull_request_review`
 * chooses the three review events (approved, rejected, comment).
 */
export const CHOOSABLE_EVENTS = [
  'create',
  'delete',
  'fork',
  'push',
  'issues',
  'issue_assign',
  'issue_label',
  'issue_milestone',
  'issue_comment',
  'pull_request',
  'pull_request_assign',
  'pull_request_label',
  'pull_request_milestone',
  'pull_request_comment',
  'pull_request_review',
  'pull_request_sync',
  'pull_request_review_request',
  'wiki',
  'repository',
  'release',
  'package',
] as const;

/** Every event type a delivery can carry (Gitea's HookEventType), in the order `events` lists them. */
export const EVENT_TYPES = [
  'create',
  'delete',
  'fork',
  'push',
  'issues',
  'issue_assign',
  'issue_label',
  'issue_milestone',
  'issue_comment',
  'pull_request',
  'pull_request_assign',
  'pull_request_label',
  'pull_request_milestone',
  'pull_request_comment',
  'pull_request_review_approved',
  'pull_request_review_rejected',
  'pull_request_review_comment',
  'pull_request_sync',
  'pull_request_review_request',
  'wiki',
  'repository',
  'release',
  'package',
] as const;

const REVIEW_TYPES = new Set(['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment']);

/** Which choosable event turns an event type on. */
export function chooserOf(eventType: string): string {
  return REVIEW_TYPES.has(eventType) ? 'pull_request_review' : eventType;
}

/** Gitea's `X-Gitea-Event` value for an event type (HookEventType.Event()). */
export function headerEvent(eventType: string): string {
  switch (eventType) {
    case 'issue_assign':
    case 'issue_label':
    case 'issue_milestone':
      return 'issues';
    case 'pull_request_assign':
    case 'pull_request_label':
    case 'pull_request_milestone':
    case 'pull_request_sync':
    case 'pull_request_review_request':
      return 'pull_request';
    case 'pull_request_comment':
      return 'issue_comment';
    case 'pull_request_review_approved':
      return 'pull_request_approved';
    case 'pull_request_review_rejected':
      return 'pull_request_rejected';
    case 'pull_request_review_comment':
      return 'pull_request_comment';
    default:
      return eventType;
  }
}

/** Gitea's HookEvent JSON, stored in `webhook.events`. */
export interface HookEvents {
  push_only: boolean;
  send_everything: boolean;
  choose_events: boolean;
  branch_filter: string;
  events: Record<string, boolean>;
}

export interface WebhookRow {
  id: number;
  repo_id: number;
  owner_id: number;
  is_system_webhook: boolean;
  type: HookType;
  url: string;
  http_method: string;
  content_type: number;
  secret: string;
  events: HookEvents;
  meta: Record<string, string>;
  is_active: boolean;
  header_authorization_encrypted: string;
  created_unix: number;
  updated_unix: number;
}

export const toWebhook = rowReader<WebhookRow>({
  numbers: ['id', 'repo_id', 'owner_id', 'content_type', 'created_unix', 'updated_unix'],
  booleans: ['is_system_webhook', 'is_active'],
  strings: ['secret', 'header_authorization_encrypted'],
  json: { events: { push_only: true, send_everything: false, choose_events: false, branch_filter: '', events: {} }, meta: {} },
});

/** Does the hook want this event type? */
export function wantsEvent(hook: WebhookRow, eventType: string): boolean {
  const e = hook.events;
  if (e.send_everything) return true;
  if (e.push_only) return eventType === 'push';
  return Boolean(e.choose_events && e.events[chooserOf(eventType)]);
}

/** Gitea's `EventsArray`: the event types the hook receives. */
export function eventsArray(hook: WebhookRow): string[] {
  return EVENT_TYPES.filter((t) => wantsEvent(hook, t));
}

/**
 * The `events` of a create or edit request as HookEvents. Empty means push only, as Gitea;
 * `*` (a Hearth convenience) sends everything. Unknown names are a 422.
 */
export function parseEvents(names: string[] | undefined, branchFilter: string): HookEvents {
  const list = names && names.length ? names : ['push'];
  if (list.includes('*')) return { push_only: false, send_everything: true, choose_events: false, branch_filter: branchFilter, events: {} };
  const events: Record<string, boolean> = {};
  for (const name of list) {
    const key = chooserOf(name);
    if (!(CHOOSABLE_EVENTS as readonly string[]).includes(key)) {
      const message = `choose from ${CHOOSABLE_EVENTS.join(', ')} or *`;
      throw ApiError.unprocessable(`unknown webhook event "${name}"`, { errors: [{ field: 'events', message }] });
    }
    events[key] = true;
  }
  return { push_only: false, send_everything: false, choose_events: true, branch_filter: branchFilter, events };
}

// --- branch filter ---------------------------------------------------------------------------------

const globCache = new Map<string, RegExp | null>();

/**
 * A Gitea branch filter glob (`*`, `?`, `[abc]`, `{a,b}`; `*` also matches `/`) as a regular
 * expression; null for an empty filter or `*` (everything).
 */
export function branchGlob(filter: string): RegExp | null {
  const cached = globCache.get(filter);
  if (cached !== undefined) return cached;
  let result: RegExp | null = null;
  if (filter && filter !== '*') {
    let re = '';
    let depth = 0;
    for (let i = 0; i < filter.length; i++) {
      const c = filter[i];
      if (c === '*') re += '.*';
      else if (c === '?') re += '.';
      else if (c === '{') {
        re += '(?:';
        depth++;
      } else if (c === '}' && depth > 0) {
        re += ')';
        depth--;
      } else if (c === ',' && depth > 0) re += '|';
      else if (c === '[') {
        const end = filter.indexOf(']', i + 1);
        if (end < 0) re += '\\[';
        else {
          const body = filter.slice(i + 1, end).replace(/\\/g, '\\\\');
          re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
          i = end;
        }
      } else if (c === '\\' && i + 1 < filter.length) re += filter[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    while (depth-- > 0) re += ')';
    try {
      result = new RegExp(`^${re}$`);
    } catch {
      const errors = [{ field: 'branch_filter', message: 'not a valid glob' }];
      throw ApiError.unprocessable(`invalid branch filter "${filter}"`, { errors });
    }
  }
  if (globCache.size > 1000) globCache.clear();
  globCache.set(filter, result);
  return result;
}

export function branchMatches(hook: WebhookRow, branch: string): boolean {
  if (!branch) return true;
  const re = branchGlob(hook.events.branch_filter ?? '');
  return !re || re.test(branch);
}

// --- the authorization header, sealed at rest ----------------------------------------------------------

/** The purpose the authorization header is sealed under (as earlier releases did: stored values still open). */
export const HEADER_SECRET_PURPOSE = 'webhook-authorization-header';

export interface HeaderSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** The authorization header a hook sends, encrypted at rest with `ctx.secrets(HEADER_SECRET_PURPOSE)`. */
export function headerSealer(sealer: SecretSealer): HeaderSealer {
  return {
    seal: (plain) => (plain ? sealer.seal(plain, 'authorization_header') : ''),
    open: (sealed) => (sealed ? sealer.open(sealed, 'authorization_header') : ''),
  };
}

// --- API JSON ----------------------------------------------------------------------------------------

export const CONTENT_TYPES: Record<string, number> = { json: 1, form: 2 };
export const contentTypeName = (n: number): string => (n === 2 ? 'form' : 'json');

/** Gitea's `Hook`. The secret and the authorization header are never returned. */
export function hookToApi(hook: WebhookRow): Record<string, unknown> {
  const config: Record<string, string> = {
    url: hook.url,
    content_type: contentTypeName(hook.content_type),
    http_method: hook.http_method.toLowerCase(),
    ...hook.meta,
  };
  return {
    id: hook.id,
    type: hook.type,
    branch_filter: hook.events.branch_filter ?? '',
    config,
    events: eventsArray(hook),
    authorization_header: '',
    active: hook.is_active,
    is_system_webhook: hook.is_system_webhook,
    updated_at: unixToIso(hook.updated_unix),
    created_at: unixToIso(hook.created_unix),
  };
}
