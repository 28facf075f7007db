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
export { createServiceRef } from './services';
export { nowUnix, unixToIso, GO_ZERO_TIME, isUniqueViolation, insertId, KeyedQueue, ZERO_ID } from './data';
export { decodeBase64, escapeSegments } from './data';
export { parseTime } from './data';
export { lazy } from './lazy';
export { withConflictRetry, isTransientConflict } from './retry';
export { principalOf, actsAsAdmin } from './principals';
export { OWNER_REPO_PARAMS, ownerRepoParams, ID_PARAM } from './params';
export { toBoolean, toNumber, parseJsonColumn, rowReader, type RowColumns } from './rows';
export type * from './types';
export type * from './domain';
export type * from './services';
export type * from './package-signing';
export type * from './attached-git';
export type * from './attachments';
export type * from './organizations';
export type * from './protection';
export { parseByteRange } from './ranges';
export type * from './ranges';
export type * from './blobs';
