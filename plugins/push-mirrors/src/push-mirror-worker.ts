import { nowUnix, type GitProcess, type Logger, type PluginContext, type SecretSealer } from '@hearth/plugin-api';
import { credentialContext, dueMirrors, redactUrls, type PushMirrorRow, type RemoteCredentials } from './push-mirror-store';

/** How often the worker looks for due mirrors without being woken (interval syncs, other processes' requests). */
const POLL_MS = 30_000;
/** Longest a single `git push --mirror` may run. */
const PUSH_TIMEOUT_MS = 10 * 60_000;
/** A claimed row stays owned this long (a crashed process's claim expires). */
const LEASE_SECONDS = Math.ceil(PUSH_TIMEOUT_MS / 1000) + 60;
const BATCH = 20;
/** The refs a push mirror carries (forced, pruned). */
const MIRRORED_REFSPECS = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*', '+refs/notes/*:refs/notes/*'];

class ShutdownAbort extends Error {}

export interface PushMirrorWorkerDeps {
  ctx: PluginContext;
  /** Opens the sealed credentials (`ctx.secrets(CREDENTIALS_SECRET_PURPOSE)`). */
  credentials: SecretSealer;
  log?: Logger;
}

/**
 * The push mirror worker. Its queue is the push_mirror table (see migrations.ts), so requests
 * survive restarts; it starts on lifecycle.ready, is woken by sync requests, polls every 30 s for
 * interval syncs, and pushes one mirror at a time (a row is claimed with a lease first, so two
 * processes never push the same mirror at once). A failure is recorded on the row (last_error,
 * last_update) and never escapes; on shutdown the running push is stopped and its request stays
 * pending for the next start.
 */
export class PushMirrorWorker {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private poll?: NodeJS.Timeout;
  private readonly children = new Set<GitProcess>();

  constructor(private readonly deps: PushMirrorWorkerDeps) {}

  start(): void {
    this.stopped = false;
    this.poll = setInterval(() => this.wake(), POLL_MS);
    this.poll.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    for (const child of this.children) child.kill('SIGTERM');
    await this.running;
  }

  /** Look for due mirrors now (or right after the current round). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err) => this.deps.log?.error({ err }, 'push mirror worker round failed'))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async drain(): Promise<void> {
    const tried = new Set<number>();
    while (!this.stopped) {
      const due = (await dueMirrors(this.deps.ctx.db, BATCH)).filter((row) => !tried.has(row.id) || row.sync_requested > 0);
      if (due.length === 0) return;
      let served = 0;
      for (const row of due) {
        if (this.stopped) return;
        tried.add(row.id);
        if (await this.serve(row)) served++;
      }
      if (served === 0) return; // every due row is held by another process
    }
  }

  /** Claim one mirror, push it, record the outcome. False when another worker holds it. */
  private async serve(candidate: PushMirrorRow): Promise<boolean> {
    const { db } = this.deps.ctx;
    const now = nowUnix();
    const claimed = await db('push_mirror')
      .where('id', candidate.id)
      .where('locked_until_unix', '<', now)
      .update({ locked_until_unix: now + LEASE_SECONDS });
    if (!claimed) return false;
    const fresh = await db('push_mirror').where('id', candidate.id).first();
    if (!fresh) return true;
    const requested = Number(fresh.sync_requested ?? 0);
    let error = '';
    try {
      await this.push(candidate.id);
    } catch (err) {
      if (err instanceof ShutdownAbort) {
        // Leave the request pending; the next start serves it.
        await db('push_mirror').where('id', candidate.id).update({ locked_until_unix: 0 });
        return true;
      }
      error = redactUrls(err instanceof Error ? err.message : String(err)).slice(0, 2000);
      this.deps.log?.warn({ mirror: candidate.remote_name, repoId: candidate.repo_id, error }, 'push mirror sync failed');
    }
    const done = nowUnix();
    const interval = Number(fresh.interval_seconds ?? 0);
    await db('push_mirror')
      .where('id', candidate.id)
      .update({
        last_update_unix: done,
        last_error: error,
        next_update_unix: interval > 0 ? done + interval : 0,
        // Requests that arrived during the push stay counted: they get a push of their own.
        sync_requested: db.raw('CASE WHEN sync_requested > ? THEN sync_requested - ? ELSE 0 END', [requested, requested]),
        locked_until_unix: 0,
      });
    return true;
  }

  private async push(id: number): Promise<void> {
    const { db, repositories, outbound } = this.deps.ctx;
    const raw = await db('push_mirror').where('id', id).first();
    if (!raw) return;
    const repository = await repositories.byId(Number(raw.repo_id));
    if (!repository) {
      await db('push_mirror').where('id', id).delete(); // the repository is gone
      return;
    }
    const context = credentialContext(Number(raw.repo_id), raw.remote_name);
    const opened = raw.credentials ? this.deps.credentials.open(raw.credentials, context) : null;
    const credentials = opened ? (JSON.parse(opened) as RemoteCredentials) : null;
    // Checked again before every push: the configuration or DNS may have changed since the mirror was added.
    const url = await outbound.checkRemoteUrl(String(raw.remote_address), 'migrations');
    const pinned = await outbound.pinnedResolve(url, 'migrations');
    const gitConfig: Array<[string, string]> = [
      ['protocol.allow', 'never'],
      ['protocol.http.allow', 'always'],
      ['protocol.https.allow', 'always'],
      ['http.followRedirects', 'false'],
      ['credential.helper', ''],
      ['core.askPass', ''],
      ['push.gpgSign', 'false'],
    ];
    // git connects to exactly the addresses just checked (no second DNS answer, no rebinding).
    if (pinned) gitConfig.push(['http.curloptResolve', pinned]);
    if (credentials && (credentials.username || credentials.password)) {
      const basic = Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64');
      gitConfig.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
    }
    const env: Record<string, string> = {
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_COUNT: String(gitConfig.length),
      GIT_ASKPASS: '',
      SSH_ASKPASS: '',
    };
    gitConfig.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
    const gitDir = repository.gitDir;
    // `--mirror` restricted to what a receiving forge accepts: branches, tags and notes are forced
    // and pruned like `git push --mirror`; the server's own refs (refs/pull/*, …) stay home.
    await this.runPush(['push', '--prune', '--quiet', '--end-of-options', url.toString(), ...MIRRORED_REFSPECS], gitDir, env);
  }

  /** Run git push with a deadline; credentials travel only in the environment, never argv or logs. */
  private async runPush(args: string[], gitDir: string, env: Record<string, string>): Promise<void> {
    if (this.stopped) throw new ShutdownAbort();
    const child = this.deps.ctx.git.spawn(gitDir, args, { env });
    this.children.add(child);
    child.stdin.end();
    child.stdout.resume();
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, PUSH_TIMEOUT_MS);
    let code: number;
    try {
      code = await child.exited;
    } finally {
      clearTimeout(timer);
      this.children.delete(child);
    }
    if (code === 0) return;
    if (this.stopped) throw new ShutdownAbort();
    if (timedOut) throw new Error(`git push timed out after ${PUSH_TIMEOUT_MS / 1000} s`);
    const lines = stderr
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    throw new Error(`git push (mirror) failed (exit ${code < 0 ? 'signal' : code}): ${lines.slice(-5).join(' | ') || 'no message'}`);
  }
}
