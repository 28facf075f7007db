import crypto from 'node:crypto';
import fs from 'node:fs';
import { ArchiveError, gzipMember, readTar, type GzipMember } from '@hearth/package-kit';

/** An upload that is not a well-formed apk v2 package (answered 400). */
export class ApkFormatError extends Error {}

/** Where the control segment has to end: the signature and control segments are small. */
const SEGMENT_WINDOW = 16 * 1024 * 1024;
const MAX_CONTROL_SIZE = 16 * 1024 * 1024;

export const APK_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;
export const APK_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+~-]{0,127}$/;
export const APK_ARCH = /^[A-Za-z0-9_]{1,32}$/;

/** `.PKGINFO`: single-valued keys and the repeated ones apk turns into lists. */
export interface PkgInfo {
  pkgname: string;
  pkgver: string;
  arch: string;
  pkgdesc: string;
  url: string;
  license: string;
  origin: string;
  maintainer: string;
  packager: string;
  commit: string;
  builddate: number;
  size: number;
  providerPriority?: number;
  datahash?: string;
  depends: string[];
  provides: string[];
  replaces: string[];
  installIf: string[];
}

export interface ParsedApk {
  info: PkgInfo;
  /** Q1 + base64(SHA-1 of the control segment's gzip bytes): the index's `C:` field. */
  checksum: string;
  /** Whether the package carried its own `.SIGN.*` segment. */
  signed: boolean;
}

/** One gzip segment of the package (kept small: signature and control segments are a few KiB). */
function segment(bytes: Buffer, start: number): GzipMember {
  try {
    return gzipMember(bytes, start, MAX_CONTROL_SIZE);
  } catch (err) {
    if (err instanceof ArchiveError) throw new ApkFormatError(`not an apk package: a segment is ${err.message}`);
    throw err;
  }
}

function parsePkgInfo(text: string): PkgInfo {
  const single = new Map<string, string>();
  const lists: Record<'depend' | 'provides' | 'replaces' | 'install_if', string[]> = {
    depend: [],
    provides: [],
    replaces: [],
    install_if: [],
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf(' = ');
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 3);
    if (key in lists) lists[key as keyof typeof lists].push(...(key === 'install_if' ? value.split(/\s+/).filter(Boolean) : [value]));
    else single.set(key, value);
  }
  const get = (k: string) => single.get(k) ?? '';
  const int = (k: string) => (/^\d+$/.test(get(k)) ? Number(get(k)) : 0);
  const info: PkgInfo = {
    pkgname: get('pkgname'),
    pkgver: get('pkgver'),
    arch: get('arch'),
    pkgdesc: get('pkgdesc'),
    url: get('url'),
    license: get('license'),
    origin: get('origin'),
    maintainer: get('maintainer'),
    packager: get('packager'),
    commit: get('commit'),
    builddate: int('builddate'),
    size: int('size'),
    depends: lists.depend,
    provides: lists.provides,
    replaces: lists.replaces,
    installIf: lists.install_if,
  };
  if (single.has('provider_priority') && /^\d+$/.test(get('provider_priority'))) info.providerPriority = int('provider_priority');
  if (single.has('datahash')) info.datahash = get('datahash').toLowerCase();
  if (!info.pkgname || !info.pkgver || !info.arch) throw new ApkFormatError('.PKGINFO lacks pkgname, pkgver or arch');
  if (!APK_NAME.test(info.pkgname)) throw new ApkFormatError(`invalid pkgname "${info.pkgname}"`);
  if (!APK_VERSION.test(info.pkgver)) throw new ApkFormatError(`invalid pkgver "${info.pkgver}"`);
  if (!APK_ARCH.test(info.arch)) throw new ApkFormatError(`invalid arch "${info.arch}"`);
  for (const [field, values] of Object.entries(lists)) {
    // A value with a newline or a tab would forge index lines.
    if (values.some((v) => /[\r\n\t]/.test(v))) throw new ApkFormatError(`.PKGINFO ${field} has a control character`);
  }
  return info;
}

async function sha256OfRange(path: string, start: number): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(path, { start })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Read an .apk (v2) from `path`: gzip members one at a time (signature segment optional),
 * `.PKGINFO` from the control segment, the `C:` checksum over the control segment's bytes, and
 * the data segment checked against `datahash` when the package names one.
 */
export async function readApk(path: string): Promise<ParsedApk> {
  const handle = await fs.promises.open(path, 'r');
  let window: Buffer;
  try {
    const { size } = await handle.stat();
    window = Buffer.alloc(Math.min(size, SEGMENT_WINDOW));
    await handle.read(window, 0, window.length, 0);
  } finally {
    await handle.close();
  }
  try {
    let member = segment(window, 0);
    let entries = readTar(member.content);
    const signed = entries.length > 0 && entries.every((e) => e.name.startsWith('.SIGN.'));
    if (signed) {
      member = segment(window, member.end);
      entries = readTar(member.content);
    }
    const pkginfo = entries.find((e) => e.name === '.PKGINFO' || e.name === './.PKGINFO');
    if (!pkginfo) throw new ApkFormatError('the control segment has no .PKGINFO');
    const info = parsePkgInfo(pkginfo.data.toString('utf8'));
    if (member.end >= (await fs.promises.stat(path)).size) throw new ApkFormatError('the package has no data segment');
    if (info.datahash && (await sha256OfRange(path, member.end)) !== info.datahash) {
      throw new ApkFormatError('the data segment does not match the datahash of .PKGINFO: the package is corrupt');
    }
    const checksum = `Q1${crypto.createHash('sha1').update(window.subarray(member.start, member.end)).digest('base64')}`;
    return { info, checksum, signed };
  } catch (err) {
    if (err instanceof ArchiveError) throw new ApkFormatError(`a segment is not a valid tar archive: ${err.message}`);
    throw err;
  }
}
