import { writeZip } from '@hearth/package-kit';

export { writeZip, type ZipInput } from '@hearth/package-kit';

/** A module zip: every file under `module@version/`. */
export function moduleZip(modulePath: string, version: string, files: Record<string, string | Buffer>): Buffer {
  return writeZip(
    Object.entries(files).map(([name, content]) => ({
      name: `${modulePath}@${version}/${name}`,
      data: Buffer.isBuffer(content) ? content : Buffer.from(content),
    })),
  );
}
