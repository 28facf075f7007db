import { ApiError, created, noContent, ok, raw, type ApiOperation, type ApiRequest, type JsonSchema, type UserInfo } from '@hearth/plugin-api';
import { reviewOperations } from './review-routes';
import type { Knex } from 'knex';
import type { KernelServices } from '../kernel-services';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import { runGit } from '../repos/git';
import { branchCommit } from '../repos/revisions';
import { isValidRefName } from '../repos/names';
import { repoLinks, escapeSegments } from '../repos/links';
import { commitOptionsOf, logCommits, toApiCommits, COMMIT_OPTION_QUERY } from '../repos/commit-json';
import { insertId } from '../orgs/org-store';
import { INDEX_PARAMS, list, parseTime } from '../issues/issue-context';
import { ensureIssueCounter, inTransaction, tapExclusiveLabels, toIssue, type IssueRow } from '../issues/issue-store';
import { recordIssueEvent } from '../issues/timeline';
import { resolveAssignees } from '../issues/assignees';
import { repoIdLookup, withPinLock } from '../issues/issue-actions';
import { createIssueIn, createNotices, editIssueLocked, editNotices, type IssueEditChanges, type IssueNotice } from '../issues/issue-service';
import { withConflictRetry } from '../db/retry';
import type { RepositoryRow } from '../repos/models';
import { PULL_STATUS, toPull, type PullRow } from './pull-store';
import { pullJsons } from './pull-json';
import { MERGE_STYLES, PULLS_READ, PullService, type MergeStyle, type OpenedBase, type RepoParams } from './pull-service';
import { assertMilestoneOf, resolveUsableLabels } from '../issues/issue-inputs';

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
  properties: { ...(INDEX_PARAMS.properties as object), diffType: { type: 'string', enum: ['diff', 'patch'], description: 'whether the output is diff or patch' } },
  required: ['owner', 'repo', 'index', 'diffType'],
};

/**
 * Pull requests (Gitea's /repos/{owner}/{repo}/pulls…): create from a branch of the repository or
 * of a fork, list, get, edit, diff/patch, commits, changed files (walked with skip-to), merge in
 * every Gitea style, update from the base. Reviews and requested reviewers are the reviews
 * helper's operations (review-*.ts), appended below.
 */
export function pullOperations(deps: KernelServices): ApiOperation[] {
  tapExclusiveLabels(deps.hooks);
  const svc = new PullService(deps);
  if (!deps.hooks.push.received.taps.some((t) => t.name === 'hearth:pulls')) {
    deps.hooks.push.received.tapPromise('hearth:pulls', async (event) => {
      svc.onPush(event);
    });
  }
  // byBaseHead last: its two-segment path would otherwise shadow /pulls/{index}/files, …/reviews and the like.
  return [...pullCore(deps, svc), ...reviewOperations(deps, svc), pullByBaseHead(deps, svc)];
}

function pullCore(deps: KernelServices, svc: PullService): ApiOperation[] {
  const { db, users, repos, http, hooks, config } = deps;


  /** `branch`, `owner:branch` or `owner/repo:branch` → the head repository and branch. */
  const resolveHead = async (o: OpenedBase, head: string, req: ApiRequest<any, any, any>): Promise<{ repo: RepositoryRow; branch: string }> => {
    const colon = head.indexOf(':');
    if (colon < 0) return { repo: o.r.repo, branch: head };
    const who = head.slice(0, colon);
    const branch = head.slice(colon + 1);
    const [ownerName, repoName] = who.includes('/') ? who.split('/', 2) : [who, ''];
    const owner = await users.byName(ownerName);
    if (!owner) throw ApiError.notFound(`head repository owner does not exist [${ownerName}]`);
    let repo: RepositoryRow | undefined;
    if (repoName) repo = await repos.query().findOne({ owner_id: owner.id, lower_name: repoName.toLowerCase() });
    else if (owner.id === o.r.owner.id) repo = o.r.repo;
    else {
      repo = await repos.query().findOne({ owner_id: owner.id, fork_id: o.r.repo.id });
      repo ??= await repos.query().findOne({ owner_id: owner.id, lower_name: o.r.repo.lower_name });
    }
    if (!repo) throw ApiError.notFound(`head repository does not exist [${head}]`);
    if (repo.id !== o.r.repo.id) {
      if (!(await repos.access.permission(repo, req.principal, owner)).pull) throw ApiError.notFound(`head repository does not exist [${head}]`);
      // A head in another repository must share history: a fork of the base (or the base's parent).
      const related = repo.fork_id === o.r.repo.id || (o.r.repo.fork_id && (repo.id === o.r.repo.fork_id || repo.fork_id === o.r.repo.fork_id));
      if (!related) throw ApiError.unprocessable('the head repository is not a fork of the base repository', { errors: [{ field: 'head', message: 'not a fork' }] });
    }
    return { repo, branch };
  };

  const openPullFor = async (q: Knex | Knex.Transaction, baseRepoId: number, baseBranch: string, headRepoId: number, headBranch: string, exceptId = 0) => {
    return q('pull_request as p').join('issue as i', 'i.id', 'p.issue_id').where('i.is_closed', false)
      .where({ 'p.base_repo_id': baseRepoId, 'p.base_branch': baseBranch, 'p.head_repo_id': headRepoId, 'p.head_branch': headBranch })
      .whereNot('p.id', exceptId).first('i.index');
  };

  const one = async (o: OpenedBase, index: number, req: ApiRequest<any, any, any>) => svc.json(o.r, await svc.load(o.r, index), req.principal);
  /** The events the issue service decided, as PullRequest payloads (`pull_request`, `pull_request_assign`, …). */
  const emitNotices = async (o: OpenedBase, item: { issue: IssueRow; pull: PullRow }, notices: IssueNotice[], actor: UserInfo) => {
    for (const n of notices) {
      const extra: Record<string, unknown> = {};
      if (n.changes) extra.changes = n.changes;
      // Hearth extension, as for issue_assign: the user (un)assigned, whom the notifications module notifies.
      if (n.assigneeId) extra.assignee_id = n.assigneeId;
      await svc.emit(o.r, n.action, item, actor, extra, n.event);
    }
  };

  const listQuery: JsonSchema = {
    type: 'object',
    properties: {
      state: { type: 'string', enum: ['closed', 'open', 'all'], description: 'State of pull request: open or closed (optional)' },
      sort: { type: 'string', enum: ['oldest', 'recentupdate', 'leastupdate', 'mostcomment', 'leastcomment', 'priority'], description: 'Type of sort' },
      milestone: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'ID of the milestone' },
      labels: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 2147483647 }, maxItems: 50, description: 'Label IDs' },
    },
  };

  const base = { tag: 'repository', scopes: ['repository'] as ['repository'] };
  return [
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls', operationId: 'repoListPullRequests', summary: "List a repo's pull requests",
      params: OWNER_REPO_PARAMS, query: listQuery, paged: true, responses: { 200: list('PullRequest'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { state?: string; sort?: string; milestone?: number; labels?: number[] }, RepoParams>) => {
        const o = await svc.open(req, 'read');
        const f = req.query;
        const q = db('issue as i').join('pull_request as p', 'p.issue_id', 'i.id').where('i.repo_id', o.r.repo.id).where('i.is_pull', true);
        const st = f.state ?? 'open';
        if (st !== 'all') q.where('i.is_closed', st === 'closed');
        if (f.milestone) q.where('i.milestone_id', f.milestone);
        for (const id of new Set(f.labels ?? [])) q.whereIn('i.id', db('issue_label').where('label_id', id).select('issue_id'));
        const [{ n }] = await q.clone().count({ n: '*' });
        const comments = db('comment').where('type', 0).whereRaw('comment.issue_id = i.id').count('*');
        const ordered = q.clone().select('i.*', db.raw('(?) as hearth_comments', [comments]));
        switch (f.sort) {
          case 'oldest': ordered.orderBy([{ column: 'i.created_unix', order: 'asc' }, { column: 'i.id', order: 'asc' }]); break;
          case 'recentupdate': ordered.orderBy([{ column: 'i.updated_unix', order: 'desc' }, { column: 'i.id', order: 'desc' }]); break;
          case 'leastupdate': ordered.orderBy([{ column: 'i.updated_unix', order: 'asc' }, { column: 'i.id', order: 'asc' }]); break;
          case 'mostcomment': ordered.orderBy([{ column: 'hearth_comments', order: 'desc' }, { column: 'i.id', order: 'desc' }]); break;
          case 'leastcomment': ordered.orderBy([{ column: 'hearth_comments', order: 'asc' }, { column: 'i.id', order: 'desc' }]); break;
          default: ordered.orderBy([{ column: 'i.created_unix', order: 'desc' }, { column: 'i.id', order: 'desc' }]);
        }
        const issues = (await ordered.offset(req.paging.offset).limit(req.paging.limit)).map(toIssue);
        const pulls = new Map<number, PullRow>();
        if (issues.length) for (const p of await db('pull_request').whereIn('issue_id', issues.map((i) => i.id))) pulls.set(Number(p.issue_id), toPull(p));
        const items = issues.map((issue) => ({ issue, pull: pulls.get(issue.id)! })).filter((i) => i.pull);
        return http.paged(req, await pullJsons(deps, o.r, items, req.principal), Number(n));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'post', path: '/repos/{owner}/{repo}/pulls', operationId: 'repoCreatePullRequest', summary: 'Create a pull request', auth: 'required',
      params: OWNER_REPO_PARAMS, body: 'CreatePullRequestOption', bodyRequired: true,
      responses: { 201: 'PullRequest', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreatePullBody, unknown, RepoParams>) => {
        const o = await svc.open(req, 'participate');
        const b = req.body;
        if (!b.title.trim()) throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
        const head = await resolveHead(o, b.head, req);
        // As Gitea: assignees, labels and milestone given by a caller without write access are ignored.
        const assigneeIds = o.canWrite ? await resolveAssignees(deps, o, true, b.assignee, b.assignees) : [];
        if (!isValidRefName(b.base) || !(await branchCommit(o.r.gitDir, b.base))) throw ApiError.notFound(`base branch does not exist [${b.base}]`);
        const headDir = repos.gitDir(head.repo.owner_name, head.repo.name);
        const headTip = isValidRefName(head.branch) ? await branchCommit(headDir, head.branch) : null;
        if (!headTip) throw ApiError.notFound(`head branch does not exist [${b.head}]`);
        if (head.repo.id === o.r.repo.id && head.branch === b.base) throw ApiError.unprocessable('head and base must be different branches', { errors: [{ field: 'head', message: 'same as base' }] });
        const existing = await openPullFor(db, o.r.repo.id, b.base, head.repo.id, head.branch);
        if (existing) throw ApiError.conflict(`pull request already exists for these targets [id: ${existing.index}, issue_id: ${existing.index}, head_repo_id: ${head.repo.id}, base_repo_id: ${o.r.repo.id}, head_branch: ${head.branch}, base_branch: ${b.base}]`);
        const labels = o.canWrite ? await resolveUsableLabels(db, o.r.repo, b.labels ?? []) : [];
        const milestoneId = o.canWrite && b.milestone ? b.milestone : 0;
        if (milestoneId) await assertMilestoneOf(db, o.r.repo.id, milestoneId);
        const deadline = b.due_date && o.canWrite ? parseTime(b.due_date, 'due_date') : 0;
        await ensureIssueCounter(db, o.r.repo.id);
        const allowEdit = o.r.repo.settingMap().default_allow_maintainer_edit;
        const refRepos = await repoIdLookup(deps, req.principal, `${b.title}\n${b.body ?? ''}`);
        const actor = req.principal!.user;
        const { issueId, pullId } = await inTransaction(db, async (trx) => {
          // The issue part through the issue service (issue.mutate once, the timeline as an issue's).
          const newIssue = await createIssueIn(hooks, trx, {
            repoId: o.r.repo.id, title: b.title, body: b.body ?? '', ref: '', milestoneId, deadlineUnix: deadline, closed: false, isPull: true, labels, assigneeIds,
          }, actor, refRepos);
          const newPullId = await insertId(trx, 'pull_request', {
            issue_id: newIssue.id, index: newIssue.index, base_repo_id: o.r.repo.id, head_repo_id: head.repo.id, base_branch: b.base, head_branch: head.branch,
            head_commit_id: '', status: PULL_STATUS.checking, conflicted_files: '[]', allow_maintainer_edit: allowEdit,
          });
          return { issueId: newIssue.id, pullId: newPullId };
        });
        const pull = toPull(await db('pull_request').where('id', pullId).first());
        // A git failure here leaves the pull request `checking`; the next push to its branches retries.
        const fresh = await svc.refresh(o.r.gitDir, pull).catch(() => ({ pull }));
        const issue = toIssue(await db('issue').where('id', issueId).first());
        await emitNotices(o, { issue, pull: fresh.pull }, createNotices(issue, assigneeIds), actor);
        return created(await svc.json(o.r, { issue, pull: fresh.pull }, req.principal));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}.{diffType}', operationId: 'repoDownloadPullDiffOrPatch', summary: 'Get a pull request diff or patch',
      params: DIFF_PARAMS, query: { type: 'object', properties: { binary: { type: 'boolean', description: 'whether to include binary file changes. if true, the diff is applicable with `git apply`' } } },
      responses: { 200: { description: 'APIString', schema: { type: 'string' } }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { binary?: boolean }, IndexParams & { diffType: 'diff' | 'patch' }>) => {
        const o = await svc.openWithCode(req);
        const { pull } = await svc.load(o.r, req.params.index);
        if (!pull.merge_base || !pull.head_commit_id) return raw(200, 'text/plain; charset=utf-8', '');
        const binary = req.query.binary ? ['--binary'] : [];
        const args = req.params.diffType === 'diff'
          ? ['diff', '--no-color', '--no-ext-diff', '--full-index', '-M', ...binary, pull.merge_base, pull.head_commit_id, '--']
          : ['format-patch', '--no-color', '--no-ext-diff', '--full-index', '-M', '--stdout', ...binary, `${pull.merge_base}..${pull.head_commit_id}`, '--'];
        const out = await runGit(args, { gitDir: o.r.gitDir });
        return raw(200, 'text/plain; charset=utf-8', out.stdout);
      },
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}', operationId: 'repoGetPullRequest', summary: 'Get a pull request',
      params: INDEX_PARAMS, responses: { 200: 'PullRequest', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await svc.open(req, 'read');
        return ok(await one(o, req.params.index, req));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'patch', path: '/repos/{owner}/{repo}/pulls/{index}', operationId: 'repoEditPullRequest',
      summary: 'Update a pull request. If using deadline only the date will be taken into account, and time of day ignored.', auth: 'required',
      params: INDEX_PARAMS, body: 'EditPullRequestOption', bodyRequired: true,
      responses: { 201: 'PullRequest', 403: 'APIError', 404: 'APIError', 409: 'APIError', 412: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<EditPullBody, unknown, IndexParams>) => {
        const o = await svc.open(req, 'participate');
        const { issue, pull } = await svc.load(o.r, req.params.index);
        const b = req.body;
        const actor = req.principal!.user;
        const isPoster = issue.poster_id === actor.id;
        if (!isPoster && !o.canWrite) throw ApiError.forbidden('only the poster or a writer may edit this pull request');
        // Assignees (an empty list clears them) are changed by writers only; others' values are ignored, as in Gitea.
        const assigneeIds = o.canWrite && (b.assignees !== undefined || b.assignee !== undefined) ? await resolveAssignees(deps, o, true, b.assignee, b.assignees) : undefined;
        const writerOnly = b.milestone !== undefined || b.due_date !== undefined || b.unset_due_date !== undefined || b.labels !== undefined;
        if (writerOnly && !o.canWrite) throw ApiError.forbidden('changing labels, the milestone or due date needs write access to the pull requests');
        if (b.title !== undefined && !b.title.trim()) throw ApiError.unprocessable('title may not be empty', { errors: [{ field: 'title', message: 'required' }] });
        if (b.milestone) await assertMilestoneOf(db, o.r.repo.id, b.milestone);
        const labels = b.labels !== undefined ? await resolveUsableLabels(db, o.r.repo, b.labels) : undefined;
        if (b.allow_maintainer_edit !== undefined && b.allow_maintainer_edit !== pull.allow_maintainer_edit && !isPoster) {
          throw ApiError.forbidden('only the poster may change whether maintainers can edit the pull request');
        }
        if (b.state === 'open' && issue.is_closed && pull.has_merged) throw new ApiError(412, 'cannot change state of this pull request, it was already merged');
        let newBase: string | undefined;
        if (b.base !== undefined && b.base !== pull.base_branch) {
          if (pull.has_merged) throw ApiError.unprocessable('cannot change the base branch of a merged pull request');
          if (!o.canWrite && !isPoster) throw ApiError.forbidden('changing the base branch needs write access');
          if (!isValidRefName(b.base) || !(await branchCommit(o.r.gitDir, b.base))) throw ApiError.notFound(`new base branch does not exist [${b.base}]`);
          if (pull.head_repo_id === o.r.repo.id && pull.head_branch === b.base) throw ApiError.unprocessable('head and base must be different branches');
          if (await openPullFor(db, o.r.repo.id, b.base, pull.head_repo_id, pull.head_branch, pull.id)) throw ApiError.conflict('a pull request already exists for these targets');
          newBase = b.base;
        }
        if (b.state === 'open' && issue.is_closed && !newBase && (await openPullFor(db, o.r.repo.id, pull.base_branch, pull.head_repo_id, pull.head_branch, pull.id))) {
          throw ApiError.conflict('another open pull request exists for these targets');
        }
        const changes: IssueEditChanges = {};
        if (b.title !== undefined) changes.title = b.title;
        if (b.body !== undefined) changes.body = b.body;
        if (b.state !== undefined) changes.state = b.state;
        if (b.milestone !== undefined) changes.milestoneId = b.milestone ?? 0;
        if (b.unset_due_date) changes.deadlineUnix = 0;
        else if (b.due_date !== undefined) changes.deadlineUnix = b.due_date ? parseTime(b.due_date, 'due_date') : 0;
        if (labels) Object.assign(changes, { labelIds: labels.map((l) => l.id), labels });
        if (assigneeIds) changes.assigneeIds = assigneeIds;
        await ensureIssueCounter(db, o.r.repo.id);
        const refRepos = await repoIdLookup(deps, req.principal, b.body ?? '');
        // Under the repository's pin lock: the issue part through the issue service (as PATCH /issues/{index}), then the pull's own fields.
        const outcome = await withConflictRetry(() => withPinLock(db, issue, async (trx: Knex.Transaction, current: IssueRow) => {
          const done = await editIssueLocked(hooks, trx, current, changes, actor, refRepos);
          const pullPatch: Record<string, unknown> = {};
          if (b.allow_maintainer_edit !== undefined) pullPatch.allow_maintainer_edit = b.allow_maintainer_edit;
          if (newBase) {
            pullPatch.base_branch = newBase;
            pullPatch.status = PULL_STATUS.checking;
            await recordIssueEvent(trx, { repoId: o.r.repo.id, issueId: issue.id, actorId: actor.id, type: 'change_target_branch', old_ref: pull.base_branch, new_ref: newBase });
          }
          if (Object.keys(pullPatch).length) await trx('pull_request').where('id', pull.id).update(pullPatch);
          return done;
        }));
        let fresh = toPull(await db('pull_request').where('id', pull.id).first());
        const after = toIssue(await db('issue').where('id', issue.id).first());
        if (newBase || (outcome.stateChanged && !after.is_closed)) fresh = (await svc.refresh(o.r.gitDir, fresh)).pull;
        const item = { issue: after, pull: fresh };
        await emitNotices(o, item, editNotices(issue, after, outcome, newBase ? { base: { ref: { from: pull.base_branch } } } : {}), actor);
        return created(await svc.json(o.r, item, req.principal));
      },
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/commits', operationId: 'repoGetPullRequestCommits', summary: 'Get commits for a pull request',
      params: INDEX_PARAMS, query: { type: 'object', properties: COMMIT_OPTION_QUERY }, paged: true, responses: { 200: list('Commit'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { stat?: boolean; files?: boolean; verification?: boolean }, IndexParams>) => {
        const o = await svc.openWithCode(req);
        const { pull } = await svc.load(o.r, req.params.index);
        if (!pull.head_commit_id) return http.paged(req as unknown as ApiRequest, [], 0);
        const range = pull.merge_base && pull.merge_base !== pull.head_commit_id ? `${pull.merge_base}..${pull.head_commit_id}` : pull.merge_base ? '' : pull.head_commit_id;
        if (!range) return http.paged(req as unknown as ApiRequest, [], 0);
        const total = Number((await runGit(['rev-list', '--count', range], { gitDir: o.r.gitDir })).stdout.toString().trim());
        const commits = await logCommits(o.r.gitDir, [`--skip=${req.paging.offset}`, `--max-count=${req.paging.limit}`, '--end-of-options', range]);
        const links = repoLinks(config, o.r.owner.name, o.r.repo.name);
        return http.paged(req as unknown as ApiRequest, await toApiCommits(deps, o.r.gitDir, links, req.principal, commits, commitOptionsOf(req.query)), total);
      },
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/files', operationId: 'repoGetPullRequestFiles', summary: 'Get changed files for a pull request',
      params: INDEX_PARAMS,
      query: {
        type: 'object',
        properties: {
          'skip-to': { type: 'string', maxLength: 4096, description: 'skip to given file: the page starts at this file' },
          whitespace: { type: 'string', enum: ['ignore-all', 'ignore-change', 'ignore-eol', 'show-all'], description: 'whitespace behavior' },
          page: { type: 'integer', description: 'not used: pages are walked with skip-to' },
          limit: { type: 'integer', description: 'not used: the page size is git.MAX_GIT_DIFF_FILES' },
        },
      },
      responses: { 200: list('ChangedFile'), 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { 'skip-to'?: string }, IndexParams>) => {
        const o = await svc.openWithCode(req);
        const { pull } = await svc.load(o.r, req.params.index);
        const files = await svc.changedFiles(o.r.gitDir, pull);
        const size = Math.max(1, Number(config.git?.MAX_GIT_DIFF_FILES ?? 100));
        const skipTo = req.query['skip-to'];
        let start = 0;
        if (skipTo) {
          const at = fileIndex(files, skipTo);
          start = at < 0 ? files.length : at;
        }
        const page = files.slice(start, start + size);
        const links = repoLinks(config, o.r.owner.name, o.r.repo.name);
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
          const next = new URL(req.raw.originalUrl.replace(/^\/+/, ''), config.server.ROOT_URL);
          for (const secret of ['token', 'access_token', 'sudo', 'page', 'limit']) next.searchParams.delete(secret);
          next.searchParams.set('skip-to', files[start + size].filename);
          headers.Link = `<${next.toString()}>; rel="next"`;
        }
        return { status: 200, body, headers };
      },
    },
    {
      ...base, access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{index}/merge', operationId: 'repoPullRequestIsMerged', summary: 'Check if a pull request has been merged',
      params: INDEX_PARAMS, responses: { 204: 'pull request has been merged', 404: 'pull request has not been merged' },
      handler: async (req: ApiRequest<unknown, unknown, IndexParams>) => {
        const o = await svc.open(req, 'read');
        const { pull } = await svc.load(o.r, req.params.index);
        if (!pull.has_merged) throw ApiError.notFound('pull request has not been merged');
        return noContent();
      },
    },
    {
      ...base, access: { repo: { need: 'write', unit: 'pulls' } }, method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/merge', operationId: 'repoMergePullRequest', summary: 'Merge a pull request', auth: 'required',
      params: INDEX_PARAMS, body: 'MergePullRequestOption', bodyRequired: true,
      responses: { 200: 'empty', 403: 'APIError', 404: 'APIError', 405: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<MergeBody, unknown, IndexParams>) => {
        const o = await svc.open(req, 'participate');
        const b = req.body;
        if (!MERGE_STYLES.includes(b.Do)) throw ApiError.unprocessable(`unknown merge style "${b.Do}"`);
        // Merging writes the base branch: write on the code unit too (the declaration asks it of the pulls unit).
        const codeLevel = await repos.access.unitPermission(o.r.repo, req.principal, 'code', o.r.owner);
        if (codeLevel !== 'write' && codeLevel !== 'admin') throw ApiError.forbidden('you do not have permission to merge this pull request');
        await svc.merge(o, req.params.index, {
          style: b.Do, title: b.MergeTitleField, message: b.MergeMessageField, headCommitId: b.head_commit_id?.trim() || undefined,
          mergeCommitId: b.MergeCommitID, forceMerge: Boolean(b.force_merge), deleteBranch: b.delete_branch_after_merge,
        }, req.principal!);
        return { status: 200 };
      },
    },
    {
      ...base, access: PULLS_READ, method: 'post', path: '/repos/{owner}/{repo}/pulls/{index}/update', operationId: 'repoUpdatePullRequest', summary: "Merge PR's baseBranch into headBranch", auth: 'required',
      params: INDEX_PARAMS, query: { type: 'object', properties: { style: { type: 'string', enum: ['merge', 'rebase'], description: 'how to update pull request' } } },
      responses: { 200: 'empty', 403: 'APIError', 404: 'APIError', 409: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<unknown, { style?: 'merge' | 'rebase' }, IndexParams>) => {
        const o = await svc.open(req, 'participate');
        await svc.updateBranch(o, req.params.index, req.query.style ?? 'merge', req.principal!);
        return { status: 200 };
      },
    },
  ];
}

/** Position of a file in the changed-file list (git's path order); binary search with a linear fallback. */
/** `GET /pulls/{base}/{head}` (Gitea 1.22): the newest pull request from `head` (`branch` or `owner:branch`) into `base`. */
function pullByBaseHead(deps: KernelServices, svc: PullService): ApiOperation {
  const { db, users, repos } = deps;
  return {
    tag: 'repository', scopes: ['repository'], access: PULLS_READ, method: 'get', path: '/repos/{owner}/{repo}/pulls/{base}/{head}', operationId: 'repoGetPullRequestByBaseHead',
    summary: 'Get a pull request by base and head',
    params: {
      type: 'object',
      properties: {
        ...(OWNER_REPO_PARAMS.properties as object),
        base: { type: 'string', minLength: 1, maxLength: 255, description: 'base of the pull request to get' },
        head: { type: 'string', minLength: 1, maxLength: 512, description: 'head of the pull request to get' },
      },
      required: ['owner', 'repo', 'base', 'head'],
    },
    responses: { 200: 'PullRequest', 404: 'APIError' },
    handler: async (req: ApiRequest<unknown, unknown, RepoParams & { base: string; head: string }>) => {
      const o = await svc.open(req, 'read');
      const { base, head } = req.params;
      let headRepoId = o.r.repo.id;
      let headBranch = head;
      const colon = head.indexOf(':');
      if (colon >= 0) {
        const owner = await users.byName(head.slice(0, colon));
        const repo = owner ? (await repos.query().findOne({ owner_id: owner.id, fork_id: o.r.repo.id })) ?? (await repos.query().findOne({ owner_id: owner.id, lower_name: o.r.repo.lower_name })) : undefined;
        if (!owner || !repo || !(await repos.access.permission(repo, req.principal, owner)).pull) throw ApiError.notFound(`head repository does not exist [${head}]`);
        headRepoId = repo.id;
        headBranch = head.slice(colon + 1);
      }
      const row = await db('pull_request').where({ base_repo_id: o.r.repo.id, base_branch: base, head_repo_id: headRepoId, head_branch: headBranch }).orderBy('index', 'desc').first('index');
      if (!row) throw ApiError.notFound(`pull request does not exist [base: ${base}, head: ${head}]`);
      return ok(await svc.json(o.r, await svc.load(o.r, Number(row.index)), req.principal));
    },
  };
}

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

export type { IssueRow };
