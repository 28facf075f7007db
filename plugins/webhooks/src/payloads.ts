import { ZERO_ID, type PluginContext } from '@hearth/plugin-api';

/**
 * What a `hook_task` row holds until its first attempt: the event as the emitting request saw it.
 * Only ids and the emitter's own payload are written in the request (a few hundred bytes, no git
 * call); `repository`, `sender` and a push's commits are added by the worker at the first attempt
 * and then fixed in `payload_content`, so retries and redeliveries send the same bytes.
 */
export interface Envelope {
  payload: Record<string, unknown>;
  repoId?: number;
  actorId?: number;
  /** Names to describe a repository that no longer exists (repository deleted). */
  repoFallback?: { id: number; name: string; ownerId: number; ownerName: string };
  /** A push, built from git at the first attempt: commits of before..after (test: just `after`). */
  push?: { ref: string; before: string; after: string; test?: boolean };
}

/** Gitea's cap on commits listed per push (setting.UI.FeedMaxCommitNum). */
const PUSH_MAX_COMMITS = 5;
/** Commits looked at for a new branch (Gitea: CommitsBeforeLimit(10)). */
const NEW_BRANCH_COMMITS = 10;
/** One record per commit: sha, author, committer, message, then the `--name-status` lines. */
const LOG_FORMAT = '%x1e%H%x1f%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI%x1f%B%x1f';

export const shortRef = (ref: string): string => ref.replace(/^refs\/(heads|tags)\//, '');

/** Builds the Gitea-shaped JSON a delivery sends, with small caches for a burst of deliveries of one event. */
export class PayloadBuilder {
  private readonly built = new Map<string, { at: number; value: Promise<Record<string, unknown>> }>();

  constructor(private readonly ctx: PluginContext) {}

  /** The full payload of an envelope; identical envelopes (one event, several hooks) are built once. */
  async build(envelopeText: string): Promise<Record<string, unknown>> {
    const now = Date.now();
    const hit = this.built.get(envelopeText);
    if (hit && now - hit.at < 30_000) return hit.value;
    if (this.built.size > 500) {
      for (const [k, v] of this.built) if (now - v.at >= 30_000) this.built.delete(k);
      if (this.built.size > 500) this.built.clear();
    }
    const value = this.buildFresh(JSON.parse(envelopeText) as Envelope);
    this.built.set(envelopeText, { at: now, value });
    value.catch(() => this.built.delete(envelopeText));
    return value;
  }

  private async buildFresh(env: Envelope): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = { ...env.payload };
    // `{ $repo: id }` stands for that repository's JSON (a fork's `forkee`).
    for (const [key, value] of Object.entries(body)) {
      const ref = value && typeof value === 'object' ? (value as { $repo?: unknown }).$repo : undefined;
      if (typeof ref === 'number') body[key] = await this.repositoryJson({ repoId: ref });
    }
    const repository = 'repository' in body ? body.repository : await this.repositoryJson(env);
    const sender = 'sender' in body ? body.sender : await this.userJson(env.actorId);
    if (env.push) Object.assign(body, await this.pushFields(env, sender));
    if (!('repository' in body) && (env.repoId || env.repoFallback)) body.repository = repository;
    body.sender = sender;
    return body;
  }

  async userJson(id: number | undefined): Promise<Record<string, unknown> | null> {
    if (!id) return null;
    const user = await this.ctx.users.byId(id);
    return user ? this.ctx.users.toApi(user, null) : null;
  }

  /** Gitea's Repository JSON as hooks see it (converted with owner access, as Gitea does). */
  async repositoryJson(env: Pick<Envelope, 'repoId' | 'repoFallback'>): Promise<Record<string, unknown> | null> {
    const { repositories, users } = this.ctx;
    const repository = env.repoId ? await repositories.byId(env.repoId) : null;
    const owner = repository ? await users.byId(repository.ownerId) : null;
    if (repository && owner) {
      const json = await repositories.toApi(repository, null);
      return { ...json, permissions: { admin: true, push: true, pull: true } };
    }
    const f = env.repoFallback;
    if (!f) return null;
    const links = repositories.links(f.ownerName, f.name);
    const fallbackOwner = await users.byId(f.ownerId);
    return {
      id: f.id,
      name: f.name,
      full_name: `${f.ownerName}/${f.name}`,
      owner: fallbackOwner ? await users.toApi(fallbackOwner, null) : null,
      html_url: links.html,
      url: links.api,
      clone_url: links.clone,
    };
  }

  private async pushFields(env: Envelope, pusher: unknown): Promise<Record<string, unknown>> {
    const { repositories, git } = this.ctx;
    const appUrl = this.ctx.forge.appUrl;
    const push = env.push!;
    const repository = env.repoId ? await repositories.byId(env.repoId) : null;
    const commits: Record<string, unknown>[] = [];
    let total = 0;
    let html = '';
    if (repository) {
      html = repositories.links(repository.ownerName, repository.name).html;
      const gitDir = repository.gitDir;
      const isTag = push.ref.startsWith('refs/tags/');
      if (push.after !== ZERO_ID && !isTag) {
        let range: string[];
        let max = PUSH_MAX_COMMITS;
        if (push.test || push.before === push.after) {
          range = [push.after];
          max = 1;
        } else if (push.before === ZERO_ID) {
          range = [push.after];
          max = NEW_BRANCH_COMMITS;
        } else range = [`${push.before}..${push.after}`];
        const [log, count] = await Promise.all([
          git.text(gitDir, ['log', `--max-count=${max}`, '--no-renames', '--name-status', `--format=${LOG_FORMAT}`, ...range, '--']),
          max === PUSH_MAX_COMMITS ? git.text(gitDir, ['rev-list', '--count', ...range]) : Promise.resolve(''),
        ]);
        const parsed = parseLog(log);
        total = count ? Number(count) : parsed.length;
        const emails = [...new Set(parsed.flatMap((c) => [c.authorEmail, c.committerEmail]).map((e) => e.toLowerCase()))];
        const logins = new Map<string, string>();
        if (emails.length) {
          // A read-only look at the core's users table: which accounts the commit addresses belong to.
          const accounts = await this.ctx.db('users').whereIn('email', emails).select('email', 'name');
          for (const u of accounts) logins.set(String(u.email).toLowerCase(), u.name);
        }
        for (const c of parsed.slice(0, PUSH_MAX_COMMITS)) {
          commits.push({
            id: c.sha,
            message: c.message,
            url: `${html}/commit/${c.sha}`,
            author: { name: c.authorName, email: c.authorEmail, username: logins.get(c.authorEmail.toLowerCase()) ?? '' },
            committer: { name: c.committerName, email: c.committerEmail, username: logins.get(c.committerEmail.toLowerCase()) ?? '' },
            verification: null,
            timestamp: c.authorDate,
            added: c.added,
            removed: c.removed,
            modified: c.modified,
          });
        }
      }
    }
    const hasRange = push.before !== ZERO_ID && push.after !== ZERO_ID && html !== '';
    const compare = hasRange ? `${html.slice(appUrl.length)}/compare/${push.before}...${push.after}` : '';
    return {
      ref: push.ref,
      before: push.before,
      after: push.after,
      compare_url: `${appUrl}${compare}`,
      commits,
      total_commits: total,
      head_commit: commits[0] ?? null,
      pusher,
    };
  }
}

interface LogCommit {
  sha: string;
  authorName: string;
  authorEmail: string;
  authorDate: string;
  committerName: string;
  committerEmail: string;
  committerDate: string;
  message: string;
  added: string[];
  removed: string[];
  modified: string[];
}

function parseLog(text: string): LogCommit[] {
  const out: LogCommit[] = [];
  for (const record of text.split('\x1e')) {
    if (!record.trim()) continue;
    const f = record.split('\x1f');
    const c: LogCommit = {
      sha: f[0].trim(),
      authorName: f[1],
      authorEmail: f[2],
      authorDate: f[3],
      committerName: f[4],
      committerEmail: f[5],
      committerDate: f[6],
      message: f[7] ?? '',
      added: [],
      removed: [],
      modified: [],
    };
    for (const line of (f[8] ?? '').split('\n')) {
      const m = /^([AMDTCRU])\d*\t(.+)$/.exec(line.trim());
      if (!m) continue;
      const [, status, file] = m;
      if (status === 'A' || status === 'C') c.added.push(file);
      else if (status === 'D') c.removed.push(file);
      else c.modified.push(file);
    }
    out.push(c);
  }
  return out;
}
