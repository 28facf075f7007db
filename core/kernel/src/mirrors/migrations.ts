import type { PluginMigration } from '@hearth/plugin-api';

/** Push mirror tables (migration names start with 0013_). */
export const mirrorMigrations: PluginMigration[] = [];
