import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import os from 'node:os';
import zlib from 'node:zlib';

/** Shared by the cargo tests and the cargo bench: crate bodies, publish bodies, and running the real cargo. */
export const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

/** One ustar header block + the padded content. */
export function tarEntry(name: string, content: Buffer, type = '0'): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write(type, 156);
  header.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const pad = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, pad]);
}

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
    name, vers, deps: [], features: {}, authors: ['Alice'], description: `the ${name} crate`, documentation: null, homepage: null,
    readme: null, readme_file: null, keywords: [], categories: [], license: 'MIT', license_file: null, repository: null, badges: {}, links: null, rust_version: null,
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

export function run(cmd: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

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
  fs.writeFileSync(path.join(cargoHome, 'config.toml'), [
    `[registries.${registry.name}]`,
    `index = "${registry.index}"`,
    '[registry]',
    'global-credential-providers = ["cargo:token"]',
    '[net]',
    'retry = 0',
    ...(options.net ?? []),
    '',
  ].join('\n'));
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
export function mustSucceed(r: { code: number | null; stdout: string; stderr: string }, what: string): void {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
}
