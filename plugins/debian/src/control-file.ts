import { ApiError, type PackageHashes } from '@hearth/plugin-api';

/** Debian policy 5.6.1 (two or more characters). */
export const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;
/** [epoch:]upstream[-revision]; upstream starts with a digit by policy, but real archives hold exceptions. */
export const PACKAGE_VERSION = /^(?:\d+:)?[A-Za-z0-9][A-Za-z0-9.+~-]*(?::[A-Za-z0-9.+~-]+)*$/;
export const ARCHITECTURE = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** Distribution and component names: one path segment, no dots at the start. */
export const SUITE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Fields the registry computes per file: dropped from the uploaded control paragraph. */
const SERVER_FIELDS = new Set(['filename', 'size', 'md5sum', 'sha1', 'sha256', 'sha512', 'description-md5']);

export interface ControlParagraph {
  /** Fields in their original order: name as written, value with continuation lines (`\n `-joined). */
  fields: Array<[string, string]>;
  name: string;
  version: string;
  architecture: string;
}

const invalid = (message: string) => ApiError.badRequest(`invalid control file: ${message}`);

/** Parse and validate the control paragraph of a binary package. */
export function parseControl(text: string): ControlParagraph {
  const fields: Array<[string, string]> = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (const line of lines) {
    if (line.trim() === '') {
      if (fields.length) break; // one paragraph: anything after a blank line is not ours
      continue;
    }
    if (line.startsWith('#')) continue;
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (!fields.length) throw invalid('continuation line before the first field');
      // Within a stanza an empty continuation line must be written ` .` (gitea#26313: a bare blank line ends the stanza).
      const continuation = line.trimEnd().trim() === '' ? ' .' : ` ${line.trimEnd().replace(/^[ \t]/, '')}`;
      fields[fields.length - 1][1] += `\n${continuation}`;
      continue;
    }
    const match = /^([!-9;-~][!-9;-~]*):(.*)$/.exec(line);
    if (!match) throw invalid(`malformed line "${line.slice(0, 60)}"`);
    const name = match[1];
    if (fields.some(([n]) => n.toLowerCase() === name.toLowerCase())) throw invalid(`duplicate field ${name}`);
    fields.push([name, match[2].trim()]);
  }
  const get = (field: string) => fields.find(([n]) => n.toLowerCase() === field.toLowerCase())?.[1];
  const name = get('Package');
  const version = get('Version');
  const architecture = get('Architecture');
  if (!name) throw invalid('missing Package field');
  if (!version) throw invalid('missing Version field');
  if (!architecture) throw invalid('missing Architecture field');
  if (!PACKAGE_NAME.test(name) || name.length > 128) throw invalid(`invalid package name "${name.slice(0, 64)}"`);
  if (!PACKAGE_VERSION.test(version) || version.length > 128) throw invalid(`invalid version "${version.slice(0, 64)}"`);
  if (!ARCHITECTURE.test(architecture)) throw invalid(`invalid architecture "${architecture.slice(0, 64)}"`);
  if (!get('Description')) throw invalid('missing Description field');
  return { fields, name, version, architecture };
}

/** The pool file name: name_version_arch.deb with the epoch dropped, as the Debian archive names files. */
export function poolFileName(control: Pick<ControlParagraph, 'name' | 'version' | 'architecture'>): string {
  return `${control.name}_${control.version.replace(/^\d+:/, '')}_${control.architecture}.deb`;
}

/** The Packages stanza of an uploaded file: its control fields, then where it is and its checksums. Ends with one newline. */
export function packagesStanza(control: ControlParagraph, filename: string, size: number, hashes: PackageHashes): string {
  const lines = control.fields.filter(([n]) => !SERVER_FIELDS.has(n.toLowerCase())).map(([n, v]) => `${n}: ${v}`);
  lines.push(
    `Filename: ${filename}`,
    `Size: ${size}`,
    `MD5sum: ${hashes.md5}`,
    `SHA1: ${hashes.sha1}`,
    `SHA256: ${hashes.sha256}`,
    `SHA512: ${hashes.sha512}`,
  );
  return `${lines.join('\n')}\n`;
}

/** A field's first line (e.g. Maintainer, the Description synopsis). */
export function fieldValue(control: ControlParagraph, field: string): string | undefined {
  return control.fields.find(([n]) => n.toLowerCase() === field.toLowerCase())?.[1].split('\n')[0];
}
