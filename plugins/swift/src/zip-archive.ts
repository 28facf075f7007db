import { ApiError } from '@hearth/plugin-api';
import { ArchiveError, ZipFile } from '@hearth/package-kit';

/** A manifest found in a source archive. */
export interface Manifest {
  /** `Package.swift` or `Package@swift-X[.Y[.Z]].swift`. */
  filename: string;
  /** The X[.Y[.Z]] of a version-specific manifest; undefined for `Package.swift`. */
  swiftVersion?: string;
  /** From the `// swift-tools-version:` comment, when present. */
  toolsVersion?: string;
  content: string;
}

const MAX_ENTRIES = 100_000;
export const MAX_MANIFEST_BYTES = 256 * 1024;
const MANIFEST_NAME = /^Package(?:@swift-(\d+(?:\.\d+){0,2}))?\.swift$/;
const TOOLS_VERSION = /^\/\/\s*swift-tools-version\s*:\s*(\d+(?:\.\d+){0,2})/;

const invalid = (why: string) => ApiError.unprocessable(`invalid source archive: ${why}`);

/**
 * The manifests of a source archive as `swift package archive-source` makes it: one top-level
 * directory holding `Package.swift` and any `Package@swift-X.swift`. Manifests are looked for at
 * the archive root too (hand-made zips). No `Package.swift` → 422.
 */
export async function readManifests(path: string): Promise<Manifest[]> {
  let zip: ZipFile | undefined;
  try {
    zip = await ZipFile.open(path);
    const entries = zip.entries;
    if (entries.length > MAX_ENTRIES) throw invalid(`more than ${MAX_ENTRIES} entries`);
    const manifests: Manifest[] = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      const parts = entry.name.split('/');
      if (parts.some((part) => part === '..') || entry.name.startsWith('/'))
        throw invalid(`unsafe entry name "${entry.name.slice(0, 200)}"`);
      if (parts.length > 2) continue;
      const base = parts[parts.length - 1];
      const m = MANIFEST_NAME.exec(base);
      if (!m) continue;
      if (seen.has(base)) throw invalid(`more than one ${base}`);
      seen.add(base);
      const content = (await zip.readBytes(entry, MAX_MANIFEST_BYTES)).toString('utf8');
      const tools = TOOLS_VERSION.exec(content.split('\n', 1)[0] ?? '');
      manifests.push({ filename: base, swiftVersion: m[1], toolsVersion: tools?.[1], content });
    }
    if (!seen.has('Package.swift')) throw invalid('the archive contains no Package.swift');
    return manifests;
  } catch (err) {
    if (err instanceof ArchiveError) throw invalid(err.message);
    throw err;
  } finally {
    await zip?.close();
  }
}
