import fs from 'node:fs';
import path from 'node:path';
import type { KernelHooks, Logger } from '@hearth/plugin-api';
import type { CronRegistry } from './cron';
import type { HearthConfig } from '../config/types';

/**
 * What a crash (SIGKILL, power loss, the OOM killer) leaves in the data directory: work that
 * removes its temporary files when it ends normally, but never ended.
 * - git-quarantine: `objects/tmp_objdir-incoming-*` (older git: `objects/incoming-*`) of a push
 *   whose receive-pack was killed, in repositories and wikis (`repositories/<owner>/<name>.git`);
 * - upload-temp: `<area>/tmp/upload-*` of an upload being staged into a blob area (packages, attachments,
 *   a plugin's `ctx.blobs(area)`; see storage/);
 * - archive-temp: `archives/<repo id>/.tmp-*` and `.bundle-*.git` of an archive being built.
 */
export type LeftoverKind = 'git-quarantine' | 'upload-temp' | 'archive-temp';

export interface Leftover {
  kind: LeftoverKind;
  path: string;
  /** The newest change inside it: when anything last worked on it. */
  modified: Date;
  bytes: number;
}

export interface LeftoverSweep {
  /** Leftovers untouched for longer than the grace period. */
  found: Leftover[];
  removed: Leftover[];
  failed: Array<{ leftover: Leftover; error: string }>;
}

const QUARANTINE = /^(tmp_objdir-|incoming-)/;
const UPLOAD_TEMP = /^upload-/;
const ARCHIVE_TEMP = /^\.(tmp-|bundle-.*\.git$)/;

/**
 * Find the leftovers under `dataDir` untouched for `graceSeconds` and, with `remove`, delete them.
 * Younger ones are left alone: they may belong to a push or an upload still running (in this
 * process or another one sharing the data directory).
 */
export async function sweepLeftovers(
  dataDir: string,
  options: { graceSeconds: number; remove: boolean; now?: number },
): Promise<LeftoverSweep> {
  const cutoff = (options.now ?? Date.now()) - options.graceSeconds * 1000;
  const found: Leftover[] = [];
  for (const [kind, candidate] of await candidates(dataDir)) {
    const newest = await newestChange(candidate);
    if (newest && newest.modified < cutoff) found.push({ kind, path: candidate, modified: new Date(newest.modified), bytes: newest.bytes });
  }
  const sweep: LeftoverSweep = { found, removed: [], failed: [] };
  if (!options.remove) return sweep;
  for (const leftover of found) {
    try {
      await fs.promises.rm(leftover.path, { recursive: true, force: true });
      sweep.removed.push(leftover);
    } catch (err) {
      sweep.failed.push({ leftover, error: (err as Error).message });
    }
  }
  return sweep;
}

export function totalBytes(leftovers: readonly Leftover[]): number {
  return leftovers.reduce((sum, l) => sum + l.bytes, 0);
}

/** Every temporary directory or file a crash could have left, whatever its age. */
async function candidates(dataDir: string): Promise<Array<[LeftoverKind, string]>> {
  const out: Array<[LeftoverKind, string]> = [];
  const repositories = path.join(dataDir, 'repositories');
  for (const owner of await directories(repositories)) {
    for (const repo of await directories(path.join(repositories, owner))) {
      if (!repo.endsWith('.git')) continue;
      const objects = path.join(repositories, owner, repo, 'objects');
      for (const name of await directories(objects)) if (QUARANTINE.test(name)) out.push(['git-quarantine', path.join(objects, name)]);
    }
  }
  // Every blob area: the core's and the plugins' (`ctx.blobs`), each `<DATA_DIR>/<area>/tmp`.
  for (const area of await directories(dataDir)) {
    const tmp = path.join(dataDir, area, 'tmp');
    for (const name of await entries(tmp)) if (UPLOAD_TEMP.test(name)) out.push(['upload-temp', path.join(tmp, name)]);
  }
  const archives = path.join(dataDir, 'archives');
  for (const repo of await directories(archives)) {
    for (const name of await entries(path.join(archives, repo)))
      if (ARCHIVE_TEMP.test(name)) out.push(['archive-temp', path.join(archives, repo, name)]);
  }
  return out;
}

async function entries(dir: string): Promise<string[]> {
  return (await readDir(dir)).map((e) => e.name);
}

async function directories(dir: string): Promise<string[]> {
  return (await readDir(dir)).filter((e) => e.isDirectory()).map((e) => e.name);
}

async function readDir(dir: string): Promise<fs.Dirent[]> {
  try {
    return await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isGone(err)) return [];
    throw err;
  }
}

/** The newest modification time and the total size in a file or directory tree; null when it vanished meanwhile (the push finished). */
async function newestChange(target: string): Promise<{ modified: number; bytes: number } | null> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.lstat(target);
  } catch (err) {
    if (isGone(err)) return null;
    throw err;
  }
  let modified = stat.mtimeMs;
  let bytes = stat.isFile() ? stat.size : 0;
  if (stat.isDirectory()) {
    for (const name of await entries(target)) {
      const inner = await newestChange(path.join(target, name));
      if (!inner) continue;
      modified = Math.max(modified, inner.modified);
      bytes += inner.bytes;
    }
  }
  return { modified, bytes };
}

function isGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Sweep leftovers when the server starts listening (awaited, so a restarted server is clean
 * before it serves) and then every `maintenance.LEFTOVER_SWEEP_INTERVAL` seconds until shutdown.
 */
export function startLeftoverSweeps({
  hooks,
  config,
  log,
  cron,
}: {
  hooks: KernelHooks;
  config: HearthConfig;
  log: Logger;
  cron: CronRegistry;
}): void {
  const { LEFTOVER_GRACE_PERIOD: graceSeconds, LEFTOVER_SWEEP_INTERVAL: intervalSeconds } = config.maintenance;
  let running: Promise<void> | null = null;
  const sweep = (): Promise<void> =>
    (running ??= sweepLeftovers(config.server.DATA_DIR, { graceSeconds, remove: true })
      .then(({ removed, failed }) => {
        if (removed.length) {
          const shown = removed.slice(0, 20).map((l) => ({ kind: l.kind, path: l.path, modified: l.modified }));
          log.info(
            { removed: shown, bytes: totalBytes(removed) },
            `removed ${removed.length} leftover(s) of interrupted pushes, uploads or archives`,
          );
        }
        for (const { leftover, error } of failed)
          log.warn(
            { kind: leftover.kind, path: leftover.path, error },
            'could not remove a leftover of an interrupted push, upload or archive',
          );
      })
      .catch((err) => log.error({ err }, 'sweeping leftovers of interrupted pushes and uploads failed'))
      .finally(() => (running = null)));

  // The periodic sweeps are a cron task (listed by /admin/cron, run at once by POST /admin/cron/cleanup_leftovers).
  cron.add({ name: 'cleanup_leftovers', intervalSeconds: Math.max(0, intervalSeconds), run: sweep });
  hooks.lifecycle.ready.tapPromise('hearth:leftovers', async () => sweep());
  hooks.lifecycle.shutdown.tapPromise('hearth:leftovers', async () => {
    await running;
  });
}
