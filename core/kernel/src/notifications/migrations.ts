import type { PluginMigration } from '@hearth/plugin-api';

/** Notification tables (migration names start with 0015_). */
export const notificationMigrations: PluginMigration[] = [];
