/** The OpenID Connect scopes the provider knows; each adds claims to the ID token and userinfo. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'groups'] as const;

const CATEGORIES = ['activitypub', 'admin', 'misc', 'notification', 'organization', 'package', 'issue', 'repository', 'user'];
const LEVELS = ['read', 'write', 'delete'];

/** A requested `scope` parameter, understood. */
export interface RequestedScope {
  /** The OpenID Connect scopes asked for, in the order of OIDC_SCOPES. */
  oidc: string[];
  /** The API access the token gets, as Hearth's token scopes (`all`, `read:user`, …; comma-separated). */
  api: string;
  /** The scope string granted (what the token response reports): OIDC scopes, then API scopes. */
  granted: string;
}

/**
 * Read a `scope` parameter (space-separated; commas too, as Gitea's token scopes are written).
 * API access: the Gitea token scopes named (`read:repository`, `write:user`, `all`…); when none is
 * named, a sign-in (only OIDC scopes) gets `read:user` — enough to read the account, nothing to
 * change — and a request without any scope gets `all`, as every OAuth2 token had on Gitea 1.20
 * (what Woodpecker and Drone, which ask for no scope, need). Returns the unknown scope on refusal.
 */
export function parseScope(raw: string): RequestedScope | { unknown: string } {
  const words = [
    ...new Set(
      raw
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((w) => w.toLowerCase()),
    ),
  ];
  const oidc = OIDC_SCOPES.filter((s) => words.includes(s));
  const api: string[] = [];
  for (const word of words) {
    if ((OIDC_SCOPES as readonly string[]).includes(word) || word === 'offline_access') continue;
    const [level, category, extra] = word.split(':');
    const valid =
      word === 'all' || word === 'public-only' || (LEVELS.includes(level) && CATEGORIES.includes(category) && extra === undefined);
    if (!valid) return { unknown: word };
    api.push(word);
  }
  const apiScope = api.length ? api.join(',') : oidc.length ? 'read:user' : 'all';
  return { oidc, api: apiScope, granted: [...oidc, ...(api.length ? api : oidc.length ? [] : ['all'])].join(' ') };
}

/** A stored API scope as the set of `level:category` it grants, each level implying the lower ones. */
export function expandApiScope(stored: string): { granted: Set<string>; publicOnly: boolean } {
  const granted = new Set<string>();
  let publicOnly = false;
  for (const scope of stored.split(',').filter(Boolean)) {
    if (scope === 'public-only') publicOnly = true;
    else if (scope === 'all') for (const c of CATEGORIES) for (const l of LEVELS) granted.add(`${l}:${c}`);
    else {
      const [level, category] = scope.split(':');
      for (let i = 0; i <= LEVELS.indexOf(level); i++) granted.add(`${LEVELS[i]}:${category}`);
    }
  }
  return { granted, publicOnly };
}

/** What a consent page says each API scope lets the application do. */
export function describeApiScope(stored: string): string[] {
  return stored
    .split(',')
    .filter(Boolean)
    .map((scope) => {
      if (scope === 'all') return 'act as you on everything your account can reach (read, change and delete)';
      if (scope === 'public-only') return 'see public resources only';
      const [level, category] = scope.split(':');
      const verb = level === 'read' ? 'read' : level === 'write' ? 'read and change' : 'read, change and delete';
      return `${verb} your ${category} data`;
    });
}
