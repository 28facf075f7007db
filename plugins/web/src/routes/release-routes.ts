import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError, type RepositoryTarget } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import { pageNumber } from './home-routes';
import { listAll, loadRepo, orNull, refusal, text } from './route-parts';
import { encodeSegments, repoHref } from '../views/common';
import { archiveHref } from './archive-routes';
import type { RepoJson } from '../views/home-pages';
import { signInHref } from '../views/layout';
import {
  ReleaseFormPage,
  ReleaseListPage,
  ReleasePage,
  releaseEditHref,
  releaseHref,
  type ReleaseCardProps,
  type ReleaseForm,
  type ReleaseFormProps,
  type ReleaseJson,
} from '../views/release-pages';

/** Gitea's page size for releases. */
const PAGE_SIZE = 10;

/** Success notices after a form's 303, by the query flag the redirect carries. */
const NOTICES: Record<string, string> = {
  created: 'The release was saved. Attach its files below.',
  saved: 'The release was saved.',
  deleted: 'The release was deleted (its tag stays).',
  uploaded: 'The file was attached.',
  removed: 'The file was removed.',
};

function noticeOf(req: Request): string | undefined {
  const flag = Object.keys(NOTICES).find((f) => req.query[f] === '1');
  return flag ? NOTICES[flag] : undefined;
}

/** The tag of `/releases/tag/*tag` and `/releases/edit/*tag` (a tag may hold `/`). */
function tagOf(req: Request): string {
  const raw = req.params.tag as unknown as string[] | string;
  return Array.isArray(raw) ? raw.join('/') : String(raw);
}

/** A positive id from a form or query field; anything else names nothing (404). */
function idOf(value: unknown): number {
  const raw = String(value ?? '');
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1) throw ApiError.notFound();
  return Number(raw);
}

function formOf(body: Record<string, unknown>): ReleaseForm {
  return {
    tag_name: text(body.tag_name).trim(),
    tag_target: text(body.tag_target).trim(),
    title: text(body.title).trim(),
    content: text(body.content, 1 << 20),
    prerelease: body.prerelease === 'on',
  };
}

/**
 * The release pages at Gitea's URLs: `/{owner}/{repo}/releases` (list), `…/releases/tag/{tag}`,
 * `…/releases/latest`, `…/releases/new`, `…/releases/edit/{tag}`, `…/releases/delete`, and the
 * files of a release: `…/releases/attachments` (upload) and `…/releases/attachments/remove`. Pages
 * read and change releases through the API as the viewer; the upload alone is stored through
 * `ctx.attachments` (an in-process API call cannot carry a streamed multipart body) after the
 * API's own checks: write access to the releases unit, and the release readable by the viewer.
 */
export function releaseRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const data = releaseData(web);

  pages.get('/:owner/:repo/releases', async (req, res) => {
    const { viewer, repo } = await data.repo(req);
    const page = pageNumber(req);
    const [found, latest, canWrite] = await Promise.all([
      api.list<ReleaseJson>(viewer, data.path(repo), { page, limit: PAGE_SIZE }),
      data.latest(viewer, repo),
      data.canWrite(viewer, repo),
    ]);
    const releases = found.items.map((r) => data.card(repo, r, latest, canWrite));
    renderer.send(
      res,
      h(ReleaseListPage, {
        kit: renderer.kit(req),
        repo,
        releases,
        page,
        limit: PAGE_SIZE,
        total: found.total,
        canWrite,
        notice: noticeOf(req),
      }),
    );
  });

  pages.get('/:owner/:repo/releases/latest', async (req, res) => {
    const { viewer, repo } = await data.repo(req);
    const latest = await data.latest(viewer, repo);
    if (!latest) throw ApiError.notFound('the repository has no published release');
    res.redirect(303, releaseHref(repo, latest.tag_name));
  });

  pages.get('/:owner/:repo/releases/tag/*tag', async (req, res) => {
    const { viewer, repo } = await data.repo(req);
    const [release, latest, canWrite] = await Promise.all([
      data.byTag(viewer, repo, tagOf(req)),
      data.latest(viewer, repo),
      data.canWrite(viewer, repo),
    ]);
    renderer.send(
      res,
      h(ReleasePage, { kit: renderer.kit(req), repo, ...data.card(repo, release, latest, canWrite), notice: noticeOf(req) }),
    );
  });

  pages.get('/:owner/:repo/releases/new', async (req, res) => {
    const writer = await data.writerOrSignIn(req, res);
    if (!writer) return;
    const form: ReleaseForm = { tag_name: '', tag_target: writer.repo.default_branch, title: '', content: '', prerelease: false };
    await data.showForm(req, res, { ...writer, form });
  });

  pages.post('/:owner/:repo/releases/new', async (req, res) => {
    const { viewer, repo } = await data.writer(req);
    const form = formOf(req.body);
    if (req.body.preview) return data.showForm(req, res, { viewer, repo, form, preview: true });
    if (!form.tag_name) return data.showForm(req, res, { viewer, repo, form, error: 'The tag name may not be empty.' }, 422);
    let created: ReleaseJson;
    try {
      created = await api.send<ReleaseJson>(viewer, 'post', data.path(repo), {
        tag_name: form.tag_name,
        ...(form.tag_target ? { target_commitish: form.tag_target } : {}),
        name: form.title,
        body: form.content,
        draft: req.body.draft === '1',
        prerelease: form.prerelease,
      });
    } catch (err) {
      // Access was checked above: what the API refuses now is the input (a taken or invalid tag, a missing branch).
      if (refusal(err)) return data.showForm(req, res, { viewer, repo, form, error: err.message }, 422);
      throw err;
    }
    res.redirect(303, `${releaseEditHref(repo, created.tag_name)}?created=1#assets`);
  });

  pages.get('/:owner/:repo/releases/edit/*tag', async (req, res) => {
    const writer = await data.writerOrSignIn(req, res);
    if (!writer) return;
    const release = await data.byTag(writer.viewer, writer.repo, tagOf(req));
    await data.showForm(req, res, { ...writer, release, form: data.formFrom(release), notice: noticeOf(req) });
  });

  pages.post('/:owner/:repo/releases/edit/*tag', async (req, res) => {
    const { viewer, repo } = await data.writer(req);
    const release = await data.byTag(viewer, repo, tagOf(req));
    const form = formOf(req.body);
    if (!release.draft) Object.assign(form, { tag_name: release.tag_name, tag_target: release.target_commitish });
    if (req.body.preview) return data.showForm(req, res, { viewer, repo, release, form, preview: true });
    if (!form.tag_name) return data.showForm(req, res, { viewer, repo, release, form, error: 'The tag name may not be empty.' }, 422);
    let saved: ReleaseJson;
    try {
      saved = await api.send<ReleaseJson>(viewer, 'patch', apiPath`/repos/${repo.owner.login}/${repo.name}/releases/${release.id}`, {
        ...(release.draft ? { tag_name: form.tag_name, ...(form.tag_target ? { target_commitish: form.tag_target } : {}) } : {}),
        name: form.title,
        body: form.content,
        prerelease: form.prerelease,
        // A draft stays one with "Save draft"; a published release is never turned back into a draft here.
        draft: release.draft && req.body.draft === '1',
      });
    } catch (err) {
      if (refusal(err)) return data.showForm(req, res, { viewer, repo, release, form, error: err.message }, 422);
      throw err;
    }
    res.redirect(303, `${releaseHref(repo, saved.tag_name)}?saved=1`);
  });

  pages.post('/:owner/:repo/releases/delete', async (req, res) => {
    const { viewer, repo } = await data.writer(req);
    await api.send(viewer, 'delete', apiPath`/repos/${repo.owner.login}/${repo.name}/releases/${idOf(req.body.id)}`);
    res.redirect(303, `${repoHref(repo.full_name)}/releases?deleted=1`);
  });

  assetRoutes(web, data);
}

/** Attaching files to a release (a multipart upload) and removing them. */
function assetRoutes(web: WebRoutes, data: ReturnType<typeof releaseData>): void {
  const { api, ctx, pages } = web;

  pages.upload('/:owner/:repo/releases/attachments', async (req, res) => {
    let writer: Awaited<ReturnType<typeof data.writer>>;
    let release: ReleaseJson;
    try {
      // The API's checks for POST /releases/{id}/assets: signed in, write access to the releases
      // unit (the same access module call; archived repositories refused), the release readable.
      writer = await data.writer(req);
      const id = idOf(req.query.release_id);
      release = await api.get<ReleaseJson>(writer.viewer, apiPath`/repos/${writer.repo.owner.login}/${writer.repo.name}/releases/${id}`);
    } catch (err) {
      req.resume(); // the body is not wanted: let the browser finish sending it and read the answer
      throw err;
    }
    const { viewer, repo, target } = writer;
    try {
      await ctx.attachments.create(req, { repositoryId: target.id, releaseId: release.id, uploaderId: viewer.principal!.user.id });
    } catch (err) {
      // Refused by the [attachment] limits (size 413, type 422, no file 400): nothing was stored.
      if (refusal(err))
        return data.showForm(req, res, { viewer, repo, release, form: data.formFrom(release), error: err.message }, err.status);
      throw err;
    }
    res.redirect(303, `${releaseEditHref(repo, release.tag_name)}?uploaded=1#assets`);
  });

  pages.post('/:owner/:repo/releases/attachments/remove', async (req, res) => {
    const { viewer, repo } = await data.writer(req);
    const path = apiPath`/repos/${repo.owner.login}/${repo.name}/releases/${idOf(req.body.release_id)}`;
    const release = await api.get<ReleaseJson>(viewer, path);
    await api.send(viewer, 'delete', `${path}/assets/${idOf(req.body.attachment_id)}`);
    res.redirect(303, `${releaseEditHref(repo, release.tag_name)}?removed=1#assets`);
  });
}

interface FormView extends Omit<ReleaseFormProps, 'kit' | 'branches' | 'previewHtml'> {
  viewer: PageViewer;
  preview?: boolean;
}

/** What the release pages read, each through the API as the viewer. */
function releaseData(web: WebRoutes) {
  const { api, ctx, renderer } = web;

  const notes = (repo: RepoJson, markdown: string) => web.markdown.render(markdown ?? '', { mode: 'gfm', context: repo.full_name });

  const data = {
    path: (repo: RepoJson) => apiPath`/repos/${repo.owner.login}/${repo.name}/releases`,

    /** The repository of the URL, with its releases unit on (else the 404 page). */
    async repo(req: Request): Promise<{ viewer: PageViewer; repo: RepoJson }> {
      const found = await loadRepo(web, req);
      if (found.repo.has_releases === false) throw ApiError.notFound();
      return found;
    },

    /**
     * A writer of the releases: the access module's answer (404 for those who may not read them,
     * 403 for those who may not write, archived repositories included); anonymous visitors 401.
     */
    async writer(req: Request): Promise<{ viewer: PageViewer; repo: RepoJson; target: RepositoryTarget }> {
      const { viewer, repo } = await data.repo(req);
      if (!viewer.principal) throw ApiError.unauthorized();
      const target = await ctx.access.repository(repo.owner.login, repo.name, viewer.principal, 'write', 'releases');
      return { viewer, repo, target };
    },

    /** As `writer`, for a form page: anonymous visitors of a repository they may see are sent to sign in. */
    async writerOrSignIn(req: Request, res: Response) {
      if (!viewerOf(req).principal) {
        await data.repo(req);
        res.redirect(303, signInHref(req.originalUrl));
        return null;
      }
      return data.writer(req);
    },

    async canWrite(viewer: PageViewer, repo: RepoJson): Promise<boolean> {
      if (!viewer.principal || repo.archived) return false;
      const target = await ctx.access.repository(repo.owner.login, repo.name, viewer.principal, 'read', 'releases');
      const level = await ctx.access.unitLevel(target, viewer.principal, 'releases');
      return level === 'write' || level === 'admin';
    },

    /** The newest release that is neither a draft nor a pre-release, or null. */
    latest: (viewer: PageViewer, repo: RepoJson) => api.find<ReleaseJson>(viewer, `${data.path(repo)}/latest`),

    /** The release of a tag (drafts for writers only, as the API decides). */
    byTag: (viewer: PageViewer, repo: RepoJson, tag: string) =>
      api.get<ReleaseJson>(viewer, `${data.path(repo)}/tags/${encodeSegments(tag)}`),

    card(repo: RepoJson, release: ReleaseJson, latest: ReleaseJson | null, canWrite: boolean): Omit<ReleaseCardProps, 'repo' | 'heading'> {
      return {
        release,
        latest: latest?.id === release.id,
        notesHtml: notes(repo, release.body),
        canWrite,
        sourceArchives: release.draft
          ? undefined
          : { zip: archiveHref(repo.full_name, release.tag_name, 'zip'), tarGz: archiveHref(repo.full_name, release.tag_name, 'tar.gz') },
      };
    },

    formFrom(release: ReleaseJson): ReleaseForm {
      return {
        tag_name: release.tag_name,
        tag_target: release.target_commitish,
        title: release.name,
        content: release.body ?? '',
        prerelease: release.prerelease,
      };
    },

    /** The new/edit form, with the branches a new tag may point at and, after Preview, the rendered notes. */
    async showForm(req: Request, res: Response, view: FormView, status = 200): Promise<void> {
      const { viewer, repo, preview, ...props } = view;
      const branches =
        (await orNull(listAll<{ name: string }>(web, viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/branches`))) ?? [];
      const previewHtml = preview ? notes(repo, props.form.content) : undefined;
      renderer.send(
        res,
        h(ReleaseFormPage, { kit: renderer.kit(req), repo, branches: branches.map((b) => b.name), previewHtml, ...props }),
        status,
      );
    },
  };
  return data;
}
