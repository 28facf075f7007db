import type { PluginMigration } from '@hearth/plugin-api';

/** Tables of the package registry framework (names start with 0007_). */
export const packageMigrations: PluginMigration[] = [];
