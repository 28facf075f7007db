import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import os from 'node:os';
import zlib from 'node:zlib';
import { runCommand, type CommandOptions } from '@hearth/testing';
import { tarFile } from '@hearth/package-kit';

/** Shared by the cargo tests and the cargo bench: crate bodies, publish bodies, and running the real cargo. */
export const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

/** One ustar header block + the padded content. */
export const tarEntry = (name: string, content: Buffer, type = '0'): Buffer => tarFile(name, content, { type });

/** A .crate: a gzip'd tar with everything under `<name>-<version>/`. */
export function makeCrate(name: string, vers: string, dir = `${name}-${vers}`): Buffer {
  const tar = Buffer.concat([
    tarEntry(`${dir}/Cargo.toml`, Buffer.from(`[package]\nname = "${name}"\nversion = "${vers}"\n`)),
    tarEntry(`${dir}/src/lib.rs`, Buffer.from('pub fn hello() {}\n')),
    Buffer.alloc(1024),
  ]);
  return zlib.gzipSync(tar);
}

export function publishMeta(name: string, vers: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    vers,
    deps: [],
    features: {},
    authors: ['Alice'],
    description: `the ${name} crate`,
    documentation: null,
    homepage: null,
    readme: null,
    readme_file: null,
    keywords: [],
    categories: [],
    license: 'MIT',
    license_file: null,
    repository: null,
    badges: {},
    links: null,
    rust_version: null,
    ...extra,
  };
}

export function publishBody(meta: unknown, crate: Buffer, json = Buffer.from(JSON.stringify(meta))): Buffer {
  const a = Buffer.alloc(4);
  a.writeUInt32LE(json.length);
  const b = Buffer.alloc(4);
  b.writeUInt32LE(crate.length);
  return Buffer.concat([a, json, b, crate]);
}

export const run = (cmd: string, args: string[], options: CommandOptions & { cwd: string; env: NodeJS.ProcessEnv }) =>
  runCommand(cmd, args, { timeoutMs: 120_000, ...options });

export async function cargoAvailable(): Promise<boolean> {
  try {
    return (await run('cargo', ['--version'], { cwd: os.tmpdir(), env: process.env, timeoutMs: 30_000 })).code === 0;
  } catch {
    return false;
  }
}

/**
 * A private cargo home at `<home>/cargo-home` (target dir `<home>/target`) whose config.toml
 * names one registry, and the environment that runs the real cargo with it: the registry's token
 * in `CARGO_REGISTRIES_<NAME>_TOKEN`, no retries, the machine's rustup toolchain. `net`
 * appends lines to `[net]`; `env` overrides or adds variables.
 */
export function cargoSandbox(
  home: string,
  registry: { name: string; index: string; token: string },
  options: { net?: string[]; env?: NodeJS.ProcessEnv } = {},
): NodeJS.ProcessEnv {
  const cargoHome = path.join(home, 'cargo-home');
  fs.mkdirSync(cargoHome, { recursive: true });
  fs.writeFileSync(
    path.join(cargoHome, 'config.toml'),
    [
      `[registries.${registry.name}]`,
      `index = "${registry.index}"`,
      '[registry]',
      'global-credential-providers = ["cargo:token"]',
      '[net]',
      'retry = 0',
      ...(options.net ?? []),
      '',
    ].join('\n'),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    RUSTUP_HOME: process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup'),
    RUSTUP_TOOLCHAIN: process.env.RUSTUP_TOOLCHAIN,
    CARGO_HOME: cargoHome,
    CARGO_TARGET_DIR: path.join(home, 'target'),
    CARGO_HTTP_TIMEOUT: '30',
    CARGO_TERM_COLOR: 'never',
    [`CARGO_REGISTRIES_${registry.name.toUpperCase()}_TOKEN`]: registry.token,
    USER: 'tester',
    ...options.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env;
}

/** Throw with cargo's output unless the run succeeded. */
export { mustSucceed } from '@hearth/testing';
