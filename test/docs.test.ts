import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** Every leaf key of an object schema, dotted. */
function keys(schema: any, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, sub]: [string, any]) => {
    if (key === '$schema') return [];
    const full = prefix ? `${prefix}.${key}` : key;
    return sub.type === 'object' && sub.properties ? keys(sub, full) : [full];
  });
}

test('README documents every configuration key', () => {
  const readme = read('README.md');
  const missing = keys(JSON.parse(read('schemas/config.schema.json'))).filter((k) => !readme.includes(`\`${k}\``));
  expect(missing).toEqual([]);
});

test('HOOKS.md documents every kernel hook declared in the plugin API', () => {
  const types = read('core/plugin-api/src/types.ts');
  const block = types.slice(types.indexOf('export interface KernelHooks'), types.indexOf('// Routes'));
  const hooks: string[] = [];
  let group = '';
  for (const line of block.split('\n')) {
    const g = /^ {2}readonly (\w+): \{/.exec(line);
    if (g) group = g[1];
    const h = /^ {4}readonly (\w+): Async/.exec(line);
    if (h) hooks.push(`${group}.${h[1]}`);
  }
  expect(hooks.length).toBeGreaterThan(10);
  const doc = read('HOOKS.md');
  expect(hooks.filter((h) => !doc.includes(`\`${h}\``))).toEqual([]);
});

test('plugins import only @hearth/plugin-api from Hearth, never kernel internals', () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !['node_modules', 'dist'].includes(entry.name)) walk(full);
      else if (/\.(tsx?|js)$/.test(entry.name) && !full.includes(`${path.sep}test${path.sep}`)) {
        const text = fs.readFileSync(full, 'utf8');
        if (/from ['"]@hearth\/core|require\(['"]@hearth\/core|core\/kernel/.test(text)) offenders.push(path.relative(ROOT, full));
      }
    }
  };
  walk(path.join(ROOT, 'plugins'));
  walk(path.join(ROOT, 'test/fixtures/plugins'));
  expect(offenders).toEqual([]);
});
