import type { PluginMigration } from '@hearth/plugin-api';

/** Tables of issues, comments, labels and milestones (names start with 0009_). */
export const issueMigrations: PluginMigration[] = [];
