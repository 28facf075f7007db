import type { PluginMigration } from '@hearth/plugin-api';

/** Webhook and delivery tables (migration names start with 0014_). */
export const webhookMigrations: PluginMigration[] = [];
