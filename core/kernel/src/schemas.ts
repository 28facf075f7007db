import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { lazy, type JsonSchema } from '@hearth/plugin-api';
import { SCHEMAS_DIR } from './paths';

/**
 * The schema registry: every JSON Schema the kernel and plugins register, validated with ajv and
 * published as the OpenAPI document's definitions. Bodies are validated strictly as sent; query
 * strings and path parameters arrive as text, so a second instance coerces them to the declared
 * types. Both instances hold the same schemas.
 */
export class SchemaRegistry {
  private readonly bodies = newAjv(false);
  // The same schemas, already checked against the meta-schema by `bodies`.
  private readonly strings = newAjv('array', false);
  private readonly named = new Map<string, JsonSchema>();

  /** Load every `*.json` schema of a folder (the kernel's `schemas/api`, a plugin's `schemas/`). */
  addDirectory(dir: string): void {
    for (const file of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      this.add(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as JsonSchema);
    }
  }

  add(schema: JsonSchema): void {
    const id = schema.$id;
    if (typeof id !== 'string' || !id) throw new Error('a registered schema needs an $id');
    if (this.named.has(id)) throw new Error(`schema "${id}" is registered twice`);
    this.named.set(id, schema);
    this.bodies.addSchema(schema);
    this.strings.addSchema(schema);
  }

  /** All named schemas, for the OpenAPI definitions. */
  all(): ReadonlyMap<string, JsonSchema> {
    return this.named;
  }

  has(id: string): boolean {
    return this.named.has(id);
  }

  /** A validator for a body: `ref` names a registered schema, or is an inline schema. */
  bodyValidator(ref: string | JsonSchema): ValidateFunction {
    return typeof ref === 'string' ? (this.bodies.getSchema(ref) ?? missing(ref)) : this.bodies.compile(ref);
  }

  /** A validator for query strings and path parameters (coerces "5" to 5, "true" to true). */
  stringValidator(schema: JsonSchema): ValidateFunction {
    return this.strings.compile(schema);
  }
}

function newAjv(coerceTypes: false | 'array', validateSchema = true): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes, strict: false, validateSchema });
  addFormats(ajv);
  return ajv;
}

/** One ajv for configuration documents: an instance costs milliseconds, and a start checks a dozen. */
const configAjv = lazy(() => newAjv(false));
const configValidators = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * A validator with defaults applied, for configuration documents (the config file, plugin
 * settings), compiled once per schema object. A schema with an `$id` gets an instance of its own,
 * so two plugins may use the same id without clashing.
 */
export function configValidator(schema: JsonSchema): ValidateFunction {
  let validate = configValidators.get(schema);
  if (!validate) {
    validate = (typeof schema.$id === 'string' ? newAjv(false) : configAjv()).compile(schema);
    configValidators.set(schema, validate);
  }
  return validate;
}

function missing(ref: string): never {
  throw new Error(`no schema registered as "${ref}"`);
}

/** The kernel's own API schemas, loaded once per registry. */
export function kernelSchemas(): SchemaRegistry {
  const registry = new SchemaRegistry();
  registry.addDirectory(path.join(SCHEMAS_DIR, 'api'));
  return registry;
}

/**
 * One readable sentence per ajv error: `server.HTTP_PORT = "abc": must be integer`. `prefix` names
 * the document (`body`, `query`, `plugins.misc.settings`).
 */
export function describeErrors(errors: ErrorObject[] | null | undefined, prefix: string, data: unknown): string[] {
  return (errors ?? []).map((e) => {
    let where = pointerToPath(prefix, e.instancePath);
    if (e.keyword === 'required') where = joinPath(where, String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') where = joinPath(where, String(e.params.additionalProperty));
    const pointer = e.keyword === 'additionalProperties' ? `${e.instancePath}/${String(e.params.additionalProperty)}` : e.instancePath;
    const value = e.keyword === 'required' ? undefined : valueAt(data, pointer);
    const shown = value === undefined ? '' : ` = ${JSON.stringify(value)}`;
    let why = e.message ?? 'is invalid';
    if (e.keyword === 'enum') why = `must be one of: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    if (e.keyword === 'required') why = 'is required';
    if (e.keyword === 'additionalProperties') why = 'is not a known key';
    return `${where}${shown}: ${why}`;
  });
}

function pointerToPath(prefix: string, pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return parts.reduce(joinPath, prefix);
}

function joinPath(base: string, key: string): string {
  if (/^\d+$/.test(key)) return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

function valueAt(data: unknown, pointer: string): unknown {
  let cur: any = data;
  for (const part of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}
