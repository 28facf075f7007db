import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import type { PageViewer } from '../page-session';
import { pageNumber } from './home-routes';
import { API_PAGE, commentMarkdown, issueIndex, listAll, loadRepo, orNull, refusal, text } from './route-parts';
import { repoHref } from '../views/common';
import type { IssueJson, TimelineEventJson } from '../views/timeline';
import {
  CompareChoosePage,
  ComparePage,
  compareHref,
  PullCommitsPage,
  PullConversationPage,
  PullFilesPage,
  PullListPage,
  renderDiff,
  type CombinedStatusJson,
  type CommitJson,
  type NewPullForm,
  type PullCounts,
  type PullJson,
  type PullRepoJson,
  type ReviewCommentJson,
  type ReviewJson,
} from '../views/pull-pages';

const PAGE_SIZE = 20;

/** A repository as the viewer may see it (404 otherwise), with its names as the API spells them. */
interface OpenedRepo {
  viewer: PageViewer;
  repo: PullRepoJson;
  owner: string;
  name: string;
}

async function openRepo(web: WebRoutes, req: Request): Promise<OpenedRepo> {
  const { viewer, repo } = await loadRepo<PullRepoJson>(web, req);
  return { viewer, repo, owner: repo.owner.login, name: repo.name };
}

/** `?labels=1,2` (Gitea's list filter) as label ids. */
function labelIds(value: unknown): number[] {
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((v) => Number(v.trim()))
    .filter((n) => Number.isInteger(n) && n > 0 && n < 2 ** 31)
    .slice(0, 20);
}

/**
 * Pull request pages at Gitea's URLs: `/{owner}/{repo}/pulls` (list), `/pulls/{index}`
 * (conversation and merge box), `/pulls/{index}/commits`, `/pulls/{index}/files`, the merge form
 * `POST /pulls/{index}/merge`, `/pulls/{index}.diff|.patch`, and `/compare/{base}...{head}` with the
 * new pull request form. Every read and change goes through the API as the viewer.
 */
export function pullRoutes(web: WebRoutes): void {
  pullListRoute(web);
  pullPageRoutes(web);
  mergeRoute(web);
  compareRoutes(web);
}

function pullListRoute(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  pages.get('/:owner/:repo/pulls', async (req, res) => {
    const { viewer, repo, owner, name } = await openRepo(web, req);
    const state = req.query.state === 'closed' ? 'closed' : req.query.state === 'all' ? 'all' : 'open';
    const labels = labelIds(req.query.labels);
    const page = pageNumber(req);
    const path = apiPath`/repos/${owner}/${name}/pulls`;
    const filter = labels.length ? { labels } : {};
    const count = async (s: 'open' | 'closed') => (await api.list(viewer, path, { state: s, limit: 1, ...filter })).total;
    const [list, open, closed] = await Promise.all([
      api.list<PullJson>(viewer, path, { state, page, limit: PAGE_SIZE, ...filter }),
      count('open'),
      count('closed'),
    ]);
    renderer.send(
      res,
      h(PullListPage, {
        kit: renderer.kit(req),
        repo,
        state,
        pulls: list.items,
        counts: { open, closed },
        total: list.total,
        page,
        limit: PAGE_SIZE,
        labels,
      }),
    );
  });
}

/** A pull request with what every one of its tabs shows (the counts of commits and files). */
interface OpenedPull extends OpenedRepo {
  index: number;
  pr: PullJson;
  counts: PullCounts;
  /** `/repos/{owner}/{repo}/pulls/{index}` */
  apiBase: string;
}

async function openPull(web: WebRoutes, req: Request, index: number): Promise<OpenedPull> {
  const opened = await openRepo(web, req);
  const { viewer, owner, name } = opened;
  const apiBase = apiPath`/repos/${owner}/${name}/pulls/${index}`;
  const pr = await web.api.get<PullJson>(viewer, apiBase);
  // Both need the code unit: a viewer who may read pull requests but not code sees no counts.
  const [commits, files] = await Promise.all([
    orNull(web.api.list(viewer, `${apiBase}/commits`, { limit: 1, stat: false, files: false, verification: false })),
    orNull(web.api.list(viewer, `${apiBase}/files`)),
  ]);
  return { ...opened, index, pr, apiBase, counts: { commits: commits?.total ?? null, files: files?.total ?? null } };
}

/** The conversation tab: the timeline (the issues pages' component) and the merge box. */
async function sendConversation(
  web: WebRoutes,
  req: Request,
  res: Response,
  p: OpenedPull,
  mergeError?: { status: number; message: string },
) {
  const { api, renderer } = web;
  const { viewer, repo, owner, name, pr, index } = p;
  const issuePath = apiPath`/repos/${owner}/${name}/issues/${index}`;
  const open = pr.state === 'open' && !pr.merged;
  const writer = Boolean(repo.permissions?.push);
  const [issue, events, status, templates] = await Promise.all([
    api.get<IssueJson>(viewer, issuePath),
    orNull(listAll<TimelineEventJson>(web, viewer, `${issuePath}/timeline`)),
    open && pr.head.sha
      ? orNull(api.get<CombinedStatusJson>(viewer, apiPath`/repos/${owner}/${name}/commits/${pr.head.sha}/status`, { limit: API_PAGE }))
      : Promise.resolve(null),
    open && writer ? mergeTemplates(web, p) : Promise.resolve([]),
  ]);
  const user = viewer.user;
  const isPoster = Boolean(user && pr.user && pr.user.login.toLowerCase() === user.name.toLowerCase());
  renderer.send(
    res,
    h(PullConversationPage, {
      kit: renderer.kit(req),
      repo,
      pr,
      counts: p.counts,
      issue,
      events: events ?? [],
      renderMarkdown: commentMarkdown(web, repo.full_name),
      canComment: Boolean(user) && (!issue.locked || writer),
      canChangeState: Boolean(user) && !pr.merged && (writer || isPoster),
      commentAction: `${repoHref(repo.full_name)}/issues/${index}/comments`,
      merge: { status, canMerge: Boolean(user) && writer, error: mergeError?.message, templates },
    }),
    mergeError?.status ?? 200,
  );
}

/**
 * The merge message template files of the base branch (Gitea's `.gitea/default_merge_message/<STYLE>_TEMPLATE.md`,
 * which the merge uses when no title and message are given), read through the contents API as the viewer.
 */
async function mergeTemplates(web: WebRoutes, p: OpenedPull): Promise<string[]> {
  const dir = `${apiPath`/repos/${p.owner}/${p.name}/contents/`}.gitea/default_merge_message`;
  const entries = await orNull(web.api.get<Array<{ name: string; type: string }>>(p.viewer, dir, { ref: p.pr.base.ref }));
  return Array.isArray(entries) ? entries.filter((e) => e.type === 'file' && /^[A-Z-]+_TEMPLATE\.md$/.test(e.name)).map((e) => e.name) : [];
}

function pullPageRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  pages.get('/:owner/:repo/pulls/:index', async (req, res) => {
    // Gitea's `/pulls/{index}.diff` and `.patch`: the raw text, as the API gives it.
    const raw = /^(\d{1,9})\.(diff|patch)$/.exec(String(req.params.index));
    if (raw) {
      const { viewer, owner, name } = await openRepo(web, req);
      const body = await api.get<Buffer | string>(viewer, apiPath`/repos/${owner}/${name}/pulls/${issueIndex(raw[1])}.${raw[2]}`);
      res.set({ 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
      return res.send(Buffer.isBuffer(body) ? body : Buffer.from(String(body ?? '')));
    }
    await sendConversation(web, req, res, await openPull(web, req, issueIndex(req.params.index)));
  });

  pages.get('/:owner/:repo/pulls/:index/commits', async (req, res) => {
    const p = await openPull(web, req, issueIndex(req.params.index));
    const page = pageNumber(req);
    const commits =
      p.counts.commits === null ? null : await orNull(api.list<CommitJson>(p.viewer, `${p.apiBase}/commits`, { page, limit: PAGE_SIZE }));
    renderer.send(
      res,
      h(PullCommitsPage, {
        kit: renderer.kit(req),
        repo: p.repo,
        pr: p.pr,
        counts: p.counts,
        commits: commits?.items ?? [],
        page,
        limit: PAGE_SIZE,
      }),
    );
  });

  pages.get('/:owner/:repo/pulls/:index/files', async (req, res) => {
    const p = await openPull(web, req, issueIndex(req.params.index));
    const { viewer, apiBase } = p;
    const [diffText, reviews] = await Promise.all([
      // The diff needs the code unit too; without it the tab shows no changes.
      orNull(api.get<Buffer | string>(viewer, `${apiBase}.diff`)),
      orNull(listAll<ReviewJson>(web, viewer, `${apiBase}/reviews`)),
    ]);
    const withComments = (reviews ?? []).filter((r) => r.comments_count > 0);
    const comments = (
      await Promise.all(withComments.map((r) => orNull(api.get<ReviewCommentJson[]>(viewer, `${apiBase}/reviews/${r.id}/comments`))))
    ).flatMap((list) => list ?? []);
    renderer.send(
      res,
      h(PullFilesPage, {
        kit: renderer.kit(req),
        repo: p.repo,
        pr: p.pr,
        counts: p.counts,
        diff: renderDiff(Buffer.isBuffer(diffText) ? diffText.toString('utf8') : String(diffText ?? '')),
        reviews: reviews ?? [],
        comments,
        renderMarkdown: commentMarkdown(web, p.repo.full_name),
      }),
    );
  });
}

const MERGE_REFUSALS = new Set([405, 409, 422]);

/** The merge form: `POST /repos/{owner}/{repo}/pulls/{index}/merge` as the viewer; the API decides who may. */
function mergeRoute(web: WebRoutes): void {
  web.pages.post('/:owner/:repo/pulls/:index/merge', async (req, res) => {
    const index = issueIndex(req.params.index);
    const { viewer, repo, owner, name } = await openRepo(web, req);
    const title = text(req.body.merge_title_field, 255).trim();
    const message = text(req.body.merge_message_field, 65535).trim();
    const headCommit = text(req.body.head_commit_id, 64).trim();
    const body: Record<string, unknown> = {
      Do: text(req.body.do, 40),
      delete_branch_after_merge: req.body.delete_branch_after_merge === 'true',
      ...(title ? { MergeTitleField: title } : {}),
      ...(message ? { MergeMessageField: message } : {}),
      ...(headCommit ? { head_commit_id: headCommit } : {}),
    };
    try {
      await web.api.send(viewer, 'post', apiPath`/repos/${owner}/${name}/pulls/${index}/merge`, body);
    } catch (err) {
      // Refusals about the pull request itself (protection, conflicts, a moved head, a style not allowed) are
      // shown on its page; not being allowed at all (401/403/404) is the error page.
      if (!isApiError(err) || !MERGE_REFUSALS.has(err.status)) throw err;
      return sendConversation(web, req, res, await openPull(web, req, index), { status: err.status, message: err.message });
    }
    res.redirect(303, `${repoHref(repo.full_name)}/pulls/${index}`);
  });
}

/** `base...head` (or `base..head`), else the default branch against the whole spec, as Gitea reads it. */
function parseSpec(spec: string, defaultBranch: string): { base: string; head: string } {
  const sep = spec.includes('...') ? '...' : spec.includes('..') ? '..' : null;
  if (!sep) return { base: defaultBranch, head: spec };
  const at = spec.indexOf(sep);
  return { base: spec.slice(0, at), head: spec.slice(at + sep.length) };
}

/** `*spec` as the branch names it joins (Express gives the decoded path segments). */
function specOf(req: Request): string {
  const value = req.params.spec as unknown;
  return Array.isArray(value) ? value.join('/') : String(value ?? '');
}

async function branchNames(web: WebRoutes, o: OpenedRepo): Promise<string[]> {
  const branches = await orNull(listAll<{ name: string }>(web, o.viewer, apiPath`/repos/${o.owner}/${o.name}/branches`));
  return (branches ?? []).map((b) => b.name);
}

function compareRoutes(web: WebRoutes): void {
  const { pages, renderer } = web;

  pages.get('/:owner/:repo/compare', async (req, res) => {
    const o = await openRepo(web, req);
    const base = text(req.query.base, 255);
    const head = text(req.query.head, 255);
    if (base && head) return res.redirect(303, compareHref(o.repo, base, head));
    const branches = await branchNames(web, o);
    const defaultBranch = o.repo.default_branch;
    renderer.send(
      res,
      h(CompareChoosePage, {
        kit: renderer.kit(req),
        repo: o.repo,
        branches,
        base: base || defaultBranch,
        head: head || branches.find((b) => b !== (base || defaultBranch)) || defaultBranch,
      }),
    );
  });

  pages.get('/:owner/:repo/compare/*spec', async (req, res) => {
    await sendCompare(web, req, res, await openRepo(web, req), null);
  });

  pages.post('/:owner/:repo/compare/*spec', async (req, res) => {
    const o = await openRepo(web, req);
    const { base, head } = parseSpec(specOf(req), o.repo.default_branch);
    const form = { title: text(req.body.title, 255).trim(), body: text(req.body.body, 65535) };
    if (!form.title) return sendCompare(web, req, res, o, { ...form, error: 'A pull request needs a title.' }, 422);
    let created: PullJson;
    try {
      created = await web.api.send<PullJson>(o.viewer, 'post', apiPath`/repos/${o.owner}/${o.name}/pulls`, { base, head, ...form });
    } catch (err) {
      // Not allowed at all is the error page; anything about the input is shown with the form kept.
      if (!refusal(err) || err.status === 401 || err.status === 403) throw err;
      return sendCompare(web, req, res, o, { ...form, error: err.message }, err.status);
    }
    res.redirect(303, `${repoHref(o.repo.full_name)}/pulls/${created.number}`);
  });
}

/** The diff of `head` against its merge base with `base` (what a pull request would change). */
async function compareDiff(web: WebRoutes, o: OpenedRepo, base: string, head: string): Promise<{ related: boolean; diff: string }> {
  // No API operation diffs two branches: the git toolkit, on the repository the access module just resolved for this viewer.
  const target = await web.ctx.access.repository(o.owner, o.name, o.viewer.principal, 'read', 'code');
  const git = web.ctx.git;
  const [baseId, headId] = await Promise.all([
    git.resolveCommit(target.gitDir, base, 'base'),
    git.resolveCommit(target.gitDir, head, 'head'),
  ]);
  const mergeBase = await git.text(target.gitDir, ['merge-base', '--end-of-options', baseId, headId], { okCodes: [1] });
  if (!mergeBase) return { related: false, diff: '' };
  const out = await git.run(target.gitDir, ['diff', '--no-color', '--no-ext-diff', '--full-index', '-M', mergeBase, headId, '--']);
  return { related: true, diff: out.stdout.toString('utf8') };
}

async function sendCompare(web: WebRoutes, req: Request, res: Response, o: OpenedRepo, form: NewPullForm | null, status = 200) {
  const { api, renderer } = web;
  const { base, head } = parseSpec(specOf(req), o.repo.default_branch);
  if (!base || !head) throw ApiError.notFound();
  const branches = await branchNames(web, o);
  const same = base === head;
  // The API resolves both names (404 for one that does not exist) and lists head's commits that base lacks.
  const compared = await api.get<{ commits: CommitJson[] }>(o.viewer, apiPath`/repos/${o.owner}/${o.name}/compare/${`${base}...${head}`}`, {
    files: false,
    verification: false,
  });
  const commits = same ? [] : (compared.commits ?? []);
  const { related, diff } = same ? { related: true, diff: '' } : await compareDiff(web, o, base, head);
  const existing =
    same || o.repo.has_pull_requests === false
      ? null
      : await orNull(api.get<PullJson>(o.viewer, apiPath`/repos/${o.owner}/${o.name}/pulls/${base}/${head}`));
  const defaultTitle = commits.length === 1 ? commits[0].commit.message.split('\n')[0] : head;
  renderer.send(
    res,
    h(ComparePage, {
      kit: renderer.kit(req),
      repo: o.repo,
      branches,
      base,
      head,
      commits,
      related,
      diff: renderDiff(diff),
      existing: existing && existing.state === 'open' && !existing.merged ? existing : null,
      form: form ?? { title: defaultTitle, body: '' },
    }),
    status,
  );
}
