/** One index file a Release lists, by its path relative to `dists/<distribution>/`. */
export interface IndexFileEntry {
  path: string;
  size: number;
  md5: string;
  sha256: string;
}

export interface ReleaseInput {
  owner: string;
  distribution: string;
  components: string[];
  architectures: string[];
  files: IndexFileEntry[];
  date: Date;
}

/** RFC 2822 in UTC, as apt wants it (`Sat, 01 Jan 2024 00:00:00 UTC`). */
export function releaseDate(date: Date): string {
  return date.toUTCString().replace(/GMT$/, 'UTC');
}

/**
 * The Release file of a distribution. `Acquire-By-Hash: yes` makes apt fetch the index files by
 * their SHA256 (immutable URLs), so a Release read during a publish never meets a Packages file
 * of another generation. Architecture `all` packages are listed in every `binary-<arch>` index
 * (`No-Support-for-Architecture-all: Packages`); `all` is an architecture of its own only when a
 * distribution has nothing else.
 */
export function releaseFile(input: ReleaseInput): string {
  const files = [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const lines = [
    `Origin: ${input.owner}`,
    `Label: ${input.owner}`,
    `Suite: ${input.distribution}`,
    `Codename: ${input.distribution}`,
    `Date: ${releaseDate(input.date)}`,
    `Architectures: ${input.architectures.join(' ')}`,
    `Components: ${input.components.join(' ')}`,
    'Acquire-By-Hash: yes',
  ];
  if (!input.architectures.includes('all')) lines.push('No-Support-for-Architecture-all: Packages');
  lines.push('MD5Sum:', ...files.map((f) => ` ${f.md5} ${String(f.size).padStart(8)} ${f.path}`));
  lines.push('SHA256:', ...files.map((f) => ` ${f.sha256} ${String(f.size).padStart(8)} ${f.path}`));
  return `${lines.join('\n')}\n`;
}
