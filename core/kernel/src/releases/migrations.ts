import type { PluginMigration } from '@hearth/plugin-api';

/** Tables of releases and attachments (names start with 0008_). */
export const releaseMigrations: PluginMigration[] = [];
