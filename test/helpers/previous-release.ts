import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The release before the plugin-model redesign (the state that landed at the end of the previous
 * session: every feature still inside the kernel). Upgrade tests build a database with its code.
 */
export const PREVIOUS_RELEASE = 'a4fb9d34295d1f8075cef851cd654edc1cbcfd58';

const ROOT = path.join(__dirname, '..', '..');

function run(command: string, args: string[], options: { cwd?: string; input?: NodeJS.ReadableStream } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    child.stderr!.on('data', (chunk) => (err += chunk));
    if (options.input) options.input.pipe(child.stdin!);
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

/**
 * The previous release's source, built, in a directory of its own (cached by commit): `git
 * archive` of the commit, its third-party modules linked from this checkout's node_modules, its
 * own @hearth packages linked to its own folders, then `tsc -b`.
 */
export async function previousReleaseBuild(): Promise<string> {
  const sha = (await run('git', ['rev-parse', '--verify', `${PREVIOUS_RELEASE}^{commit}`])).trim();
  const dir = path.join(os.tmpdir(), `hearth-release-${sha.slice(0, 12)}`);
  if (fs.existsSync(path.join(dir, '.built'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const archive = spawn('git', ['archive', '--format=tar', sha], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  await run('tar', ['-x', '-C', dir], { input: archive.stdout! });
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@hearth'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '@hearth' || entry === '.bin' || entry.startsWith('.')) continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  const own: Record<string, string> = { 'plugin-api': 'core/plugin-api', core: 'core/kernel', testing: 'core/testing' };
  for (const plugin of fs.readdirSync(path.join(dir, 'plugins'))) own[`plugin-${plugin}`] = `plugins/${plugin}`;
  for (const [name, folder] of Object.entries(own)) fs.symlinkSync(path.join(dir, folder), path.join(modules, '@hearth', name));
  await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: dir });
  fs.writeFileSync(path.join(dir, '.built'), sha);
  return dir;
}

/** Run the seed script with the previous release against `overrides` (database, data directory); its JSON result. */
export async function seedWithPreviousRelease(dir: string, overrides: Record<string, unknown>): Promise<any> {
  const script = path.join(ROOT, 'test/fixtures/upgrade/seed-previous-release.js');
  const child = spawn(process.execPath, [script, dir], {
    cwd: dir,
    env: { ...process.env, HEARTH_UPGRADE_CONFIG: JSON.stringify(overrides) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const code = await new Promise<number>((resolve) => child.once('close', (c) => resolve(c ?? -1)));
  if (code !== 0) throw new Error(`the previous release's seed failed (exit ${code}): ${err.slice(-3000)}`);
  return JSON.parse(out.trim().split('\n').pop()!);
}
