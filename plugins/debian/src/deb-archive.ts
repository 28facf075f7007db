import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import { ApiError } from '@hearth/plugin-api';
import { ArchiveError, ArFile, scanTar } from '@hearth/package-kit';

/** The largest compressed or uncompressed control archive accepted (real ones are a few KiB). */
export const MAX_CONTROL_ARCHIVE = 4 * 1024 * 1024;
const invalid = (message: string) => ApiError.badRequest(`invalid Debian package: ${message}`);

/**
 * The `control` file of a .deb on disk: the ar archive's `debian-binary` (2.x) and
 * `control.tar[.gz|.xz|.zst]` members, decompressed (bounded) and searched for `./control`.
 * Only the first members are read; the data archive is never touched.
 */
export async function readControlFile(path: string): Promise<string> {
  let ar: ArFile | undefined;
  try {
    ar = await ArFile.open(path);
    const first = await ar.next();
    if (!first || first.name !== 'debian-binary') throw invalid('the first member is not debian-binary');
    if (!/^2\.\d+\n/.test((await ar.read(first, 16)).toString('latin1'))) throw invalid('unsupported format version in debian-binary');
    for (;;) {
      const member = await ar.next();
      if (!member) throw invalid('no control.tar member');
      if (member.name.startsWith('control.tar')) {
        if (member.size > MAX_CONTROL_ARCHIVE) throw invalid('control archive too large');
        return await controlFromTar(await decompress(member.name, await ar.read(member)));
      }
      // Members starting with `_` (signatures) may come before the control archive; data.tar may not.
      if (!member.name.startsWith('_')) throw invalid(`unexpected member ${member.name} before control.tar`);
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw invalid(err.message);
    throw err;
  } finally {
    await ar?.close();
  }
}

async function decompress(memberName: string, data: Buffer): Promise<Buffer> {
  const compression = memberName.slice('control.tar'.length);
  try {
    switch (compression) {
      case '':
        return data;
      case '.gz':
        return zlib.gunzipSync(data, { maxOutputLength: MAX_CONTROL_ARCHIVE });
      case '.xz':
        return await unxz(data);
      case '.zst':
        return unzstd(data);
      default:
        throw invalid(`unsupported control archive compression ${memberName}`);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw invalid(`${memberName} cannot be decompressed (${(err as Error).message})`);
  }
}

/** xz through xz-embedded compiled to WebAssembly (no native code). */
async function unxz(data: Buffer): Promise<Buffer> {
  // The package is a UMD bundle without type declarations that TypeScript can resolve under node16.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { XzReadableStream } = require('xz-decompress') as {
    XzReadableStream: new (s: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;
  };
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(data));
      controller.close();
    },
  });
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = new XzReadableStream(source).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_CONTROL_ARCHIVE) {
      await reader.cancel();
      throw invalid('control archive too large');
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

function unzstd(data: Buffer): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const stream = new ZstdDecompress((chunk) => {
    total += chunk.length;
    if (total > MAX_CONTROL_ARCHIVE) throw invalid('control archive too large');
    chunks.push(Buffer.from(chunk));
  });
  stream.push(new Uint8Array(data), true);
  return Buffer.concat(chunks);
}

/** The `control` entry of a tar archive (with or without a `./` prefix; ustar, GNU and pax headers). */
async function controlFromTar(tar: Buffer): Promise<string> {
  const found = await scanTar(Readable.from([tar]), {
    want: (p) => p === 'control',
    done: (f) => f.size > 0,
    maxEntrySize: MAX_CONTROL_ARCHIVE,
    maxTotal: MAX_CONTROL_ARCHIVE,
  });
  const control = found.get('control');
  if (!control) throw invalid('the control archive has no control file');
  return control.toString('utf8');
}
