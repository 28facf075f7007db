import type { ApiOperation } from '@hearth/plugin-api';
import { branchOperations } from './git-data-branches';
import { commitOperations } from './git-data-commits';
import { objectOperations } from './git-data-objects';
import { tagOperations } from './git-data-tags';
import type { GitRouteDeps } from './route-deps';

/**
 * The git data API (Gitea 1.20 dialect): branches, tags, refs, trees, blobs, annotated tags,
 * commits, comparisons and notes. All are code-unit routes in the `repository` scope category;
 * reading needs read access, changing refs write access (and records the change as a push).
 * The commit → JSON conversion lives in commit-json.ts for reuse.
 */
export function gitDataOperations(deps: GitRouteDeps): ApiOperation[] {
  return [...branchOperations(deps), ...tagOperations(deps), ...objectOperations(deps), ...commitOperations(deps)];
}
