/** The kernel as an application embeds it: through the @hearth/core package (its built dist). */
export { Hearth, loadConfig, loadPlugins, deepMerge, ConfigError } from '@hearth/core';
