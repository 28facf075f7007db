import { ApiError } from '@hearth/plugin-api';
import { CONTENT_TYPES, branchGlob, parseEvents, type HookEvents } from './model';

/** Gitea's CreateHookOption. */
export interface CreateHookBody {
  type: string;
  config: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  authorization_header?: string;
  active?: boolean;
}

/** Gitea's EditHookOption. */
export type EditHookBody = Partial<Omit<CreateHookBody, 'type'>>;

/** The `config` keys a hook type keeps besides url, content_type, http_method and secret. */
const META_KEYS: Record<string, string[]> = {
  slack: ['channel', 'username', 'icon_url', 'color'],
  discord: ['username', 'icon_url'],
};

const invalid = (message: string, field: string, why: string) => ApiError.unprocessable(message, { errors: [{ field, message: why }] });

/** The hook's target URL: http or https only. */
export function checkUrl(url: unknown): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url ?? ''));
  } catch {
    throw invalid('Invalid url', 'config.url', 'must be an http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid('Invalid url', 'config.url', 'must be an http or https URL');
  }
  return parsed.toString();
}

/** `json` (1, the default) or `form` (2). */
export function checkContentType(name: string | undefined): number {
  const n = CONTENT_TYPES[name || 'json'];
  if (!n) throw invalid('Invalid content type', 'config.content_type', 'json or form');
  return n;
}

/** POST, or GET for gitea and gogs hooks. */
export function checkMethod(m: string | undefined, type: string): string {
  const method = (m || 'POST').toUpperCase();
  if (method !== 'POST' && !(method === 'GET' && (type === 'gitea' || type === 'gogs'))) {
    throw invalid(`Invalid http method "${m}"`, 'config.http_method', 'POST, or GET for gitea hooks');
  }
  return method;
}

/** The type-specific settings of `cfg` over `previous`; a Slack hook needs a channel. */
export function metaOf(type: string, cfg: Record<string, string>, previous: Record<string, string> = {}): Record<string, string> {
  const meta: Record<string, string> = { ...previous };
  for (const key of META_KEYS[type] ?? []) if (cfg[key] !== undefined) meta[key] = String(cfg[key]);
  if (type === 'slack' && !/^#?[^\s,]+$/.test(meta.channel ?? '')) {
    throw invalid('Invalid slack channel name', 'config.channel', 'required for slack hooks');
  }
  return meta;
}

/** The events a hook chooses, with its branch filter checked. */
export function hookEvents(names: string[] | undefined, branchFilter: string): HookEvents {
  branchGlob(branchFilter);
  return parseEvents(names, branchFilter);
}
