import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_CONFIG_FILE, SCHEMAS_DIR } from '../paths';
import { lazy } from '@hearth/plugin-api';
import { configValidator, describeErrors } from '../schemas';
import { ConfigError, type HearthConfig } from './types';

/** The configuration schema, read once per process (its validator is compiled once too). */
const configSchema = lazy(() => JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'config.schema.json'), 'utf8')));

export interface LoadConfigOptions {
  /** The operator's config file; defaults to $HEARTH_CONFIG. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Deep-merged over the files before the environment (used by tests and embedding code). */
  overrides?: Record<string, unknown>;
}

export interface LoadedConfig {
  config: HearthConfig;
  /** Relative plugin package paths resolve from here. */
  baseDir: string;
}

const ENV_PREFIX = 'HEARTH__';

/**
 * Build the configuration: shipped defaults (config/default.json), then the operator's file,
 * then `overrides`, then HEARTH__SECTION__KEY variables, then the short variables PORT,
 * HEARTH_HTTP_ADDR, HEARTH_DATA_DIR and HEARTH_DATABASE_URL. The result is validated against
 * schemas/config.schema.json with defaults applied; any problem throws a ConfigError naming
 * the key, the value and what is allowed.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const schema = configSchema();

  let merged: Record<string, any> = readJson(DEFAULT_CONFIG_FILE);
  let baseDir = process.cwd();
  const file = options.file ?? env.HEARTH_CONFIG;
  if (file) {
    const resolved = path.resolve(file);
    merged = deepMerge(merged, readJson(resolved));
    baseDir = path.dirname(resolved);
  }
  if (options.overrides) merged = deepMerge(merged, options.overrides);

  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(ENV_PREFIX) && value !== undefined) applyEnv(merged, schema, name, value);
  }
  const shortcuts: Array<[string, string[], (v: string) => unknown]> = [
    ['PORT', ['server', 'HTTP_PORT'], parsePort],
    ['HEARTH_HTTP_ADDR', ['server', 'HTTP_ADDR'], String],
    ['HEARTH_DATA_DIR', ['server', 'DATA_DIR'], String],
    ['HEARTH_DATABASE_URL', ['database', 'URL'], String],
  ];
  for (const [name, [section, key], parse] of shortcuts) {
    const value = env[name];
    if (value !== undefined && value !== '') setPath(merged, [section, key], parse(value));
  }

  const validate = configValidator(schema);
  if (!validate(merged)) {
    const problems = describeErrors(validate.errors, '', merged);
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const config = merged as HearthConfig;
  config.server.DATA_DIR = path.resolve(baseDir, config.server.DATA_DIR);
  if (!config.server.ROOT_URL) config.server.ROOT_URL = `http://localhost:${config.server.HTTP_PORT}/`;
  if (!config.server.ROOT_URL.endsWith('/')) config.server.ROOT_URL += '/';
  return { config, baseDir };
}

function readJson(file: string): Record<string, any> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function parsePort(value: string): unknown {
  return /^\d+$/.test(value) ? Number(value) : value; // left as text so validation names it
}

/** Keys compare case-insensitively with '-' and '_' alike, so HEARTH__PLUGINS__REGISTRY_CARGO__ENABLED finds "registry-cargo". */
function sameKey(a: string, b: string): boolean {
  return a.toLowerCase().replace(/-/g, '_') === b.toLowerCase().replace(/-/g, '_');
}

function applyEnv(target: Record<string, any>, rootSchema: any, name: string, raw: string): void {
  const segments = name.slice(ENV_PREFIX.length).split('__').filter(Boolean);
  const keys: string[] = [];
  let schema: any = rootSchema;
  let node: any = target;
  for (const segment of segments) {
    const known = Object.keys(schema?.properties ?? {}).find((k) => sameKey(k, segment));
    const existing = node && typeof node === 'object' ? Object.keys(node).find((k) => sameKey(k, segment)) : undefined;
    let key: string;
    if (known) {
      key = known;
      schema = schema.properties[known];
    } else if (schema?.additionalProperties) {
      // Free-form maps (plugins by name, plugin settings): keep the spelling already in the files.
      key = existing ?? segment.toLowerCase().replace(/_/g, '-');
      schema = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    } else if (schema === undefined || (schema.type === 'object' && !schema.properties)) {
      key = existing ?? segment;
    } else {
      throw new ConfigError(`environment variable ${name}: "${keys.concat(segment).join('.')}" is not a configuration key`);
    }
    keys.push(key);
    node = node?.[key];
  }
  setPath(target, keys, parseEnvValue(raw, schema));
}

function parseEnvValue(raw: string, schema: any): unknown {
  const type = schema?.type;
  if (type === 'string' || (schema?.enum && schema.enum.every((v: unknown) => typeof v === 'string'))) return raw;
  if (type === 'boolean') {
    if (/^(true|1|yes|on)$/i.test(raw)) return true;
    if (/^(false|0|no|off)$/i.test(raw)) return false;
    return raw;
  }
  if (type === 'integer' || type === 'number') return raw.trim() !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function setPath(target: Record<string, any>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key];
  }
  node[keys[keys.length - 1]] = value;
}

export function deepMerge(base: Record<string, any>, over: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] =
      value && typeof value === 'object' && !Array.isArray(value) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? deepMerge(prev, value)
        : value;
  }
  return out;
}
