import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface DebSpec {
  name: string;
  version: string;
  architecture?: string;
  /** dpkg-deb -Z: the control and data archives' compression. */
  compression?: 'gzip' | 'xz' | 'zstd' | 'none';
  /** Replaces the generated control file entirely. */
  control?: string;
  extraFields?: string;
}

function mustHave(tool: string, debianPackage: string): void {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`${tool} is missing: install the Debian package ${debianPackage} (scripts/setup-test-deps.sh)`);
  }
}

/** A real .deb built with dpkg-deb (one file under /usr/share/<name>/). */
export function buildDeb(spec: DebSpec): Buffer {
  mustHave('dpkg-deb', 'dpkg');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-deb-'));
  try {
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'DEBIAN'), { recursive: true });
    fs.mkdirSync(path.join(root, 'usr/share', spec.name), { recursive: true });
    fs.writeFileSync(path.join(root, 'usr/share', spec.name, 'hello.txt'), `${spec.name} ${spec.version}\n`);
    const control =
      spec.control ??
      [
        `Package: ${spec.name}`,
        `Version: ${spec.version}`,
        `Architecture: ${spec.architecture ?? 'all'}`,
        'Maintainer: Test Maintainer <test@example.com>',
        'Section: misc',
        'Priority: optional',
        ...(spec.extraFields ? [spec.extraFields] : []),
        `Description: test package ${spec.name}`,
        ' A package built by the Hearth Debian registry tests.',
        ' .',
        ' Second paragraph.',
      ].join('\n') + '\n';
    fs.writeFileSync(path.join(root, 'DEBIAN/control'), control);
    const out = path.join(dir, 'out.deb');
    execFileSync(
      'dpkg-deb',
      ['--root-owner-group', ...(spec.control ? ['--nocheck'] : []), `-Z${spec.compression ?? 'xz'}`, '--build', root, out],
      { stdio: 'pipe' },
    );
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The real xz (Debian package xz-utils) on `input`: `-t` checks an .xz file's integrity, `-dc` decompresses it. */
export function xz(args: string[], input: Buffer): { code: number; stdout: Buffer; stderr: string } {
  mustHave('xz', 'xz-utils');
  const run = spawnSync('xz', args, { input, maxBuffer: 64 * 1024 * 1024 });
  return { code: run.status ?? 1, stdout: run.stdout, stderr: run.stderr.toString() };
}

/** The binary packets of an ASCII-armored block (gpgv's keyring wants them). */
export function dearmor(armored: string): Buffer {
  const lines = armored.trim().split(/\r?\n/);
  const start = lines.indexOf('') + 1;
  const body = lines
    .slice(
      start,
      lines.findIndex((l) => l.startsWith('-----END')),
    )
    .filter((l) => !l.startsWith('='));
  return Buffer.from(body.join(''), 'base64');
}

/** Run gpgv with `keyArmored` as its only key over files written to a temporary directory. */
export async function gpgv(
  keyArmored: string,
  files: Record<string, Buffer | string>,
  args: string[],
): Promise<{ code: number; output: string }> {
  mustHave('gpgv', 'gpgv');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-gpgv-'));
  try {
    fs.writeFileSync(path.join(dir, 'key.gpg'), dearmor(keyArmored));
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
    return await new Promise((resolve) => {
      execFile(
        'gpgv',
        ['--homedir', dir, '--keyring', path.join(dir, 'key.gpg'), ...args.map((a) => path.join(dir, a))],
        (err, stdout, stderr) => {
          resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` });
        },
      );
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Parse a deb822 file (Packages) into stanzas of field → value. */
export function parseStanzas(text: string): Array<Record<string, string>> {
  return text
    .split(/\n\n+/)
    .filter((s) => s.trim())
    .map((stanza) => {
      const fields: Record<string, string> = {};
      let last = '';
      for (const line of stanza.split('\n')) {
        if (/^\s/.test(line)) fields[last] += `\n${line}`;
        else {
          const i = line.indexOf(':');
          last = line.slice(0, i);
          fields[last] = line.slice(i + 1).trim();
        }
      }
      return fields;
    });
}

/** The files a Release lists under `SHA256:` (path → { sha256, size }). */
export function releaseSha256(release: string): Map<string, { sha256: string; size: number }> {
  const out = new Map<string, { sha256: string; size: number }>();
  const section = release.split('\nSHA256:\n')[1] ?? '';
  for (const line of section.split('\n')) {
    const m = /^ ([0-9a-f]{64})\s+(\d+) (\S+)$/.exec(line);
    if (!m) break;
    out.set(m[3], { sha256: m[1], size: Number(m[2]) });
  }
  return out;
}
