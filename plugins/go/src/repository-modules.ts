import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { writeZip } from '@hearth/package-kit';
import { isApiError, type Principal, type PluginContext, type RepositoryTarget, type UserInfo } from '@hearth/plugin-api';
import { declaredModulePath } from './go-mod';
import { selectModuleFiles, type TreeFile } from './module-files';
import { checkVersionForPath, isCanonicalVersion } from './module-path';
import type { ModuleVersion } from './module-store';

/** A module version served from a repository tag. */
export interface TagVersion extends ModuleVersion {
  /** The commit the tag points at (through an annotated tag). */
  commit: string;
}

/** A module path of this server resolved to a repository the caller may read. */
export interface RepositoryModule {
  modulePath: string;
  repository: RepositoryTarget;
}

/** A module zip built from a tag, on disk. */
export interface BuiltZip {
  file: string;
  size: number;
  sha256: string;
}

/** Why a tag's tree gives no module zip (Go would refuse to create it too): answered 404 with the reasons. */
export class UnusableTree extends Error {}

const REPO_NAME = /^[A-Za-z0-9._-]+$/;
/** How many tags' go.mod checks are remembered (by commit, which never changes content). */
const GO_MOD_MEMO_LIMIT = 5000;
/** Blobs read per `cat-file --batch`, by total size, so a large module is not read into one buffer at once. */
const BLOB_BATCH_BYTES = 32 << 20;

/**
 * Go modules served straight from repository tags: a repository `{owner}/{repo}` of this server
 * whose go.mod declares `{host}{/path}/{owner}/{repo}` (or `…/vN`) is that module; its tags that
 * are canonical semantic versions fitting the major version, and whose go.mod at the tag declares
 * the module path, are its versions. `.mod` is the go.mod blob at the tag, `.info` has the commit's
 * date, `.zip` is built from the tree at the tag by Go's module zip rules (selectModuleFiles) and
 * kept on disk per repository and commit, dropped when the repository receives a push.
 */
export class RepositoryModules {
  private readonly zipRoot: string;
  /** Whether the go.mod at a commit declares a module path: `${repositoryId}:${commit}` → declared path (or null). */
  private readonly declared = new Map<string, string | null>();
  /** Zip builds in progress, so concurrent downloads build once. */
  private readonly building = new Map<string, Promise<BuiltZip>>();

  constructor(private readonly ctx: PluginContext<{ maxRepositoryModuleSize: number; modulePathPrefix: string }>) {
    this.zipRoot = path.join(ctx.forge.dataDir, 'go', 'tag-zips');
  }

  /**
   * The module path prefix of this server's repositories: the `modulePathPrefix` setting, else
   * ROOT_URL's host name (module paths cannot hold a port) and path. Read per call: ROOT_URL may
   * be set at listen.
   */
  private prefix(): string {
    if (this.ctx.settings.modulePathPrefix) return `${this.ctx.settings.modulePathPrefix}/`;
    const url = new URL(this.ctx.forge.appUrl);
    return `${url.hostname.toLowerCase()}${url.pathname.replace(/\/+$/, '')}/`;
  }

  /**
   * The repository a module path names, when it is `{prefix}{owner}/{repo}[/vN]` for the proxy's
   * owner and the caller may read the repository's code; null otherwise (the caller cannot tell a
   * private repository from a missing one).
   */
  async resolve(owner: UserInfo, principal: Principal | null, modulePath: string): Promise<RepositoryModule | null> {
    const prefix = this.prefix();
    if (!modulePath.startsWith(prefix)) return null;
    const parts = modulePath.slice(prefix.length).split('/');
    if (parts.length === 3 && /^v([2-9]|[1-9]\d+)$/.test(parts[2])) parts.pop();
    if (parts.length !== 2 || parts[0].toLowerCase() !== owner.name.toLowerCase() || !REPO_NAME.test(parts[1])) return null;
    try {
      const repository = await this.ctx.access.repository(owner.name, parts[1], principal, 'read', 'code');
      return repository.isEmpty ? null : { modulePath, repository };
    } catch (err) {
      // Not visible (404) or visible without code access (403): both a plain 404 for go.
      if (isApiError(err) && (err.status === 403 || err.status === 404)) return null;
      throw err;
    }
  }

  /**
   * The module's versions from tags, in semver order: canonical tags fitting the major version
   * whose go.mod declares exactly the module path. Refs are read on every call (one git process),
   * so a tag pushed through any process shows at once; go.mod checks are remembered per commit.
   */
  async versions(module: RepositoryModule): Promise<TagVersion[]> {
    const { gitDir, id } = module.repository;
    const format = '%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(*objectname)%00%(committerdate:unix)%00%(*committerdate:unix)';
    const out = await this.ctx.git.run(gitDir, ['for-each-ref', `--format=${format}`, 'refs/tags/']);
    const candidates: TagVersion[] = [];
    for (const line of out.stdout.toString('utf8').split('\n')) {
      const [tag, type, object, peeled, date, peeledDate] = line.split('\0');
      if (!tag || !isCanonicalVersion(tag) || tag.endsWith('+incompatible') || checkVersionForPath(module.modulePath, tag)) continue;
      const commit = type === 'tag' ? peeled : object;
      const seconds = Number(type === 'tag' ? peeledDate : date);
      if (!commit || !Number.isFinite(seconds)) continue;
      candidates.push({ id: 0, version: tag, time: new Date(seconds * 1000), commit });
    }
    const unknown = [...new Set(candidates.map((c) => c.commit).filter((c) => !this.declared.has(`${id}:${c}`)))];
    if (unknown.length) {
      const blobs = await this.goModsAt(gitDir, unknown);
      for (const commit of unknown) {
        const goMod = blobs.get(commit);
        if (this.declared.size >= GO_MOD_MEMO_LIMIT) this.declared.delete(this.declared.keys().next().value!);
        this.declared.set(`${id}:${commit}`, goMod ? declaredModulePath(goMod.toString('utf8')) : null);
      }
    }
    return candidates
      .filter((c) => this.declared.get(`${id}:${c.commit}`) === module.modulePath)
      .sort((a, b) => semver.compare(a.version, b.version));
  }

  /** The go.mod blobs (regular files at the root only: not a symbolic link) of `commits`, by commit. */
  private async goModsAt(gitDir: string, commits: string[]): Promise<Map<string, Buffer>> {
    const blobIds = new Map<string, string>();
    for (const commit of commits) {
      const listed = await this.ctx.git.run(gitDir, ['ls-tree', '-z', commit, '--', 'go.mod']);
      const record = listed.stdout.toString('utf8').split('\0')[0] ?? '';
      const [mode, kind, sha] = record.slice(0, Math.max(0, record.indexOf('\t'))).split(' ');
      if (kind === 'blob' && (mode === '100644' || mode === '100755')) blobIds.set(commit, sha);
    }
    const blobs = await this.ctx.git.readBlobs(gitDir, [...new Set(blobIds.values())]);
    const found = new Map<string, Buffer>();
    for (const [commit, sha] of blobIds) {
      const blob = blobs.get(sha);
      if (blob) found.set(commit, blob);
    }
    return found;
  }

  /** One tag version of the module, or null. */
  async find(module: RepositoryModule, version: string): Promise<TagVersion | null> {
    return (await this.versions(module)).find((v) => v.version === version) ?? null;
  }

  /** The go.mod at the tag, byte for byte. */
  async goMod(module: RepositoryModule, version: TagVersion): Promise<Buffer> {
    const blobs = await this.goModsAt(module.repository.gitDir, [version.commit]);
    const goMod = blobs.get(version.commit);
    if (!goMod) throw new UnusableTree(`${module.modulePath}@${version.version}: go.mod is gone`);
    return goMod;
  }

  private zipDir(repositoryId: number): string {
    return path.join(this.zipRoot, String(repositoryId));
  }

  /**
   * The module zip of a tag version: from the cache directory when it was built before (by any
   * process: the name holds the commit, module path and version, which fix the content), else
   * built from the tree now, written to a temporary file and renamed into place.
   */
  async zip(module: RepositoryModule, version: TagVersion): Promise<BuiltZip> {
    const key = crypto.createHash('sha256').update(`${module.modulePath}@${version.version}`).digest('hex').slice(0, 16);
    const file = path.join(this.zipDir(module.repository.id), `${version.commit}-${key}.zip`);
    const cached = await this.describe(file);
    if (cached) return cached;
    let pending = this.building.get(file);
    if (!pending) {
      pending = this.build(module, version, file).finally(() => this.building.delete(file));
      this.building.set(file, pending);
    }
    return pending;
  }

  private async describe(file: string): Promise<BuiltZip | null> {
    try {
      const content = await fs.promises.readFile(`${file}.sha256`, 'utf8');
      const stat = await fs.promises.stat(file);
      return { file, size: stat.size, sha256: content.trim() };
    } catch {
      return null;
    }
  }

  private async build(module: RepositoryModule, version: TagVersion, file: string): Promise<BuiltZip> {
    const { gitDir } = module.repository;
    const listed = await this.ctx.git.run(gitDir, ['ls-tree', '-r', '-z', '--long', '--full-tree', version.commit]);
    const selection = selectModuleFiles(parseTree(listed.stdout), this.ctx.settings.maxRepositoryModuleSize);
    if (selection.errors.length) {
      throw new UnusableTree(
        `${module.modulePath}@${version.version}: the tagged tree is not a valid module: ` + `${selection.errors.slice(0, 8).join('; ')}`,
      );
    }
    const prefix = `${module.modulePath}@${version.version}/`;
    const inputs: Array<{ name: string; data: Buffer }> = [];
    for (const batch of batches(selection.files)) {
      const blobs = await this.ctx.git.readBlobs(
        gitDir,
        batch.map((f) => f.sha),
      );
      for (const f of batch) {
        const data = blobs.get(f.sha);
        if (!data) throw new Error(`blob ${f.sha} of ${f.path} is missing from ${gitDir}`);
        inputs.push({ name: `${prefix}${f.path}`, data });
      }
    }
    const zip = writeZip(inputs);
    const sha256 = crypto.createHash('sha256').update(zip).digest('hex');
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
    await fs.promises.writeFile(temporary, zip);
    await fs.promises.rename(temporary, file);
    // The hash file last: its presence says the zip beside it is complete.
    await fs.promises.writeFile(`${temporary}.sha256`, sha256);
    await fs.promises.rename(`${temporary}.sha256`, `${file}.sha256`);
    return { file, size: zip.length, sha256 };
  }

  /** A push changed the repository's tags: drop its built zips and remembered go.mod checks. */
  async forget(repositoryId: number): Promise<void> {
    for (const key of this.declared.keys()) if (key.startsWith(`${repositoryId}:`)) this.declared.delete(key);
    await fs.promises.rm(this.zipDir(repositoryId), { recursive: true, force: true });
  }
}

/** `git ls-tree -r -z --long` output: blobs, symbolic links and submodules, with their full paths. */
function parseTree(out: Buffer): TreeFile[] {
  const files: TreeFile[] = [];
  for (const record of out.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, , sha, size] = record.slice(0, tab).split(/ +/);
    files.push({ path: record.slice(tab + 1), mode, sha, size: size === '-' ? 0 : Number(size) });
  }
  return files;
}

function* batches(files: TreeFile[]): Generator<TreeFile[]> {
  let batch: TreeFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (batch.length && bytes + f.size > BLOB_BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(f);
    bytes += f.size;
  }
  if (batch.length) yield batch;
}
