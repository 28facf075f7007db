import {
  ApiError,
  ID_PARAM,
  KeyedQueue,
  nowUnix,
  ownerRepoParams,
  ZERO_ID,
  type ApiRequest,
  type JsonSchema,
  type OperationAccess,
  type Principal,
  type PushEvent,
  type RepositoryInfo,
  type RepositoryTarget,
  type UnitLevel,
  type UserInfo,
} from '@hearth/plugin-api';
import type { Knex } from 'knex';
import { PULL_STATUS, openOnly, pullByIndex, toPull, type PullDeps, type PullRow } from './pull-store';
import { pullJsons, type PullItem } from './pull-json';
import { assertMergeAllowed } from './branch-protection-checks';
import { PullGit, tempRefName, type DiffFile, type ObjectInfo } from './pull-git';

export type RepoParams = { owner: string; repo: string };

/** `{owner}/{repo}/…/{index}`: a pull request by its number. */
export const INDEX_PARAMS: JsonSchema = ownerRepoParams({ index: { ...ID_PARAM, description: 'index of the issue' } });
export const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });

/** The access of pull-request routes: the pulls unit (open() adds what participating needs). */
export const PULLS_READ: OperationAccess = { repo: { need: 'read', unit: 'pulls' } };

/** The base repository opened for a pull-request route. */
export interface OpenedBase {
  r: RepositoryTarget;
  level: UnitLevel;
  /** Write access to the pulls unit of a repository that is not archived. */
  canWrite: boolean;
  isAdmin: boolean;
}

export const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'] as const;
export type MergeStyle = (typeof MERGE_STYLES)[number];

/** The repository setting that allows each merge style. */
const STYLE_SETTING: Record<MergeStyle, string> = {
  merge: 'allow_merge_commits',
  rebase: 'allow_rebase',
  'rebase-merge': 'allow_rebase_explicit',
  squash: 'allow_squash_merge',
  'fast-forward-only': 'allow_fast_forward_only_merge',
  'manually-merged': 'allow_manual_merge',
};

/** Gitea's template file names per style (.gitea/default_merge_message/<NAME>_TEMPLATE.md). */
const TEMPLATE_NAME: Record<MergeStyle, string> = {
  merge: 'MERGE',
  rebase: 'REBASE',
  'rebase-merge': 'REBASE-MERGE',
  squash: 'SQUASH',
  'fast-forward-only': 'FAST-FORWARD-ONLY',
  'manually-merged': 'MANUALLY-MERGED',
};

export interface MergeOptions {
  style: MergeStyle;
  title?: string;
  message?: string;
  headCommitId?: string;
  mergeCommitId?: string;
  forceMerge: boolean;
  deleteBranch?: boolean;
}

/** Pull-request logic shared by the routes and the push tap. */
export class PullService {
  private readonly mergeQueue = new KeyedQueue();
  private readonly diffCache = new Map<string, DiffFile[]>();
  private readonly pushQueue = new KeyedQueue();
  private readonly mergeCache = new Map<string, { mergeBase: string; tree: string; conflicts: string[] }>();
  private readonly pending = new Set<Promise<unknown>>();
  readonly git: PullGit;

  constructor(readonly deps: PullDeps) {
    this.git = new PullGit(deps.git);
  }

  get db(): Knex {
    return this.deps.db;
  }

  /**
   * The base repository of a pull-request route, as its `{ repo: …, unit: 'pulls' }` declaration
   * resolved it, with the caller's level on the pulls unit. `participate` (open, edit, review,
   * update) also needs a signed-in caller and a repository that is not archived.
   */
  async open(req: ApiRequest<any, any, RepoParams>, need: 'read' | 'participate'): Promise<OpenedBase> {
    const r = req.target.repository!;
    const level = await this.deps.access.unitLevel(r, req.principal, 'pulls');
    const archived = r.isArchived;
    if (need === 'participate') {
      if (!req.principal) throw ApiError.unauthorized();
      if (archived) throw ApiError.forbidden('repository is archived');
    }
    return { r, level, canWrite: (level === 'write' || level === 'admin') && !archived, isAdmin: level === 'admin' };
  }

  /** As open(…, 'read') for routes that show the code (diffs, patches, commits, changed files): the code unit readable too (else 404). */
  async openWithCode(req: ApiRequest<any, any, RepoParams>): Promise<OpenedBase> {
    const o = await this.open(req, 'read');
    if ((await this.deps.access.unitLevel(o.r, req.principal, 'code')) === 'none') {
      throw ApiError.notFound('the code unit of this repository is disabled or not readable');
    }
    return o;
  }

  async load(r: RepositoryInfo, index: number): Promise<PullItem> {
    const pull = await pullByIndex(this.db, r.id, index);
    const issue = pull ? await this.deps.issues.byId(pull.issue_id) : null;
    if (!pull || !issue) throw ApiError.notFound(`pull request does not exist [repo: ${r.id}, index: ${index}]`);
    return { issue, pull };
  }

  async json(r: RepositoryInfo, item: PullItem, viewer: Principal | null): Promise<Record<string, unknown>> {
    return (await pullJsons(this.deps, r, [item], viewer))[0];
  }

  /** Gitea's PullRequest JSON of pull requests of one base repository. */
  jsons(r: RepositoryInfo, items: PullItem[], viewer: Principal | null): Promise<Record<string, unknown>[]> {
    return pullJsons(this.deps, r, items, viewer);
  }

  /** The git directory of a repository id (head repositories of forks). */
  async gitDirOf(repoId: number): Promise<string | null> {
    return (await this.deps.repositories.byId(repoId))?.gitDir ?? null;
  }

  // --- mergeability -----------------------------------------------------------------------------

  /**
   * Bring a pull request's git state up to date: copy the head branch's tip to refs/pull/N/head in
   * the base repository (fetching from a fork), then the merge base and a test merge
   * (mergeable / conflict with the conflicting paths / empty). Merged pull requests are left alone.
   * Returns the new row and whether the head moved.
   */
  async refresh(
    baseGitDir: string,
    pull: PullRow,
    extras: string[] = [],
  ): Promise<{ pull: PullRow; headMoved: boolean; baseTip: string | null; extras: (ObjectInfo | null)[] }> {
    if (pull.has_merged) return { pull, headMoved: false, baseTip: null, extras: extras.map(() => null) };
    const refName = `refs/pull/${pull.index}/head`;
    let head = pull.head_commit_id;
    const sameRepo = pull.head_repo_id === pull.base_repo_id;
    const headDir = sameRepo ? baseGitDir : await this.gitDirOf(pull.head_repo_id);
    // One cat-file for the base tip, the head tip (same repository) and whatever the caller needs.
    const valid = this.git.isValidRefName(pull.base_branch) && this.git.isValidRefName(pull.head_branch);
    const names = valid
      ? [`refs/heads/${pull.base_branch}^{commit}`, ...(sameRepo ? [`refs/heads/${pull.head_branch}^{commit}`] : []), ...extras]
      : [];
    const infos = names.length ? await this.git.batchCheck(baseGitDir, names) : [];
    const baseTip = infos[0]?.type === 'commit' ? infos[0].id : null;
    const extraInfos = infos.slice(sameRepo ? 2 : 1);
    if (headDir) {
      const tip = sameRepo ? (infos[1]?.type === 'commit' ? infos[1].id : null) : await this.git.branchCommit(headDir, pull.head_branch);
      if (tip && tip !== head) {
        if (sameRepo) await this.git.setRef(baseGitDir, refName, tip);
        else await this.git.fetchInto(baseGitDir, headDir, `refs/heads/${pull.head_branch}`, refName);
        head = tip;
      }
    }
    const patch: Partial<Record<string, unknown>> = { head_commit_id: head };
    if (!baseTip || !head) {
      Object.assign(patch, { status: PULL_STATUS.error, conflicted_files: '[]' });
    } else {
      const test = await this.testMerge(baseGitDir, baseTip, head);
      patch.merge_base = test.mergeBase;
      if (test.mergeBase === head) Object.assign(patch, { status: PULL_STATUS.empty, conflicted_files: '[]' });
      else {
        patch.status = test.conflicts.length ? PULL_STATUS.conflict : PULL_STATUS.mergeable;
        patch.conflicted_files = JSON.stringify(test.conflicts);
      }
    }
    const unchanged =
      patch.head_commit_id === pull.head_commit_id &&
      (patch.merge_base ?? pull.merge_base) === pull.merge_base &&
      patch.status === pull.status &&
      patch.conflicted_files === JSON.stringify(pull.conflicted_files);
    if (unchanged) return { pull, headMoved: false, baseTip, extras: extraInfos };
    // Never overwrite a merge that committed meanwhile.
    await this.db('pull_request').where({ id: pull.id, has_merged: false }).update(patch);
    const row = toPull(await this.db('pull_request').where('id', pull.id).first());
    return { pull: row, headMoved: head !== pull.head_commit_id, baseTip, extras: extraInfos };
  }

  /**
   * The merge base of two commits and the result of merging them (tree, conflicting paths),
   * remembered by the two commit ids: commits never change, so the test merge a push or a create
   * computed is the merge the merge API then commits.
   */
  async testMerge(gitDir: string, base: string, head: string): Promise<{ mergeBase: string; tree: string; conflicts: string[] }> {
    const key = `${gitDir}\0${base}\0${head}`;
    const known = this.mergeCache.get(key);
    if (known) return known;
    const mb = await this.git.mergeBase(gitDir, base, head);
    const result =
      mb === head ? { mergeBase: mb, tree: '', conflicts: [] } : { mergeBase: mb, ...(await this.git.mergeTrees(gitDir, base, head)) };
    if (this.mergeCache.size >= 256) this.mergeCache.delete(this.mergeCache.keys().next().value as string);
    this.mergeCache.set(key, result);
    return result;
  }

  /** Files changed by a pull request (merge base..head), cached by the two commit ids. */
  async changedFiles(baseGitDir: string, pull: PullRow): Promise<DiffFile[]> {
    const base = pull.merge_base;
    const head = pull.head_commit_id;
    if (!base || !head) return [];
    const key = `${baseGitDir}\0${base}\0${head}`;
    let files = this.diffCache.get(key);
    if (!files) {
      files = await this.git.diffFiles(baseGitDir, base, head);
      if (this.diffCache.size >= 32) this.diffCache.delete(this.diffCache.keys().next().value as string);
      this.diffCache.set(key, files);
    }
    return files;
  }

  /**
   * React to pushes: refresh the open pull requests whose head or base branch moved and emit
   * synchronized for head moves — in the background (one queue per pushed repository, in push
   * order), so neither a push nor a merge waits for every other pull request's test merge.
   */
  onPush(event: PushEvent): void {
    const work = this.pushQueue.run(String(event.repositoryId), () => this.handlePush(event));
    this.pending.add(work);
    void work.catch(() => undefined).finally(() => this.pending.delete(work));
  }

  /** Resolves when the background work started by pushes so far has finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private async handlePush(event: PushEvent): Promise<void> {
    const branches = event.updates
      .filter((u) => u.ref.startsWith('refs/heads/') && u.newId !== ZERO_ID)
      .map((u) => u.ref.slice('refs/heads/'.length));
    if (branches.length === 0) return;
    const candidates = (
      await this.db('pull_request')
        .where('has_merged', false)
        .where((w) =>
          w
            .where((h) => h.where('head_repo_id', event.repositoryId).whereIn('head_branch', branches))
            .orWhere((b) => b.where('base_repo_id', event.repositoryId).whereIn('base_branch', branches)),
        )
        .select('*')
    ).map(toPull);
    for (const pull of await openOnly(this.deps.issues, candidates)) {
      const base = await this.deps.repositories.byId(pull.base_repo_id);
      if (!base) continue;
      const { pull: fresh, headMoved } = await this.refresh(base.gitDir, pull);
      if (!headMoved) continue;
      const issue = await this.deps.issues.byId(fresh.issue_id);
      if (!issue) continue;
      const now = await this.deps.issues.touch(issue.id);
      if (event.actor) {
        await this.deps.issues.recordEvent({
          repositoryId: base.id,
          issueId: issue.id,
          actorId: event.actor.id,
          type: 'pull_push',
          content: JSON.stringify({ is_force_push: false, commit_ids: [fresh.head_commit_id] }),
        });
      }
      if (!(await this.deps.users.byId(base.ownerId))) continue;
      await this.emit(base, 'synchronized', { issue: { ...issue, updatedUnix: now }, pull: fresh }, event.actor, {
        commit_id: fresh.head_commit_id,
      });
    }
  }

  /** Emit a pull_request event (events.md); the PR JSON is converted for an admin-level viewer. */
  async emit(
    r: RepositoryInfo,
    action: string,
    item: PullItem,
    actor: UserInfo | null,
    extra: Record<string, unknown> = {},
    event = 'pull_request',
  ): Promise<void> {
    const pr = await this.json(r, item, null);
    await this.deps.emit({
      event,
      action,
      actor,
      ownerId: r.ownerId,
      repositoryId: r.id,
      payload: { action, number: item.issue.index, pull_request: pr, commit_id: '', ...extra },
    });
  }

  // --- merge ------------------------------------------------------------------------------------

  /** The title and description of a merge commit: the caller's, else the repository's template, else Gitea's default. */
  async mergeMessage(o: OpenedBase, item: PullItem, style: MergeStyle, templateBlob: string | null, doer: UserInfo): Promise<string> {
    const headRepo: RepositoryInfo | null =
      item.pull.head_repo_id === o.r.id ? o.r : await this.deps.repositories.byId(item.pull.head_repo_id);
    if (templateBlob) {
      const vars: Record<string, string> = {
        BaseRepoOwnerName: o.r.owner.name,
        BaseRepoName: o.r.name,
        BaseBranch: item.pull.base_branch,
        HeadRepoOwnerName: headRepo?.ownerName ?? '',
        HeadRepoName: headRepo?.name ?? '',
        HeadBranch: item.pull.head_branch,
        PullRequestTitle: item.issue.title,
        PullRequestDescription: item.issue.body,
        PullRequestPosterName: (await this.deps.users.byId(item.issue.posterId))?.name ?? '',
        PullRequestIndex: String(item.issue.index),
        PullRequestReference: `!${item.issue.index}`,
        MergerName: doer.name,
      };
      const tpl = (await this.deps.git.run(o.r.gitDir, ['cat-file', 'blob', templateBlob])).stdout.toString('utf8');
      return tpl
        .replace(/\$\{(\w+)\}|\$(\w+)/g, (m, a: string | undefined, b: string | undefined) => vars[(a ?? b)!] ?? m)
        .replace(/\r\n/g, '\n');
    }
    const headName =
      headRepo && headRepo.id !== o.r.id ? `${headRepo.ownerName}/${headRepo.name}:${item.pull.head_branch}` : item.pull.head_branch;
    if (style === 'squash') return `${item.issue.title} (#${item.issue.index})\n\n${item.issue.body}`.trimEnd();
    return `Merge pull request '${item.issue.title}' (#${item.issue.index}) from ${headName} into ${item.pull.base_branch}`;
  }

  /**
   * Merge a pull request. Each style computes its result in the object store (merge-tree +
   * commit-tree; rebases in a temporary clone), then a database claim on has_merged (exactly one
   * concurrent merge wins) and a compare-and-swap of the base branch. Errors are Gitea's:
   * 405 for a closed/merged/conflicting/unmergeable pull request or a disallowed style, 409 when
   * head_commit_id does not match or the base branch moved.
   */
  async merge(o: OpenedBase, index: number, opts: MergeOptions, principal: Principal): Promise<PullItem> {
    return this.mergeQueue.run(`${o.r.id}:${index}`, () => this.mergeOnce(o, index, opts, principal));
  }

  private async mergeOnce(o: OpenedBase, index: number, opts: MergeOptions, principal: Principal): Promise<PullItem> {
    const doer = principal.user;
    let { issue, pull } = await this.load(o.r, index);
    const settings = o.r.settings as unknown as Record<string, unknown>;
    if (!settings[STYLE_SETTING[opts.style]]) throw new ApiError(405, `merge style "${opts.style}" is not allowed in this repository`);
    if (pull.has_merged) throw new ApiError(405, 'the pull request has already been merged');
    if (issue.isClosed) throw new ApiError(405, 'the pull request is closed');
    if (opts.headCommitId && opts.headCommitId !== pull.head_commit_id)
      throw ApiError.conflict('head out of date: head_commit_id does not match the pull request head');
    if (opts.forceMerge && !o.isAdmin) throw ApiError.forbidden('only repository admins may force a merge');
    await assertMergeAllowed({ deps: this.deps, base: o.r, issue, pull, principal, forceMerge: opts.forceMerge, isAdmin: o.isAdmin });

    const gitDir = o.r.gitDir;
    const templateName = `refs/heads/${pull.base_branch}:.gitea/default_merge_message/${TEMPLATE_NAME[opts.style]}_TEMPLATE.md`;
    const fresh = await this.refresh(gitDir, pull, [templateName]);
    const templateBlob = fresh.extras[0]?.type === 'blob' ? fresh.extras[0].id : null;
    if (opts.style !== 'manually-merged') {
      pull = fresh.pull;
      if (opts.headCommitId && opts.headCommitId !== pull.head_commit_id)
        throw ApiError.conflict('head out of date: head_commit_id does not match the pull request head');
      if (pull.status === PULL_STATUS.conflict)
        throw new ApiError(405, `the pull request has conflicts: ${pull.conflicted_files.join(', ')}`);
      if (pull.status === PULL_STATUS.empty) throw new ApiError(405, 'the head branch has no commits the base branch does not have');
      if (pull.status !== PULL_STATUS.mergeable) throw new ApiError(405, 'the pull request is not mergeable');
    }
    const baseTip = fresh.baseTip;
    if (!baseTip) throw new ApiError(405, `the base branch does not exist [branch: ${pull.base_branch}]`);
    const head = pull.head_commit_id;
    const committer = await this.deps.git.identityOf(doer);

    let newTip: string;
    let mergedCommit: string;
    let tempRef: string | null = null;
    if (opts.style === 'manually-merged') {
      const id = (opts.mergeCommitId ?? '').trim();
      if (!/^[0-9a-f]{40,64}$/.test(id))
        throw ApiError.unprocessable('MergeCommitID must be a full commit id', {
          errors: [{ field: 'MergeCommitID', message: 'required for manually-merged' }],
        });
      const exists = await this.deps.git.run(gitDir, ['cat-file', '-e', `${id}^{commit}`], { okCodes: [1, 128] });
      if (exists.code !== 0 || !(await this.git.isAncestor(gitDir, id, baseTip)))
        throw ApiError.unprocessable('the merge commit is not on the base branch', {
          errors: [{ field: 'MergeCommitID', message: 'not on the base branch' }],
        });
      newTip = baseTip;
      mergedCommit = id;
    } else {
      const message =
        opts.message !== undefined || opts.title !== undefined
          ? [
              opts.title?.trim() || (await this.mergeMessage(o, { issue, pull }, opts.style, templateBlob, doer)).split('\n')[0],
              opts.message?.trim() ?? '',
            ]
              .filter(Boolean)
              .join('\n\n')
          : await this.mergeMessage(o, { issue, pull }, opts.style, templateBlob, doer);
      const msg = `${message.trimEnd()}\n`;
      if (opts.style === 'fast-forward-only') {
        if (!(await this.git.isAncestor(gitDir, baseTip, head)))
          throw new ApiError(405, 'fast-forward only merge is not possible: the base branch has diverged from the head branch');
        newTip = head;
      } else if (opts.style === 'merge' || opts.style === 'squash') {
        const merged = await this.testMerge(gitDir, baseTip, head);
        if (merged.conflicts.length) throw new ApiError(405, `merge conflicts: ${merged.conflicts.join(', ')}`);
        if (opts.style === 'merge') newTip = await this.git.commitTree(gitDir, merged.tree, [baseTip, head], msg, committer, committer);
        else {
          const poster = await this.deps.users.byId(issue.posterId);
          const author = poster ? await this.deps.git.identityOf(poster) : committer;
          newTip = await this.git.commitTree(gitDir, merged.tree, [baseTip], msg, author, committer);
        }
      } else {
        tempRef = tempRefName();
        const rebased = await this.git.rebaseOnto(gitDir, baseTip, head, committer, tempRef);
        if (!rebased) {
          await this.git.deleteRef(gitDir, tempRef);
          throw new ApiError(405, 'rebase conflicts: the head branch cannot be rebased onto the base branch');
        }
        if (opts.style === 'rebase') newTip = rebased;
        else {
          const merged = await this.git.mergeTrees(gitDir, baseTip, rebased);
          newTip = await this.git.commitTree(gitDir, merged.tree, [baseTip, rebased], msg, committer, committer);
        }
      }
      mergedCommit = newTip;
    }

    // Claim the merge in the database: of concurrent merges, exactly one gets here first. The
    // close of the pull's issue passes through issue.mutate (kind `state`, `merged: true`) in the
    // claim's transaction, before the base branch moves: a veto refuses the merge, nothing changed.
    const now = nowUnix();
    let claimed: number;
    try {
      claimed = await this.db.transaction(async (trx) => {
        const n = Number(
          await trx('pull_request').where({ id: pull.id, has_merged: false }).update({
            has_merged: true,
            merged_commit_id: mergedCommit,
            merger_id: doer.id,
            merged_unix: now,
            status: PULL_STATUS.mergeable,
            conflicted_files: '[]',
          }),
        );
        if (!n) return 0;
        const c = await this.deps.issues.mutate(trx, issue.id, 'state', { state: 'closed', merged: true, commitSha: mergedCommit }, doer);
        if (c.state !== 'closed')
          throw ApiError.unprocessable('issue.mutate may veto the close of a merged pull request, not keep it open');
        return n;
      });
    } catch (err) {
      if (tempRef) await this.git.deleteRef(gitDir, tempRef);
      throw err;
    }
    if (!claimed) {
      if (tempRef) await this.git.deleteRef(gitDir, tempRef);
      throw new ApiError(405, 'the pull request has already been merged');
    }
    if (newTip !== baseTip) {
      const moved = await this.deps.repositories.updateRef(
        o.r,
        `refs/heads/${pull.base_branch}`,
        baseTip,
        newTip,
        doer,
        `hearth: merge pull request #${index} (${opts.style})`,
      );
      if (!moved) {
        await this.db('pull_request')
          .where('id', pull.id)
          .update({ has_merged: false, merged_commit_id: '', merger_id: 0, merged_unix: 0 });
        if (tempRef) await this.git.deleteRef(gitDir, tempRef);
        throw ApiError.conflict('the base branch moved while merging; try again');
      }
    }
    if (tempRef) await this.git.deleteRef(gitDir, tempRef);
    issue = await this.deps.issues.closeMerged(issue.id, doer, mergedCommit, now);
    pull = toPull(await this.db('pull_request').where('id', pull.id).first());
    await this.emit(o.r, 'closed', { issue, pull }, doer);

    const deleteBranch = opts.deleteBranch ?? Boolean(settings.default_delete_branch_after_merge);
    if (deleteBranch && pull.head_repo_id === o.r.id && pull.head_branch !== o.r.defaultBranch) {
      await this.deleteHeadBranch(o, { issue, pull }, principal);
    }
    return { issue, pull };
  }

  private async deleteHeadBranch(o: OpenedBase, item: PullItem, principal: Principal): Promise<void> {
    const name = item.pull.head_branch;
    if (!this.git.isValidRefName(name)) return;
    // A protected head branch is kept, as Gitea keeps it: the merge itself stands.
    if (!(await this.deps.protection.refChangeAllowed(o.r, principal, `refs/heads/${name}`, 'delete'))) return;
    const doer = principal.user;
    // Another open pull request still uses the branch: keep it, as Gitea does.
    const using = (
      await this.db('pull_request')
        .where((w) => w.where({ head_repo_id: o.r.id, head_branch: name }).orWhere({ base_repo_id: o.r.id, base_branch: name }))
        .select('*')
    ).map(toPull);
    if ((await openOnly(this.deps.issues, using)).length) return;
    const tip = await this.git.branchCommit(o.r.gitDir, name);
    if (!tip) return;
    if (await this.deps.repositories.updateRef(o.r, `refs/heads/${name}`, tip, ZERO_ID, doer, 'hearth: branch deleted after merge')) {
      await this.deps.issues.recordEvent({
        repositoryId: o.r.id,
        issueId: item.issue.id,
        actorId: doer.id,
        type: 'delete_branch',
        oldRef: name,
      });
    }
  }

  // --- update branch ------------------------------------------------------------------------------

  /** Bring the head branch up to date with the base: a merge commit of base into head, or a rebase onto base. */
  async updateBranch(o: OpenedBase, index: number, style: 'merge' | 'rebase', principal: Principal): Promise<void> {
    const doer = principal.user;
    let { pull } = await this.load(o.r, index);
    const { issue } = await this.load(o.r, index);
    if (pull.has_merged || issue.isClosed) throw ApiError.unprocessable('the pull request is closed or merged');
    if (style === 'rebase' && !o.r.settings.allow_rebase_update)
      throw new ApiError(403, 'updating by rebase is not allowed in this repository');
    const headRepo = await this.deps.repositories.byId(pull.head_repo_id);
    const headOwner = headRepo ? await this.deps.users.byId(headRepo.ownerId) : null;
    if (!headRepo || !headOwner) throw ApiError.notFound('the head repository does not exist');
    const headTarget = await this.deps.access.repository(headRepo.ownerName, headRepo.name, principal, 'read').catch(() => null);
    const headPerm = headTarget ? await this.deps.access.unitLevel(headTarget, principal, 'code') : 'none';
    const maintainer = pull.allow_maintainer_edit && o.canWrite;
    if (headPerm !== 'write' && headPerm !== 'admin' && !maintainer) throw ApiError.forbidden('you may not push to the head branch');
    // A protected head branch takes the update only from who may push to it, and never a rebase (a force push).
    await this.deps.protection.assertRefChange(
      headRepo,
      principal,
      `refs/heads/${pull.head_branch}`,
      style === 'rebase' ? 'force' : 'update',
    );
    ({ pull } = await this.refresh(o.r.gitDir, pull));
    const gitDir = o.r.gitDir;
    const baseTip = await this.git.branchCommit(gitDir, pull.base_branch);
    const head = pull.head_commit_id;
    if (!baseTip || !head) throw ApiError.notFound('the base or head branch does not exist');
    if (await this.git.isAncestor(gitDir, baseTip, head)) return; // already up to date
    const committer = await this.deps.git.identityOf(doer);
    const tempRef = tempRefName();
    let newHead: string;
    try {
      if (style === 'merge') {
        const merged = await this.git.mergeTrees(gitDir, head, baseTip);
        if (merged.conflicts.length) throw ApiError.conflict(`merge conflicts: ${merged.conflicts.join(', ')}`);
        newHead = await this.git.commitTree(
          gitDir,
          merged.tree,
          [head, baseTip],
          `Merge branch '${pull.base_branch}' into ${pull.head_branch}\n`,
          committer,
          committer,
        );
        await this.git.setRef(gitDir, tempRef, newHead);
      } else {
        const rebased = await this.git.rebaseOnto(gitDir, baseTip, head, committer, tempRef);
        if (!rebased) throw ApiError.conflict('rebase conflicts: the head branch cannot be rebased onto the base branch');
        newHead = rebased;
      }
      const headDir = headRepo.gitDir;
      if (headDir !== gitDir) await this.git.fetchInto(headDir, gitDir, tempRef, tempRef);
      const headTip = await this.git.branchCommit(headDir, pull.head_branch);
      if (
        !headTip ||
        !(await this.deps.repositories.updateRef(
          headRepo,
          `refs/heads/${pull.head_branch}`,
          headTip,
          newHead,
          doer,
          `hearth: update pull request #${index} from its base (${style})`,
        ))
      ) {
        throw ApiError.conflict('the head branch moved while updating; try again');
      }
      if (headDir !== gitDir) await this.git.deleteRef(headDir, tempRef);
    } finally {
      await this.git.deleteRef(gitDir, tempRef);
    }
  }
}
