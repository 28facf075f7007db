import {
  ApiError,
  created,
  escapeSegments,
  insertId,
  noContent,
  ok,
  OWNER_REPO_PARAMS,
  ownerRepoParams,
  parseTime,
  raw,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type RepositoryInfo,
  type UserInfo,
} from '@hearth/plugin-api';
import type { IssueChanges, IssueNotice } from '@hearth/plugin-issues';
import type { Knex } from 'knex';
import { reviewOperations } from './review-routes';
import { PULL_STATUS, openOnly, pullsByIssueIds, toPull, type PullDeps, type PullRow } from './pull-store';
import type { PullItem } from './pull-json';
import {
  INDEX_PARAMS,
  list,
  MERGE_STYLES,
  PULLS_READ,
  type MergeStyle,
  type OpenedBase,
  type PullService,
  type RepoParams,
} from './pull-service';

type IndexParams = RepoParams & { index: number };

interface CreatePullBody {
  title: string;
  head: string;
  base: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  labels?: number[];
  milestone?: number;
  due_date?: string;
}
interface EditPullBody {
  title?: string;
  body?: string;
  base?: string;
  assignee?: string;
  assignees?: string[];
  labels?: number[];
  milestone?: number;
  state?: 'open' | 'closed';
  due_date?: string;
  unset_due_date?: boolean;
  allow_maintainer_edit?: boolean;
}
interface MergeBody {
  Do: MergeStyle;
  MergeCommitID?: string;
  MergeMessageField?: string;
  MergeTitleField?: string;
  delete_branch_after_merge?: boolean;
  force_merge?: boolean;
  head_commit_id?: string;
  merge_when_checks_succeed?: boolean;
}

const DIFF_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    ...(INDEX_PARAMS.properties as object),
    diffType: { type: 'string', enum: ['diff', 'patch'], description: 'whether the output is diff or patch' },
  },
  required: ['owner', 'repo', 'index', 'diffType'],
};
const COMMIT_OPTION_QUERY = {
  stat: { type: 'boolean', description: "include diff stats for every commit (disable for speedup, default 'true')" },
  verification: { type: 'boolean', description: "include verification for every commit (disable for speedup, default 'true')" },
  files: { type: 'boolean', description: "include a list of affected files for every commit (disable for speedup, default 'true')" },
};
const LIST_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    state: { type: 'string', enum: ['closed', 'open', 'all'], description: 'State of pull request: open or closed (optional)' },
    sort: {
      type: 'string',
      enum: ['oldest', 'recentupdate', 'leastupdate', 'mostcomment', 'leastcomment', 'priority'],
      description: 'Type of sort',
    },
    milestone: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'ID of the milestone' },
    labels: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 2147483647 }, maxItems: 50, description: 'Label IDs' },
  },
};
const base = { tag: 'repository', scopes: ['repository'] as ['repository'] };

/**
 * Pull requests (Gitea's /repos/{owner}/{repo}/pulls…): create from a branch of the repository or
 * of a fork, list, get, edit, diff/patch, commits, changed files (walked with skip-to), merge in
 * every Gitea style, update from the base. Reviews and requested reviewers are review-routes.ts's
 * operations, appended below. The issue half of a pull request goes through the issues service.
 */
export function pullOperations(deps: PullDeps, svc: PullService): ApiOperation[] {
  const helpers = pullHelpers(deps, svc);
  const [list, pinned, get] = pullListOperations(deps, svc);
  const [create, edit] = pullWriteOperations(deps, svc, helpers);
  const [diff, ...gitReads] = pullGitOperations(deps, svc);
  // In this order: /pulls/{index}.{diffType} before /pulls/{index}; byBaseHead last, as its
  // two-segment path would otherwise shadow /pulls/{index}/files, …/reviews and the like.
  return [
    pinned,
    list,
    create,
    diff,
    get,
    edit,
    ...gitReads,
    ...mergeOperations(deps, svc),
    ...reviewOperations(deps, svc),
    pullByBaseHead(deps, svc, helpers),
  ];
}

type Helpers = ReturnType<typeof pullHelpers>;

function pullHelpers(deps: PullDeps, svc: PullService) {
  const { db, users, repositories } = deps;

  /** A repository of `ownerId` that is a fork of `sourceId`, else the one named like `name` (Gitea's head lookup). */
  const forkOrNamesake = async (owner: UserInfo, sourceId: number, name: string): Promise<RepositoryInfo | null> => {
    const fork = await db('repositories').where({ owner_id: owner.id, fork_id: sourceId }).first('id');
    return (fork ? await repositories.byId(Number(fork.id)) : null) ?? (await repositories.byName(owner.name, name));
  };
  /** Whether the caller may read a repository (else it is as if it did not exist). */
  const readable = async (repo: RepositoryInfo, req: ApiRequest<any, any, any>) =>
    Boolean(await deps.access.repository(repo.ownerName, repo.name, req.principal, 'read').catch(() => null));

  /** `branch`, `owner:branch` or `owner/repo:branch` → the head repository and branch. */
  const resolveHead = async (
    o: OpenedBase,
    head: string,
    req: ApiRequest<any, any, any>,
  ): Promise<{ repo: RepositoryInfo; branch: string }> => {
    const colon = head.indexOf(':');
    if (colon < 0) return { repo: o.r, branch: head };
    const who = head.slice(0, colon);
    const branch = head.slice(colon + 1);
    const [ownerName, repoName] = who.includes('/') ? who.split('/', 2) : [who, ''];
    const owner = await users.byName(ownerName);
    if (!owner) throw ApiError.notFound(`head repository owner does not exist [${ownerName}]`);
    let repo: RepositoryInfo | null;
    if (repoName) repo = await repositories.byName(owner.name, repoName);
    else if (owner.id === o.r.owner.id) repo = o.r;
    else repo = await forkOrNamesake(owner, o.r.id, o.r.name);
    if (!repo || repo.ownerId !== owner.id) throw ApiError.notFound(`head repository does not exist [${head}]`);
    if (repo.id !== o.r.id) {
      if (!(await readable(repo, req))) throw ApiError.notFound(`head repository does not exist [${head}]`);
      // A head in another repository must share history: a fork of the base (or the base's parent).
      const related = repo.forkId === o.r.id || (o.r.forkId && (repo.id === o.r.forkId || repo.forkId === o.r.forkId));
      if (!related)
        throw ApiError.unprocessable('the head repository is not a fork of the base repository', {
          errors: [{ field: 'head', message: 'not a fork' }],
        });
    }
    return { repo, branch };
  };

  /** The number of an open pull request between the same branches (other than `exceptId`), if any. */
  const openPullFor = async (
    baseRepoId: number,
    baseBranch: string,
    headRepoId: number,
    headBranch: string,
    exceptId = 0,
  ): Promise<number | null> => {
    const rows = (
      await db('pull_request')
        .where({ base_repo_id: baseRepoId, base_branch: baseBranch, head_repo_id: headRepoId, head_branch: headBranch })
        .whereNot('id', exceptId)
        .select('*')
    ).map(toPull);
    return (await openOnly(deps.issues, rows))[0]?.index ?? null;
  };

  const one = async (o: OpenedBase, index: number, req: ApiRequest<any, any, any>) =>
    svc.json(o.r, await svc.load(o.r, index), req.principal);
  /** The events the issue service decided, as PullRequest payloads (`pull_request`, `pull_request_assign`, …). */
  const emitNotices = async (o: OpenedBase, item: PullItem, notices: IssueNotice[], actor: UserInfo) => {
    for (const n of notices) {
      const extra: Record<string, unknown> = {};
      if (n.changes) extra.changes = n.changes;
      // Hearth extension, as for issue_assign: the user (un)assigned, whom the notifications module notifies.
      if (n.assigneeId) extra.assignee_id = n.assigneeId;
      await svc.emit(o.r, n.action, item, actor, extra, n.event);
    }
  };
  return { resolveHead, openPullFor, one, emitNotices, forkOrNamesake, readable };
}

function pullListOperations(deps: PullDeps, svc: PullService): ApiOperation[] {
  return [
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls',
      operationId: 'repoListPullRequests',
      summary: "List a repo's pull requests",
      params: OWNER_REPO_PARAMS,
      query: LIST_QUERY,
      paged: true,
      responses: { 200: list('PullRequest'), 404: 'APIError' },
      handler: async (
        req: ApiRequest<unknown, { state?: 'open' | 'closed' | 'all'; sort?: string; milestone?: number; labels?: number[] }, RepoParams>,
      ) => {
        const o = await svc.open(req, 'read');
        const f = req.query;
        const { issues, total } = await deps.issues.list({
          repositoryId: o.r.id,
          isPull: true,
          state: f.state ?? 'open',
          milestoneId: f.milestone,
          labelIds: f.labels,
          sort: f.sort as 'oldest' | undefined,
          offset: req.paging.offset,
          limit: req.paging.limit,
        });
        const pulls = await pullsByIssueIds(
          deps.db,
          issues.map((i) => i.id),
        );
        const items = issues.map((issue) => ({ issue, pull: pulls.get(issue.id)! })).filter((i) => i.pull);
        return deps.http.paged(req, await svc.jsons(o.r, items, req.principal), total);
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/pinned',
      operationId: 'repoListPinnedPullRequests',
      summary: "List a repo's pinned pull requests",
      params: OWNER_REPO_PARAMS,
      responses: { 200: list('Issue'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = req.target.repository!;
        // As Gitea: the pinned pull requests as Issue JSON, in pin order.
        const { issues } = await deps.issues.list({ repositoryId: r.id, isPull: true, state: 'all', pinned: true, offset: 0, limit: 1000 });
        return ok(await deps.issues.toApi(r, issues, req.principal));
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}',
      operationId: 'repoGetPullRequest',
      summary: 'Get a pull request',
      params: INDEX_PARAMS,
      responses: { 200: 'PullRequest', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await svc.open(req, 'read');
        return ok(await svc.json(o.r, await svc.load(o.r, req.params.index), req.principal));
      },
    },
  ];
}

function pullWriteOperations(deps: PullDeps, svc: PullService, helpers: Helpers): ApiOperation[] {
  return [
    {
      ...base,
      access: PULLS_READ,
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls',
      operationId: 'repoCreatePullRequest',
      summary: 'Create a pull request',
      auth: 'required',
      params: OWNER_REPO_PARAMS,
      body: 'CreatePullRequestOption',
      bodyRequired: true,
      responses: { 201: 'PullRequest', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<CreatePullBody, unknown, RepoParams>) => createPull(deps, svc, helpers, req),
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'patch',
      path: '/repos/{owner}/{repo}/pulls/{index}',
      operationId: 'repoEditPullRequest',
      summary: 'Update a pull request. If using deadline only the date will be taken into account, and time of day ignored.',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'EditPullRequestOption',
      bodyRequired: true,
      responses: { 201: 'PullRequest', 403: 'APIError', 404: 'APIError', 409: 'APIError', 412: 'APIError', 422: 'APIError' },
      handler: (req: ApiRequest<EditPullBody, unknown, IndexParams>) => editPull(deps, svc, helpers, req),
    },
  ];
}

/** Create a pull request: the issue half through the issues service, the pull request's row in the same transaction. */
async function createPull(deps: PullDeps, svc: PullService, helpers: Helpers, req: ApiRequest<CreatePullBody, unknown, RepoParams>) {
  const { db, issues } = deps;
  const o = await svc.open(req, 'participate');
  const b = req.body;
  if (!b.title.trim()) throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
  const head = await helpers.resolveHead(o, b.head, req);
  // As Gitea: assignees, labels and milestone given by a caller without write access are ignored.
  const assigneeIds = o.canWrite ? await issues.resolveAssignees(o.r, true, b.assignee, b.assignees) : [];
  if (!svc.git.isValidRefName(b.base) || !(await svc.git.branchCommit(o.r.gitDir, b.base)))
    throw ApiError.notFound(`base branch does not exist [${b.base}]`);
  const headTip = svc.git.isValidRefName(head.branch) ? await svc.git.branchCommit(head.repo.gitDir, head.branch) : null;
  if (!headTip) throw ApiError.notFound(`head branch does not exist [${b.head}]`);
  if (head.repo.id === o.r.id && head.branch === b.base)
    throw ApiError.unprocessable('head and base must be different branches', { errors: [{ field: 'head', message: 'same as base' }] });
  const existing = await helpers.openPullFor(o.r.id, b.base, head.repo.id, head.branch);
  if (existing) {
    throw ApiError.conflict(
      `pull request already exists for these targets [id: ${existing}, issue_id: ${existing}, head_repo_id: ${head.repo.id}, ` +
        `base_repo_id: ${o.r.id}, head_branch: ${head.branch}, base_branch: ${b.base}]`,
    );
  }
  const labelIds = o.canWrite ? await issues.resolveLabels(o.r, b.labels ?? []) : [];
  const milestoneId = o.canWrite && b.milestone ? b.milestone : 0;
  if (milestoneId) await issues.assertMilestone(o.r.id, milestoneId);
  const deadline = b.due_date && o.canWrite ? parseTime(b.due_date, 'due_date') : 0;
  const allowEdit = o.r.settings.default_allow_maintainer_edit;
  const actor = req.principal!.user;
  let pullId = 0;
  // The issue part through the issue service (issue.mutate once, the timeline as an issue's), the pull's row in its transaction.
  const { issue, notices } = await issues.create(
    {
      repositoryId: o.r.id,
      title: b.title,
      body: b.body ?? '',
      ref: '',
      milestoneId,
      deadlineUnix: deadline,
      closed: false,
      isPull: true,
      labelIds,
      assigneeIds,
    },
    actor,
    req.principal,
    async (trx, newIssue) => {
      pullId = await insertId(trx, 'pull_request', {
        issue_id: newIssue.id,
        index: newIssue.index,
        base_repo_id: o.r.id,
        head_repo_id: head.repo.id,
        base_branch: b.base,
        head_branch: head.branch,
        head_commit_id: '',
        status: PULL_STATUS.checking,
        conflicted_files: '[]',
        allow_maintainer_edit: allowEdit,
      });
    },
  );
  const pull = toPull(await db('pull_request').where('id', pullId).first());
  // A git failure here leaves the pull request `checking`; the next push to its branches retries.
  const fresh = await svc.refresh(o.r.gitDir, pull).catch(() => ({ pull }));
  await helpers.emitNotices(o, { issue, pull: fresh.pull }, notices, actor);
  return created(await svc.json(o.r, { issue, pull: fresh.pull }, req.principal));
}

/** Edit a pull request: the issue half through the issues service (as PATCH /issues/{index}), then the pull's own fields. */
async function editPull(deps: PullDeps, svc: PullService, helpers: Helpers, req: ApiRequest<EditPullBody, unknown, IndexParams>) {
  const { db, issues } = deps;
  const o = await svc.open(req, 'participate');
  const { issue, pull } = await svc.load(o.r, req.params.index);
  const b = req.body;
  const actor = req.principal!.user;
  const isPoster = issue.posterId === actor.id;
  if (!isPoster && !o.canWrite) throw ApiError.forbidden('only the poster or a writer may edit this pull request');
  // Assignees (an empty list clears them) are changed by writers only; others' values are ignored, as in Gitea.
  const assigneeIds =
    o.canWrite && (b.assignees !== undefined || b.assignee !== undefined)
      ? await issues.resolveAssignees(o.r, true, b.assignee, b.assignees)
      : undefined;
  const writerOnly = b.milestone !== undefined || b.due_date !== undefined || b.unset_due_date !== undefined || b.labels !== undefined;
  if (writerOnly && !o.canWrite)
    throw ApiError.forbidden('changing labels, the milestone or due date needs write access to the pull requests');
  if (b.title !== undefined && !b.title.trim())
    throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
  if (b.milestone) await issues.assertMilestone(o.r.id, b.milestone);
  const labelIds = b.labels !== undefined ? await issues.resolveLabels(o.r, b.labels) : undefined;
  if (b.allow_maintainer_edit !== undefined && b.allow_maintainer_edit !== pull.allow_maintainer_edit && !isPoster) {
    throw ApiError.forbidden('only the poster may change whether maintainers can edit the pull request');
  }
  if (b.state === 'open' && issue.isClosed && pull.has_merged)
    throw new ApiError(412, 'cannot change state of this pull request, it was already merged');
  const newBase = await newBaseOf(svc, helpers, o, pull, b.base, isPoster);
  if (
    b.state === 'open' &&
    issue.isClosed &&
    !newBase &&
    (await helpers.openPullFor(o.r.id, pull.base_branch, pull.head_repo_id, pull.head_branch, pull.id))
  ) {
    throw ApiError.conflict('another open pull request exists for these targets');
  }
  const changes: IssueChanges = {};
  if (b.title !== undefined) changes.title = b.title;
  if (b.body !== undefined) changes.body = b.body;
  if (b.state !== undefined) changes.state = b.state;
  if (b.milestone !== undefined) changes.milestoneId = b.milestone ?? 0;
  if (b.unset_due_date) changes.deadlineUnix = 0;
  else if (b.due_date !== undefined) changes.deadlineUnix = b.due_date ? parseTime(b.due_date, 'due_date') : 0;
  if (labelIds) changes.labelIds = labelIds;
  if (assigneeIds) changes.assigneeIds = assigneeIds;
  const extraChanges = newBase ? { base: { ref: { from: pull.base_branch } } } : {};
  const { issue: after, notices } = await issues.edit(issue.id, changes, {
    actor,
    viewer: req.principal,
    extraChanges,
    within: async (trx: Knex.Transaction) => {
      const pullPatch: Record<string, unknown> = {};
      if (b.allow_maintainer_edit !== undefined) pullPatch.allow_maintainer_edit = b.allow_maintainer_edit;
      if (newBase) {
        pullPatch.base_branch = newBase;
        pullPatch.status = PULL_STATUS.checking;
        await issues.recordEvent(
          {
            repositoryId: o.r.id,
            issueId: issue.id,
            actorId: actor.id,
            type: 'change_target_branch',
            oldRef: pull.base_branch,
            newRef: newBase,
          },
          trx,
        );
      }
      if (Object.keys(pullPatch).length) await trx('pull_request').where('id', pull.id).update(pullPatch);
    },
  });
  let fresh = toPull(await db('pull_request').where('id', pull.id).first());
  const reopened = issue.isClosed !== after.isClosed && !after.isClosed;
  if (newBase || reopened) fresh = (await svc.refresh(o.r.gitDir, fresh)).pull;
  const item = { issue: after, pull: fresh };
  await helpers.emitNotices(o, item, notices, actor);
  return created(await svc.json(o.r, item, req.principal));
}

/** A new base branch an edit asks for, checked; undefined when the base stays. */
async function newBaseOf(svc: PullService, helpers: Helpers, o: OpenedBase, pull: PullRow, wanted: string | undefined, isPoster: boolean) {
  if (wanted === undefined || wanted === pull.base_branch) return undefined;
  if (pull.has_merged) throw ApiError.unprocessable('cannot change the base branch of a merged pull request');
  if (!o.canWrite && !isPoster) throw ApiError.forbidden('changing the base branch needs write access');
  if (!svc.git.isValidRefName(wanted) || !(await svc.git.branchCommit(o.r.gitDir, wanted)))
    throw ApiError.notFound(`new base branch does not exist [${wanted}]`);
  if (pull.head_repo_id === o.r.id && pull.head_branch === wanted) throw ApiError.unprocessable('head and base must be different branches');
  if (await helpers.openPullFor(o.r.id, wanted, pull.head_repo_id, pull.head_branch, pull.id))
    throw ApiError.conflict('a pull request already exists for these targets');
  return wanted;
}

function pullGitOperations(deps: PullDeps, svc: PullService): ApiOperation[] {
  return [
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}.{diffType}',
      operationId: 'repoDownloadPullDiffOrPatch',
      summary: 'Get a pull request diff or patch',
      params: DIFF_PARAMS,
      query: {
        type: 'object',
        properties: {
          binary: {
            type: 'boolean',
            description: 'whether to include binary file changes. if true, the diff is applicable with `git apply`',
          },
        },
      },
      responses: { 200: { description: 'APIString', schema: { type: 'string' } }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { binary?: boolean }, IndexParams & { diffType: 'diff' | 'patch' }>) => {
        const o = await svc.openWithCode(req);
        const { pull } = await svc.load(o.r, req.params.index);
        if (!pull.merge_base || !pull.head_commit_id) return raw(200, 'text/plain; charset=utf-8', '');
        const binary = req.query.binary ? ['--binary'] : [];
        const args =
          req.params.diffType === 'diff'
            ? ['diff', '--no-color', '--no-ext-diff', '--full-index', '-M', ...binary, pull.merge_base, pull.head_commit_id, '--']
            : [
                'format-patch',
                '--no-color',
                '--no-ext-diff',
                '--full-index',
                '-M',
                '--stdout',
                ...binary,
                `${pull.merge_base}..${pull.head_commit_id}`,
                '--',
              ];
        const out = await deps.git.run(o.r.gitDir, args);
        return raw(200, 'text/plain; charset=utf-8', out.stdout);
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}/commits',
      operationId: 'repoGetPullRequestCommits',
      summary: 'Get commits for a pull request',
      params: INDEX_PARAMS,
      query: { type: 'object', properties: COMMIT_OPTION_QUERY },
      paged: true,
      responses: { 200: list('Commit'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { stat?: boolean; files?: boolean; verification?: boolean }, IndexParams>) => {
        const o = await svc.openWithCode(req);
        const { pull } = await svc.load(o.r, req.params.index);
        if (!pull.head_commit_id) return deps.http.paged(req as unknown as ApiRequest, [], 0);
        const range =
          pull.merge_base && pull.merge_base !== pull.head_commit_id
            ? `${pull.merge_base}..${pull.head_commit_id}`
            : pull.merge_base
              ? ''
              : pull.head_commit_id;
        if (!range) return deps.http.paged(req as unknown as ApiRequest, [], 0);
        const total = Number(await deps.git.text(o.r.gitDir, ['rev-list', '--count', range]));
        const details = {
          stat: req.query.stat !== false,
          files: req.query.files !== false,
          verification: req.query.verification !== false,
        };
        const commits = await deps.repositories.commitLog(
          o.r,
          [`--skip=${req.paging.offset}`, `--max-count=${req.paging.limit}`, '--end-of-options', range],
          details,
          req.principal,
        );
        return deps.http.paged(req as unknown as ApiRequest, commits, total);
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}/files',
      operationId: 'repoGetPullRequestFiles',
      summary: 'Get changed files for a pull request',
      params: INDEX_PARAMS,
      query: {
        type: 'object',
        properties: {
          'skip-to': { type: 'string', maxLength: 4096, description: 'skip to given file: the page starts at this file' },
          whitespace: {
            type: 'string',
            enum: ['ignore-all', 'ignore-change', 'ignore-eol', 'show-all'],
            description: 'whitespace behavior',
          },
          page: { type: 'integer', description: 'not used: pages are walked with skip-to' },
          limit: { type: 'integer', description: 'not used: the page size is git.MAX_GIT_DIFF_FILES' },
        },
      },
      responses: { 200: list('ChangedFile'), 404: 'APIError' },
      handler: (req: ApiRequest<unknown, { 'skip-to'?: string }, IndexParams>) => changedFilesPage(deps, svc, req),
    },
  ];
}

/** One page of a pull request's changed files, walked with `skip-to` (`[git] MAX_GIT_DIFF_FILES` per page). */
async function changedFilesPage(deps: PullDeps, svc: PullService, req: ApiRequest<unknown, { 'skip-to'?: string }, IndexParams>) {
  const o = await svc.openWithCode(req);
  const { pull } = await svc.load(o.r, req.params.index);
  const files = await svc.changedFiles(o.r.gitDir, pull);
  const size = Math.max(1, Number(deps.forge.raw.git?.MAX_GIT_DIFF_FILES ?? 100));
  const skipTo = req.query['skip-to'];
  let start = 0;
  if (skipTo) {
    const at = fileIndex(files, skipTo);
    start = at < 0 ? files.length : at;
  }
  const page = files.slice(start, start + size);
  const links = deps.repositories.links(o.r.ownerName, o.r.name);
  const head = pull.head_commit_id;
  const body = page.map((f) => ({
    filename: f.filename,
    previous_filename: f.previous_filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    html_url: `${links.html}/src/commit/${head}/${escapeSegments(f.filename)}`,
    contents_url: `${links.api}/contents/${escapeSegments(f.filename)}?ref=${head}`,
    raw_url: `${links.html}/raw/commit/${head}/${escapeSegments(f.filename)}`,
  }));
  const headers: Record<string, string> = { 'X-Total-Count': String(files.length), 'Access-Control-Expose-Headers': 'X-Total-Count, Link' };
  if (start + size < files.length) {
    const next = new URL(req.raw.originalUrl.replace(/^\/+/, ''), deps.forge.appUrl);
    for (const secret of ['token', 'access_token', 'sudo', 'page', 'limit']) next.searchParams.delete(secret);
    next.searchParams.set('skip-to', files[start + size].filename);
    headers.Link = `<${next.toString()}>; rel="next"`;
  }
  return { status: 200, body, headers };
}

function mergeOperations(deps: PullDeps, svc: PullService): ApiOperation[] {
  return [
    {
      ...base,
      access: PULLS_READ,
      method: 'get',
      path: '/repos/{owner}/{repo}/pulls/{index}/merge',
      operationId: 'repoPullRequestIsMerged',
      summary: 'Check if a pull request has been merged',
      params: INDEX_PARAMS,
      responses: { 204: 'pull request has been merged', 404: 'pull request has not been merged' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await svc.open(req, 'read');
        const { pull } = await svc.load(o.r, req.params.index);
        if (!pull.has_merged) throw ApiError.notFound('pull request has not been merged');
        return noContent();
      },
    },
    {
      ...base,
      access: { repo: { need: 'write', unit: 'pulls' } },
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls/{index}/merge',
      operationId: 'repoMergePullRequest',
      summary: 'Merge a pull request',
      auth: 'required',
      params: INDEX_PARAMS,
      body: 'MergePullRequestOption',
      bodyRequired: true,
      responses: { 200: 'empty', 403: 'APIError', 404: 'APIError', 405: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<MergeBody, unknown, IndexParams>) => {
        const o = await svc.open(req, 'participate');
        const b = req.body;
        if (!MERGE_STYLES.includes(b.Do)) throw ApiError.unprocessable(`unknown merge style "${b.Do}"`);
        // Merging writes the base branch: write on the code unit too (the declaration asks it of the pulls unit).
        const codeLevel = await deps.access.unitLevel(o.r, req.principal, 'code');
        if (codeLevel !== 'write' && codeLevel !== 'admin')
          throw ApiError.forbidden('you do not have permission to merge this pull request');
        await svc.merge(
          o,
          req.params.index,
          {
            style: b.Do,
            title: b.MergeTitleField,
            message: b.MergeMessageField,
            headCommitId: b.head_commit_id?.trim() || undefined,
            mergeCommitId: b.MergeCommitID,
            forceMerge: Boolean(b.force_merge),
            deleteBranch: b.delete_branch_after_merge,
          },
          req.principal!,
        );
        return { status: 200 };
      },
    },
    {
      ...base,
      access: PULLS_READ,
      method: 'post',
      path: '/repos/{owner}/{repo}/pulls/{index}/update',
      operationId: 'repoUpdatePullRequest',
      summary: "Merge PR's baseBranch into headBranch",
      auth: 'required',
      params: INDEX_PARAMS,
      query: {
        type: 'object',
        properties: { style: { type: 'string', enum: ['merge', 'rebase'], description: 'how to update pull request' } },
      },
      responses: { 200: 'empty', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, { style?: 'merge' | 'rebase' }, IndexParams>) => {
        const o = await svc.open(req, 'participate');
        await svc.updateBranch(o, req.params.index, req.query.style ?? 'merge', req.principal!);
        return { status: 200 };
      },
    },
  ];
}

/** `GET /pulls/{base}/{head}` (Gitea 1.22): the newest pull request from `head` (`branch` or `owner:branch`) into `base`. */
function pullByBaseHead(deps: PullDeps, svc: PullService, helpers: Helpers): ApiOperation {
  const { db, users } = deps;
  return {
    tag: 'repository',
    scopes: ['repository'],
    access: PULLS_READ,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/{base}/{head}',
    operationId: 'repoGetPullRequestByBaseHead',
    summary: 'Get a pull request by base and head',
    params: ownerRepoParams({
      base: { type: 'string', minLength: 1, maxLength: 255, description: 'base of the pull request to get' },
      head: { type: 'string', minLength: 1, maxLength: 512, description: 'head of the pull request to get' },
    }),
    responses: { 200: 'PullRequest', 404: 'APIError' },
    handler: async (req: ApiRequest<unknown, unknown, RepoParams & { base: string; head: string }>) => {
      const o = await svc.open(req, 'read');
      const { base: baseBranch, head } = req.params;
      let headRepoId = o.r.id;
      let headBranch = head;
      const colon = head.indexOf(':');
      if (colon >= 0) {
        const owner = await users.byName(head.slice(0, colon));
        const repo = owner ? await helpers.forkOrNamesake(owner, o.r.id, o.r.name) : null;
        if (!owner || !repo || repo.ownerId !== owner.id || !(await helpers.readable(repo, req)))
          throw ApiError.notFound(`head repository does not exist [${head}]`);
        headRepoId = repo.id;
        headBranch = head.slice(colon + 1);
      }
      const row = await db('pull_request')
        .where({ base_repo_id: o.r.id, base_branch: baseBranch, head_repo_id: headRepoId, head_branch: headBranch })
        .orderBy('index', 'desc')
        .first('index');
      if (!row) throw ApiError.notFound(`pull request does not exist [base: ${baseBranch}, head: ${head}]`);
      return ok(await svc.json(o.r, await svc.load(o.r, Number(row.index)), req.principal));
    },
  };
}

/** Position of a file in the changed-file list (git's path order); binary search with a linear fallback. */
function fileIndex(files: { filename: string }[], name: string): number {
  let lo = 0;
  let hi = files.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const f = files[mid].filename;
    if (f === name) return mid;
    if (Buffer.compare(Buffer.from(f), Buffer.from(name)) < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return files.findIndex((f) => f.filename === name);
}
