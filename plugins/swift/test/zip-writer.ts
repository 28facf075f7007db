import { writeZip } from '@hearth/package-kit';

/** Test zips: what `swift package archive-source` produces (one top directory, deflated entries). */
export function makeZip(entries: { name: string; content: string | Buffer; store?: boolean }[]): Buffer {
  return writeZip(
    entries.map((e) => ({ name: e.name, data: Buffer.isBuffer(e.content) ? e.content : Buffer.from(e.content), store: e.store })),
  );
}

export function manifest(toolsVersion: string, name: string): string {
  return (
    `// swift-tools-version:${toolsVersion}\nimport PackageDescription\n\n` +
    `let package = Package(name: "${name}", targets: [.target(name: "${name}")])\n`
  );
}

/** A source archive as `swift package archive-source` makes it: `<Name>/Package.swift`, sources, optional version-specific manifests. */
export function sourceArchive(name: string, extraManifests: Record<string, string> = {}, sources = 'public struct Thing {}\n'): Buffer {
  return makeZip([
    { name: `${name}/Package.swift`, content: manifest('5.7', name) },
    ...Object.entries(extraManifests).map(([swift, tools]) => ({
      name: `${name}/Package@swift-${swift}.swift`,
      content: manifest(tools, name),
    })),
    { name: `${name}/Sources/${name}/${name}.swift`, content: sources },
    { name: `${name}/README.md`, content: '# readme\n', store: true },
  ]);
}
