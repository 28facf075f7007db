import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { runCommand, type CommandOptions } from '@hearth/testing';
import { tarFile, writeZip } from '@hearth/package-kit';

/** Test fixtures for the CRAN registry: source tarballs, binary archives, and running R. */
export const md5 = (data: Buffer) => crypto.createHash('md5').update(data).digest('hex');

/** One ustar header block + the padded content. */
export const tarEntry = (name: string, content: Buffer, type = '0'): Buffer => tarFile(name, content, { type });

export function tarGz(files: Record<string, string | Buffer>): Buffer {
  const entries = Object.entries(files).map(([name, content]) => tarEntry(name, Buffer.isBuffer(content) ? content : Buffer.from(content)));
  return zlib.gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));
}

/** A zip archive with deflated members (what R's Windows binaries are). */
export function zip(files: Record<string, string | Buffer>): Buffer {
  return writeZip(
    Object.entries(files).map(([name, content]) => ({ name, data: Buffer.isBuffer(content) ? content : Buffer.from(content) })),
  );
}

export function description(fields: Record<string, string>): string {
  return `${Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n`;
}

/** A source package tarball as R CMD build lays it out: everything under `<name>/`. */
export function sourcePackage(name: string, version: string, extra: Record<string, string> = {}, dir = name): Buffer {
  return tarGz({
    [`${dir}/DESCRIPTION`]: description({
      Package: name,
      Version: version,
      Title: `The ${name} package`,
      License: 'MIT',
      Description: 'A test package.',
      ...extra,
    }),
    [`${dir}/NAMESPACE`]: 'export(hello)\n',
    [`${dir}/R/hello.R`]: 'hello <- function() "hi"\n',
  });
}

/** A binary package: `<name>/DESCRIPTION` with a Built line, as a zip (Windows) or a .tgz (macOS). */
export function binaryPackage(name: string, version: string, format: 'zip' | 'tgz', extra: Record<string, string> = {}): Buffer {
  const files = {
    [`${name}/DESCRIPTION`]: description({
      Package: name,
      Version: version,
      License: 'MIT',
      Built: 'R 4.2.2; ; 2024-01-01 00:00:00 UTC; windows',
      ...extra,
    }),
    [`${name}/NAMESPACE`]: 'export(hello)\n',
  };
  return format === 'zip' ? zip(files) : tarGz(files);
}

/** Parse PACKAGES into records (continuation lines joined). */
export function parsePackages(text: string): Record<string, string>[] {
  return text
    .split(/\n\s*\n/)
    .filter((b) => b.trim())
    .map((block) => {
      const record: Record<string, string> = {};
      let last = '';
      for (const line of block.split('\n').filter((l) => l !== '')) {
        if (/^\s/.test(line)) record[last] += ` ${line.trim()}`;
        else {
          const i = line.indexOf(':');
          last = line.slice(0, i);
          record[last] = line.slice(i + 1).trim();
        }
      }
      return record;
    });
}

/** Run R and friends asynchronously (the server under test lives in this process). */
export const run = (cmd: string, args: string[], options: CommandOptions & { cwd: string }) => runCommand(cmd, args, options);
