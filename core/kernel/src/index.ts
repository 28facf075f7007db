/**
 * @hearth/core: the kernel. Applications embed it with `Hearth.create()`; plugins never import
 * it (they use @hearth/plugin-api).
 */
export { Hearth, openDatabase, type HearthOptions } from './kernel';
export { loadConfig, deepMerge, type LoadConfigOptions, type LoadedConfig } from './config/load';
export { ConfigError, type HearthConfig } from './config/types';
export { loadPlugins, type LoadedPlugin } from './plugins/loader';
export { adoptKernelMigrations, migrateLatest, migrationsTable } from './db/migrate';
export { HEARTH_VERSION, API_VERSION_STRING } from './version';
