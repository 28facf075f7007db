import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import {
  ApiError,
  type KernelHooks,
  type Principal,
  type RefUpdate,
  type RepositoryCreationPlan,
  type RepositoryCounts,
  type RepositoryEvent,
  type RepositoryTransferredEvent,
  type UserInfo,
} from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import { isUniqueViolation } from '../db/errors';
import { KeyedQueue, withConflictRetry } from '../db/retry';
import { deleteCommitStatuses } from './status-store';
import { archiveCacheDir, removeArchiveCaches } from './archive-service';
import { removeRepoAccess } from '../orgs/org-store';
import { AccessPolicy, type RepoPermission, type ResolvedRepo } from '../access/policy';
import type { UserService } from '../users/user-service';
import { GO_ZERO_TIME, UserRow, nowUnix, unixToIso } from '../users/models';
import { GitError, ZERO_ID, gitText, runGit } from './git';
import { writeHooks } from './server-hooks';
import { DEFAULT_REPO_SETTINGS, REPO_STATUS, REPO_UNITS, RepositoryRow, type RepoSettings, type RepoUnit, type RepoUnits } from './models';
import { assertValidRefName, assertValidRepoName } from './names';

export type { AccessNeed, RepoPermission, ResolvedRepo, UnitAccess } from '../access/policy';
export { teamUnitMode } from '../access/policy';

/** Files for an initial commit, resolved from templates before anything is written. */
export interface InitialFiles {
  [path: string]: string;
}

export interface CreateRepoInput {
  name: string;
  description?: string;
  private?: boolean;
  template?: boolean;
  defaultBranch?: string;
  /** Files of the first commit (README, .gitignore, LICENSE); none means an empty repository. */
  initialFiles?: InitialFiles;
  isFork?: boolean;
  forkId?: number;
  /** Start as a copy of this bare repository (forks); excludes initialFiles. */
  cloneFrom?: string;
  /** A label template (Gitea's `issue_labels`) whose labels the repository starts with; unknown → 422, nothing created. */
  issueLabels?: string;
  /** Adopt the bare repository already on disk at the record's place (site admins: `/admin/unadopted`); 404 without one. */
  adopt?: boolean;
}

/**
 * Repositories: rows in `repositories`, bare git directories under DATA_DIR/repositories/<owner>/<name>.git
 * (lower-cased), and the one access rule every route and the git transport ask.
 */
export class RepoService {
  readonly root: string;
  /** The forge's one access rule (access/policy.ts). */
  readonly access: AccessPolicy;
  private readonly pushQueue = new KeyedQueue();
  /** `repository.deleting` taps' afterCommit tasks of a purge, run once it committed, by owner id. */
  private readonly purgeTasks = new Map<number, Array<() => void | Promise<void>>>();
  /** Directories to remove once a purge committed, by owner id. */
  private readonly purgedDirs = new Map<number, string[]>();
  private readonly countCollectors: Array<(repositoryIds: readonly number[]) => Promise<Map<number, RepositoryCounts>>> = [];
  /** Units whose feature plugin is disabled (set at boot): repositories report them off. */
  readonly unservedUnits = new Set<RepoUnit>();

  constructor(
    private readonly db: Knex,
    private readonly hooks: KernelHooks,
    private readonly config: HearthConfig,
    private readonly users: UserService,
  ) {
    this.root = path.join(config.server.DATA_DIR, 'repositories');
    this.access = new AccessPolicy(db, users, (ownerName, repoName) => this.gitDir(ownerName, repoName));
    this.tapUserLifecycle();
  }

  gitDir(ownerName: string, repoName: string): string {
    return path.join(this.root, ownerName.toLowerCase(), `${repoName.toLowerCase()}.git`);
  }

  /** The ssh_url of repository JSON (a plugin's SSH server sets it: `ctx.git.setSshCloneUrl`). */
  private sshCloneUrl: ((ownerName: string, repoName: string) => string) | null = null;

  setSshCloneUrl(build: ((ownerName: string, repoName: string) => string) | null): void {
    this.sshCloneUrl = build;
  }

  query() {
    return RepositoryRow.query(this.db);
  }

  async byId(id: number): Promise<RepositoryRow | undefined> {
    return RepositoryRow.query(this.db).findById(id);
  }

  /** The repository `ownerName/name` (both case-insensitive), without any access check. */
  async byOwnerAndName(ownerName: string, name: string): Promise<RepositoryRow | undefined> {
    const owner = await this.users.byName(ownerName);
    return owner ? RepositoryRow.query(this.db).findOne({ owner_id: owner.id, lower_name: name.toLowerCase() }) : undefined;
  }

  async ownerOf(repo: RepositoryRow): Promise<UserRow | undefined> {
    return this.users.byId(repo.owner_id);
  }

  // --- create / edit / delete -------------------------------------------------------------------

  async create(owner: UserRow, input: CreateRepoInput, actor: UserInfo): Promise<RepositoryRow> {
    assertValidRepoName(input.name);
    const defaultBranch = input.defaultBranch || this.config.repository.DEFAULT_BRANCH;
    assertValidRefName(defaultBranch, 'branch');
    await this.assertBelowLimit(owner, input.isFork === true);
    const gitDir = this.gitDir(owner.name, input.name);
    const existing = await RepositoryRow.query(this.db).findOne({ owner_id: owner.id, lower_name: input.name.toLowerCase() });
    if (existing) throw ApiError.conflict('The repository with the same name already exists.');
    // Features shape the plan (the issues feature resolves label templates, 422 for an unknown one) before anything is written.
    const plan: RepositoryCreationPlan = await this.hooks.repository.creating.promise({
      ownerId: owner.id,
      ownerName: owner.name,
      name: input.name,
      cloneFrom: input.cloneFrom,
      forkId: input.forkId ?? 0,
      labelTemplate: input.issueLabels || undefined,
      labels: [],
    });
    if (input.adopt && !fs.existsSync(path.join(gitDir, 'HEAD'))) throw ApiError.notFound('no repository files to adopt on disk');
    if (!input.adopt && fs.existsSync(gitDir)) {
      throw ApiError.conflict(
        'The repository files already exist on disk without a record; ask the site administrator to adopt or delete them.',
      );
    }
    const now = nowUnix();
    let row: RepositoryRow;
    try {
      row = await this.db.transaction(async (trx) => {
        const inserted = await RepositoryRow.query(trx).insertAndFetch({
          owner_id: owner.id,
          owner_name: owner.name,
          lower_name: input.name.toLowerCase(),
          name: input.name,
          description: input.description ?? '',
          default_branch: defaultBranch,
          is_private: input.private ?? false,
          is_template: input.template ?? false,
          is_fork: input.isFork ?? false,
          fork_id: input.forkId ?? 0,
          units: JSON.stringify(Object.fromEntries(REPO_UNITS.map((u) => [u, true]))),
          settings: JSON.stringify(DEFAULT_REPO_SETTINGS),
          created_unix: now,
          updated_unix: now,
        } as Partial<RepositoryRow>);
        // On disk inside the transaction: if git fails, no row is left behind.
        if (input.adopt) writeHooks(gitDir);
        else if (input.cloneFrom) await cloneBareRepository(input.cloneFrom, gitDir);
        else await initBareRepository(gitDir, defaultBranch);
        return inserted;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw ApiError.conflict('The repository with the same name already exists.');
      throw err;
    }
    if (input.adopt) {
      // The files' own HEAD names the default branch (when it exists); their branches are read as for a copy.
      const head = (await runGit(['symbolic-ref', '--short', '-q', 'HEAD'], { gitDir, okCodes: [1] })).stdout.toString().trim();
      if (head && head !== row.default_branch) await RepositoryRow.query(this.db).patch({ default_branch: head }).where('id', row.id);
      row = (await this.byId(row.id))!;
      await this.syncBranches(row, false);
      row = (await this.byId(row.id))!;
    } else if (input.cloneFrom) {
      await this.syncBranches(row, false); // a copy, not a push: no push.received
      row = (await this.byId(row.id))!;
    } else if (input.initialFiles && Object.keys(input.initialFiles).length > 0) {
      const commit = await this.commitInitialFiles(gitDir, defaultBranch, input.initialFiles, actor);
      await this.recordPush(row, [{ ref: `refs/heads/${defaultBranch}`, oldId: ZERO_ID, newId: commit }], actor);
      row = (await this.byId(row.id))!;
    }
    await this.hooks.repository.created.promise({
      repositoryId: row.id,
      ownerId: owner.id,
      ownerName: owner.name,
      name: row.name,
      actor,
      plan,
    });
    return row;
  }

  private async assertBelowLimit(owner: UserRow, isFork: boolean): Promise<void> {
    if (isFork && this.config.repository.ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT) return;
    const limit = owner.max_repo_creation >= 0 ? owner.max_repo_creation : this.config.repository.MAX_CREATION_LIMIT;
    if (limit < 0) return;
    const owned = await RepositoryRow.query(this.db).where('owner_id', owner.id).resultSize();
    if (owned >= limit) throw ApiError.forbidden(`user has reached maximum limit of repositories [limit: ${limit}]`);
  }

  /** The first commit, written in-process with isomorphic-git: a handful of small objects, no work tree. */
  private async commitInitialFiles(gitDir: string, branch: string, files: InitialFiles, actor: UserInfo): Promise<string> {
    // Loaded on first use: most starts never auto-initialise a repository, and idle memory is budgeted.
    const { default: git } = await import('isomorphic-git');
    const tree = [];
    for (const [name, content] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
      const oid = await git.writeBlob({ fs, gitdir: gitDir, blob: Buffer.from(content, 'utf8') });
      tree.push({ mode: '100644', path: name, oid, type: 'blob' as const });
    }
    const treeOid = await git.writeTree({ fs, gitdir: gitDir, tree });
    const who = { name: actor.fullName || actor.name, email: actor.email, timestamp: nowUnix(), timezoneOffset: 0 };
    const commit = await git.writeCommit({
      fs,
      gitdir: gitDir,
      commit: { message: 'Initial commit\n', tree: treeOid, parent: [], author: who, committer: who },
    });
    await git.writeRef({ fs, gitdir: gitDir, ref: `refs/heads/${branch}`, value: commit, force: true });
    return commit;
  }

  async edit(
    resolved: ResolvedRepo,
    changes: Partial<{
      name: string;
      description: string;
      website: string;
      private: boolean;
      template: boolean;
      archived: boolean;
      default_branch: string;
      units: Partial<RepoUnits>;
      settings: Partial<RepoSettings>;
    }>,
    actor: UserInfo,
  ): Promise<RepositoryRow> {
    const { repo, owner } = resolved;
    const patch: Partial<RepositoryRow> = { updated_unix: nowUnix() };
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.website !== undefined) patch.website = changes.website;
    if (changes.private !== undefined) {
      // Making a fork public would publish its private source's code.
      const parent = changes.private === false && repo.is_fork && repo.fork_id ? await this.byId(repo.fork_id) : undefined;
      if (parent?.is_private) throw ApiError.unprocessable('a fork of a private repository cannot be made public');
      patch.is_private = changes.private;
    }
    if (changes.template !== undefined) patch.is_template = changes.template;
    if (changes.archived !== undefined) {
      patch.is_archived = changes.archived;
      patch.archived_unix = changes.archived ? nowUnix() : 0;
    }
    if (changes.units) {
      const units = { ...repo.unitMap(), ...changes.units };
      if (!REPO_UNITS.some((u) => units[u]))
        throw ApiError.unprocessable(
          'at least one unit (code, issues, pulls, releases, wiki, projects, packages, actions) must stay enabled',
        );
      patch.units = JSON.stringify(units);
    }
    if (changes.settings) patch.settings = JSON.stringify({ ...repo.settingMap(), ...changes.settings });
    if (changes.default_branch !== undefined && changes.default_branch !== repo.default_branch) {
      assertValidRefName(changes.default_branch, 'branch');
      const exists = await this.db('repo_branches').where({ repo_id: repo.id, name: changes.default_branch }).first('id');
      if (!exists && !repo.is_empty) throw ApiError.notFound(`branch does not exist [branch: ${changes.default_branch}]`);
      await runGit(['symbolic-ref', 'HEAD', `refs/heads/${changes.default_branch}`], { gitDir: resolved.gitDir });
      patch.default_branch = changes.default_branch;
    }
    const rename = changes.name !== undefined && changes.name !== repo.name ? changes.name : undefined;
    if (rename !== undefined) {
      assertValidRepoName(rename);
      if (rename.toLowerCase() !== repo.lower_name) {
        const taken = await RepositoryRow.query(this.db).findOne({ owner_id: owner.id, lower_name: rename.toLowerCase() });
        if (taken || fs.existsSync(this.gitDir(owner.name, rename)))
          throw ApiError.unprocessable(`repository already exists [name: ${rename}]`);
      }
      patch.name = rename;
      patch.lower_name = rename.toLowerCase();
    }
    const moved = rename !== undefined && rename.toLowerCase() !== repo.lower_name;
    await this.db.transaction(async (trx) => {
      await RepositoryRow.query(trx).patch(patch).where('id', repo.id);
      if (moved) fs.renameSync(resolved.gitDir, this.gitDir(owner.name, rename));
    });
    // Features move what they keep beside the repository (the wiki's <name>.wiki.git).
    if (moved)
      await this.hooks.repository.renamed.promise({
        repositoryId: repo.id,
        ownerId: owner.id,
        ownerName: owner.name,
        name: rename,
        oldName: repo.name,
        actor,
      });
    return (await this.byId(repo.id))!;
  }

  /** After a transfer committed and the repository's directory moved: fire `repository.transferred`. */
  async announceTransfer(event: RepositoryTransferredEvent): Promise<void> {
    await this.hooks.repository.transferred.promise(event);
  }

  async delete(resolved: ResolvedRepo, actor: UserInfo | null): Promise<void> {
    const { repo, owner } = resolved;
    const event: RepositoryEvent = { repositoryId: repo.id, ownerId: owner.id, ownerName: owner.name, name: repo.name, actor };
    const tasks: Array<() => void | Promise<void>> = [];
    await this.db.transaction(async (trx) => {
      await this.deleteRepositoryRows(trx, event, tasks);
    });
    fs.rmSync(resolved.gitDir, { recursive: true, force: true });
    for (const task of tasks) await task();
    removeArchiveCaches(this.config.server.DATA_DIR, [repo.id]);
    await this.hooks.repository.deleted.promise(event);
  }

  /**
   * The one deletion cascade, inside the caller's transaction (repository deletion, user purge):
   * `repository.deleting` first (features delete their rows through trx, or throw to refuse), then
   * the repository's core rows and the row itself. Taps' afterCommit tasks are appended to `tasks`.
   */
  private async deleteRepositoryRows(
    trx: Knex.Transaction,
    event: RepositoryEvent,
    tasks: Array<() => void | Promise<void>>,
  ): Promise<void> {
    const id = event.repositoryId;
    await this.hooks.repository.deleting.promise({ ...event, trx, afterCommit: (task) => void tasks.push(task) });
    await trx('repo_branches').where('repo_id', id).delete();
    await trx('repo_topics').where('repo_id', id).delete();
    await trx('repo_transfers').where('repo_id', id).delete();
    await deleteCommitStatuses(trx, [id]);
    await trx('protected_branch').where('repo_id', id).delete();
    await removeRepoAccess(trx, id);
    await trx('repositories').where('id', id).delete();
  }

  // --- pushes -----------------------------------------------------------------------------------

  /**
   * Record what a push changed (from the transport or an in-process commit): branch rows, the
   * default branch on the first push, emptiness; then fire push.received.
   */
  async recordPush(repo: RepositoryRow, updates: RefUpdate[], pusher: UserInfo | null, notify = true): Promise<void> {
    if (updates.length === 0) return;
    // One repository's pushes are recorded one at a time (concurrent pushes to one repository
    // otherwise contend on the same index range); a deadlock between processes is retried.
    await this.pushQueue.run(String(repo.id), () => withConflictRetry(() => this.writePushRecords(repo, updates, pusher)));
    if (!notify) return;
    const owner = await this.users.byId(repo.owner_id);
    await this.hooks.push.received.promise({
      repositoryId: repo.id,
      ownerId: repo.owner_id,
      ownerName: owner?.name ?? repo.owner_name,
      name: repo.name,
      actor: pusher,
      updates,
    });
  }

  /**
   * Move one ref from `oldId` to `newId` as a compare-and-swap (ZERO_ID as old creates, as new
   * deletes) and record it like a push. False when the ref was not at `oldId` (a racing change,
   * or a name clash such as refs/heads/a vs refs/heads/a/b): the caller says what that means.
   */
  async updateRef(repo: RepositoryRow, ref: string, oldId: string, newId: string, actor: UserInfo, reason: string): Promise<boolean> {
    const gitDir = this.gitDir(repo.owner_name, repo.name);
    const args =
      newId === ZERO_ID ? ['update-ref', '-m', reason, '-d', '--', ref, oldId] : ['update-ref', '-m', reason, '--', ref, newId, oldId];
    try {
      await runGit(args, { gitDir });
    } catch (err) {
      if (err instanceof GitError) return false;
      throw err;
    }
    await this.recordPush(repo, [{ ref, oldId, newId }], actor);
    return true;
  }

  /** Branch rows, emptiness and the default branch after a push; idempotent, so it can be retried. */
  private async writePushRecords(repo: RepositoryRow, updates: RefUpdate[], pusher: UserInfo | null): Promise<void> {
    const gitDir = this.gitDir(repo.owner_name, repo.name);
    const now = nowUnix();
    const branches = updates.filter((u) => u.ref.startsWith('refs/heads/'));
    await this.db.transaction(async (trx) => {
      for (const u of branches) {
        const name = u.ref.slice('refs/heads/'.length);
        if (u.newId === ZERO_ID) await trx('repo_branches').where({ repo_id: repo.id, name }).delete();
        else {
          await trx('repo_branches')
            .insert({ repo_id: repo.id, name, commit_id: u.newId, pusher_id: pusher?.id ?? 0, updated_unix: now })
            .onConflict(['repo_id', 'name'])
            .merge(['commit_id', 'pusher_id', 'updated_unix']);
        }
      }
      const remaining = await trx('repo_branches').where('repo_id', repo.id).select('name');
      const current = await RepositoryRow.query(trx).findById(repo.id).select('default_branch');
      const defaultBranch = current?.default_branch ?? repo.default_branch;
      const patch: Partial<RepositoryRow> = { is_empty: remaining.length === 0, updated_unix: now };
      // First push, or the default branch never existed: adopt the configured default if pushed, else the first branch pushed.
      if (remaining.length > 0 && !remaining.some((b: { name: string }) => b.name === defaultBranch)) {
        const names = remaining.map((b: { name: string }) => b.name);
        const chosen = names.includes(this.config.repository.DEFAULT_BRANCH)
          ? this.config.repository.DEFAULT_BRANCH
          : (branches.map((b) => b.ref.slice(11)).find((n) => names.includes(n)) ?? names[0]);
        patch.default_branch = chosen;
        await runGit(['symbolic-ref', 'HEAD', `refs/heads/${chosen}`], { gitDir });
      }
      await RepositoryRow.query(trx).patch(patch).where('id', repo.id);
    });
  }

  /** Rewrite every repository's server hooks (after an upgrade changed them); returns how many. */
  async refreshHooks(): Promise<number> {
    let count = 0;
    for (const row of await RepositoryRow.query(this.db).select('owner_name', 'name')) {
      const gitDir = this.gitDir(row.owner_name, row.name);
      if (!fs.existsSync(gitDir)) continue;
      writeHooks(gitDir);
      // A wiki (<name>.wiki.git) beside it is a git repository served by the same transport.
      const wikiDir = gitDir.replace(/\.git$/, '.wiki.git');
      if (fs.existsSync(wikiDir)) writeHooks(wikiDir);
      count++;
    }
    return count;
  }

  /** Branch rows mirror the refs; rebuild them from git (after a push the transport could not observe, or for `hearth doctor`). */
  async syncBranches(repo: RepositoryRow, notify = true): Promise<void> {
    const gitDir = this.gitDir(repo.owner_name, repo.name);
    const out = await gitText(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'], { gitDir });
    const refs = out ? out.split('\n').map((l) => l.split(' ')) : [];
    const known = await this.db('repo_branches').where('repo_id', repo.id).select('name', 'commit_id');
    const updates: RefUpdate[] = [];
    for (const [id, ref] of refs) {
      const prior = known.find((k: { name: string }) => `refs/heads/${k.name}` === ref);
      if (!prior || prior.commit_id !== id) updates.push({ ref, oldId: prior?.commit_id ?? ZERO_ID, newId: id });
    }
    for (const k of known)
      if (!refs.some(([, ref]) => ref === `refs/heads/${k.name}`))
        updates.push({ ref: `refs/heads/${k.name}`, oldId: k.commit_id, newId: ZERO_ID });
    await this.recordPush(repo, updates, null, notify);
  }

  // --- JSON ---------------------------------------------------------------------------------------

  /**
   * The counts features contribute to the repository JSON (`open_issues_count`, `open_pr_counter`,
   * `release_counter`): each collector answers for a whole page of repositories in one query.
   */
  addCounts(collect: (repositoryIds: readonly number[]) => Promise<Map<number, RepositoryCounts>>): void {
    this.countCollectors.push(collect);
  }

  /** The contributed counts of a page of repositories, merged per repository. */
  async countsOf(repoIds: readonly number[]): Promise<Map<number, RepositoryCounts>> {
    const out = new Map<number, RepositoryCounts>(repoIds.map((id) => [id, {}]));
    if (repoIds.length === 0) return out;
    const unique = [...new Set(repoIds)];
    for (const found of await Promise.all(this.countCollectors.map((collect) => collect(unique)))) {
      for (const [id, counts] of found) Object.assign(out.get(id) ?? {}, counts);
    }
    return out;
  }

  /** Units no enabled feature serves (their plugin is disabled) report off. */
  servedUnits(repo: RepositoryRow): RepoUnits {
    const units = repo.unitMap();
    for (const unit of this.unservedUnits) units[unit] = false;
    return units;
  }

  /** Gitea's `Repository` objects for a page of rows: owners, open counts and the viewer's permissions read once for the page. */
  async toApiPage(rows: readonly RepositoryRow[], viewer: Principal | null): Promise<Record<string, unknown>[]> {
    const owners = new Map<number, UserRow>();
    for (const row of rows) if (!owners.has(row.owner_id)) owners.set(row.owner_id, (await this.users.byId(row.owner_id))!);
    const [counts, permissions] = await Promise.all([this.countsOf(rows.map((r) => r.id)), this.access.permissions(rows, owners, viewer)]);
    const items = [];
    for (const row of rows) items.push(await this.toApi(row, owners.get(row.owner_id)!, viewer, true, counts, permissions.get(row.id)));
    return items;
  }

  /**
   * Gitea's `Repository` object. `counts` are the page's contributed counts from countsOf (list
   * routes fetch them once per page); without them they are counted here.
   */
  async toApi(
    repo: RepositoryRow,
    owner: UserRow,
    viewer: Principal | null,
    withParent = true,
    counts?: Map<number, RepositoryCounts>,
    permission?: RepoPermission,
  ): Promise<Record<string, unknown>> {
    const counted = (counts ?? (await this.countsOf([repo.id]))).get(repo.id) ?? {};
    const base = this.config.server.ROOT_URL;
    const units = this.servedUnits(repo);
    const settings = repo.settingMap();
    const fullName = `${owner.name}/${repo.name}`;
    let parent: Record<string, unknown> | null = null;
    if (withParent && repo.is_fork && repo.fork_id) {
      const parentRow = await this.byId(repo.fork_id);
      const parentOwner = parentRow ? await this.users.byId(parentRow.owner_id) : undefined;
      if (parentRow && parentOwner && (await this.access.permission(parentRow, viewer, parentOwner)).pull)
        parent = await this.toApi(parentRow, parentOwner, viewer, false);
    }
    return {
      id: repo.id,
      owner: this.users.toApi(owner, viewer),
      name: repo.name,
      full_name: fullName,
      description: repo.description,
      empty: repo.is_empty,
      private: repo.is_private,
      fork: repo.is_fork,
      template: repo.is_template,
      parent,
      mirror: false,
      // KiB, as Gitea: the git directory plus what features store for the repository (Git LFS objects).
      size: repo.size + (counted.size ?? 0),
      language: '',
      languages_url: `${base}api/v1/repos/${fullName}/languages`,
      html_url: `${base}${fullName}`,
      link: '',
      ssh_url: this.sshCloneUrl ? this.sshCloneUrl(owner.name, repo.name) : '',
      clone_url: `${base}${fullName}.git`,
      original_url: '',
      website: repo.website,
      stars_count: repo.num_stars,
      forks_count: repo.num_forks,
      watchers_count: repo.num_watches,
      open_issues_count: counted.open_issues_count ?? 0,
      open_pr_counter: counted.open_pr_counter ?? 0,
      release_counter: counted.release_counter ?? 0,
      default_branch: repo.default_branch,
      archived: repo.is_archived,
      created_at: unixToIso(repo.created_unix),
      updated_at: unixToIso(repo.updated_unix),
      archived_at: unixToIso(repo.archived_unix),
      permissions: permission ?? (await this.access.permission(repo, viewer, owner)),
      has_code: units.code,
      has_issues: units.issues,
      internal_tracker: units.issues
        ? {
            enable_time_tracker: this.config.repository.ENABLE_TIME_TRACKING,
            allow_only_contributors_to_track_time: true,
            enable_issue_dependencies: true,
          }
        : null,
      has_wiki: units.wiki,
      has_pull_requests: units.pulls,
      has_projects: units.projects,
      has_releases: units.releases,
      has_packages: units.packages,
      has_actions: units.actions,
      ...settings,
      avatar_url: '',
      internal: false,
      mirror_interval: '',
      mirror_updated: GO_ZERO_TIME,
      repo_transfer: repo.status === REPO_STATUS.pendingTransfer ? await this.pendingTransferJson(repo.id, viewer) : null,
    };
  }

  /** Gitea's RepoTransfer object of a pending transfer. */
  private async pendingTransferJson(repoId: number, viewer: Principal | null): Promise<Record<string, unknown> | null> {
    const pending = await this.db('repo_transfers').where('repo_id', repoId).first();
    if (!pending) return null;
    const [doer, recipient] = await Promise.all([this.users.byId(pending.doer_id), this.users.byId(pending.recipient_id)]);
    return {
      doer: doer ? this.users.toApi(doer, viewer) : null,
      recipient: recipient ? this.users.toApi(recipient, viewer) : null,
      teams: null,
    };
  }

  // --- owners' lifecycle ---------------------------------------------------------------------------

  private tapUserLifecycle(): void {
    this.hooks.user.renamed.tapPromise({ name: 'hearth:repositories', stage: -100 }, async ({ user, oldName }) => {
      await this.db('repositories').where('owner_id', user.id).update({ owner_name: user.name });
      const from = path.join(this.root, oldName.toLowerCase());
      if (fs.existsSync(from)) fs.renameSync(from, path.join(this.root, user.lowerName));
    });
    this.hooks.user.deleting.tapPromise('hearth:repositories', async ({ user, actor, purge, trx }) => {
      const owned = await trx('repositories').where('owner_id', user.id).select('id', 'name');
      if (owned.length === 0) return;
      if (!purge)
        throw ApiError.unprocessable(
          `user still owns ${owned.length} repositories; delete or transfer them first, or delete with purge=true`,
        );
      const tasks: Array<() => void | Promise<void>> = [];
      for (const r of owned as Array<{ id: number; name: string }>) {
        await this.deleteRepositoryRows(trx, { repositoryId: r.id, ownerId: user.id, ownerName: user.name, name: r.name, actor }, tasks);
      }
      this.purgeTasks.set(user.id, tasks);
      this.purgedDirs.set(user.id, [
        path.join(this.root, user.lowerName),
        ...owned.map((r: { id: number }) => archiveCacheDir(this.config.server.DATA_DIR, r.id)),
      ]);
    });
    this.hooks.user.deleted.tapPromise('hearth:repositories', async ({ user }) => {
      for (const dir of this.purgedDirs.get(user.id) ?? []) fs.rmSync(dir, { recursive: true, force: true });
      this.purgedDirs.delete(user.id);
      const tasks = this.purgeTasks.get(user.id) ?? [];
      this.purgeTasks.delete(user.id);
      for (const task of tasks) await task();
    });
  }
}

/**
 * A copy of another bare repository (a fork; the wiki feature copies a fork's wiki with it):
 * objects are hard-linked (immutable), refs copied; our hooks replace any. Nothing is left behind
 * when git fails.
 */
/** An empty bare repository with the server's hooks. */
export async function initBareRepository(gitDir: string, defaultBranch: string): Promise<void> {
  fs.mkdirSync(path.dirname(gitDir), { recursive: true });
  // --template= leaves out git's sample hooks; ours follow.
  await runGit(['init', '--bare', '--quiet', '--template=', `--initial-branch=${defaultBranch}`, '--end-of-options', gitDir]);
  writeHooks(gitDir);
}

export async function cloneBareRepository(source: string, gitDir: string): Promise<void> {
  fs.mkdirSync(path.dirname(gitDir), { recursive: true });
  try {
    await runGit(['clone', '--bare', '--quiet', '--template=', '--end-of-options', source, gitDir]);
    // A fork carries no link back to its source (git clone would leave an "origin" remote).
    await runGit(['remote', 'remove', 'origin'], { gitDir });
  } catch (err) {
    fs.rmSync(gitDir, { recursive: true, force: true });
    throw err;
  }
  writeHooks(gitDir);
}
