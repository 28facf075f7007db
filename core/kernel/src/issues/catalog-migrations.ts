import type { PluginMigration } from '@hearth/plugin-api';

/** Tables for organization labels and the issue catalog (migration names start with 0011_). */
export const issueCatalogMigrations: PluginMigration[] = [];
