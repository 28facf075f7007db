import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import type { PageViewer } from '../page-session';
import { pageNumber } from './home-routes';
import { commentMarkdown, listAll, loadRepo, orNull, text } from './route-parts';
import { repoHref } from '../views/common';
import type { RepoJson } from '../views/home-pages';
import { signInHref } from '../views/layout';
import {
  LabelsPage,
  MilestoneFormPage,
  MilestonesPage,
  type LabelForm,
  type MilestoneForm,
  type MilestoneRow,
} from '../views/milestone-label-pages';
import type { LabelJson } from '../views/timeline';

const PAGE_SIZE = 20;

/** A `?saved=` word of a redirect back, when it is one the pages know (anything else shows nothing). */
const doneOf = (req: Request): string | undefined => (typeof req.query.saved === 'string' ? req.query.saved.slice(0, 40) : undefined);

/** A positive id from a form or URL; anything else names nothing (404). */
function idOf(value: unknown): number {
  const raw = String(value ?? '');
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > 2147483647) throw ApiError.notFound();
  return Number(raw);
}

/** A refusal that is about what the form says (shown on the form), not about who sends it. */
const formRefusal = (err: unknown): err is ApiError => isApiError(err) && (err.status === 400 || err.status === 409 || err.status === 422);

/** The repository of a labels or milestones page (404 when its issues unit is off or the viewer may not see it). */
async function issueRepo(web: WebRoutes, req: Request): Promise<{ viewer: PageViewer; repo: RepoJson }> {
  const loaded = await loadRepo(web, req);
  if (loaded.repo.has_issues === false) throw ApiError.notFound();
  return loaded;
}

/** Write access to the repository's issues (labels and milestones), from the one access module; never for archived repositories. */
async function canWriteIssues(web: WebRoutes, viewer: PageViewer, repo: RepoJson): Promise<boolean> {
  if (!viewer.principal || repo.archived) return false;
  const target = await web.ctx.access.repository(repo.owner.login, repo.name, viewer.principal, 'read', 'issues');
  const level = await web.ctx.access.unitLevel(target, viewer.principal, 'issues');
  return level === 'write' || level === 'admin';
}

/**
 * The repository of a form that changes labels or milestones, refused (401, 403) before the form is
 * read to those who may not write the issues; the API checks again when the change is sent.
 */
async function writableRepo(web: WebRoutes, req: Request): Promise<{ viewer: PageViewer; repo: RepoJson }> {
  const loaded = await issueRepo(web, req);
  if (!loaded.viewer.user) throw ApiError.unauthorized();
  if (!(await canWriteIssues(web, loaded.viewer, loaded.repo)))
    throw ApiError.forbidden('Only those who may write to the issues may do this.');
  return loaded;
}

/**
 * Labels and milestones at Gitea's URLs: `/{owner}/{repo}/labels` (with `/labels/new`, `/edit`,
 * `/delete`, `/initialize`), `/{owner}/{repo}/milestones` (with `/milestones/new`,
 * `/milestones/{id}/edit`, `/milestones/{id}/{open|close}`, `/milestones/delete`) and
 * `/{owner}/{repo}/milestone/{id}` (its issues). Every change goes through the API's label and
 * milestone operations as the viewer, so the API's write check decides.
 */
export function milestoneLabelRoutes(web: WebRoutes): void {
  labelRoutes(web);
  milestoneRoutes(web);
}

function labelRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const labelsPath = (repo: RepoJson) => apiPath`/repos/${repo.owner.login}/${repo.name}/labels`;

  const render = async (req: Request, res: Response, form?: LabelForm, status = 200) => {
    const { viewer, repo } = await issueRepo(web, req);
    const [labels, orgLabels, canWrite] = await Promise.all([
      listAll<LabelJson>(web, viewer, labelsPath(repo)),
      orNull(listAll<LabelJson>(web, viewer, apiPath`/orgs/${repo.owner.login}/labels`)),
      canWriteIssues(web, viewer, repo),
    ]);
    const templates = canWrite && labels.length === 0 ? ((await orNull(api.get<string[]>(viewer, '/label/templates'))) ?? []) : [];
    renderer.send(
      res,
      h(LabelsPage, { kit: renderer.kit(req), repo, labels, orgLabels, canWrite, templates, form, done: doneOf(req) }),
      status,
    );
  };

  /** The label form as sent. */
  const formOf = (body: Record<string, unknown>): LabelForm => ({
    name: text(body.title).trim(),
    color: text(body.color, 16).trim(),
    description: text(body.description).trim(),
    exclusive: body.exclusive === 'on',
  });
  const bodyOf = (form: LabelForm) => ({ name: form.name, color: form.color, description: form.description, exclusive: form.exclusive });

  /** Send a label change; the API's refusal of what the form says comes back on the form. */
  const change = async (req: Request, res: Response, form: LabelForm, send: (viewer: PageViewer, repo: RepoJson) => Promise<unknown>) => {
    const { viewer, repo } = await writableRepo(web, req);
    if (!form.name) return render(req, res, { ...form, error: 'The label name may not be empty.' }, 422);
    try {
      await send(viewer, repo);
    } catch (err) {
      if (formRefusal(err)) return render(req, res, { ...form, error: err.message }, 422);
      throw err;
    }
    res.redirect(303, `${repoHref(repo.full_name)}/labels?saved=${form.id ? 'updated' : 'created'}`);
  };

  pages.get('/:owner/:repo/labels', (req, res) => render(req, res));

  pages.post('/:owner/:repo/labels/new', (req, res) =>
    change(req, res, formOf(req.body), (viewer, repo) => api.send(viewer, 'post', labelsPath(repo), bodyOf(formOf(req.body)))),
  );

  pages.post('/:owner/:repo/labels/edit', (req, res) => {
    const form = { ...formOf(req.body), id: idOf(req.body.id) };
    return change(req, res, form, (viewer, repo) =>
      api.send(viewer, 'patch', apiPath`/repos/${repo.owner.login}/${repo.name}/labels/${form.id}`, bodyOf(form)),
    );
  });

  pages.post('/:owner/:repo/labels/delete', async (req, res) => {
    const id = idOf(req.body.id);
    const { viewer, repo } = await issueRepo(web, req);
    if (!viewer.user) throw ApiError.unauthorized();
    await api.send(viewer, 'delete', apiPath`/repos/${repo.owner.login}/${repo.name}/labels/${id}`);
    res.redirect(303, `${repoHref(repo.full_name)}/labels?saved=deleted`);
  });

  // The API has no operation that applies a template to an existing repository; as Gitea's page does,
  // the template's labels are created one by one (through the API), leaving out names the repository has.
  pages.post('/:owner/:repo/labels/initialize', async (req, res) => {
    const { viewer, repo } = await writableRepo(web, req);
    const name = text(req.body.template_name).trim();
    if (!name) throw ApiError.unprocessable('Choose a label template.');
    const template = await api.get<Array<{ name: string; color: string; description: string; exclusive: boolean }>>(
      viewer,
      apiPath`/label/templates/${name}`,
    );
    const existing = new Set((await listAll<LabelJson>(web, viewer, labelsPath(repo))).map((l) => l.name.toLowerCase()));
    for (const label of template) {
      if (existing.has(label.name.toLowerCase())) continue;
      await api.send(viewer, 'post', labelsPath(repo), {
        name: label.name,
        color: `#${label.color.replace(/^#/, '')}`,
        description: label.description,
        exclusive: label.exclusive,
      });
    }
    res.redirect(303, `${repoHref(repo.full_name)}/labels?saved=loaded`);
  });
}

/** `YYYY-MM-DD` → the end of that day (UTC) as the API's date-time; '' stays ''; null when it is no date. */
function dueOn(day: string): string | null {
  if (!day) return '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T23:59:59Z`))) return null;
  return `${day}T23:59:59Z`;
}

function milestoneRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const milestonesPath = (repo: RepoJson) => apiPath`/repos/${repo.owner.login}/${repo.name}/milestones`;

  pages.get('/:owner/:repo/milestones', async (req, res) => {
    const { viewer, repo } = await issueRepo(web, req);
    const state = req.query.state === 'closed' ? 'closed' : 'open';
    const page = pageNumber(req);
    const other = state === 'open' ? 'closed' : 'open';
    const [found, otherCount, canWrite] = await Promise.all([
      api.list<MilestoneRow>(viewer, milestonesPath(repo), { state, page, limit: PAGE_SIZE }),
      api.list(viewer, milestonesPath(repo), { state: other, limit: 1 }),
      canWriteIssues(web, viewer, repo),
    ]);
    renderer.send(
      res,
      h(MilestonesPage, {
        kit: renderer.kit(req),
        repo,
        state,
        milestones: found.items,
        openCount: state === 'open' ? found.total : otherCount.total,
        closedCount: state === 'closed' ? found.total : otherCount.total,
        page,
        limit: PAGE_SIZE,
        canWrite,
        renderMarkdown: commentMarkdown(web, repo.full_name),
        done: doneOf(req),
      }),
    );
  });

  /** A milestone's issues: Gitea's `/milestone/{id}`, here the issue list filtered by it. */
  pages.get('/:owner/:repo/milestone/:id', (req, res) => {
    const id = idOf(req.params.id);
    res.redirect(
      303,
      `/${encodeURIComponent(String(req.params.owner))}/${encodeURIComponent(String(req.params.repo))}/issues?milestone=${id}`,
    );
  });

  /** The new or edit form, for writers only (403 page for others, sign-in for anonymous visitors). */
  const showForm = async (
    req: Request,
    res: Response,
    load: (viewer: PageViewer, repo: RepoJson) => Promise<MilestoneForm>,
    id?: number,
  ) => {
    const { viewer, repo } = await issueRepo(web, req);
    if (!viewer.user) return res.redirect(303, signInHref(req.originalUrl));
    if (!(await canWriteIssues(web, viewer, repo)))
      throw ApiError.forbidden('Only those who may write to the issues may change milestones.');
    const form = await load(viewer, repo);
    renderer.send(res, h(MilestoneFormPage, { kit: renderer.kit(req), repo, id, form }));
  };

  /** Gitea's "no due date" (the latest second it stores). */
  const NO_DUE_DATE = '9999-12-31T23:59:59Z';

  /** Send the form's milestone; the API's refusal of what it says comes back on the form. */
  const save = async (req: Request, res: Response, id: number | undefined) => {
    const { viewer, repo } = await writableRepo(web, req);
    const form: MilestoneForm = {
      title: text(req.body.title).trim(),
      description: text(req.body.content, 65536),
      due: text(req.body.deadline, 10).trim(),
    };
    const back = (error: string) =>
      renderer.send(res, h(MilestoneFormPage, { kit: renderer.kit(req), repo, id, form: { ...form, error } }), 422);
    const due = dueOn(form.due);
    if (!form.title) return back('The title may not be empty.');
    if (due === null) return back('The due date is not a date (use YYYY-MM-DD).');
    // An emptied date field removes the due date: Gitea's API reads a date in year 9999 as "none" (null changes nothing).
    const body = { title: form.title, description: form.description, ...(due ? { due_on: due } : id ? { due_on: NO_DUE_DATE } : {}) };
    try {
      if (id) await api.send(viewer, 'patch', apiPath`/repos/${repo.owner.login}/${repo.name}/milestones/${id}`, body);
      else await api.send(viewer, 'post', milestonesPath(repo), body);
    } catch (err) {
      if (formRefusal(err)) return back(err.message);
      throw err;
    }
    res.redirect(303, `${repoHref(repo.full_name)}/milestones?saved=milestone-${id ? 'updated' : 'created'}`);
  };

  pages.get('/:owner/:repo/milestones/new', (req, res) => showForm(req, res, async () => ({ title: '', description: '', due: '' })));
  pages.post('/:owner/:repo/milestones/new', (req, res) => save(req, res, undefined));

  pages.get('/:owner/:repo/milestones/:id/edit', (req, res) => {
    const id = idOf(req.params.id);
    return showForm(
      req,
      res,
      async (viewer, repo) => {
        const m = await api.get<MilestoneRow>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/milestones/${id}`);
        return { title: m.title, description: m.description ?? '', due: m.due_on ? m.due_on.slice(0, 10) : '' };
      },
      id,
    );
  });
  pages.post('/:owner/:repo/milestones/:id/edit', (req, res) => save(req, res, idOf(req.params.id)));

  pages.post('/:owner/:repo/milestones/delete', async (req, res) => {
    const id = idOf(req.body.id);
    const { viewer, repo } = await issueRepo(web, req);
    if (!viewer.user) throw ApiError.unauthorized();
    await api.send(viewer, 'delete', apiPath`/repos/${repo.owner.login}/${repo.name}/milestones/${id}`);
    res.redirect(303, `${repoHref(repo.full_name)}/milestones?saved=milestone-deleted`);
  });

  pages.post('/:owner/:repo/milestones/:id/:action', async (req, res) => {
    const action = String(req.params.action);
    if (action !== 'open' && action !== 'close') throw ApiError.notFound();
    const id = idOf(req.params.id);
    const { viewer, repo } = await issueRepo(web, req);
    if (!viewer.user) throw ApiError.unauthorized();
    const state = action === 'close' ? 'closed' : 'open';
    await api.send(viewer, 'patch', apiPath`/repos/${repo.owner.login}/${repo.name}/milestones/${id}`, { state });
    res.redirect(303, `${repoHref(repo.full_name)}/milestones?state=${state}&saved=milestone-${action === 'close' ? 'closed' : 'opened'}`);
  });
}
