import type { PluginMigration } from '@hearth/plugin-api';

/** Tables of organizations, teams and collaborators (names start with 0006_). */
export const orgMigrations: PluginMigration[] = [];
