import type { PluginMigration } from '@hearth/plugin-api';

/** Pull request, review and branch protection tables (migration names start with 0012_). */
export const pullMigrations: PluginMigration[] = [];
