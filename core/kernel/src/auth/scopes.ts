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
 * Parse the scopes a client asks for (array entries may themselves be comma-separated) into the
 * normalized stored form: comma-separated, no duplicates, `public-only` first, then per category
 * (in Gitea's order) only the highest level asked for; every category at `delete` is written `all`.
 * Throws a 400 ApiError naming an unknown scope, or when nothing is asked for.
 */
export function normalizeScopes(requested: readonly string[]): string {
  const entries = requested
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
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
      const [level, category] = scope.split(':') as [ScopeLevel, ScopeCategory];
      const rank = SCOPE_LEVELS.indexOf(level);
      if (rank < 0 || !SCOPE_CATEGORIES.includes(category) || scope.split(':').length !== 2) {
        throw ApiError.badRequest(
          `invalid access token scope "${entry}": allowed are "all", "public-only" and ` +
            `LEVEL:CATEGORY with level one of ${SCOPE_LEVELS.join(', ')} and category one of ` +
            `${SCOPE_CATEGORIES.join(', ')}`,
        );
      }
      best.set(category, Math.max(best.get(category) ?? -1, rank));
    }
  }
  const top = SCOPE_LEVELS.length - 1;
  if (SCOPE_CATEGORIES.every((c) => best.get(c) === top)) all = true;
  const out: string[] = publicOnly ? [SCOPE_PUBLIC_ONLY] : [];
  if (all) out.push(SCOPE_ALL);
  else for (const c of SCOPE_CATEGORIES) if (best.has(c)) out.push(`${SCOPE_LEVELS[best.get(c)!]}:${c}`);
  return out.join(',');
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
