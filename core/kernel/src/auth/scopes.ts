import type { ScopeCategory, ScopeLevel } from '@hearth/plugin-api';
import { ApiError } from '@hearth/plugin-api';

/** Gitea's category order; normalized scope strings list categories in this order. */
export const SCOPE_CATEGORIES: readonly ScopeCategory[] = [
  'activitypub',
  'admin',
  'misc',
  'notification',
  'organization',
  'package',
  'issue',
  'repository',
  'user',
];
/** Each level implies the ones before it. */
export const SCOPE_LEVELS: readonly ScopeLevel[] = ['read', 'write', 'delete'];

export const SCOPE_ALL = 'all';
export const SCOPE_PUBLIC_ONLY = 'public-only';

/** The level an HTTP method needs: reads for GET/HEAD/OPTIONS, `delete` for DELETE, `write` otherwise. */
export function levelForMethod(method: string): ScopeLevel {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return 'read';
  if (m === 'DELETE') return 'delete';
  return 'write';
}

/**
 * The scope names of Gitea before 1.20 (older clients send them, imported databases hold them) in
 * the category scheme, as Gitea 1.20's conversion (migration v259) maps them, with two changes so a
 * token keeps the access it had: an old scope that allowed deleting gets the `delete` level (Gitea
 * 1.20 has none), and `repo`/`public_repo`, which covered a repository's issues, keep the issue
 * category. `read:user`, `read:package`, `write:package` and `delete:package` mean the same in both
 * schemes; `sudo` is `delete:admin` for site admins only (see convertLegacyScopes).
 */
export const LEGACY_SCOPES: Readonly<Record<string, readonly string[]>> = {
  repo: ['delete:repository', 'delete:issue'],
  'repo:status': ['write:repository'],
  public_repo: [SCOPE_PUBLIC_ONLY, 'delete:repository', 'delete:issue'],
  delete_repo: ['delete:repository'],
  'admin:repo_hook': ['delete:repository'],
  'write:repo_hook': ['write:repository'],
  'read:repo_hook': ['read:repository'],
  'admin:org': ['delete:organization'],
  'write:org': ['write:organization'],
  'read:org': ['read:organization'],
  'admin:org_hook': ['delete:organization'],
  notification: ['write:notification'],
  user: ['delete:user'],
  'user:email': ['delete:user'],
  'user:follow': ['delete:user'],
  'admin:user_hook': ['delete:user'],
  'admin:public_key': ['delete:user'],
  'write:public_key': ['write:user'],
  'read:public_key': ['read:user'],
  'admin:gpg_key': ['delete:user'],
  'write:gpg_key': ['write:user'],
  'read:gpg_key': ['read:user'],
  'admin:application': ['delete:user'],
  'write:application': ['write:user'],
  'read:application': ['read:user'],
  package: ['delete:package'],
  sudo: ['delete:admin'],
};

/** Scope entries with pre-1.20 names replaced by category scopes; `sudo` grants admin to site admins only, like Gitea. */
export function convertLegacyScopes(entries: readonly string[], siteAdmin: boolean): string[] {
  return entries.flatMap((entry) => {
    const name = entry.toLowerCase();
    if (name === 'sudo' && !siteAdmin) return [];
    return Object.hasOwn(LEGACY_SCOPES, name) ? LEGACY_SCOPES[name] : [entry];
  });
}

/**
 * Parse the scopes a client asks for (array entries may themselves be comma-separated) into the
 * normalized stored form: comma-separated, no duplicates, `public-only` first, then per category
 * (in Gitea's order) only the highest level asked for; every category at `delete` is written `all`.
 * Pre-1.20 scope names are converted first (`siteAdmin` decides `sudo`).
 * Throws a 400 ApiError naming an unknown scope, or when nothing is asked for.
 */
export function normalizeScopes(requested: readonly string[], siteAdmin = false): string {
  const given = requested
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const entries = convertLegacyScopes(given, siteAdmin);
  if (entries.length === 0 && given.length > 0) {
    throw ApiError.badRequest('the sudo scope (admin) is only available to site administrators; choose another scope');
  }
  if (entries.length === 0) {
    throw ApiError.badRequest(
      'access token must have a scope: choose at least one of "all", "public-only" or LEVEL:CATEGORY (levels read, write, delete)',
    );
  }
  let publicOnly = false;
  let all = false;
  const best = new Map<ScopeCategory, number>();
  for (const entry of entries) {
    const scope = entry.toLowerCase();
    if (scope === SCOPE_ALL) all = true;
    else if (scope === SCOPE_PUBLIC_ONLY) publicOnly = true;
    else {
      if (!isCategoryScope(scope)) {
        throw ApiError.badRequest(
          `invalid access token scope "${entry}": allowed are "all", "public-only" and ` +
            `LEVEL:CATEGORY with level one of ${SCOPE_LEVELS.join(', ')} and category one of ` +
            `${SCOPE_CATEGORIES.join(', ')}`,
        );
      }
      const [level, category] = scope.split(':') as [ScopeLevel, ScopeCategory];
      best.set(category, Math.max(best.get(category) ?? -1, SCOPE_LEVELS.indexOf(level)));
    }
  }
  const top = SCOPE_LEVELS.length - 1;
  if (SCOPE_CATEGORIES.every((c) => best.get(c) === top)) all = true;
  const out: string[] = publicOnly ? [SCOPE_PUBLIC_ONLY] : [];
  if (all) out.push(SCOPE_ALL);
  else for (const c of SCOPE_CATEGORIES) if (best.has(c)) out.push(`${SCOPE_LEVELS[best.get(c)!]}:${c}`);
  return out.join(',');
}

/** `level:category` with a known level and category (lower case). */
function isCategoryScope(scope: string): boolean {
  const parts = scope.split(':');
  return parts.length === 2 && SCOPE_LEVELS.includes(parts[0] as ScopeLevel) && SCOPE_CATEGORIES.includes(parts[1] as ScopeCategory);
}

/**
 * A stored scope string of an older release or an imported database in today's normalized form:
 * pre-1.20 names converted, the rest normalized; entries that are no scope at all are kept as they
 * were (they grant nothing), as Gitea's conversion keeps them.
 */
export function upgradeStoredScope(stored: string, siteAdmin: boolean): string {
  const entries = convertLegacyScopes(
    stored
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    siteAdmin,
  );
  const known = (e: string) => [SCOPE_ALL, SCOPE_PUBLIC_ONLY].includes(e.toLowerCase()) || isCategoryScope(e.toLowerCase());
  const unknown = [...new Set(entries.filter((e) => !known(e)))];
  const valid = entries.filter(known);
  return [...unknown, ...(valid.length > 0 ? [normalizeScopes(valid, siteAdmin)] : [])].join(',');
}

/**
 * A stored scope string as the set of every `level:category` it grants (levels expanded downwards).
 * `writeImpliesDelete` (security.WRITE_SCOPE_IMPLIES_DELETE) lets `write:<category>` grant `delete:<category>` too,
 * for clients written for Gitea 1.20, which has no delete level.
 */
export function expandScopes(stored: string, writeImpliesDelete = false): { granted: Set<string>; publicOnly: boolean } {
  const granted = new Set<string>();
  let publicOnly = false;
  for (const scope of stored.split(',').filter(Boolean)) {
    if (scope === SCOPE_PUBLIC_ONLY) publicOnly = true;
    else if (scope === SCOPE_ALL) {
      for (const c of SCOPE_CATEGORIES) for (const l of SCOPE_LEVELS) granted.add(`${l}:${c}`);
    } else {
      const [level, category] = scope.split(':');
      const rank = SCOPE_LEVELS.indexOf(level as ScopeLevel);
      for (let i = 0; i <= rank; i++) granted.add(`${SCOPE_LEVELS[i]}:${category}`);
      if (writeImpliesDelete && level === 'write') granted.add(`delete:${category}`);
    }
  }
  return { granted, publicOnly };
}

/** True when the scope set grants `level:category`; `null` (no scoped token) grants everything. */
export function grants(scopes: ReadonlySet<string> | null, category: ScopeCategory, level: ScopeLevel): boolean {
  return scopes === null || scopes.has(`${level}:${category}`);
}
