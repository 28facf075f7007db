import type { HearthPlugin } from './types';

/**
 * Declare a plugin. Adds the brand the loader checks, so a plugin object never depends on
 * `instanceof` across package copies.
 * @public
 */
export function definePlugin<Settings = Record<string, unknown>>(plugin: Omit<HearthPlugin<Settings>, 'kind'>): HearthPlugin<Settings> {
  return { ...plugin, kind: 'hearth.plugin/v1' };
}
