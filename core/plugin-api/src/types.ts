import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook } from 'tapable';
import type { Knex } from 'knex';
import type { Router, Request, Response } from 'express';
import type { ApiResponse } from './responses';
import type { GitToolkit, OutboundNetwork, RepositoryDomain, RepositoryInfo, SecretSealer, UnitLevel } from './domain';
import type { ServiceRef, ServiceRegistry } from './services';
import type { PackageSigningKeys } from './package-signing';
import type { AttachedGitDirectory } from './attached-git';
import type { AttachmentService } from './attachments';
import type { OrganizationDirectory } from './organizations';
import type { BranchProtection } from './protection';
import type { BlobStorage } from './blobs';

/** A JSON Schema (draft-07 subset that ajv and Swagger 2.0 both understand). @public */
export type JsonSchema = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Identity and scopes
// ---------------------------------------------------------------------------------------------

/** The token scope categories of Gitea 1.20, one per top-level API section. @public */
export type ScopeCategory =
  'activitypub' | 'admin' | 'misc' | 'notification' | 'organization' | 'package' | 'issue' | 'repository' | 'user';

/** Scope levels; each implies the ones before it (delete ⇒ write ⇒ read). @public */
export type ScopeLevel = 'read' | 'write' | 'delete';

/** Visibility of a user or organization, as Gitea names it. @public */
export type Visibility = 'public' | 'limited' | 'private';

/** A user record as the kernel hands it to plugins (never the password hash). @public */
export interface UserInfo {
  id: number;
  /** The display-cased login name. */
  name: string;
  lowerName: string;
  fullName: string;
  email: string;
  isAdmin: boolean;
  isRestricted: boolean;
  isActive: boolean;
  prohibitLogin: boolean;
  visibility: Visibility;
  /** 0 = individual user, 1 = organization (organizations share the user table, as in Gitea). */
  type: number;
  /** The authentication source the account signs in through (`ctx.users.registerSource`); 0 = a local password. (API 2.2) */
  loginSource: number;
  /** The account's name at its source (Gitea's `login_name`: an OIDC subject, an LDAP user name); '' for local accounts. (API 2.2) */
  loginName: string;
}

/**
 * Who is calling. `scopes === null` means the credential carries no scope restriction
 * (basic auth with a password); otherwise it is the expanded set of granted `level:category`
 * strings, e.g. `write:user` also yields `read:user`.
 * @public
 */
export interface Principal {
  user: UserInfo;
  /** How the caller authenticated: 'token', 'basic', or a plugin's own scheme name. */
  method: string;
  scopes: ReadonlySet<string> | null;
  /** A public-only token may only see public resources. */
  publicOnly: boolean;
  tokenId?: number;
}

/** The parts of a request an authentication tap may look at. @public */
export interface AuthRequest {
  method: string;
  /** The full request path as the client sent it (percent-encoded, without the query), whatever router serves it. */
  path: string;
  headers: IncomingHttpHeaders;
  query: Record<string, unknown>;
}

/** A login and password to check (`auth.verifyPassword`). (API 2.2) @public */
export interface PasswordCheck {
  /** A user name or primary email, as typed. */
  login: string;
  password: string;
}

/**
 * A password accepted for a request that carries it on every call (basic auth on the API, git and
 * packages), before the caller is admitted (`auth.passwordAccepted`). (API 2.3) @public
 */
export interface PasswordAccepted {
  user: UserInfo;
  /** The request's headers (a second factor travels in one, e.g. `X-Gitea-OTP`). */
  headers: IncomingHttpHeaders;
}

/** An error to render as a page (`http.errorPage`). (API 2.2) @public */
export interface ErrorPage {
  status: number;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Events carried by hooks
// ---------------------------------------------------------------------------------------------

/**
 * A forge event as fanned out by `webhook.emit`: webhook deliveries, the activity feed and
 * (later) ActivityPub subscribe to it. `event` uses Gitea's event names (push, issues, create…).
 * @public
 */
export interface ForgeEvent {
  event: string;
  action?: string;
  actor: UserInfo | null;
  /** Owner (user or organization) whose hooks should see the event. */
  ownerId?: number;
  repositoryId?: number;
  /** The Gitea-shaped payload, built by the emitter. */
  payload: Record<string, unknown>;
  occurredAt: Date;
}

/** @public */
export interface UserEvent {
  user: UserInfo;
  actor: UserInfo | null;
}

/**
 * A media download the kernel offers to `repository.media` taps before serving the blob itself.
 * The caller already reads the repository's code. (API 2.3)
 * @public
 */
export interface MediaRequest {
  repository: RepositoryTarget;
  principal: Principal | null;
  /** The file's path in the tree, and its blob's bytes (at most 1024). */
  path: string;
  content: Buffer;
  /** The request's headers (`Range`, `If-None-Match`). */
  headers: IncomingHttpHeaders;
}

/** Fired only when the lower-cased name changes: a capitalization-only rename touches nothing but the user record. @public */
export interface UserRenamedEvent extends UserEvent {
  oldName: string;
  newName: string;
}

/**
 * Fired inside the deletion transaction, before the user row goes. A tap cleans up its own
 * rows through `trx`, or throws an ApiError (typically 422) to refuse, e.g. "user still owns
 * repositories" when `purge` is false.
 * @public
 */
export interface UserDeletingEvent extends UserEvent {
  purge: boolean;
  trx: Knex.Transaction;
}

/** @public */
export interface RepositoryEvent {
  repositoryId: number;
  ownerId: number;
  ownerName: string;
  name: string;
  actor: UserInfo | null;
}

/** A label a new repository starts with (`repository.creating` plan). @public */
export interface RepositoryLabelSpec {
  name: string;
  /** `#rrggbb`. */
  color: string;
  description: string;
  exclusive: boolean;
}

/**
 * What `repository.creating` taps see and return, before anything is written: plain data. The
 * issues feature resolves `labelTemplate` (the API's `issue_labels`) into `labels`, or throws
 * 422 for an unknown template; the plan then reaches `repository.created` taps as `plan`.
 * @public
 */
export interface RepositoryCreationPlan {
  ownerId: number;
  ownerName: string;
  name: string;
  /** The source repository's git directory when the repository is a copy of another (a fork). */
  cloneFrom?: string;
  /** The source repository's id for a fork, else 0. */
  forkId: number;
  /** A label template to start from (`issue_labels`); unset after a tap resolved it. */
  labelTemplate?: string;
  /** The labels to create with the repository. */
  labels: RepositoryLabelSpec[];
}

/** @public */
export interface RepositoryCreatedEvent extends RepositoryEvent {
  /** The plan the `repository.creating` taps returned. */
  plan: RepositoryCreationPlan;
}

/**
 * Fired inside the deletion transaction of a repository (once per repository, also for each
 * repository of a purged user), before its row goes. A tap deletes its own rows through `trx`,
 * or throws an ApiError to refuse (the repository survives). Files and blobs must wait for the
 * commit: hand their removal to `afterCommit`.
 * @public
 */
export interface RepositoryDeletingEvent extends RepositoryEvent {
  trx: Knex.Transaction;
  /** Run `task` once the deletion committed (never when it rolled back). */
  afterCommit(task: () => void | Promise<void>): void;
}

/** Fired only when the lower-cased name changes (the repository's directories move). @public */
export interface RepositoryRenamedEvent extends RepositoryEvent {
  oldName: string;
}

/** The repository moved to another owner (`ownerId`/`ownerName` are the new owner). @public */
export interface RepositoryTransferredEvent extends RepositoryEvent {
  oldOwnerId: number;
  oldOwnerName: string;
}

/** One ref update of a push. Zero ids (40 × '0') mark creation and deletion, as git does. @public */
export interface RefUpdate {
  ref: string;
  oldId: string;
  newId: string;
}

/** @public */
export interface PushEvent extends RepositoryEvent {
  updates: RefUpdate[];
}

/** @public */
export interface PackageEvent {
  ownerId: number;
  ownerName: string;
  type: string;
  name: string;
  version: string;
  packageVersionId: number;
  actor: UserInfo | null;
}

/**
 * A proposed change to an issue or pull request, before it is stored. Taps of
 * `issue.mutate` return it (possibly rewritten) or throw an ApiError to veto.
 * @public
 */
export interface IssueMutation {
  /**
   * What is changing; the hook runs once per mutation, inside its transaction, before the write.
   * `create`, `edit` (PATCH of an issue or pull request: title, body, ref, state, milestoneId,
   * deadlineUnix, assigneeIds), `labels` (`labelIds`, `labels`), `state` (`state`: 'open' or
   * 'closed' — close/reopen by a commit's keyword carries `commitSha`, the close of a merged pull
   * request `merged: true` and `commitSha`; that one may be vetoed, not kept open), `pin`
   * (`pinned`, or `position` to move), `lock` (`locked`, `lockReason`), `deadline` (`deadlineUnix`).
   * `assignees` and `milestone` are reserved: those changes arrive today as `edit`.
   */
  kind: 'create' | 'edit' | 'labels' | 'state' | 'assignees' | 'milestone' | 'pin' | 'lock' | 'deadline' | string;
  issueId: number | null;
  repositoryId: number;
  /** The fields being changed; for labels, `labelIds` is the complete resulting set. */
  changes: Record<string, unknown>;
}

/** @public */
export interface MutationContext {
  actor: UserInfo | null;
  trx: Knex.Transaction | Knex;
}

// ---------------------------------------------------------------------------------------------
// Hooks
// ---------------------------------------------------------------------------------------------

/**
 * The kernel's hook points. The object and its groups are frozen; plugins tap the hooks in
 * `apply()`. Taps on notification hooks (`*.created`, `*.renamed`, `*.deleted`,
 * `push.received`, `package.published`, `webhook.emit`, `lifecycle.ready`) run after the change
 * is committed: a tap that throws is logged with its name and does not fail the request or
 * its sibling taps. See HOOKS.md for when each fires.
 * @public
 */
export interface KernelHooks {
  readonly auth: {
    /**
     * Resolve the caller. First tap to return a Principal wins; return undefined to pass;
     * throw ApiError(401) to reject bad credentials.
     */
    readonly authenticate: AsyncSeriesBailHook<[AuthRequest], Principal | undefined>;
    /**
     * Check a login name (or email) and password, for basic auth and the web sign-in form. First
     * tap to return a user wins; the kernel's local accounts tap last; return null to refuse the
     * password, undefined to pass to the next source (e.g. an LDAP plugin before local accounts). (API 2.2)
     */
    readonly verifyPassword: AsyncSeriesBailHook<[PasswordCheck], UserInfo | null | undefined>;
    /**
     * A password was accepted by basic auth (not a token): taps may demand more of the request
     * (a second factor) and throw an ApiError to refuse it. The web sign-in form does not fire it. (API 2.3)
     */
    readonly passwordAccepted: AsyncSeriesHook<[PasswordAccepted]>;
  };
  readonly http: {
    /** Called once at start, after every plugin's apply(): contribute API operations and routers. */
    readonly routes: AsyncSeriesHook<[RouteRegistrar]>;
    /**
     * Render an error of a path outside the API for a client that asked for HTML (a browser):
     * return true when the tap sent the response. Unanswered, the kernel sends its JSON error. (API 2.2)
     */
    readonly errorPage: SyncBailHook<[ErrorPage, Request, Response], boolean | undefined>;
  };
  readonly issue: {
    /** A waterfall over a proposed issue change, inside its transaction. */
    readonly mutate: AsyncSeriesWaterfallHook<[IssueMutation, MutationContext]>;
  };
  readonly webhook: {
    /** Fan-out of forge events to subscribers. */
    readonly emit: AsyncParallelHook<[ForgeEvent]>;
  };
  readonly user: {
    readonly created: AsyncSeriesHook<[UserEvent]>;
    readonly renamed: AsyncSeriesHook<[UserRenamedEvent]>;
    readonly deleting: AsyncSeriesHook<[UserDeletingEvent]>;
    readonly deleted: AsyncSeriesHook<[UserEvent]>;
  };
  readonly repository: {
    /** A waterfall over the creation plan, before anything is written; throw an ApiError to refuse. */
    readonly creating: AsyncSeriesWaterfallHook<[RepositoryCreationPlan]>;
    readonly created: AsyncSeriesHook<[RepositoryCreatedEvent]>;
    /** Inside the deletion transaction: delete your rows through `trx`, or throw to refuse. */
    readonly deleting: AsyncSeriesHook<[RepositoryDeletingEvent]>;
    readonly deleted: AsyncSeriesHook<[RepositoryEvent]>;
    readonly renamed: AsyncSeriesHook<[RepositoryRenamedEvent]>;
    readonly transferred: AsyncSeriesHook<[RepositoryTransferredEvent]>;
    /**
     * A `GET …/media/{path}` download of a small blob (at most 1024 bytes, e.g. a Git LFS pointer):
     * the first tap that returns a response answers instead of the blob's own bytes. (API 2.3)
     */
    readonly media: AsyncSeriesBailHook<[MediaRequest], ApiResponse | undefined>;
  };
  readonly push: {
    /** Taps run concurrently (they are independent reactions to one push); the push answers when all are done. */
    readonly received: AsyncParallelHook<[PushEvent]>;
  };
  readonly package: {
    readonly published: AsyncSeriesHook<[PackageEvent]>;
    /** A package version was deleted (its files, and the package with its last version, are gone). */
    readonly deleted: AsyncSeriesHook<[PackageEvent]>;
  };
  readonly lifecycle: {
    /** The server listens; background workers may start. */
    readonly ready: AsyncSeriesHook<[]>;
    /** The server is stopping; runs before the database closes. */
    readonly shutdown: AsyncSeriesHook<[]>;
  };
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

/** Who may call an operation, checked before the handler runs. @public */
export type AuthRequirement =
  /** Anyone, signed in or not. */
  | 'optional'
  /** Some valid credential. */
  | 'required'
  /** A site administrator. */
  | 'siteAdmin'
  /**
   * Basic auth (a password), as Gitea requires for managing tokens — or a web session (principal
   * method `session`, only ever in-process through `ctx.api`), which a password or a configured
   * identity provider started. A token never qualifies.
   */
  | 'basic';

/** The units of a repository, as Gitea names them (`has_<unit>` in the API). @public */
export type RepoUnitName = 'code' | 'issues' | 'pulls' | 'releases' | 'wiki' | 'projects' | 'packages' | 'actions';

/** A level of access to a repository or one of its units; each implies the ones before it. @public */
export type RepoAccessLevel = 'read' | 'write' | 'admin';

/**
 * What an operation acts on and what the caller needs of it. The kernel's access module resolves
 * the target named by the path once, before input validation and the handler: a target the caller
 * may not see is a 404 (unknown and invisible look alike), a visible one without the needed level
 * a 403. The resolved target reaches the handler as `req.target`. Every operation declares one.
 * - `'anyone'`: no target; lists filter by what the caller may read (`ctx.access.readableRepositoryIds`).
 * - `'caller'`: the signed-in caller's own things (`/user/…`, notifications); needs a credential.
 * - `'site-admin'`: site administrators (a full credential; a public-only token is not enough).
 * - `{ repo: { need, unit } }`: the repository at path parameters `owner`/`repo` (or `params`).
 * - `{ org }`: the organization at `{org}` — visible, a member, or an owner.
 * - `{ user }`: the user or organization at `{username}` — visible, or the user themself / a site admin; with
 *   `by: 'id'` the parameter is the numeric id (Gitea's `{user-id}`) instead of the name. (`by`: API 2.3)
 * - `{ team }`: the team at `{id}` — its members and the organization's owners, or owners only.
 * - `{ packages }`: the packages of the owner at `{owner}`.
 * @public
 */
export type OperationAccess =
  | 'anyone'
  | 'caller'
  | 'site-admin'
  | { repo: { need: RepoAccessLevel; unit?: RepoUnitName }; params?: { owner: string; repo: string } }
  | { org: 'visible' | 'member' | 'owner'; param?: string }
  | { user: 'visible' | 'self-or-admin'; param?: string; by?: 'name' | 'id' }
  | { team: 'member' | 'owner'; param?: string }
  | { packages: 'read' | 'write'; param?: string };

/** A repository as the access module resolved it for the caller. @public */
export interface RepositoryTarget extends RepositoryInfo {
  owner: UserInfo;
  /** The caller's repository-wide permission. */
  permission: { admin: boolean; push: boolean; pull: boolean };
}

/** The target an operation's `access` declaration named, resolved for the caller. @public */
export interface AccessTarget {
  /** `{ repo }` declarations. */
  repository?: RepositoryTarget;
  /** The organization (`{ org }`), user (`{ user }`), team's organization (`{ team }`) or package owner (`{ packages }`). */
  owner?: UserInfo;
  /** `{ team }` declarations. */
  team?: { id: number; orgId: number; name: string };
  /** `{ packages }` declarations: whether the caller may publish and delete. */
  canWritePackages?: boolean;
}

/**
 * The access module for plugins: the same rule the kernel applies to its own routes, for routers
 * outside `/api/v1` and for lists. (API 1.2)
 * @public
 */
export interface AccessService {
  /** Resolve a repository for `principal`, throwing ApiError 404 (not visible) or 403 (visible, level missing). */
  repository(
    ownerName: string,
    repoName: string,
    principal: Principal | null,
    need: RepoAccessLevel,
    unit?: RepoUnitName,
  ): Promise<RepositoryTarget>;
  /** The ids of repositories `principal` may read, as a subquery for `whereIn`; null means every repository (a site admin). */
  readableRepositoryIds(principal: Principal | null): Knex.QueryBuilder | null;
  /** Whether `principal` may see the owner (user or organization) and so its public repositories and packages. */
  ownerVisible(owner: UserInfo, principal: Principal | null): Promise<boolean>;
  /** The caller's level on one unit of a repository (beyond what the operation declared). (API 2.1) */
  unitLevel(repository: RepositoryTarget, principal: Principal | null, unit: RepoUnitName): Promise<UnitLevel>;
}

/** Paging derived from `page`/`limit` and the API settings (DEFAULT_PAGING_NUM, MAX_RESPONSE_ITEMS). @public */
export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

/** The request as an operation handler sees it, after validation. @public */
export interface ApiRequest<Body = any, Query = any, Params = Record<string, string>> {
  principal: Principal | null;
  params: Params;
  query: Query;
  body: Body;
  /** Present when the operation is `paged`. */
  paging: Paging;
  headers: IncomingHttpHeaders;
  /** What the operation's `access` declaration resolved (empty for `'anyone'`, `'caller'`, `'site-admin'`). */
  target: AccessTarget;
  requestId: string;
  log: Logger;
  /** The underlying Express request, for what the abstraction does not cover. */
  raw: Request;
}

/** A response with `X-Total-Count` and RFC 5988 `Link` headers, built by `ctx.http.paged`. @public */
export type PagedBody<T> = { items: T[]; total: number };

/**
 * A Gitea-dialect JSON operation under `/api/v1`. The kernel validates `params`, `query` and
 * `body` with ajv, enforces `auth` and the token scope of `scopes` at the level given by the
 * HTTP method (GET → read, POST/PUT/PATCH → write, DELETE → delete), and lists the operation in
 * the served OpenAPI document.
 * @public
 */
export interface ApiOperation<Body = any, Query = any, Params = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path syntax: `/users/{username}/tokens`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /**
   * Token categories the route's section requires (all of them), or `'public'` for routes that
   * must work with any token whatever its scope.
   */
  scopes: ScopeCategory[] | 'public';
  auth?: AuthRequirement;
  /** What the operation acts on and what the caller needs of it; checked by the kernel's one access module. */
  access: OperationAccess;
  /** Schema of the path parameters (an object schema; all properties required). */
  params?: JsonSchema;
  /** Schema of the query string (an object schema; types are coerced). */
  query?: JsonSchema;
  /** `$ref` id of a registered schema or an inline schema for the JSON body. */
  body?: string | JsonSchema;
  /** `text` accepts a text/plain body as a string (e.g. /markdown/raw). */
  bodyType?: 'json' | 'text';
  bodyRequired?: boolean;
  /** Adds `page`/`limit` and fills `req.paging`. */
  paged?: boolean;
  /** status → schema `$ref` id or description; feeds the OpenAPI document. */
  responses: Record<number, string | { description: string; schema?: string | JsonSchema; contentType?: string }>;
  handler(req: ApiRequest<Body, Query, Params>): Promise<ApiResponse> | ApiResponse;
}

/** How the kernel guards a package format's router. @public */
export interface PackageRouteOptions {
  /**
   * The token level a request needs, when the HTTP method says otherwise (e.g. cargo's yank is a
   * DELETE that only changes a flag: `write`). Return undefined for the default: GET/HEAD read,
   * DELETE delete, others write.
   */
  levelFor?(method: string, path: string): ScopeLevel | undefined;
  /**
   * The `WWW-Authenticate` challenge for anonymous callers of an owner they may not see (e.g.
   * cargo's `Cargo login_url="…"`): such calls are answered 401 with it, so that the client
   * retries with credentials, instead of 404. Unset: 404, as for an unknown owner. (API 1.1)
   */
  anonymousChallenge?: string | (() => string);
  /**
   * Answer the guard's own refusals (unknown or invisible owner 404, missing token scope 403,
   * bad credentials or a needed login 401) in the format's clients' shape, e.g. a `text/plain`
   * 404 for go or `application/problem+json` for SwiftPM. Headers the refusal carries
   * (`WWW-Authenticate`) are already set on `res`; return true when the response was sent,
   * false for the kernel's JSON error. Errors of the format's own router are its own. (API 2.1)
   */
  renderError?(error: { status: number; message: string }, req: Request, res: Response): boolean;
  /**
   * Credentials carried in the path, for clients that put the token in the URL (conda's
   * `/t/<token>/…`): given the path under the mount (e.g. `/t/abc/main/noarch/repodata.json`),
   * return the token and the path without it (`/main/noarch/repodata.json`), or undefined. The
   * guard then authenticates with the token as if sent as `Authorization: token <token>` (a bad
   * one is a 401) and the router sees the shortened path. (API 2.1)
   */
  credentialsFromPath?(path: string): { token: string; path: string } | undefined;
  /**
   * Single paths beside the mount served by the same router behind the same guard: a suffix
   * `.repo` serves `/api/packages/{owner}/<type>.repo` as the router's `/.repo` (e.g. Gitea's
   * `rpm.repo` for `dnf config-manager --add-repo`). Each suffix starts with `.` or `-`. (API 2.1)
   */
  siblingPaths?: readonly string[];
}

/** Passed to `http.routes` taps. @public */
export interface RouteRegistrar {
  /** Add a `/api/v1` operation. A second operation with the same method and path stops the start. */
  api(op: ApiOperation): void;
  /**
   * Mount a package format's router at `/api/packages/:owner/<type>` (create it with
   * `Router({ mergeParams: true })` to read `:owner`). One router per type.
   */
  packages(type: string, router: Router, options?: PackageRouteOptions): void;
  /** Mount a router at a site path outside the API (git smart HTTP, well-known files). */
  root(prefix: string, router: Router): void;
}

// ---------------------------------------------------------------------------------------------
// Services a plugin gets
// ---------------------------------------------------------------------------------------------

/** A pino-compatible logger. @public */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** Settings of the forge every plugin may read (the validated config, minus secrets). @public */
export interface ForgeSettings {
  appName: string;
  /** What `/version` reports: the Gitea API version spoken, with Hearth's version as build metadata. */
  version: string;
  /** The public base URL, with a trailing slash. */
  appUrl: string;
  dataDir: string;
  /** Gitea's [api] section. */
  api: { MAX_RESPONSE_ITEMS: number; DEFAULT_PAGING_NUM: number; DEFAULT_GIT_TREES_PER_PAGE: number; DEFAULT_MAX_BLOB_SIZE: number };
  /** The whole validated configuration, read-only, for sections a plugin owns or shares. */
  raw: Readonly<Record<string, any>>;
}

/** Users as plugins see them. @public */
export interface UserDirectory {
  byName(name: string): Promise<UserInfo | null>;
  byId(id: number): Promise<UserInfo | null>;
  /** The Gitea `User` JSON object for `user` as `viewer` may see it. */
  toApi(user: UserInfo, viewer: Principal | null): Promise<Record<string, unknown>>;
  /**
   * The `User` JSON of many users by id, read in one query (authors, reviewers, actors of a page);
   * ids of users that do not exist are absent from the map. (API 2.1)
   */
  toApiByIds(ids: readonly number[], viewer: Principal | null): Promise<Map<number, Record<string, unknown>>>;
  /** Individual (non-organization) accounts: all, and those who signed in within 180 and 30 days. */
  stats(): Promise<{ total: number; activeHalfyear: number; activeMonth: number }>;
  /**
   * The user a login (name or email) and password sign in as, through `auth.verifyPassword`, or
   * null. Accounts that may not sign in (prohibited, not activated) are ApiError 403. (API 2.2)
   */
  verifyPassword(login: string, password: string): Promise<UserInfo | null>;
  /**
   * Self-registration (the web sign-up form): an ordinary account, or ApiError 403 when
   * `[service] DISABLE_REGISTRATION` is set, 422 for a bad or taken name, email or password. (API 2.2)
   */
  register(input: { name: string; email: string; password: string }): Promise<UserInfo>;
  /** Whether any site administrator exists (first-run hints). (API 2.2) */
  hasSiteAdmin(): Promise<boolean>;
  /**
   * Register an authentication source (an identity plugin's OIDC provider, LDAP server…) under a
   * name unique across every plugin's sources; the id it returns is what users of the source carry
   * as `loginSource`. 409 when the name is taken, 422 for an empty or over-long name. (API 2.2)
   */
  registerSource(type: string, name: string): Promise<number>;
  /** Rename a registered source (409 when the name is taken, 404 for an unknown id). (API 2.2) */
  renameSource(id: number, name: string): Promise<void>;
  /** Forget a registered source: 422 while accounts still sign in through it (delete or move them first). (API 2.2) */
  removeSource(id: number): Promise<void>;
  /**
   * Create the account of a user an external source vouched for: no password (it signs in through
   * its source only), `loginSource`/`loginName` set. Allowed while `[service] DISABLE_REGISTRATION`
   * is set, since a site administrator configured the source. 422 for an unregistered source or a
   * bad or taken name or email. Fires `user.created`. (API 2.2)
   */
  createExternal(input: ExternalUserInput): Promise<UserInfo>;
  /** The individual account a source knows as `loginName` (Gitea's `login_source` + `login_name`), or null. (API 2.2) */
  byLogin(sourceId: number, loginName: string): Promise<UserInfo | null>;
  /**
   * The caller of a plugin's credential scheme (an `auth.authenticate` tap) acting as user `id`:
   * the account read once for the whole request (the operations reuse it), 403 when it may not sign
   * in (prohibited, not activated), null when it does not exist. (API 2.3)
   */
  principalFor(
    id: number,
    credential: { method: string; scopes: ReadonlySet<string> | null; publicOnly: boolean },
  ): Promise<Principal | null>;
  /** The individual account one of whose email addresses is `email` (any case), or null. (API 2.2) */
  byEmail(email: string): Promise<UserInfo | null>;
  /**
   * Set or clear the site administrator and restricted flags of an individual account (what is not
   * given stays); 422 when it would demote the last site administrator. (API 2.2)
   */
  setFlags(userId: number, flags: { isAdmin?: boolean; isRestricted?: boolean }): Promise<UserInfo>;
  /**
   * A user's own password change (a settings page): ApiError 403 when `oldPassword` is wrong, 400
   * when `newPassword` is shorter than `[security] MIN_PASSWORD_LENGTH`, 422 for an account of an
   * external source (no local password), 404 for an unknown user. Sessions are the caller's to end. (API 2.3)
   */
  changePassword(userId: number, oldPassword: string, newPassword: string): Promise<void>;
}

/** A new account from an external authentication source (`UserDirectory.createExternal`). (API 2.2) @public */
export interface ExternalUserInput {
  name: string;
  email: string;
  fullName?: string;
  /** The id `registerSource` returned. */
  sourceId: number;
  /** Who the user is at the source: an OIDC subject, an LDAP user name. */
  loginName: string;
}

/**
 * `/api/v1` operations called in-process with a caller's principal, e.g. by a web interface: the
 * same token-scope, access and validation checks as over HTTP. (API 2.2)
 * @public
 */
export interface ApiInvoker {
  /**
   * Run the operation at `path` (below `/api/v1`, segments percent-encoded) as `principal`; the
   * operation's answer, or its ApiError (404 for a path no operation serves).
   */
  call(
    principal: Principal | null,
    method: 'get' | 'post' | 'put' | 'patch' | 'delete',
    path: string,
    options?: { query?: Record<string, unknown>; body?: unknown },
  ): Promise<ApiResponse>;
}

/** Helpers for API responses that depend on the kernel's settings. @public */
export interface HttpHelpers {
  /** 200 with `X-Total-Count` and a `Link` header built from the request's paging. */
  paged(req: ApiRequest, items: unknown[], total: number): ApiResponse;
  /** Absolute URL of an API path: `apiUrl('/users/x')` → `https://host/api/v1/users/x`. */
  apiUrl(path: string): string;
  /** True when the caller's token carries `level:category` (always true without a scoped token). */
  hasScope(principal: Principal | null, category: ScopeCategory, level: ScopeLevel): boolean;
  /**
   * The caller of a request a root router serves, through `auth.authenticate` (once per request,
   * as for git and `/api/v1`): null when anonymous; bad credentials are ApiError 401. (API 2.3)
   */
  authenticate(req: Request): Promise<Principal | null>;
}

// ---------------------------------------------------------------------------------------------
// Package registry (the kernel's framework every package format plugin builds on)
// ---------------------------------------------------------------------------------------------

/** Content hashes of a stored package file, lower-case hex. @public */
export interface PackageHashes {
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}

/**
 * Who is calling a package route and what they may do with the owner's packages. The kernel
 * resolves it before a format's router runs (owner visible, token scope and permission for the
 * method already checked); read it with `ctx.packages.access(req)`.
 * @public
 */
export interface PackageAccess {
  /** The owner named by `:owner` (a user or an organization). */
  owner: UserInfo;
  principal: Principal | null;
  /** The caller may publish and delete the owner's packages. */
  canWrite: boolean;
}

/** One version of a package. @public */
export interface PackageVersionInfo {
  id: number;
  packageId: number;
  ownerId: number;
  /** The format, e.g. `generic`. */
  type: string;
  /** Display-cased package name. */
  name: string;
  version: string;
  creatorId: number;
  createdAt: Date;
  downloadCount: number;
  /** Format-specific metadata stored with the version (JSON), or null. */
  metadata: Record<string, unknown> | null;
}

/** One file of a package version. @public */
export interface PackageFileInfo {
  id: number;
  versionId: number;
  name: string;
  /** Distinguishes files with the same name in one version (e.g. an architecture); '' when unused. */
  compositeKey: string;
  /** The file that represents the version (counted as its download). */
  isLead: boolean;
  size: number;
  hashes: PackageHashes;
  createdAt: Date;
}

/** What `PackageRegistry.upload` stores. @public */
export interface PackageUpload {
  ownerId: number;
  type: string;
  name: string;
  version: string;
  filename: string;
  compositeKey?: string;
  isLead?: boolean;
  /** The file's bytes; streamed to storage, never buffered whole. */
  body: Readable;
  /** The announced size (Content-Length), checked against the owner's quota before any byte is stored. */
  declaredSize?: number;
  /** Stored on the version when this upload creates it. */
  metadata?: Record<string, unknown>;
  /** Versions of this package compare as semver (set when the package is created). */
  semverCompatible?: boolean;
  /** What to do when the file exists already: 409 (default) or replace it. */
  onExisting?: 'conflict' | 'replace';
  actor: UserInfo | null;
}

/** A file opened for download. @public */
export interface PackageDownload {
  file: PackageFileInfo;
  size: number;
  hashes: PackageHashes;
  /** The bytes; the caller must consume or destroy it. */
  stream: Readable;
}

/**
 * The package registry service: storage, tables, quotas and hooks shared by every package
 * format. Files are content-addressed blobs (sha256), deduplicated and reference-counted.
 * Names and versions are matched case-insensitively. Errors are ApiErrors (404, 409, 413, 422).
 * @public
 */
export interface PackageRegistry {
  /** The access the kernel resolved for a request under `/api/packages/:owner/<type>`. */
  access(req: Request): PackageAccess;
  /**
   * Store a file into a (possibly new) package and version. Checks the owner's quotas first,
   * streams the body while hashing, and fires `package.published` when the version is new.
   * `created` says whether the version was created by this upload.
   */
  upload(input: PackageUpload): Promise<{ version: PackageVersionInfo; file: PackageFileInfo; created: boolean }>;
  getVersion(ownerId: number, type: string, name: string, version: string): Promise<PackageVersionInfo | null>;
  /** All versions of a package, oldest first (semver order for semver-compatible packages). */
  listVersions(ownerId: number, type: string, name: string): Promise<PackageVersionInfo[]>;
  listFiles(versionId: number): Promise<PackageFileInfo[]>;
  getFile(versionId: number, filename: string, compositeKey?: string): Promise<PackageFileInfo | null>;
  /** Open a file's bytes; counts a download of the version when the file is its lead file. */
  openFile(file: PackageFileInfo): Promise<PackageDownload>;
  /**
   * Delete one file; the version goes too when it was its last file (and the package with its
   * last version), firing `package.deleted` with `actor`.
   */
  deleteFile(file: PackageFileInfo, actor?: UserInfo | null): Promise<void>;
  /** Delete a version with its files (and the package with its last version); unreferenced blobs are removed; fires `package.deleted`. */
  deleteVersion(versionId: number, actor?: UserInfo | null): Promise<void>;
  /**
   * The access `principal` has to the packages of the owner named `ownerName`, checked as the
   * registry mounts do, for routes outside `/api/packages` (e.g. an index repository). Throws
   * ApiError 404 when the owner is unknown or invisible to the caller, 403 when a token lacks
   * `<level>:package`, 401/403 for `write` without permission. (API 1.1)
   */
  ownerAccess(ownerName: string, principal: Principal | null, level?: ScopeLevel): Promise<PackageAccess>;
  /** Per-owner signing keys for formats that sign their indexes (API 2.1). */
  readonly signingKeys: PackageSigningKeys;
  /**
   * Stream an upload body to a private temporary file (under the data directory's
   * `packages/tmp/upload-*`, which the leftover sweeper clears after a crash) while hashing it,
   * for formats that must read a file before storing it (random access, several passes). More
   * than `maxBytes` is a 413 (before reading, when `body` is the request and its Content-Length
   * says so); the caller must `cleanup()` (idempotent) when done, e.g. in `finally`. (API 2.1)
   */
  spool(body: Readable, options: PackageSpoolOptions): Promise<SpooledPackageFile>;
}

/** Options of `PackageRegistry.spool`. (API 2.1) @public */
export interface PackageSpoolOptions {
  /** The most bytes accepted; more is refused with 413. */
  maxBytes: number;
  /** The 413 message (default: `the upload is larger than <maxBytes> bytes`). */
  tooLarge?: string;
  /** When set, an empty body is refused with 400 and this message. */
  empty?: string;
}

/** An upload body spooled by `PackageRegistry.spool`. (API 2.1) @public */
export interface SpooledPackageFile {
  /** The temporary file (read it, stream it to `upload`); removed by `cleanup`. */
  path: string;
  size: number;
  hashes: PackageHashes;
  /** Remove the temporary file; safe to call more than once. */
  cleanup(): Promise<void>;
}

/**
 * Git hosting for repositories a plugin maintains itself (bare repositories under its data
 * directory, e.g. a package index), served with the kernel's smart HTTP transport. (API 1.1)
 * @public
 */
export interface GitHosting {
  /**
   * A router serving bare repositories read-only over git's smart HTTP: `GET info/refs?service=git-upload-pack`
   * and `POST git-upload-pack` relative to where it is mounted; pushes (`git-receive-pack`) are 403,
   * and everything is 403 when `[repository] DISABLE_HTTP_GIT` is set. `locate` gets the request
   * and its authenticated caller (Basic auth with a password or token, as for repositories) and
   * returns the repository's git directory, or throws an ApiError: 404, or 401 with a
   * `WWW-Authenticate: Basic` header (`ApiError.unauthorized()`) so that git asks for credentials.
   * Mount it with `RouteRegistrar.root` (path parameters of the prefix reach `req.params`).
   */
  readOnlyRouter(locate: (req: Request, principal: Principal | null) => Promise<string>): Router;
  /**
   * Serve a git repository kept beside every repository (e.g. the wiki) with the repository's access;
   * see AttachedGitDirectory. (API 2.1)
   */
  serveAttached(directory: AttachedGitDirectory): void;
  /**
   * Run a git service for a stream transport (SSH): resolve the repository for the caller with the
   * access module (ApiError 404 when not visible, 403 when pushing is not allowed — nothing runs),
   * then run git's `upload-pack`, `receive-pack` or `upload-archive` on it between the streams with
   * the server hooks of git over HTTP (reserved refs, protected branches for the pusher; a deploy
   * key is no listed pusher), and record the push (branches, `push.received`) before resolving
   * with git's exit code. (API 2.3)
   */
  serveTransport(request: GitTransportRequest): Promise<number>;
  /**
   * How repositories are cloned over SSH: `build` gives the `ssh_url` of a repository's JSON
   * (e.g. `ssh://git@host:2222/owner/repo.git`), or null to report none (the default: ''). (API 2.3)
   */
  setSshCloneUrl(build: ((ownerName: string, repoName: string) => string) | null): void;
}

/** A git service a stream transport (SSH) runs. (API 2.3) @public */
export type GitStreamService = 'git-upload-pack' | 'git-receive-pack' | 'git-upload-archive';

/**
 * Who runs a git service over a stream transport: a signed-in user (the access module decides, as
 * over HTTP), or a key that opens one repository only (a deploy key), for reading or also pushing. (API 2.3)
 * @public
 */
export type GitTransportCaller = { principal: Principal } | { repositoryId: number; canPush: boolean };

/** One git service over a byte stream, e.g. an SSH channel's `exec`. (API 2.3) @public */
export interface GitTransportRequest {
  caller: GitTransportCaller;
  ownerName: string;
  /** As the client named it: `.git` optional; `<repo>.wiki` reaches an attached directory (`serveAttached`). */
  repoName: string;
  service: GitStreamService;
  /** GIT_PROTOCOL as the client asked (`version=2`); anything but git's own syntax is dropped. */
  protocol?: string;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** A maintenance command of a plugin, run with `hearth plugins run <plugin> <command> [args…]`. (API 1.1) @public */
/**
 * A periodic job of the server, listed by `GET /admin/cron` and run at once by
 * `POST /admin/cron/{task}` (Gitea's cron tasks). (API 2.3) @public
 */
export interface CronTask {
  /** snake_case, unique on the server (Gitea's task names: `update_mirrors`, …). */
  name: string;
  /** Seconds between runs; 0 runs it only when asked. */
  intervalSeconds: number;
  /** One run; a run is never started while the previous one is still going. Errors are logged. */
  run(): Promise<void>;
}

export interface PluginCommand {
  /** Kebab-case name, unique within the plugin. */
  name: string;
  /** One line for the usage text. */
  description: string;
  /** The argument synopsis, e.g. `<owner>`. */
  usage?: string;
  /**
   * Runs in a fully started kernel (database migrated, plugins applied; the HTTP server does not
   * listen). Print to `out`; resolve with the process exit code (0 when omitted). Throw ApiError
   * for a user mistake: its message is printed and the exit code is 1.
   */
  run(args: string[], out: (line: string) => void): Promise<number | void>;
}

/**
 * What `apply()` receives: the plugin's view of the kernel. Everything a plugin may use is here;
 * nothing else of the kernel is public.
 * @public
 */
export interface PluginContext<Settings = Record<string, unknown>> {
  readonly name: string;
  /** The plugin's settings from config, validated against its `settingsSchema`, defaults applied. */
  readonly settings: Readonly<Settings>;
  readonly hooks: KernelHooks;
  /** The forge's database. Plugin tables should carry the plugin's name as a prefix. */
  readonly db: Knex;
  readonly log: Logger;
  readonly forge: ForgeSettings;
  /** Register JSON Schemas (with `$id`) for request validation and the OpenAPI document. */
  readonly schemas: { add(schema: JsonSchema): void };
  readonly users: UserDirectory;
  readonly http: HttpHelpers;
  /** The package registry framework, for package format plugins. */
  readonly packages: PackageRegistry;
  /** Emit a forge event through `webhook.emit`. */
  emit(event: Omit<ForgeEvent, 'occurredAt'>): Promise<void>;
  /** git plumbing over bare repositories (API 2.1), and serving plugin-maintained ones read-only over smart HTTP (API 1.1). */
  readonly git: GitHosting & GitToolkit;
  /** The forge's access rule, for routers outside `/api/v1` and for lists. (API 1.2) */
  readonly access: AccessService;
  /** Maintenance commands for `hearth plugins run <plugin> <command>`; register them in `apply()`. (API 1.1) */
  readonly commands: { add(command: PluginCommand): void };
  /** The server's periodic jobs: a task added here runs every `intervalSeconds` once the server listens. (API 2.3) */
  readonly cron: { add(task: CronTask): void };
  /** Repositories as the core owns them: lookups, git directories, JSON, ref updates, counts. (API 2.1) */
  readonly repositories: RepositoryDomain;
  /** Outbound requests through the allow-list (SSRF guard). (API 2.1) */
  readonly outbound: OutboundNetwork;
  /** Encryption at rest for the secrets of `purpose` (a plugin-chosen name, e.g. `webhook-secrets`). (API 2.1) */
  secrets(purpose: string): SecretSealer;
  /** Services other plugins provide, and this plugin's own (see `provides`, `requires`, `optional`). (API 2.1) */
  readonly services: ServiceRegistry;
  /** Attachments (files of releases…), stored and served by the core. (API 2.1) */
  readonly attachments: AttachmentService;
  /** Organization memberships and teams, as the core owns them. (API 2.1) */
  readonly organizations: OrganizationDirectory;
  /** Branch protection rules and the checks of merges and ref changes. (API 2.1) */
  readonly protection: BranchProtection;
  /** The forge's `/api/v1` operations, called in-process as a given principal. (API 2.2) */
  readonly api: ApiInvoker;
  /**
   * The blob storage of `area` (lower-case letters, digits, dashes; not `packages` or
   * `attachments`, which the core owns): `<DATA_DIR>/<area>/blobs`, or the `[storage]` bucket
   * under `<MINIO_BASE_PATH><area>/`. (API 2.3)
   */
  blobs(area: string): BlobStorage;
}

/** One schema migration of a plugin. Names sort in the order they run. @public */
export interface PluginMigration {
  name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/**
 * A Hearth plugin: what a plugin package exports (as `default` or `plugin`).
 * @public
 */
export interface HearthPlugin<Settings = any> {
  /** Brand checked at load. Set by definePlugin. */
  readonly kind: 'hearth.plugin/v1';
  /** Short kebab-case id; the key under `plugins` in config. */
  name: string;
  version: string;
  /** Semver range of PLUGIN_API_VERSION this plugin works with, e.g. `^1.0.0`. */
  apiVersion: string;
  description?: string;
  /**
   * What must be enabled and applied first: plugin names, and service refs some enabled plugin
   * `provides` (the loader names the plugin to enable when none does).
   */
  requires?: Array<string | ServiceRef<unknown>>;
  /** Services this plugin uses when some enabled plugin provides them (applied first if so). (API 2.1) */
  optional?: Array<ServiceRef<unknown>>;
  /** Services this plugin provides with `ctx.services.provide` in `apply`. (API 2.1) */
  provides?: Array<ServiceRef<unknown>>;
  /**
   * Repository units this plugin serves (`issues`, `pulls`, `wiki`, `releases`…): while it is
   * disabled, repositories report those units off. (API 2.1)
   */
  units?: RepoUnitName[];
  /** JSON Schema of `settings`; validated at start with defaults applied. */
  settingsSchema?: JsonSchema;
  /** Run in order at start and by `hearth migrate`, tracked per plugin. */
  migrations?: PluginMigration[];
  /**
   * For features that moved out of the kernel: their migrations were recorded in the kernel's
   * migration table by earlier releases. The loader moves those rows to this plugin's table
   * (atomically, idempotently) before migrating, so that existing databases keep working. (API 2.1)
   */
  adoptsKernelMigrations?: boolean;
  apply(ctx: PluginContext<Settings>): void | Promise<void>;
}
