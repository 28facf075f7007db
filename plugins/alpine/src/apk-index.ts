import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { ParsedApk } from './apk-package';
import { TAR_END, tarFile } from '@hearth/package-kit';

/** One value of an index line: newlines would start a new field, so they become spaces. */
const flat = (value: string) => value.replace(/[\r\n]+/g, ' ');

/** A package's APKINDEX record (one letter keys, as apk-tools writes them), ending with a blank line. */
export function indexStanza(apk: ParsedApk, fileSize: number): string {
  const i = apk.info;
  const lines: [string, string | number | undefined][] = [
    ['C', apk.checksum],
    ['P', i.pkgname],
    ['V', i.pkgver],
    ['A', i.arch],
    ['S', fileSize],
    ['I', i.size],
    ['T', i.pkgdesc],
    ['U', i.url],
    ['L', i.license],
    ['o', i.origin || undefined],
    ['m', i.maintainer || undefined],
    ['t', i.builddate || undefined],
    ['c', i.commit || undefined],
    ['k', i.providerPriority],
    ['D', i.depends.join(' ') || undefined],
    ['p', i.provides.join(' ') || undefined],
    ['i', i.installIf.join(' ') || undefined],
    ['r', i.replaces.join(' ') || undefined],
  ];
  return `${lines
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}:${flat(String(v))}`)
    .join('\n')}\n\n`;
}

export interface SignedIndex {
  /** The whole APKINDEX.tar.gz: signature segment, then the index segment. */
  body: Buffer;
  sha256: string;
}

/**
 * APKINDEX.tar.gz as apk verifies it: a gzip member with the tar entry `.SIGN.RSA.<keyName>`
 * (no end-of-archive blocks) holding an RSA PKCS#1 v1.5 SHA-1 signature over the exact bytes of
 * the second gzip member, which holds DESCRIPTION and APKINDEX as a complete tar archive.
 */
export function signedIndex(
  stanzas: string[],
  description: string,
  keyName: string,
  sign: (data: Buffer) => Buffer,
  mtime: number,
): SignedIndex {
  const index = zlib.gzipSync(
    Buffer.concat([
      tarFile('DESCRIPTION', Buffer.from(description), { mtime }),
      tarFile('APKINDEX', Buffer.from(stanzas.join('')), { mtime }),
      TAR_END,
    ]),
    { level: 6 },
  );
  const signature = zlib.gzipSync(tarFile(`.SIGN.RSA.${keyName}`, sign(index), { mtime }));
  const body = Buffer.concat([signature, index]);
  return { body, sha256: crypto.createHash('sha256').update(body).digest('hex') };
}
