import type { ApiOperation } from '@hearth/plugin-api';
import type { GitRouteDeps } from './route-deps';

/** Placeholder: filled in by the git hosting work. */
export function gitDataOperations(_deps: GitRouteDeps): ApiOperation[] {
  return [];
}
