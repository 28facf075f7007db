import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { runCommand, type CommandResult } from '@hearth/testing';
import { tarFile } from '@hearth/package-kit';

/** Test fixtures for the conda registry: packages built with Debian's `cph` (conda-package-handling). */
export const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');
export const md5 = (data: Buffer) => crypto.createHash('md5').update(data).digest('hex');

export async function run(cmd: string, args: string[], options: { cwd: string; timeoutMs?: number }): Promise<CommandResult> {
  try {
    return await runCommand(cmd, args, { timeoutMs: 60_000, ...options });
  } catch (err) {
    throw new Error(`${(err as Error).message}: install the Debian package conda-package-handling (scripts/setup-test-deps.sh)`);
  }
}

export interface Fixture {
  name: string;
  version: string;
  build?: string;
  subdir?: string;
  depends?: string[];
  /** Extra info/index.json fields, or replacements (undefined removes). */
  index?: Record<string, unknown>;
  about?: Record<string, unknown>;
  /** Raw info/index.json text instead of the generated one. */
  rawIndex?: string;
}

/** Build a conda package (`.conda` or `.tar.bz2`) with cph from a prefix holding info/ and one payload file. */
export async function condaPackage(
  f: Fixture,
  format: '.conda' | '.tar.bz2',
  filename?: string,
): Promise<{ filename: string; data: Buffer }> {
  const build = f.build ?? 'h0_0';
  const subdir = f.subdir ?? 'noarch';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-conda-fixture-'));
  try {
    const prefix = path.join(dir, 'prefix');
    fs.mkdirSync(path.join(prefix, 'info'), { recursive: true });
    fs.mkdirSync(path.join(prefix, 'share', f.name), { recursive: true });
    const index: Record<string, unknown> = {
      name: f.name,
      version: f.version,
      build,
      build_number: 0,
      depends: f.depends ?? [],
      subdir,
      license: 'MIT',
      timestamp: 1700000000000,
      ...(subdir === 'noarch' ? { noarch: 'generic' } : {}),
      ...f.index,
    };
    fs.writeFileSync(path.join(prefix, 'info', 'index.json'), f.rawIndex ?? JSON.stringify(index));
    if (f.about) fs.writeFileSync(path.join(prefix, 'info', 'about.json'), JSON.stringify(f.about));
    fs.writeFileSync(path.join(prefix, 'share', f.name, 'README'), `${f.name} ${f.version}\n`);
    fs.writeFileSync(path.join(prefix, 'info', 'files'), `share/${f.name}/README\n`);
    const out = filename ?? `${f.name}-${f.version}-${build}${format}`;
    const outDir = path.join(dir, 'out');
    fs.mkdirSync(outDir);
    // cph picks the format from the extension; the wanted name may not be a valid one.
    const made = `made${format}`;
    const r = await run('cph', ['create', prefix, made, '--out-folder', outDir], { cwd: dir });
    if (r.code !== 0) throw new Error(`cph create failed (${r.code}): ${r.stderr}`);
    return { filename: out, data: fs.readFileSync(path.join(outDir, made)) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One ustar header block + the padded content. */
export const tarEntry = (name: string, content: Buffer, type = '0'): Buffer => tarFile(name, content, { type });

export const gzipTar = (files: Record<string, string>) =>
  zlib.gzipSync(Buffer.concat([...Object.entries(files).map(([n, c]) => tarEntry(n, Buffer.from(c))), Buffer.alloc(1024)]));
