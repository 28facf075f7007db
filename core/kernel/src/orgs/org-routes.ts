import type { ApiOperation } from '@hearth/plugin-api';
import type { OrgDeps } from './org-deps';

/** Placeholder: organizations, teams, members, collaborators. */
export function orgOperations(_deps: OrgDeps): ApiOperation[] {
  return [];
}
