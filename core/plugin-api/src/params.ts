import type { JsonSchema } from './types';

/**
 * Path-parameter schemas shared by every operation that names the same things, so that a
 * repository or an index is validated (and documented) the same way whoever registers the route.
 */

/** `{owner}/{repo}`. @public */
export const OWNER_REPO_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    owner: { type: 'string', maxLength: 255, description: 'owner of the repo' },
    repo: { type: 'string', maxLength: 255, description: 'name of the repo' },
  },
  required: ['owner', 'repo'],
};

/** `{owner}/{repo}` plus one more path parameter of the given schema. @public */
export function ownerRepoParams(extra: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    properties: { ...(OWNER_REPO_PARAMS.properties as Record<string, JsonSchema>), ...extra },
    required: ['owner', 'repo', ...Object.keys(extra)],
  };
}

/** A positive database id or per-repository index in a path (`{id}`, `{index}`). @public */
export const ID_PARAM: JsonSchema = { type: 'integer', minimum: 1, maximum: 2147483647 };
