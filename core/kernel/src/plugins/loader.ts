import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { PLUGIN_API_VERSION, type HearthPlugin } from '@hearth/plugin-api';
import { ConfigError, type HearthConfig } from '../config/types';
import { HEARTH_HOME } from '../paths';
import { configValidator, describeErrors } from '../schemas';

export interface LoadedPlugin {
  plugin: HearthPlugin;
  /** Settings after validation, with the schema's defaults filled in. */
  settings: Record<string, unknown>;
  /** Where the package was found, for `hearth plugins` and error messages. */
  resolvedFrom: string;
}

/**
 * Load the enabled plugins of the configuration, in an order where every plugin comes after
 * the ones it `requires` (otherwise config order). Every problem stops the start with a
 * ConfigError naming the plugin, the key and what is allowed; a configured plugin is never
 * silently skipped.
 */
export async function loadPlugins(config: HearthConfig, baseDir: string): Promise<LoadedPlugin[]> {
  const loaded = new Map<string, LoadedPlugin>();
  for (const [name, entry] of Object.entries(config.plugins)) {
    if (!entry.enabled) continue;
    const spec = entry.package ?? `@hearth/plugin-${name}`;
    const resolvedFrom = resolvePackage(name, spec, baseDir);
    const plugin = await importPlugin(name, resolvedFrom);
    if (plugin.name !== name) {
      throw new ConfigError(`plugins.${name}: package "${spec}" is the plugin "${plugin.name}"; list it as plugins.${plugin.name}`);
    }
    if (!semver.validRange(plugin.apiVersion) || !semver.satisfies(PLUGIN_API_VERSION, plugin.apiVersion)) {
      throw new ConfigError(
        `plugins.${name}: the plugin needs plugin API ${JSON.stringify(plugin.apiVersion)}, but ` +
          `this Hearth provides ${PLUGIN_API_VERSION}; install a version of "${spec}" made for ` +
          `plugin API ^${semver.major(PLUGIN_API_VERSION)}.0.0`,
      );
    }
    loaded.set(name, { plugin, settings: validateSettings(name, plugin, entry.settings ?? {}), resolvedFrom });
  }
  return orderByRequires(loaded);
}

function resolvePackage(name: string, spec: string, baseDir: string): string {
  const isPath = spec.startsWith('.') || path.isAbsolute(spec);
  try {
    return isPath ? require.resolve(path.resolve(baseDir, spec)) : require.resolve(spec, { paths: [baseDir, HEARTH_HOME] });
  } catch {
    const shipped = shippedPluginNames();
    throw new ConfigError(
      `plugins.${name}: cannot find the plugin package "${spec}"${isPath ? ` (resolved from ${baseDir})` : ''}. ` +
        `Plugins shipped with Hearth: ${shipped.join(', ') || 'none'}; for another plugin set ` +
        `plugins.${name}.package to its package name or path.`,
    );
  }
}

function shippedPluginNames(): string[] {
  const dir = path.join(HEARTH_HOME, 'plugins');
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((d) => fs.existsSync(path.join(dir, d, 'package.json')))
        .sort()
    : [];
}

/** CommonJS first; ESM-only packages through a real dynamic import (which TypeScript would otherwise rewrite to require). */
const dynamicImport = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<any>;

async function importPlugin(name: string, file: string): Promise<HearthPlugin> {
  let mod: any;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plugin package found at run time
    mod = require(file);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_REQUIRE_ESM') {
      throw new ConfigError(`plugins.${name}: loading ${file} failed: ${(err as Error).message}`);
    }
    mod = await dynamicImport(`file://${file}`);
  }
  const candidate = mod?.default?.kind ? mod.default : mod?.plugin?.kind ? mod.plugin : mod;
  if (!candidate || candidate.kind !== 'hearth.plugin/v1' || typeof candidate.apply !== 'function') {
    throw new ConfigError(
      `plugins.${name}: ${file} does not export a Hearth plugin (export default definePlugin({...}) from @hearth/plugin-api)`,
    );
  }
  for (const key of ['name', 'version', 'apiVersion'] as const) {
    if (typeof candidate[key] !== 'string' || !candidate[key]) throw new ConfigError(`plugins.${name}: the plugin object lacks "${key}"`);
  }
  return candidate as HearthPlugin;
}

function validateSettings(name: string, plugin: HearthPlugin, settings: Record<string, unknown>): Record<string, unknown> {
  const copy = matchKeysToSchema(structuredClone(settings), plugin.settingsSchema) as Record<string, unknown>;
  if (!plugin.settingsSchema) {
    if (Object.keys(copy).length > 0) {
      throw new ConfigError(`plugins.${name}.settings: the plugin takes no settings, but got ${Object.keys(copy).join(', ')}`);
    }
    return copy;
  }
  const validate = configValidator(plugin.settingsSchema);
  if (!validate(copy)) {
    const problems = describeErrors(validate.errors, `plugins.${name}.settings`, copy);
    throw new ConfigError(`invalid settings for plugin "${name}":\n  ${problems.join('\n  ')}`);
  }
  return copy;
}

/**
 * Environment overrides (HEARTH__PLUGINS__X__SETTINGS__SOME_KEY) cannot know a setting's
 * spelling, so keys are matched to the plugin's schema case-insensitively, '-' and '_' alike.
 */
function matchKeysToSchema(value: unknown, schema: any): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value) || !schema?.properties) return value;
  const known = Object.keys(schema.properties);
  const fold = (k: string) => k.toLowerCase().replace(/[-_]/g, '');
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const match = known.includes(key) ? key : (known.find((k) => fold(k) === fold(key)) ?? key);
    out[match] = matchKeysToSchema(inner, schema.properties[match]);
  }
  return out;
}

/**
 * Order plugins so that each comes after what it `requires` (plugin names, and the providers of
 * required service refs) and after the providers of its `optional` services that are enabled;
 * otherwise config order. A required plugin or service that no enabled plugin offers stops the
 * start with a ConfigError that says what to enable.
 */
function orderByRequires(loaded: Map<string, LoadedPlugin>): LoadedPlugin[] {
  const providers = new Map<string, string>();
  for (const [name, { plugin }] of loaded) {
    for (const ref of plugin.provides ?? []) {
      const other = providers.get(ref.id);
      if (other)
        throw new ConfigError(`plugins: the service "${ref.id}" is provided by both "${other}" and "${name}"; disable one of them`);
      providers.set(ref.id, name);
    }
  }
  const dependencies = (name: string): string[] => {
    const { plugin } = loaded.get(name)!;
    const deps: string[] = [];
    for (const need of plugin.requires ?? []) {
      if (typeof need === 'string') {
        if (!loaded.has(need))
          throw new ConfigError(`plugins.${name}: requires the plugin "${need}", which is not enabled; enable plugins.${need}`);
        deps.push(need);
        continue;
      }
      const provider = providers.get(need.id);
      if (!provider) {
        throw new ConfigError(
          `plugins.${name}: requires the service "${need.id}", which no enabled plugin provides; ` +
            `enable the plugin that provides it (usually plugins.${need.id.split('.')[0]}) or disable ` +
            `plugins.${name}`,
        );
      }
      deps.push(provider);
    }
    for (const ref of plugin.optional ?? []) {
      const provider = providers.get(ref.id);
      if (provider) deps.push(provider);
    }
    return deps.filter((dep) => dep !== name);
  };
  const ordered: LoadedPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, chain: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new ConfigError(`plugins: circular "requires": ${[...chain, name].join(' → ')}`);
    state.set(name, 'visiting');
    for (const dep of dependencies(name)) visit(dep, [...chain, name]);
    state.set(name, 'done');
    ordered.push(loaded.get(name)!);
  };
  for (const name of loaded.keys()) visit(name, []);
  return ordered;
}
