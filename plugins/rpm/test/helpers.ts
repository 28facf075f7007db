import fs from 'node:fs';
import path from 'node:path';
import { mustSucceed, runCommand, type CommandOptions, type CommandResult } from '@hearth/testing';

/** Shared by the RPM tests: building packages with the real rpmbuild and running the Debian tools asynchronously. */

export type RunResult = CommandResult;

/** Run a command without blocking the event loop (the server under test runs in this process). */
export const run = (cmd: string, args: string[], options: CommandOptions = {}) => runCommand(cmd, args, options);

export { mustSucceed };

/** Fail (never skip) with the Debian package to install when a tool is missing. */
export async function requireTool(cmd: string, debianPackage: string): Promise<void> {
  try {
    await run(cmd, ['--version'], { timeoutMs: 30_000 });
  } catch {
    throw new Error(`${cmd} is not installed: install the Debian package "${debianPackage}" (scripts/setup-test-deps.sh does)`);
  }
}

export interface SpecOptions {
  name: string;
  version?: string;
  release?: string;
  epoch?: number;
  arch?: string;
  requires?: string[];
  provides?: string[];
  summary?: string;
}

/** Build a small binary RPM with the real rpmbuild (a script in /usr/bin, a data file, a changelog) and return its bytes. */
export async function buildRpm(workDir: string, o: SpecOptions): Promise<Buffer> {
  const version = o.version ?? '1.0';
  const release = o.release ?? '1';
  const arch = o.arch ?? 'noarch';
  const top = path.join(workDir, `top-${o.name}-${version}-${release}-${arch}`);
  fs.mkdirSync(top, { recursive: true });
  const spec = [
    `Name: ${o.name}`,
    `Version: ${version}`,
    `Release: ${release}`,
    ...(o.epoch !== undefined ? [`Epoch: ${o.epoch}`] : []),
    `Summary: ${o.summary ?? `The ${o.name} test package`}`,
    'License: MIT',
    'URL: https://example.com/hello',
    `BuildArch: ${arch}`,
    'AutoReqProv: no',
    ...(o.requires ?? []).map((r) => `Requires: ${r}`),
    ...(o.provides ?? []).map((p) => `Provides: ${p}`),
    '%description',
    `The ${o.name} package, built by the Hearth RPM tests.`,
    '%install',
    `mkdir -p %{buildroot}/usr/share/${o.name} %{buildroot}/usr/bin`,
    `echo '${o.name} ${version}-${release}' > %{buildroot}/usr/share/${o.name}/README`,
    `printf '#!/bin/sh\\necho ${o.name}\\n' > %{buildroot}/usr/bin/${o.name}`,
    `chmod 755 %{buildroot}/usr/bin/${o.name}`,
    '%files',
    `/usr/share/${o.name}`,
    `/usr/bin/${o.name}`,
    '%changelog',
    `* Mon Jan 01 2024 Tester <tester@example.com> - ${version}-${release}`,
    `- Build ${o.name} & friends <${version}>`,
    '',
  ].join('\n');
  const specFile = path.join(top, `${o.name}.spec`);
  fs.writeFileSync(specFile, spec);
  const targetArgs = arch === 'noarch' ? [] : ['--target', arch];
  mustSucceed(await run('rpmbuild', ['--quiet', '--define', `_topdir ${top}`, ...targetArgs, '-bb', specFile]), `rpmbuild ${o.name}`);
  const file = path.join(top, 'RPMS', arch, `${o.name}-${version}-${release}.${arch}.rpm`);
  return fs.readFileSync(file);
}

/** Verify an armored detached signature with gpg against the armored public key only. */
export async function gpgVerify(workDir: string, publicKey: string, data: Buffer, signature: Buffer): Promise<RunResult> {
  const home = fs.mkdtempSync(path.join(workDir, 'gnupg-'));
  fs.chmodSync(home, 0o700);
  fs.writeFileSync(path.join(home, 'key.asc'), publicKey);
  fs.writeFileSync(path.join(home, 'data'), data);
  fs.writeFileSync(path.join(home, 'data.asc'), signature);
  const env = { ...process.env, GNUPGHOME: home };
  mustSucceed(await run('gpg', ['--batch', '--import', path.join(home, 'key.asc')], { env }), 'gpg --import');
  return run('gpg', ['--batch', '--verify', path.join(home, 'data.asc'), path.join(home, 'data')], { env });
}
