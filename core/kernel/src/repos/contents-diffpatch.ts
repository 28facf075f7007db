import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiError } from '@hearth/plugin-api';
import type { FileOperation } from './contents-files';
import { git, readBlobs } from './contents-git';
import { GitError } from './git';

/**
 * The file operations a patch makes on `base` (Gitea's ApplyDiffPatch): `git apply --cached` on a
 * temporary index holding `base`, then each changed path read back as a create, update (with the
 * blob it replaces, so a concurrent change is refused as for any contents call) or delete. The
 * commit then goes through the contents API's one commit path, with its path rules and checks.
 * File modes a patch sets (e.g. executable) are not carried over: the contents path keeps modes of
 * updated files and creates regular files.
 */
export async function patchOperations(gitDir: string, base: string, patch: string): Promise<FileOperation[]> {
  if (!patch.trim()) throw ApiError.unprocessable('content: the patch is empty');
  const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'hearth-patch-'));
  const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
  try {
    await git(gitDir, ['read-tree', '--end-of-options', base], { env });
    try {
      await git(gitDir, ['apply', '--cached', '--whitespace=nowarn', '-'], { env, input: patch.endsWith('\n') ? patch : `${patch}\n` });
    } catch (err) {
      if (!(err instanceof GitError)) throw err;
      const reason = err.result.stderr.split('\n').find((l) => /error:/.test(l)) ?? 'error: patch does not apply';
      throw ApiError.unprocessable(`the patch does not apply: ${reason.replace(/^.*error:\s*/, '')}`);
    }
    const changes = (await git(gitDir, ['diff-index', '--cached', '--no-renames', '-z', '--raw', base], { env })).stdout
      .toString('utf8')
      .split('\0');
    // --raw -z: ":<old mode> <new mode> <old sha> <new sha> <status>" NUL "<path>" NUL …
    const parsed: Array<{ oldSha: string; newSha: string; status: string; path: string }> = [];
    for (let i = 0; i + 1 < changes.length; i += 2) {
      const [, , oldSha, newSha, status] = changes[i].slice(1).split(' ');
      if (status) parsed.push({ oldSha, newSha, status, path: changes[i + 1] });
    }
    if (!parsed.length) throw ApiError.unprocessable('the patch changes nothing');
    const blobs = await readBlobs(
      gitDir,
      parsed.filter((c) => c.status !== 'D').map((c) => c.newSha),
    );
    return parsed.map((c): FileOperation => {
      if (c.status === 'D') return { operation: 'delete', path: c.path, sha: c.oldSha };
      const content = (blobs.get(c.newSha) ?? Buffer.alloc(0)).toString('base64');
      return c.status === 'A'
        ? { operation: 'create', path: c.path, content }
        : { operation: 'update', path: c.path, content, sha: c.oldSha };
    });
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
}
