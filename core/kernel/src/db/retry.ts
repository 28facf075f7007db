export { isTransientConflict, withConflictRetry } from '@hearth/plugin-api';
export { KeyedQueue } from '@hearth/plugin-api';
