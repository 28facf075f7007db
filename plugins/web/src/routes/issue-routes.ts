import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import { commentMarkdown, issueIndex, listAll, loadRepo, orNull, text } from './route-parts';
import { repoHref } from '../views/common';
import type { RepoJson } from '../views/home-pages';
import { IssueListPage, IssuePage, NewIssuePage, type Candidate, type IssueFilters, type NewIssueForm } from '../views/issue-pages';
import { signInHref } from '../views/layout';
import type { IssueJson, LabelJson, MilestoneJson, ReactionJson, TimelineEventJson } from '../views/timeline';

const PAGE_SIZE = 20;

/** A form field as a list (a repeated field arrives as an array, a single one as a string). */
function many(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
}

/**
 * The issue pages at Gitea's URLs: `/{owner}/{repo}/issues` (list with filters), `…/issues/new`,
 * `…/issues/{index}` (the conversation) and the forms that change an issue (`…/comments`,
 * `…/reactions/{react|unreact}`, `…/labels`, `…/milestone`, `…/assignees`, `…/title`), each
 * through the API's own operations as the viewer.
 */
export function issueRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const data = issueData(web);

  pages.get('/:owner/:repo/issues', async (req, res) => {
    const viewer = viewerOf(req);
    // Independent reads run together: the page costs its slowest call, not their sum.
    const [repo, filters] = await Promise.all([data.repo(req), data.filters(viewer, req)]);
    const pinnedPath = apiPath`/repos/${repo.owner.login}/${repo.name}/issues/pinned`;
    // Label filters name labels by id, which the search needs by name: only then does it wait for the labels.
    const [labels, milestones, pinned, unlabelled] = await Promise.all([
      data.labels(viewer, repo),
      data.milestones(viewer, repo),
      // Pinned issues above the first page, as Gitea shows them.
      filters.page === 1 ? orNull(api.get<IssueJson[]>(viewer, pinnedPath)) : null,
      filters.labels.length === 0 ? data.search(viewer, repo, filters, []) : null,
    ]);
    const found = unlabelled ?? (await data.search(viewer, repo, filters, labels));
    renderer.send(
      res,
      h(IssueListPage, { kit: renderer.kit(req), repo, filters, ...found, limit: PAGE_SIZE, labels, milestones, pinned: pinned ?? [] }),
    );
  });

  const newIssueForm = async (req: Request, res: Response, form: NewIssueForm, status = 200) => {
    const viewer = viewerOf(req);
    const repo = await data.repo(req);
    const canWrite = await data.canWrite(viewer, repo);
    const [labels, milestones, candidates] = canWrite
      ? await Promise.all([data.labels(viewer, repo), data.milestones(viewer, repo, 'open'), data.candidates(viewer, repo, [])])
      : [[], [], []];
    renderer.send(res, h(NewIssuePage, { kit: renderer.kit(req), repo, canWrite, labels, milestones, candidates, form }), status);
  };

  pages.get('/:owner/:repo/issues/new', async (req, res) => {
    if (!viewerOf(req).user) return res.redirect(303, signInHref(req.originalUrl));
    await newIssueForm(req, res, {});
  });

  pages.post('/:owner/:repo/issues/new', async (req, res) => {
    const viewer = viewerOf(req);
    if (!viewer.user) throw ApiError.unauthorized();
    const repo = await data.repo(req);
    const form: NewIssueForm = {
      title: text(req.body.title).trim(),
      content: text(req.body.content, 1 << 20),
      labels: many(req.body.label).map(Number).filter(Number.isInteger),
      milestone: Number(req.body.milestone) || 0,
      assignees: data.assigneeNames(req.body),
    };
    if (!form.title) return newIssueForm(req, res, { ...form, error: 'The title may not be empty.' }, 422);
    const canWrite = await data.canWrite(viewer, repo);
    const body = {
      title: form.title,
      body: form.content,
      ...(canWrite ? { labels: form.labels, assignees: form.assignees, ...(form.milestone ? { milestone: form.milestone } : {}) } : {}),
    };
    let issue: IssueJson;
    try {
      issue = await api.send<IssueJson>(viewer, 'post', apiPath`/repos/${repo.owner.login}/${repo.name}/issues`, body);
    } catch (err) {
      if (isApiError(err) && (err.status === 422 || err.status === 400))
        return newIssueForm(req, res, { ...form, error: err.message }, 422);
      throw err;
    }
    res.redirect(303, `${repoHref(repo.full_name)}/issues/${issue.number}`);
  });

  pages.get('/:owner/:repo/issues/:index', async (req, res) => {
    const viewer = viewerOf(req);
    const index = issueIndex(req.params.index);
    const repo = await data.repo(req);
    const issue = await api.get<IssueJson>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/issues/${index}`);
    if (issue.pull_request) return res.redirect(303, `${repoHref(repo.full_name)}/pulls/${index}`);
    const [events, canWrite, allowedReactions] = await Promise.all([
      data.timeline(viewer, repo, index),
      data.canWrite(viewer, repo),
      data.allowedReactions(viewer),
    ]);
    const [reactions, labels, milestones, candidates] = await Promise.all([
      data.reactions(viewer, repo, index, events),
      canWrite ? data.labels(viewer, repo) : [],
      canWrite ? data.milestones(viewer, repo) : [],
      canWrite ? data.candidates(viewer, repo, issue.assignees ?? []) : [],
    ]);
    const signedIn = Boolean(viewer.user) && !repo.archived;
    const isPoster = viewer.user?.name.toLowerCase() === issue.user.login.toLowerCase();
    renderer.send(
      res,
      h(IssuePage, {
        kit: renderer.kit(req),
        repo,
        issue,
        events,
        reactions,
        allowedReactions,
        renderMarkdown: commentMarkdown(web, repo.full_name),
        canWrite,
        canComment: signedIn && (!issue.locked || canWrite || Boolean(viewer.user?.isAdmin)),
        canChangeState: signedIn && (canWrite || isPoster),
        labels,
        milestones,
        candidates,
      }),
    );
  });

  issueFormRoutes(web, data);
}

/** The forms of an issue page: comment (and close/reopen), reactions, labels, milestone, assignees, title. */
function issueFormRoutes(web: WebRoutes, data: ReturnType<typeof issueData>): void {
  const { api, pages } = web;

  /** Opens the issue a form names and answers where to go back to (the pull request page for a pull request). */
  const target = async (req: Request) => {
    const viewer = viewerOf(req);
    if (!viewer.user) throw ApiError.unauthorized();
    const index = issueIndex(req.params.index);
    const repo = await data.repo(req);
    const path = apiPath`/repos/${repo.owner.login}/${repo.name}/issues/${index}`;
    const issue = await api.get<IssueJson>(viewer, path);
    const back = `${repoHref(repo.full_name)}/${issue.pull_request ? 'pulls' : 'issues'}/${index}`;
    return { viewer, repo, index, path, issue, back };
  };

  pages.post('/:owner/:repo/issues/:index/comments', async (req, res) => {
    const { viewer, repo, path, issue, back } = await target(req);
    const content = text(req.body.content, 1 << 20);
    const status = req.body.status === 'close' || req.body.status === 'reopen' ? (req.body.status as string) : '';
    if (!content.trim() && !status) throw ApiError.unprocessable('The comment is empty.');
    const wanted = status === 'close' ? 'closed' : 'open';
    const changeState = status !== '' && issue.state !== wanted;
    if (changeState && content.trim()) {
      // Refused before the comment is posted, so a refused "Close with comment" leaves nothing behind.
      const isPoster = viewer.user!.name.toLowerCase() === issue.user.login.toLowerCase();
      if (!isPoster && !(await data.canWrite(viewer, repo)))
        throw ApiError.forbidden('only the author or a collaborator may change the state');
    }
    let anchor = '';
    if (content.trim()) {
      const comment = await api.send<{ id: number }>(viewer, 'post', `${path}/comments`, { body: content });
      anchor = `#issuecomment-${comment.id}`;
    }
    if (changeState) await api.send(viewer, 'patch', path, { state: wanted });
    res.redirect(303, back + anchor);
  });

  pages.post('/:owner/:repo/issues/:index/reactions/:action', async (req, res) => {
    const action = String(req.params.action);
    if (action !== 'react' && action !== 'unreact') throw ApiError.notFound();
    const { viewer, repo, path, back } = await target(req);
    const commentId = Number(req.body.comment_id) || 0;
    const content = text(req.body.content, 64);
    const on =
      commentId > 0 ? apiPath`/repos/${repo.owner.login}/${repo.name}/issues/comments/${commentId}/reactions` : `${path}/reactions`;
    await api.send(viewer, action === 'react' ? 'post' : 'delete', on, { content });
    res.redirect(303, `${back}#${commentId > 0 ? `issuecomment-${commentId}` : `issue-${req.params.index}`}`);
  });

  pages.post('/:owner/:repo/issues/:index/labels', async (req, res) => {
    const { viewer, path, back } = await target(req);
    const labels = many(req.body.label).map(Number).filter(Number.isInteger);
    await api.send(viewer, 'put', `${path}/labels`, { labels });
    res.redirect(303, back);
  });

  pages.post('/:owner/:repo/issues/:index/milestone', async (req, res) => {
    const { viewer, path, back } = await target(req);
    await api.send(viewer, 'patch', path, { milestone: Number(req.body.milestone) || 0 });
    res.redirect(303, back);
  });

  pages.post('/:owner/:repo/issues/:index/assignees', async (req, res) => {
    const { viewer, path, back } = await target(req);
    await api.send(viewer, 'patch', path, { assignees: data.assigneeNames(req.body) });
    res.redirect(303, back);
  });

  pages.post('/:owner/:repo/issues/:index/title', async (req, res) => {
    const { viewer, path, back } = await target(req);
    const title = text(req.body.title).trim();
    if (!title) throw ApiError.unprocessable('The title may not be empty.');
    await api.send(viewer, 'patch', path, { title });
    res.redirect(303, back);
  });
}

/** What the issue pages read, each through the API as the viewer. */
function issueData(web: WebRoutes) {
  const { api, ctx } = web;

  /** Every item of a paged list (labels, milestones, a timeline). */
  const all = <T>(viewer: PageViewer, path: string, query: Record<string, unknown> = {}) => listAll<T>(web, viewer, path, query);

  /** A user name from a filter: a name as given, or Gitea's numeric user id looked up. */
  const userName = async (viewer: PageViewer, value: unknown): Promise<string> => {
    const raw = text(value).trim();
    if (!/^\d+$/.test(raw)) return raw;
    const found = await api.get<{ data?: Array<{ login: string }> }>(viewer, '/users/search', { uid: Number(raw), limit: 1 });
    return found.data?.[0]?.login ?? raw;
  };

  const orEmpty = async <T>(load: Promise<T[]>): Promise<T[]> => (await orNull(load)) ?? [];

  return {
    async repo(req: Request): Promise<RepoJson> {
      const { repo } = await loadRepo(web, req);
      if (repo.has_issues === false) throw ApiError.notFound();
      return repo;
    },

    /** Write access to the repository's issues (labels, milestones, assignees, others' issues), from the one access module. */
    async canWrite(viewer: PageViewer, repo: RepoJson): Promise<boolean> {
      if (!viewer.principal || repo.archived) return false;
      const target = await ctx.access.repository(repo.owner.login, repo.name, viewer.principal, 'read', 'issues');
      const level = await ctx.access.unitLevel(target, viewer.principal, 'issues');
      return level === 'write' || level === 'admin';
    },

    async filters(viewer: PageViewer, req: Request): Promise<IssueFilters> {
      const q = req.query;
      const state = q.state === 'closed' || q.state === 'all' ? q.state : 'open';
      const page = Number(q.page);
      const labels = many(q.labels)
        .flatMap((v) => v.split(','))
        .filter((v) => /^\d{1,10}$/.test(v))
        .map(Number);
      return {
        state,
        q: text(q.q).trim(),
        labels: [...new Set(labels)].slice(0, 20),
        milestone: /^\d{1,10}$/.test(text(q.milestone)) ? Number(q.milestone) : 0,
        assignee: await userName(viewer, q.assignee),
        poster: await userName(viewer, q.poster),
        page: Number.isInteger(page) && page > 0 && page < 1e6 ? page : 1,
      };
    },

    /** The page of issues the filters name, and the open and closed counts under the same filters. */
    async search(viewer: PageViewer, repo: RepoJson, filters: IssueFilters, labels: LabelJson[]) {
      const names = filters.labels.map((id) => labels.find((l) => l.id === id)?.name);
      // A label that is not (or no longer) usable here matches nothing.
      if (names.some((n) => n === undefined)) return { issues: [], total: 0, openCount: 0, closedCount: 0 };
      const path = apiPath`/repos/${repo.owner.login}/${repo.name}/issues`;
      const query = {
        type: 'issues',
        ...(filters.q ? { q: filters.q } : {}),
        ...(names.length ? { labels: names.join(',') } : {}),
        ...(filters.milestone ? { milestones: String(filters.milestone) } : {}),
        ...(filters.poster ? { created_by: filters.poster } : {}),
        ...(filters.assignee ? { assigned_by: filters.assignee } : {}),
      };
      const count = async (state: 'open' | 'closed') => (await api.list(viewer, path, { ...query, state, limit: 1 })).total;
      const [found, openCount, closedCount] = await Promise.all([
        api.list<IssueJson>(viewer, path, { ...query, state: filters.state, page: filters.page, limit: PAGE_SIZE }),
        filters.state === 'open' ? null : count('open'),
        filters.state === 'closed' ? null : count('closed'),
      ]);
      return {
        issues: found.items,
        total: found.total,
        openCount: openCount ?? found.total,
        closedCount: closedCount ?? found.total,
      };
    },

    /** The labels an issue of the repository may carry: its own and its organization's. */
    async labels(viewer: PageViewer, repo: RepoJson): Promise<LabelJson[]> {
      const [own, org] = await Promise.all([
        all<LabelJson>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/labels`),
        orEmpty(all<LabelJson>(viewer, apiPath`/orgs/${repo.owner.login}/labels`)),
      ]);
      return [...own, ...org].sort((a, b) => a.name.localeCompare(b.name));
    },

    milestones(viewer: PageViewer, repo: RepoJson, state: 'open' | 'all' = 'all'): Promise<MilestoneJson[]> {
      return all<MilestoneJson>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/milestones`, { state });
    },

    /** Whom a writer may pick as assignees: collaborators, the owning user, the viewer and those already assigned. */
    async candidates(viewer: PageViewer, repo: RepoJson, current: Candidate[]): Promise<Candidate[]> {
      const collaborators = await orEmpty(all<Candidate>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/collaborators`));
      const org = await api.find(viewer, apiPath`/orgs/${repo.owner.login}`).catch(() => null);
      const ownerIsUser = !org;
      const me = viewer.user ? [{ login: viewer.user.name, avatar_url: undefined }] : [];
      const byLogin = new Map<string, Candidate>();
      for (const c of [...current, ...(ownerIsUser ? [repo.owner] : []), ...me, ...collaborators]) {
        if (!byLogin.has(c.login.toLowerCase())) byLogin.set(c.login.toLowerCase(), { login: c.login, avatar_url: c.avatar_url });
      }
      return [...byLogin.values()].sort((a, b) => a.login.localeCompare(b.login));
    },

    /** The names a form's assignee checkboxes and "other user names" field give. */
    assigneeNames(body: Record<string, unknown>): string[] {
      const named = [...many(body.assignee), ...text(body.assignee_other, 2000).split(/[\s,]+/)].map((n) => n.trim()).filter(Boolean);
      return [...new Set(named)].slice(0, 50);
    },

    timeline(viewer: PageViewer, repo: RepoJson, index: number): Promise<TimelineEventJson[]> {
      return all<TimelineEventJson>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/issues/${index}/timeline`);
    },

    async allowedReactions(viewer: PageViewer): Promise<string[]> {
      const ui = await api.find<{ allowed_reactions?: string[] }>(viewer, '/settings/ui');
      return ui?.allowed_reactions ?? [];
    },

    /** Reactions of the opening post (key 0) and of each comment. */
    async reactions(viewer: PageViewer, repo: RepoJson, index: number, events: TimelineEventJson[]): Promise<Map<number, ReactionJson[]>> {
      const comments = events.filter((e) => e.type === 'comment');
      const [own, ...each] = await Promise.all([
        all<ReactionJson>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/issues/${index}/reactions`),
        ...comments.map((c) =>
          api.get<ReactionJson[]>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/issues/comments/${c.id}/reactions`),
        ),
      ]);
      return new Map([[0, own], ...comments.map((c, i): [number, ReactionJson[]] => [c.id, each[i] ?? []])]);
    },
  };
}
