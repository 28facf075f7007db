/** The kernel as an application embeds it: through the @hearth/core package (its built dist). */
export {
  Hearth,
  loadConfig,
  loadPlugins,
  deepMerge,
  ConfigError,
  adoptKernelMigrations,
  migrateLatest,
  migrationsTable,
} from '@hearth/core';
