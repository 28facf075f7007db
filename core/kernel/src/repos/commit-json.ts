import type { HttpHelpers, Principal } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import type { UserService } from '../users/user-service';
import type { RepoService } from './repo-service';
import type { UserRow } from '../users/models';
import { runGit } from './git';
import { GO_ZERO_TIME } from '../users/models';
import { LOG_CONFIG, goDate } from './git-data-git';
import type { RepoLinks } from './links';

/**
 * Commits read from git and rendered as Gitea JSON (`Commit`, `PayloadCommit`). Reading is
 * batched: one `git log` for the metadata of any number of commits, one more for their file
 * changes and line counts, one database query for the authors — never a process per commit.
 * Shared by the git data routes and anything else that shows commits (webhooks, pull requests).
 */

export interface GitPerson {
  name: string;
  email: string;
  /** As git prints it with %aI/%cI: ISO 8601 in the commit's own time zone. */
  date: string;
}

export interface GitCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: GitPerson;
  committer: GitPerson;
  /** The raw message, as stored (normally ending in a newline). */
  message: string;
}

export interface CommitFile {
  filename: string;
  status: 'added' | 'removed' | 'modified';
}

export interface CommitChanges {
  files: CommitFile[];
  additions: number;
  deletions: number;
}

/** Gitea's `stat`, `files` and `verification` query options; all default to true. */
export interface CommitOptions {
  stat: boolean;
  files: boolean;
  verification: boolean;
}

export const ALL_COMMIT_DETAILS: CommitOptions = { stat: true, files: true, verification: true };

/** The query parameters that choose CommitOptions, for operation schemas. */
export const COMMIT_OPTION_QUERY = {
  stat: { type: 'boolean', description: "include diff stats for every commit (disable for speedup, default 'true')" },
  verification: { type: 'boolean', description: "include verification for every commit (disable for speedup, default 'true')" },
  files: { type: 'boolean', description: "include a list of affected files for every commit (disable for speedup, default 'true')" },
};

export function commitOptionsOf(query: { stat?: boolean; files?: boolean; verification?: boolean }): CommitOptions {
  return { stat: query.stat !== false, files: query.files !== false, verification: query.verification !== false };
}

const FIELDS = ['%H', '%T', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'];
const LOG_FORMAT = `--format=${FIELDS.join('%x00')}`;
/** Flags that keep `git log` output to what we ask for, whatever the repository or operator config says. */
const PLAIN = ['--no-use-mailmap', '--no-show-signature', '--no-color', '--no-ext-diff', '--no-textconv', '--no-relative'];

export interface LogOptions {
  /** Revisions on stdin (with `--stdin` among `args`). */
  input?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Run `git log` with `args` (options, then `--end-of-options`, revisions and `-- paths`, all
 * validated by the caller) and parse the commits it lists, in its order. One process.
 */
export async function logCommits(gitDir: string, args: string[], options: LogOptions = {}): Promise<GitCommit[]> {
  const { stdout } = await runGit([...LOG_CONFIG, 'log', '-z', LOG_FORMAT, ...PLAIN, ...args], {
    gitDir,
    input: options.input,
    env: options.env,
  });
  const parts = stdout.toString('utf8').split('\0');
  const commits: GitCommit[] = [];
  for (let i = 0; i + FIELDS.length <= parts.length; i += FIELDS.length) {
    const [sha, tree, parents, an, ae, ad, cn, ce, cd, message] = parts.slice(i, i + FIELDS.length);
    // A message holding a NUL byte would shift the fields; git refuses to write such commits, so stop rather than guess.
    if (!/^[0-9a-f]{40,64}$/.test(sha)) break;
    commits.push({
      sha,
      tree,
      parents: parents ? parents.split(' ') : [],
      author: { name: an, email: ae, date: ad },
      committer: { name: cn, email: ce, date: cd },
      message,
    });
  }
  return commits;
}

/** Commits by id, in the order given (duplicates collapsed). One process. */
export async function readCommits(gitDir: string, shas: string[]): Promise<Map<string, GitCommit>> {
  const unique = [...new Set(shas)];
  if (unique.length === 0) return new Map();
  const commits = await logCommits(gitDir, ['--no-walk=unsorted', '--stdin'], { input: unique.map((s) => `${s}\n`).join('') });
  return new Map(commits.map((c) => [c.sha, c]));
}

const NUMSTAT = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/;

/**
 * Files touched and lines added/removed by each commit, against its first parent (the empty
 * tree for a root commit), as Gitea computes them: renames detected for the line counts, and
 * listed as a removal plus an addition; binary files count no lines. One `git log` for all.
 */
export async function commitChanges(gitDir: string, shas: string[]): Promise<Map<string, CommitChanges>> {
  const unique = [...new Set(shas)];
  const result = new Map<string, CommitChanges>();
  if (unique.length === 0) return result;
  const { stdout } = await runGit(
    [
      ...LOG_CONFIG,
      'log',
      '-z',
      '--format=%x01%H',
      '--raw',
      '--numstat',
      '-M',
      '--diff-merges=first-parent',
      '--root',
      ...PLAIN,
      '--no-walk=unsorted',
      '--stdin',
    ],
    { gitDir, input: unique.map((s) => `${s}\n`).join('') },
  );
  const tokens = stdout.toString('utf8').split('\0');
  let current: CommitChanges | undefined;
  for (let i = 0; i < tokens.length; i++) {
    // Entries follow the header after a newline; paths are read positionally below, so a path
    // that happens to start with a newline, ':' or a digit is never mistaken for an entry.
    const token = tokens[i].replace(/^\n+/, '');
    if (token.startsWith('\x01')) {
      current = { files: [], additions: 0, deletions: 0 };
      result.set(token.slice(1), current);
    } else if (!current || token === '') {
      continue;
    } else if (token.startsWith(':')) {
      const status = token.slice(token.lastIndexOf(' ') + 1);
      if (status.startsWith('R') || status.startsWith('C')) {
        const from = tokens[++i];
        const to = tokens[++i];
        if (status.startsWith('R')) current.files.push({ filename: from, status: 'removed' });
        current.files.push({ filename: to, status: 'added' });
      } else {
        const filename = tokens[++i];
        current.files.push({ filename, status: status === 'A' ? 'added' : status === 'D' ? 'removed' : 'modified' });
      }
    } else {
      const m = NUMSTAT.exec(token);
      if (!m) continue;
      if (m[3] === '') i += 2; // a rename: source and destination follow
      if (m[1] !== '-') current.additions += Number(m[1]);
      if (m[2] !== '-') current.deletions += Number(m[2]);
    }
  }
  return result;
}

/** What Gitea reports for a commit without a signature (Hearth does not verify signatures yet). */
export function unsignedVerification(): Record<string, unknown> {
  return { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' };
}

export interface CommitJsonDeps {
  users: UserService;
  config: HearthConfig;
  http: HttpHelpers;
}

/** What the API's commit JSON needs besides: the access rule, to show only authors the viewer may see. */
export interface ApiCommitDeps extends CommitJsonDeps {
  repos: Pick<RepoService, 'access'>;
}

/**
 * Hearth users for commit emails, by lower-cased email, as Gitea's GetUserByEmail: any activated
 * address of the user, or `<name>@NO_REPLY_ADDRESS`. Two queries at most, whatever the count.
 */
export async function usersByEmail(
  deps: Pick<CommitJsonDeps, 'users' | 'config'>,
  emails: Iterable<string>,
): Promise<Map<string, UserRow>> {
  const lowers = [...new Set([...emails].map((e) => e.toLowerCase()).filter((e) => e.includes('@')))];
  const found = new Map<string, UserRow>();
  if (lowers.length === 0) return found;
  const db = deps.users.query().knex();
  for (let i = 0; i < lowers.length; i += 500) {
    const chunk = lowers.slice(i, i + 500);
    const matches: Array<{ lower_email: string; uid: number }> = await db('user_emails')
      .whereIn('lower_email', chunk)
      .where('is_activated', true)
      .select('lower_email', 'uid');
    if (matches.length === 0) continue;
    const rows = await deps.users.query().whereIn('id', [...new Set(matches.map((m) => m.uid))]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const m of matches) {
      const row = byId.get(m.uid);
      if (row) found.set(m.lower_email, row);
    }
  }
  const suffix = `@${deps.config.service.NO_REPLY_ADDRESS.toLowerCase()}`;
  const noReply = lowers.filter((e) => !found.has(e) && e.endsWith(suffix));
  if (noReply.length > 0) {
    const rows = await deps.users.query().whereIn(
      'lower_name',
      noReply.map((e) => e.slice(0, -suffix.length)),
    );
    for (const row of rows) found.set(`${row.lower_name}${suffix}`, row);
  }
  return found;
}

/** The users of `byEmail` whose profile the viewer may see (the access module's profile rule). */
async function visibleUsers(deps: ApiCommitDeps, byEmail: Map<string, UserRow>, viewer: Principal | null): Promise<Map<string, UserRow>> {
  const visible = new Map<number, boolean>();
  for (const row of byEmail.values()) if (!visible.has(row.id)) visible.set(row.id, await deps.repos.access.profileVisible(row, viewer));
  return new Map([...byEmail].filter(([, row]) => visible.get(row.id)));
}

/** The User JSON for an email, or null when no visible Hearth user has it. */
function userFor(
  deps: CommitJsonDeps,
  users: Map<string, UserRow>,
  email: string,
  viewer: Principal | null,
): Record<string, unknown> | null {
  const row = users.get(email.toLowerCase());
  return row ? deps.users.toApi(row, viewer) : null;
}

/** Gitea's `CommitUser`: name, email, and the date in the commit's own time zone. */
export function commitUser(person: GitPerson): Record<string, unknown> {
  return { name: person.name, email: person.email, date: goDate(person.date) };
}

/** Gitea's `CommitMeta` of a commit: its API URL, id and committer date. */
export function commitMeta(links: RepoLinks, sha: string, created: string = GO_ZERO_TIME): Record<string, unknown> {
  return { url: `${links.api}/git/commits/${sha}`, sha, created };
}

/**
 * Gitea `Commit` objects for `commits`. File lists and stats come from one git call for all of
 * them (skipped when `options.stat` is false: then `stats` and `files` are null, as are `files`
 * alone with `files=false`); authors from one user lookup.
 */
export async function toApiCommits(
  deps: ApiCommitDeps,
  gitDir: string,
  links: RepoLinks,
  viewer: Principal | null,
  commits: GitCommit[],
  options: CommitOptions = ALL_COMMIT_DETAILS,
): Promise<Record<string, unknown>[]> {
  const [changes, users] = await Promise.all([
    options.stat
      ? commitChanges(
          gitDir,
          commits.map((c) => c.sha),
        )
      : Promise.resolve(new Map<string, CommitChanges>()),
    usersByEmail(
      deps,
      commits.flatMap((c) => [c.author.email, c.committer.email]),
    ).then((found) => visibleUsers(deps, found, viewer)),
  ]);
  return commits.map((c) => {
    const change = changes.get(c.sha);
    const created = goDate(c.committer.date);
    return {
      url: `${links.api}/git/commits/${c.sha}`,
      sha: c.sha,
      created,
      html_url: `${links.html}/commit/${c.sha}`,
      commit: {
        url: `${links.api}/git/commits/${c.sha}`,
        author: commitUser(c.author),
        committer: commitUser(c.committer),
        message: c.message,
        tree: { url: `${links.api}/git/trees/${c.tree}`, sha: c.tree, created },
        verification: options.verification ? unsignedVerification() : null,
      },
      author: userFor(deps, users, c.author.email, viewer),
      committer: userFor(deps, users, c.committer.email, viewer),
      parents: c.parents.map((p) => commitMeta(links, p)),
      files: options.stat && options.files ? (change?.files ?? []) : null,
      stats: options.stat
        ? {
            total: (change?.additions ?? 0) + (change?.deletions ?? 0),
            additions: change?.additions ?? 0,
            deletions: change?.deletions ?? 0,
          }
        : null,
    };
  });
}

/** Gitea `PayloadCommit` objects (branches, webhook payloads): usernames resolved by email. */
export async function toPayloadCommits(deps: CommitJsonDeps, links: RepoLinks, commits: GitCommit[]): Promise<Record<string, unknown>[]> {
  const users = await usersByEmail(
    deps,
    commits.flatMap((c) => [c.author.email, c.committer.email]),
  );
  const person = (p: GitPerson) => ({ name: p.name, email: p.email, username: users.get(p.email.toLowerCase())?.name ?? '' });
  return commits.map((c) => ({
    id: c.sha,
    message: c.message,
    url: `${links.html}/commit/${c.sha}`,
    author: person(c.author),
    committer: person(c.committer),
    verification: unsignedVerification(),
    timestamp: goDate(c.author.date),
    added: null,
    removed: null,
    modified: null,
  }));
}
