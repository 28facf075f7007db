/**
 * @hearth/plugin-api: everything a Hearth plugin may import. Plugins depend on this package
 * only, never on `@hearth/core` internals.
 */
export { PLUGIN_API_VERSION } from './version';
export { ApiError, isApiError } from './errors';
export { parseJsonBody, jsonNestingDepth, MAX_JSON_DEPTH } from './json';
export { ok, created, noContent, raw, stream, contentDisposition } from './responses';
export type { ApiResponse } from './responses';
export { definePlugin } from './define-plugin';
export type * from './types';
