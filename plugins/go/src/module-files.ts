import { checkFilePath } from './module-path';
import { CollisionCheck, MAX_GO_MOD, MAX_LICENSE, MAX_ZIP_FILE, isVendoredPackage } from './module-zip';

/** A file of a repository tree, as `git ls-tree -r --long` lists it (relative to the module root). */
export interface TreeFile {
  path: string;
  /** git's mode: 100644/100755 regular, 120000 symbolic link, 160000 submodule. */
  mode: string;
  /** Blob id (for a submodule, the commit it pins). */
  sha: string;
  size: number;
}

/** What goes into a module zip built from a tree: the files, or why no zip can be built. */
export interface ModuleFileSelection {
  files: TreeFile[];
  /** Files left out as Go leaves them out (vendored packages, nested modules, symbolic links, submodules…), with the reason. */
  omitted: Array<{ path: string; reason: string }>;
  /** Problems that make the tree unusable as a module (Go refuses to create the zip): empty when it is fine. */
  errors: string[];
}

const isRegular = (f: TreeFile) => f.mode === '100644' || f.mode === '100755';
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/**
 * The files of a module zip made from a source tree, by the rules Go's module zip producer applies
 * (x/mod/zip's checkFiles, which `go` runs on a repository archive in direct mode): files in
 * vendored packages (`vendor/<dir>/…`; `vendor/modules.txt` and other files directly in `vendor/`
 * stay), files under a directory with its own go.mod (a nested module), `.hg_archival.txt`, symbolic
 * links and submodules are left out; a file name Go does not allow, a go.mod other than exactly
 * `go.mod` at the root, paths colliding under case folding, and oversized files make the whole
 * tree unusable. `maxTotal` caps the uncompressed size (Go's 500 MiB, or less).
 */
export function selectModuleFiles(tree: TreeFile[], maxTotal = MAX_ZIP_FILE): ModuleFileSelection {
  const moduleRoots = new Set<string>();
  for (const f of tree) {
    if (baseName(f.path).toLowerCase() === 'go.mod' && isRegular(f)) moduleRoots.add(f.path.slice(0, f.path.length - 'go.mod'.length));
  }
  const inNestedModule = (p: string): boolean => {
    for (let slash = p.lastIndexOf('/'); slash > 0; slash = p.lastIndexOf('/', slash - 1)) {
      if (moduleRoots.has(p.slice(0, slash + 1))) return true;
    }
    return false;
  };

  const selection: ModuleFileSelection = { files: [], omitted: [], errors: [] };
  const collisions = new CollisionCheck();
  let remaining = maxTotal;
  for (const f of tree) {
    const p = f.path;
    const omit = (reason: string) => selection.omitted.push({ path: p, reason });
    const refuse = (reason: string) => selection.errors.push(`"${p}": ${reason}`);
    if (p.split('/').some((e) => e === '' || e === '.' || e === '..')) {
      refuse('path is not clean');
      continue;
    }
    if (isVendoredPackage(p)) {
      omit('file in a vendored package');
      continue;
    }
    if (inNestedModule(p)) {
      omit('file of a nested module (a directory with its own go.mod)');
      continue;
    }
    if (p === '.hg_archival.txt') {
      omit('Mercurial archive metadata');
      continue;
    }
    const bad = checkFilePath(p);
    if (bad) {
      refuse(bad);
      continue;
    }
    if (p.toLowerCase() === 'go.mod' && p !== 'go.mod') {
      refuse('go.mod must be named exactly "go.mod"');
      continue;
    }
    const clash = collisions.add(p, false);
    if (clash) {
      refuse(`collides with "${clash}" (paths must differ under case folding)`);
      continue;
    }
    if (f.mode === '120000') {
      omit('symbolic link');
      continue;
    }
    if (!isRegular(f)) {
      omit(f.mode === '160000' ? 'submodule' : 'not a regular file');
      continue;
    }
    if (f.size > remaining) {
      selection.errors.push(`the module's files are larger than ${maxTotal} bytes uncompressed`);
      remaining = -1;
      continue;
    }
    if (remaining >= 0) remaining -= f.size;
    if (p === 'go.mod' && f.size > MAX_GO_MOD) {
      refuse(`go.mod is larger than ${MAX_GO_MOD} bytes`);
      continue;
    }
    if (p === 'LICENSE' && f.size > MAX_LICENSE) {
      refuse(`LICENSE is larger than ${MAX_LICENSE} bytes`);
      continue;
    }
    selection.files.push(f);
  }
  // One size error is enough (Go reports it once).
  selection.errors = [...new Set(selection.errors)];
  return selection;
}
