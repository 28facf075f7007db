import { ApiError, parseJsonBody } from '@hearth/plugin-api';

/** Cookbook names as Supermarket accepts them; never a path. */
export const COOKBOOK_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
/** Chef cookbook versions: `x.y` or `x.y.z`, numeric. */
export const COOKBOOK_VERSION = /^\d{1,9}\.\d{1,9}(?:\.\d{1,9})?$/;
const MAX_TEXT = 16 * 1024;
const MAX_DEPENDENCIES = 500;

/** What the registry keeps of a cookbook's metadata.json (on the kernel's version row). */
export interface CookbookMetadata {
  name: string;
  version: string;
  description: string;
  longDescription: string;
  maintainer: string;
  maintainerEmail: string;
  license: string;
  sourceUrl: string;
  issuesUrl: string;
  platforms: Record<string, string>;
  dependencies: Record<string, string>;
}

const bad = (why: string) => ApiError.badRequest(`invalid metadata.json: ${why}`);

function text(m: Record<string, unknown>, key: string, max = 1000): string {
  const v = m[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw bad(`${key} must be a string`);
  return v.slice(0, max);
}

function constraints(m: Record<string, unknown>, key: string): Record<string, string> {
  const v = m[key];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw bad(`${key} must be an object of name → version constraint`);
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_DEPENDENCIES) throw bad(`more than ${MAX_DEPENDENCIES} ${key}`);
  const out: Record<string, string> = {};
  for (const [name, constraint] of entries) {
    // knife writes a constraint string; older metadata may list several.
    const value = Array.isArray(constraint) ? constraint.join(', ') : constraint;
    if (typeof value !== 'string' || value.length > 100 || name.length > 100)
      throw bad(`${key}.${name.slice(0, 100)} must be a version constraint string`);
    out[name] = value;
  }
  return out;
}

/** Parse and check a metadata.json; `name` and `version` are required and strict. */
export function parseCookbookMetadata(bytes: Buffer): CookbookMetadata {
  const value = parseJsonBody(bytes, 'metadata.json');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not a JSON object');
  const m = value as Record<string, unknown>;
  if (typeof m.name !== 'string' || !COOKBOOK_NAME.test(m.name))
    throw bad(`invalid cookbook name ${JSON.stringify(m.name)}: letters, digits, '_', '.', '-'`);
  if (typeof m.version !== 'string' || !COOKBOOK_VERSION.test(m.version))
    throw bad(`invalid version ${JSON.stringify(m.version)}: x.y or x.y.z`);
  return {
    name: m.name,
    version: m.version,
    description: text(m, 'description'),
    longDescription: text(m, 'long_description', MAX_TEXT),
    maintainer: text(m, 'maintainer', 255),
    maintainerEmail: text(m, 'maintainer_email', 255),
    license: text(m, 'license', 255),
    sourceUrl: text(m, 'source_url', 2048),
    issuesUrl: text(m, 'issues_url', 2048),
    platforms: constraints(m, 'platforms'),
    dependencies: constraints(m, 'dependencies'),
  };
}

/** Order cookbook versions, highest first (numeric per component; `1.0` equals `1.0.0`). */
export function compareVersionsDescending(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pb[i] ?? 0) - (pa[i] ?? 0);
    if (d) return d;
  }
  return 0;
}
