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
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
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

test('the table-ownership scan sees writes (it is not vacuous)', () => {
  const all = plugins.flatMap((plugin) => files(path.join(plugin.dir, 'src')).flatMap((file) => writtenTables(file)));
  expect(all.length).toBeGreaterThan(50);
  const tables = new Set(all.map((w) => w.table));
  for (const table of ['issue', 'comment', 'pull_request', 'webhook', 'release', 'notification']) expect(tables).toContain(table);
  // A write to another table nested in a subquery counts only for the table written.
  expect(chainedMethods("db('a').whereIn('id', db('b').select('id')).delete();", "db('a')".length)).toEqual(['whereIn', 'delete']);
  expect(chainedMethods("db('a').whereIn('id', db('b').select('id')).delete();", "db('a').whereIn('id', db('b')".length)).toEqual([
    'select',
  ]);
});

test("plugin tests import the kernel only through @hearth/testing, never the kernel's test/ directory", () => {
  const problems = check('test', (m) => [
    '@hearth/testing',
    '@hearth/plugin-api',
    ...declared(m, 'dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'),
  ]);
  expect(problems).toEqual([]);
});

test('the table-ownership scan sees writes (it is not vacuous)', () => {
  const all = plugins.flatMap((plugin) => files(path.join(plugin.dir, 'src')).flatMap((file) => writtenTables(file)));
  expect(all.length).toBeGreaterThan(50);
  const tables = new Set(all.map((w) => w.table));
  for (const table of ['issue', 'comment', 'pull_request', 'webhook', 'release', 'notification']) expect(tables).toContain(table);
  // A write to another table nested in a subquery counts only for the table written.
  expect(chainedMethods("db('a').whereIn('id', db('b').select('id')).delete();", "db('a')".length)).toEqual(['whereIn', 'delete']);
  expect(chainedMethods("db('a').whereIn('id', db('b').select('id')).delete();", "db('a').whereIn('id', db('b')".length)).toEqual([
    'select',
  ]);
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

// --- table ownership ---------------------------------------------------------------------------

/** Tables a plugin's migrations create (its own). */
function ownTables(plugin: { dir: string }): Set<string> {
  const own = new Set<string>();
  for (const file of files(path.join(plugin.dir, 'src'))) {
    for (const match of fs.readFileSync(file, 'utf8').matchAll(/createTable(?:IfNotExists)?\(\s*['"`]([\w]+)['"`]/g)) own.add(match[1]);
    // Table names declared as constants next to their migrations (`const FILES_TABLE = 'conda_file'`).
    for (const match of fs.readFileSync(file, 'utf8').matchAll(/_TABLE\s*=\s*['"`]([\w]+)['"`]/g)) own.add(match[1]);
  }
  return own;
}

const WRITES = new Set(['insert', 'update', 'delete', 'del', 'increment', 'decrement', 'onConflict', 'merge', 'truncate']);

/**
 * The methods chained directly on the expression ending at `from` (`.where(…).update(…)` → where,
 * update), not those of enclosing calls.
 */
function chainedMethods(text: string, from: number): string[] {
  const methods: string[] = [];
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text[i] !== '.') return methods;
    const name = /^\.(\w+)/.exec(text.slice(i));
    if (!name) return methods;
    methods.push(name[1]);
    i += name[0].length;
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text[i] !== '(') continue; // a property (`.knex`), the chain goes on
    let depth = 0;
    for (; i < text.length; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')' && --depth === 0) break;
    }
    i++;
  }
}

/**
 * Tables a plugin's code writes: a query builder started on a literal table name (`db('x')`,
 * `trx('x')`, `ctx.db('x')`, `knex('x as y')`) whose statement goes on to insert, update, delete,
 * increment, decrement or upsert; and `insertId(db, 'x', …)`.
 */
function writtenTables(file: string): Array<{ table: string; line: number }> {
  const text = fs.readFileSync(file, 'utf8');
  const found: Array<{ table: string; line: number }> = [];
  const builder = /\b(?:db|trx|knex|tx|ctx\.db|this\.db|this\.ctx\.db|deps\.db)\(\s*['"`]([\w]+)(?:\s+as\s+\w+)?['"`]\s*\)/g;
  for (const match of text.matchAll(builder)) {
    if (chainedMethods(text, match.index! + match[0].length).some((m) => WRITES.has(m))) {
      found.push({ table: match[1], line: text.slice(0, match.index).split('\n').length });
    }
  }
  for (const match of text.matchAll(/\binsertId\(\s*\w+\s*,\s*['"`]([\w]+)['"`]/g)) {
    found.push({ table: match[1], line: text.slice(0, match.index).split('\n').length });
  }
  return found;
}

test("plugin code writes only the tables its own migrations create (other tables through their owner's service)", () => {
  const problems: string[] = [];
  for (const plugin of plugins) {
    const own = ownTables(plugin);
    for (const file of files(path.join(plugin.dir, 'src'))) {
      for (const { table, line } of writtenTables(file)) {
        if (!own.has(table))
          problems.push(`${path.relative(ROOT, file)}:${line} writes "${table}", a table plugin "${plugin.name}" does not own`);
      }
    }
  }
  expect(problems).toEqual([]);
});

test('the table-ownership scan sees writes (it is not vacuous)', () => {
  const all = plugins.flatMap((plugin) => files(path.join(plugin.dir, 'src')).flatMap((file) => writtenTables(file)));
  expect(all.length).toBeGreaterThan(50);
  const tables = new Set(all.map((w) => w.table));
  for (const table of ['issue', 'comment', 'pull_request', 'webhook', 'release', 'notification']) expect(tables).toContain(table);
  // A write to another table nested in a subquery counts only for the table written.
  expect(chainedMethods("db('a').whereIn('id', db('b').select('id')).delete();", "db('a')".length)).toEqual(['whereIn', 'delete']);
  expect(chainedMethods("db('a').whereIn('id', db('b').select('id')).delete();", "db('a').whereIn('id', db('b')".length)).toEqual([
    'select',
  ]);
});
