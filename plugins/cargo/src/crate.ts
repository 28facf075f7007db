import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import semver from 'semver';
import { parseJsonBody } from '@hearth/plugin-api';

/** Cargo's rule for crate names (crates.io also caps them at 64 characters). */
export const CRATE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Names that collide in cargo's eyes: case-insensitive, '-' and '_' alike. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/_/g, '-');
}

/** A publish request that cannot be accepted: answered 400 with cargo's `errors[].detail`. */
export class PublishError extends Error {}

/** One dependency line of an index entry. */
export interface IndexDep {
  name: string;
  req: string;
  features: string[];
  optional: boolean;
  default_features: boolean;
  target: string | null;
  kind: string;
  registry: string | null;
  package: string | null;
}

/** The index entry fields stored as a version's metadata (`yanked` is kept apart). */
export interface IndexEntry {
  name: string;
  vers: string;
  deps: IndexDep[];
  cksum: string;
  features: Record<string, string[]>;
  links: string | null;
  v: 2;
  features2?: Record<string, string[]>;
  rust_version?: string;
  pubtime?: string;
}

export interface ParsedPublish {
  meta: Record<string, unknown>;
  crate: Buffer;
}

/** Split cargo's publish body: u32 LE JSON length, JSON, u32 LE crate length, crate bytes. */
export function splitPublishBody(body: Buffer): ParsedPublish {
  if (body.length < 4) throw new PublishError(`invalid publish body: ${body.length} bytes is too short for the metadata length`);
  const jsonLength = body.readUInt32LE(0);
  if (4 + jsonLength + 4 > body.length)
    throw new PublishError(`invalid publish body: the metadata length ${jsonLength} exceeds the body (${body.length} bytes)`);
  const crateLength = body.readUInt32LE(4 + jsonLength);
  const expected = 4 + jsonLength + 4 + crateLength;
  if (expected !== body.length)
    throw new PublishError(`invalid publish body: the lengths announce ${expected} bytes but the body has ${body.length}`);
  const meta = parseJsonBody(body.subarray(4, 4 + jsonLength), 'invalid publish metadata');
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) throw new PublishError('invalid publish metadata: not a JSON object');
  return { meta: meta as Record<string, unknown>, crate: body.subarray(8 + jsonLength) };
}

/** True when `vers` is a canonical SemVer 2.0 version, build metadata included. */
export function isSemver(vers: string): boolean {
  const parsed = semver.parse(vers);
  if (!parsed) return false;
  const canonical = parsed.version + (parsed.build.length ? `+${parsed.build.join('.')}` : '');
  return canonical === vers;
}

/** A version without build metadata: cargo treats `1.0.0+a` and `1.0.0+b` as the same version. */
export function withoutBuild(vers: string): string {
  return semver.parse(vers)?.version ?? vers;
}

function stringList(value: unknown, what: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new PublishError(`invalid publish metadata: ${what} must be a list of strings`);
  return value as string[];
}

function optionalString(value: unknown, what: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new PublishError(`invalid publish metadata: ${what} must be a string`);
  return value;
}

/** Validate the publish metadata's name and version, and map it to the index entry (cksum, pubtime added by the caller). */
export function toIndexEntry(meta: Record<string, unknown>, cksum: string, pubtime: Date): IndexEntry {
  const { name, vers } = meta;
  if (typeof name !== 'string' || !CRATE_NAME.test(name)) {
    throw new PublishError(
      `invalid crate name ${JSON.stringify(name ?? null)}: it must start with a letter and ` +
        `contain only letters, digits, '-' or '_' (at most 64 characters)`,
    );
  }
  if (typeof vers !== 'string' || !isSemver(vers))
    throw new PublishError(`invalid version ${JSON.stringify(vers ?? null)}: not a SemVer version (e.g. 1.0.0)`);

  if (meta.deps !== undefined && meta.deps !== null && !Array.isArray(meta.deps))
    throw new PublishError('invalid publish metadata: deps must be a list');
  const deps = ((meta.deps as unknown[] | undefined) ?? []).map((raw, i): IndexDep => {
    if (!raw || typeof raw !== 'object') throw new PublishError(`invalid publish metadata: deps[${i}] must be an object`);
    const d = raw as Record<string, unknown>;
    const depName = d.name;
    if (typeof depName !== 'string' || !depName) throw new PublishError(`invalid publish metadata: deps[${i}].name must be a string`);
    const req = d.version_req;
    if (typeof req !== 'string' || !req) throw new PublishError(`invalid publish metadata: deps[${i}].version_req must be a string`);
    const renamed = optionalString(d.explicit_name_in_toml, `deps[${i}].explicit_name_in_toml`);
    const kind = optionalString(d.kind, `deps[${i}].kind`) ?? 'normal';
    if (!['normal', 'dev', 'build'].includes(kind))
      throw new PublishError(`invalid publish metadata: deps[${i}].kind must be normal, dev or build`);
    return {
      // The index names a renamed dependency by its new name and keeps the real one in `package`.
      name: renamed ?? depName,
      req,
      features: stringList(d.features, `deps[${i}].features`),
      optional: d.optional === true,
      default_features: d.default_features !== false,
      target: optionalString(d.target, `deps[${i}].target`),
      kind,
      registry: optionalString(d.registry, `deps[${i}].registry`),
      package: renamed ? depName : null,
    };
  });

  const features: Record<string, string[]> = {};
  const features2: Record<string, string[]> = {};
  if (meta.features !== undefined && meta.features !== null) {
    if (typeof meta.features !== 'object' || Array.isArray(meta.features))
      throw new PublishError('invalid publish metadata: features must be an object');
    for (const [feature, values] of Object.entries(meta.features as Record<string, unknown>)) {
      const list = stringList(values, `features.${feature}`);
      // As crates.io does: features using the `dep:` or `?/` syntax go to features2, which old cargos skip.
      if (list.some((v) => v.startsWith('dep:') || v.includes('?/'))) features2[feature] = list;
      else features[feature] = list;
    }
  }

  const entry: IndexEntry = {
    name,
    vers,
    deps,
    cksum,
    features,
    links: optionalString(meta.links, 'links'),
    v: 2,
  };
  if (Object.keys(features2).length) entry.features2 = features2;
  const rustVersion = optionalString(meta.rust_version, 'rust_version');
  if (rustVersion) entry.rust_version = rustVersion;
  entry.pubtime = pubtime.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return entry;
}

/** The uncompressed size a crate may expand to (crates.io's limit). */
const MAX_UNPACKED = 512 * 1024 * 1024;

const padded = (n: number) => Math.ceil(n / 512) * 512;

function cString(buf: Buffer, start: number, length: number): string {
  const slice = buf.subarray(start, start + length);
  const nul = slice.indexOf(0);
  return (nul === -1 ? slice : slice.subarray(0, nul)).toString('utf8');
}

function headerSize(header: Buffer): number {
  const field = header.subarray(124, 136);
  if (field[0] & 0x80) {
    // GNU base-256 encoding.
    let size = 0;
    for (let i = 1; i < field.length; i++) size = size * 256 + field[i];
    return size;
  }
  const text = cString(header, 124, 12).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new PublishError('invalid crate file: a tar header has a malformed size');
  return parseInt(text, 8);
}

function checksumOk(header: Buffer): boolean {
  const stored = cString(header, 148, 8).trim();
  if (!/^[0-7]+$/.test(stored)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
  return sum === parseInt(stored, 8);
}

function paxPath(data: Buffer): string | undefined {
  let text = data.toString('utf8');
  while (text.length) {
    const space = text.indexOf(' ');
    const length = parseInt(text.slice(0, space), 10);
    if (space < 0 || !Number.isFinite(length) || length <= 0) return undefined;
    const record = text.slice(space + 1, length - 1);
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === 'path') return record.slice(eq + 1);
    text = text.slice(length);
  }
  return undefined;
}

/**
 * Check that `crate` is a gzip'd tar whose every entry lies under `<name>-<version>/`, walking
 * the tar headers while decompressing (never holding the unpacked archive).
 */
export async function validateCrate(crate: Buffer, name: string, vers: string): Promise<void> {
  if (crate.length < 2 || crate[0] !== 0x1f || crate[1] !== 0x8b) throw new PublishError('invalid crate file: not a gzip file');
  const prefix = `${name}-${vers}/`;
  let pending: Buffer = Buffer.alloc(0);
  let skip = 0;
  let collect: { type: string; size: number } | null = null;
  let longName: string | undefined;
  let ended = false;
  let entries = 0;
  let total = 0;

  const step = (): boolean => {
    if (ended) {
      pending = Buffer.alloc(0);
      return false;
    }
    if (skip > 0) {
      const n = Math.min(skip, pending.length);
      pending = pending.subarray(n);
      skip -= n;
      return skip === 0;
    }
    if (collect) {
      if (pending.length < padded(collect.size)) return false;
      const data = pending.subarray(0, collect.size);
      pending = pending.subarray(padded(collect.size));
      if (collect.type === 'L') longName = cString(data, 0, data.length);
      else if (collect.type === 'x') longName = paxPath(data) ?? longName;
      collect = null;
      return true;
    }
    if (pending.length < 512) return false;
    const header = pending.subarray(0, 512);
    pending = pending.subarray(512);
    if (header.every((b) => b === 0)) {
      ended = true;
      return true;
    }
    if (!checksumOk(header)) throw new PublishError('invalid crate file: not a tar archive (bad header checksum)');
    const size = headerSize(header);
    const type = String.fromCharCode(header[156] || 0x30);
    if (type === 'L' || type === 'x') {
      collect = { type, size };
      return true;
    }
    if (type === 'K' || type === 'g') {
      skip = padded(size);
      return true;
    }
    let path = longName;
    longName = undefined;
    if (path === undefined) {
      const base = cString(header, 0, 100);
      // POSIX ustar ("ustar\0") has a name prefix at 345; GNU ("ustar  \0") keeps other fields there.
      const posix = header.subarray(257, 263).toString('latin1') === 'ustar\0';
      const ustarPrefix = posix ? cString(header, 345, 155) : '';
      path = ustarPrefix ? `${ustarPrefix}/${base}` : base;
    }
    if (!path.startsWith(prefix) && path !== prefix.slice(0, -1)) {
      throw new PublishError(`invalid crate file: entry "${path}" is outside the directory "${prefix}"`);
    }
    entries++;
    skip = padded(size);
    return true;
  };

  const gunzip = Readable.from([crate], { objectMode: false }).pipe(zlib.createGunzip());
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > MAX_UNPACKED) throw new PublishError(`invalid crate file: it unpacks to more than ${MAX_UNPACKED} bytes`);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      // Read to the end even after the tar's end blocks, so that gzip checks the CRC and length.
      while (step());
    }
  } catch (err) {
    gunzip.destroy();
    if (err instanceof PublishError) throw err;
    throw new PublishError(`invalid crate file: ${(err as Error).message}`);
  }
  gunzip.destroy();
  if (!ended && (skip > 0 || collect || pending.length > 0)) throw new PublishError('invalid crate file: the tar archive is truncated');
  if (entries === 0) throw new PublishError('invalid crate file: the tar archive is empty');
}
