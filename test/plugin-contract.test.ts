import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

/**
 * The one plugin model: a plugin's code talks to the kernel only through @hearth/plugin-api, and
 * its tests only through @hearth/testing. Everything else a plugin imports is a node built-in, a
 * file of its own, or a package it declares in its package.json.
 */

const ROOT = path.join(__dirname, '..');
const PLUGINS = path.join(ROOT, 'plugins');
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const BUILTINS = new Set(builtinModules);

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const plugins = fs
  .readdirSync(PLUGINS)
  .filter((name) => fs.existsSync(path.join(PLUGINS, name, 'package.json')))
  .map((name) => ({
    name,
    dir: path.join(PLUGINS, name),
    manifest: JSON.parse(fs.readFileSync(path.join(PLUGINS, name, 'package.json'), 'utf8')) as Manifest,
  }));

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : files(full);
    return SOURCE.test(entry.name) ? [full] : [];
  });
}

/** Every module specifier of a file: import/export ... from, import '...', import(...), require(...). */
function specifiers(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((ref) => ref.fileName);
}

/** 'semver/functions/gt' -> 'semver', '@scope/pkg/sub' -> '@scope/pkg'. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Why `specifier` in `file` breaks the contract, or null when it is allowed. */
function violation(file: string, specifier: string, pluginDir: string, allowed: Set<string>): string | null {
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
    const target = path.resolve(path.dirname(file), specifier);
    const rel = path.relative(pluginDir, target);
    return rel.startsWith('..') || path.isAbsolute(rel) ? 'reaches outside the plugin' : null;
  }
  if (specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(packageName(specifier))) return null;
  const name = packageName(specifier);
  if (name === '@hearth/core') return 'imports the kernel (@hearth/core); use @hearth/plugin-api';
  return allowed.has(name) ? null : `imports ${name}, which the plugin's package.json does not declare`;
}

function check(kind: 'src' | 'test', allowedFor: (manifest: Manifest) => string[]): string[] {
  const problems: string[] = [];
  for (const plugin of plugins) {
    const allowed = new Set(allowedFor(plugin.manifest));
    for (const file of files(path.join(plugin.dir, kind))) {
      for (const specifier of specifiers(file)) {
        const why = violation(file, specifier, plugin.dir, allowed);
        if (why) problems.push(`${path.relative(ROOT, file)}: '${specifier}' ${why}`);
      }
    }
  }
  return problems;
}

const declared = (manifest: Manifest, ...fields: (keyof Manifest)[]) => fields.flatMap((field) => Object.keys(manifest[field] ?? {}));

test('there are plugins to check', () => {
  expect(plugins.length).toBeGreaterThan(0);
  for (const plugin of plugins) expect(files(path.join(plugin.dir, 'src')).length).toBeGreaterThan(0);
});

test('plugin code imports only @hearth/plugin-api, node built-ins, its own files and its declared dependencies', () => {
  const problems = check('src', (m) => ['@hearth/plugin-api', ...declared(m, 'dependencies', 'peerDependencies', 'optionalDependencies')]);
  expect(problems).toEqual([]);
});

test("plugin tests import the kernel only through @hearth/testing, never the kernel's test/ directory", () => {
  const problems = check('test', (m) => [
    '@hearth/testing',
    '@hearth/plugin-api',
    ...declared(m, 'dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'),
  ]);
  expect(problems).toEqual([]);
});

test('a plugin whose tests use @hearth/testing declares it as a devDependency', () => {
  const undeclared = plugins
    .filter((p) => files(path.join(p.dir, 'test')).some((f) => specifiers(f).includes('@hearth/testing')))
    .filter((p) => !p.manifest.devDependencies?.['@hearth/testing'])
    .map((p) => p.name);
  expect(undeclared).toEqual([]);
});

test('the contract check itself catches what it forbids', () => {
  const dir = path.join(PLUGINS, 'example');
  const file = path.join(dir, 'src', 'index.ts');
  const allowed = new Set(['@hearth/plugin-api', 'semver']);
  expect(violation(file, '../../../test/helpers/server', dir, allowed)).toMatch(/outside/);
  expect(violation(file, '../../misc/src/index', dir, allowed)).toMatch(/outside/);
  expect(violation(file, '@hearth/core', dir, allowed)).toMatch(/kernel/);
  expect(violation(file, 'left-pad', dir, allowed)).toMatch(/does not declare/);
  for (const ok of ['./queue', '../package.json', 'node:fs', 'zlib', 'semver/functions/gt', '@hearth/plugin-api']) {
    expect(violation(file, ok, dir, allowed)).toBeNull();
  }
});
