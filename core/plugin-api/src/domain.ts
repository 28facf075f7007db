import type { Readable, Writable } from 'node:stream';
import type { Principal, PushEvent, RefUpdate, RepoAccessLevel, RepoUnitName, RepositoryTarget, UserInfo } from './types';

/**
 * The core domain as feature plugins see it (API 2.1): repositories and their git directories,
 * accounts, outbound requests and secrets. Plain data and functions; never row classes or query
 * builders, so that the kernel's tables can change without breaking a plugin.
 */

/** A repository's settings a feature reads: merge styles and the defaults of pull requests (Gitea's names). @public */
export interface RepositorySettings {
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_manual_merge: boolean;
  autodetect_manual_merge: boolean;
  allow_rebase_update: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  ignore_whitespace_conflicts: boolean;
}

/** A repository as plain data. @public */
export interface RepositoryInfo {
  id: number;
  ownerId: number;
  ownerName: string;
  name: string;
  lowerName: string;
  description: string;
  defaultBranch: string;
  isPrivate: boolean;
  isArchived: boolean;
  isEmpty: boolean;
  isFork: boolean;
  /** The source repository of a fork, else 0. */
  forkId: number;
  isTemplate: boolean;
  /** Which units are on (`has_issues`, …). */
  units: Record<RepoUnitName, boolean>;
  settings: RepositorySettings;
  /** The bare git directory. */
  gitDir: string;
  createdUnix: number;
  updatedUnix: number;
}

/** Where a repository lives on the web and in the API (read per call: the public URL may change at listen). @public */
export interface RepositoryLinks {
  /** `…/api/v1/repos/{owner}/{repo}` */
  api: string;
  /** `…/{owner}/{repo}` */
  html: string;
  /** `…/{owner}/{repo}.git` */
  clone: string;
}

/** The caller's level on one unit of a repository: none, read, write or admin. @public */
export type UnitLevel = 'none' | RepoAccessLevel;

/** Counts a feature contributes to the repository JSON (`open_issues_count`, `release_counter`, …). @public */
export type RepositoryCounts = Record<string, number>;

/**
 * Repositories as the core owns them. Features keep their own rows keyed by `repositoryId` and
 * react to the repository hooks (`repository.deleting`, `renamed`, `transferred`).
 * @public
 */
export interface RepositoryDomain {
  byId(id: number): Promise<RepositoryInfo | null>;
  byIds(ids: readonly number[]): Promise<Map<number, RepositoryInfo>>;
  byName(ownerName: string, name: string): Promise<RepositoryInfo | null>;
  /** Where the bare repository of `owner/name` lives (whether or not it exists). */
  gitDir(ownerName: string, name: string): string;
  links(ownerName: string, name: string): RepositoryLinks;
  /** The Gitea `Repository` JSON of `repository` as `viewer` sees it (permissions included). */
  toApi(repository: RepositoryInfo | RepositoryTarget, viewer: Principal | null): Promise<Record<string, unknown>>;
  /** The same for a page of repositories, in one batch of queries. */
  toApiPage(repositories: readonly RepositoryInfo[], viewer: Principal | null): Promise<Record<string, unknown>[]>;
  /**
   * Move a ref from `oldId` to `newId` (ZERO_ID deletes) as a push by `actor` would: branch rows,
   * `push.received` taps, webhooks. False when the ref moved meanwhile (compare-and-swap failed).
   */
  updateRef(repository: RepositoryInfo, ref: string, oldId: string, newId: string, actor: UserInfo, reason: string): Promise<boolean>;
  /** Record pushes made to the git directory by other means (a plugin's own `git` run) as a push would. */
  recordPush(
    repository: RepositoryInfo,
    updates: Array<{ ref: string; oldId: string; newId: string }>,
    actor: UserInfo | null,
  ): Promise<void>;
  /** Contribute counts to the repository JSON: `collect` runs for each rendered page of repositories. */
  addCounts(collect: (repositoryIds: readonly number[]) => Promise<Map<number, RepositoryCounts>>): void;
  /** The users watching a repository (its watchers, who get its notifications), in watch order. (API 2.1) */
  watcherIds(repositoryId: number): Promise<number[]>;
  /** The repositories a user watches. (API 2.1) */
  watchedBy(userId: number): Promise<number[]>;
  /** The users collaborating on a repository (any level). (API 2.1) */
  collaboratorIds(repositoryId: number): Promise<number[]>;
  /** The commits the branch table records for branches of a repository, by branch name; unknown branches are absent. (API 2.1) */
  branchTips(repositoryId: number, branches: readonly string[]): Promise<Map<string, string>>;
  /**
   * Gitea's `Commit` JSON of the commits `git log <args>` lists in the repository (`args` are log
   * options and a range, e.g. `['--skip=0', '--max-count=30', '--end-of-options', 'a..b']`), as
   * `viewer` sees their authors. (API 2.1)
   */
  commitLog(
    repository: RepositoryInfo,
    args: string[],
    options: CommitDetails,
    viewer: Principal | null,
  ): Promise<Record<string, unknown>[]>;
  /**
   * The commits one ref update of a push brought, newest first (a bounded number, 200), and how
   * many there are; read once per push event and ref whoever asks (closing keywords, feeds). (API 2.1)
   */
  pushedCommits(event: PushEvent, update: RefUpdate): Promise<{ commits: PushedCommit[]; total: number }>;
}

/** What `RepositoryDomain.commitLog` adds to each commit (Gitea's `stat`, `files`, `verification` query options). @public */
export interface CommitDetails {
  stat: boolean;
  files: boolean;
  verification: boolean;
}

/** A commit a push brought. @public */
export interface PushedCommit {
  sha: string;
  /** The whole message (subject, blank line, body). */
  message: string;
  authorName: string;
  authorEmail: string;
  /** Committer date, ISO 8601. */
  timestamp: string;
}

/** The result of a git process. @public */
export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** A git process started by `GitToolkit.spawn`, for streaming. @public */
export interface GitProcess {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  /** The exit code (-1 when a signal ended it); rejects when git could not be started. */
  exited: Promise<number>;
  /** Send `signal` (default SIGTERM) to the process, e.g. at a deadline or on shutdown. (API 2.1) */
  kill(signal?: NodeJS.Signals): void;
}

/** @public */
export interface GitRunOptions {
  input?: string | Buffer;
  env?: Record<string, string | undefined>;
  /** Exit codes that are answers, not failures (e.g. 1 from `rev-parse --verify --quiet`). */
  okCodes?: number[];
}

/** One entry of a tree. @public */
export interface GitTreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  size: number;
  /** The entry's name, and its path from the root. */
  name: string;
  path: string;
}

/** A git author, committer or tagger. @public */
export interface GitPerson {
  name: string;
  email: string;
}

/** A ref as `for-each-ref` reports it: its full name, object id and object type. @public */
export interface GitRefInfo {
  ref: string;
  id: string;
  type: string;
}

/**
 * The kernel's git plumbing, over bare repositories: git always runs with an argument array,
 * never a shell, with the server's settings. Errors from `run` for missing objects become 404s
 * with `notFound`. (API 2.1)
 * @public
 */
export interface GitToolkit {
  run(gitDir: string | null, args: string[], options?: GitRunOptions): Promise<GitResult>;
  /** Trimmed UTF-8 output. */
  text(gitDir: string | null, args: string[], options?: GitRunOptions): Promise<string>;
  /** A git process for streaming: stdin/stdout are the process's. */
  spawn(gitDir: string | null, args: string[], options?: { env?: Record<string, string | undefined> }): GitProcess;
  /** Whether `err` is a failed git process (as opposed to a bug). */
  isGitError(err: unknown): boolean;
  /** The commit `rev` names (a branch, tag, or sha), or ApiError 404 naming `what`. */
  resolveCommit(gitDir: string, rev: string, what?: string): Promise<string>;
  readRef(gitDir: string, fullRef: string): Promise<GitRefInfo | null>;
  listTree(gitDir: string, commit: string, dir: string): Promise<GitTreeEntry[]>;
  /** Blobs by `sha` or `rev:path` expression; missing ones are absent from the map. */
  readBlobs(gitDir: string, exprs: string[]): Promise<Map<string, Buffer>>;
  writeBlob(gitDir: string, content: Buffer): Promise<string>;
  /** The last commit that touched each of `names` in `dir` at `commit`. */
  lastCommitsIn(gitDir: string, commit: string, dir: string, names: string[]): Promise<Map<string, string>>;
  /** Compare-and-swap a ref (ZERO_ID old = must not exist); ApiError 409 when it moved. */
  casUpdateRef(gitDir: string, ref: string, newId: string, oldId: string, reason: string): Promise<void>;
  /** Run `fn` holding the in-process lock named `key` (one writer per repository). */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Copy a bare repository (a fork's wiki, a mirror) and install the server's hooks in the copy. */
  cloneBare(fromGitDir: string, toGitDir: string): Promise<void>;
  /** Create an empty bare repository with the server's hooks, if it does not exist. */
  initBare(gitDir: string, defaultBranch: string): Promise<void>;
  /** Throw ApiError 422 unless `name` is a valid ref name (git check-ref-format rules). */
  assertValidRefName(name: string, what?: string): void;
  isObjectId(value: string): boolean;
  /** The git identity of a user: full name (else login), the no-reply address when they keep their email private. */
  identityOf(user: UserInfo): Promise<GitPerson>;
}

/**
 * The outbound network guard's policies: `[webhook] ALLOWED_HOST_LIST` and `[migrations] ALLOWED_DOMAINS`/`ALLOW_LOCALNETWORKS`.
 * @public
 */
export type OutboundPolicyName = 'webhook' | 'migrations';

/** @public */
export interface OutboundRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole-request deadline, including redirects. Default 5 s. */
  timeoutMs?: number;
  /** Redirects followed (each checked like the first request). Default 5; 0 returns the 3xx. */
  maxRedirects?: number;
  /** Response bytes kept; the rest is read and dropped. Default 64 KiB. */
  maxBodyBytes?: number;
}

/** @public */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** True when the body was longer than maxBodyBytes. */
  truncated: boolean;
  /** The URL that answered (after redirects). */
  url: string;
}

/**
 * Requests that leave the server (webhooks, mirrors) pass the allow-list, the SSRF guard: every
 * address a name resolves to is checked at connect time, and redirects like the first hop. (API 2.1)
 * @public
 */
export interface OutboundNetwork {
  /** An http(s) URL whose host and every resolved address `policy` allows, or ApiError 422 naming the rule. */
  checkRemoteUrl(address: string, policy: OutboundPolicyName): Promise<URL>;
  /** git's `http.curloptResolve` value pinning the URL's host to its checked addresses (null for an address literal). */
  pinnedResolve(url: URL, policy: OutboundPolicyName): Promise<string | null>;
  /** One request under `policy`, following checked redirects within a deadline. */
  request(address: string, options: OutboundRequestOptions, policy: OutboundPolicyName): Promise<OutboundResponse>;
  /** Whether `err` (from `request`) is the policy's refusal rather than a network failure. */
  isRefusal(err: unknown): boolean;
}

/**
 * Authenticated encryption of secrets kept in the database, keyed from `security.SECRET_KEY`.
 * Each sealed value is bound to a context string (e.g. the row it belongs to). (API 2.1)
 * @public
 */
export interface SecretSealer {
  seal(plain: string, context: string): string;
  /** The plain text; throws when the value was sealed under another key or context, or altered. */
  open(sealed: string, context: string): string;
}
