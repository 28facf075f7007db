import type { AttachedGitDirectory } from '@hearth/plugin-api';

/**
 * The git repositories plugins keep beside every repository (`ctx.git.serveAttached`, e.g. the
 * wiki's `<name>.wiki.git`): which request name is one, for the smart HTTP transport, and which
 * suffixes the repository layer must treat as taken names.
 */
export class AttachedGitDirectories {
  private readonly list: AttachedGitDirectory[] = [];

  add(directory: AttachedGitDirectory): void {
    const suffix = directory.suffix.toLowerCase();
    if (!/^\.[a-z0-9][a-z0-9_-]*$/.test(suffix)) throw new Error(`attached git suffix "${directory.suffix}" must look like ".wiki"`);
    if (this.list.some((d) => d.suffix === suffix)) throw new Error(`the attached git suffix "${suffix}" is registered twice`);
    this.list.push({ ...directory, suffix });
  }

  /** The attached repository a requested name (without `.git`) names, and the repository it belongs to. */
  match(requested: string): { directory: AttachedGitDirectory; repoName: string } | null {
    const lower = requested.toLowerCase();
    for (const directory of this.list) {
      if (lower.endsWith(directory.suffix) && lower.length > directory.suffix.length) {
        return { directory, repoName: requested.slice(0, -directory.suffix.length) };
      }
    }
    return null;
  }

  get suffixes(): string[] {
    return this.list.map((d) => d.suffix);
  }
}
