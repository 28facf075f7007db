import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import type { PageViewer } from '../page-session';
import { pageNumber } from './home-routes';
import { listAll, loadRepo, refusal, text } from './route-parts';
import type { RepoJson } from '../views/home-pages';
import { signInHref } from '../views/layout';
import {
  WikiFormPage,
  WikiMissingPage,
  WikiPageList,
  WikiPageView,
  WikiRevisionsPage,
  wikiHref,
  type WikiCommitJson,
  type WikiForm,
  type WikiFormProps,
  type WikiMetaJson,
  type WikiPageJson,
} from '../views/wiki-pages';

const HOME = 'Home';
const REVISIONS_PER_PAGE = 20;

/** The wiki of the URL's repository as the viewer may use it. */
interface WikiView {
  viewer: PageViewer;
  repo: RepoJson;
  canWrite: boolean;
}

const decode = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('utf8');

function formOf(body: Record<string, unknown>): WikiForm {
  return {
    title: text(body.title).trim(),
    // Browsers send textarea lines with CRLF; the wiki's git repository keeps LF.
    content: text(body.content, 1 << 20).replace(/\r\n?/g, '\n'),
    message: text(body.message, 1000).trim(),
  };
}

/**
 * The wiki pages at Gitea 1.20's URLs: `/{owner}/{repo}/wiki` (the page `Home`), `…/wiki/{page}`
 * (rendered, with `_Sidebar` and `_Footer`), and by `?action=`: `_pages` (list), `_revision`
 * (a page's revisions), `_new` and `_edit` (forms with preview; POSTed to the same URLs, and
 * `_delete`). Gitea's older paths (`…/wiki/_pages`, `…/wiki/_new`, `…/wiki/{page}/_edit`,
 * `…/wiki/{page}/_revision` or `_history`) lead to the same pages; `…/wiki/raw/{page}` is the
 * page's Markdown. Everything goes through the wiki API as the viewer, which also applies
 * Gitea's page-name rules.
 */
export function wikiRoutes(web: WebRoutes): void {
  const { pages } = web;
  const show = wikiPages(web);
  const change = wikiChanges(web);

  pages.get('/:owner/:repo/wiki', (req, res) => show(req, res, null));
  pages.get('/:owner/:repo/wiki/:page', (req, res) => show(req, res, String(req.params.page)));
  pages.get('/:owner/:repo/wiki/:page/:sub', async (req, res) => {
    const [page, sub] = [String(req.params.page), String(req.params.sub)];
    if (page.toLowerCase() === 'raw') return show.raw(req, res, sub);
    const action = { _edit: '_edit', _revision: '_revision', _history: '_revision' }[sub.toLowerCase()];
    if (!action) throw ApiError.notFound();
    const { repo } = await loadRepo(web, req);
    res.redirect(301, wikiHref(repo, encodeURIComponent(page), action));
  });
  pages.post('/:owner/:repo/wiki', (req, res) => change(req, res, null));
  pages.post('/:owner/:repo/wiki/:page', (req, res) => change(req, res, String(req.params.page)));
}

/** `?action=`, with Gitea's older `/wiki/_pages` and `/wiki/_new` (reserved names: never pages). */
function actionOf(req: Request, page: string | null): string {
  const named = page?.toLowerCase();
  if (named === '_pages' || named === '_new') return named;
  return text(req.query.action);
}

/** What the wiki pages read, each through the API as the viewer. */
function wikiData(web: WebRoutes) {
  const { api, ctx, renderer } = web;
  const data = {
    base: (repo: RepoJson) => apiPath`/repos/${repo.owner.login}/${repo.name}/wiki`,

    /**
     * The repository with its wiki unit on and readable (else the 404 page, as the API answers),
     * and whether the viewer may change it (the access module: write on the wiki, not archived).
     */
    async wiki(req: Request): Promise<WikiView> {
      const { viewer, repo } = await loadRepo(web, req);
      if (repo.has_wiki === false) throw ApiError.notFound();
      const target = await ctx.access.repository(repo.owner.login, repo.name, viewer.principal, 'read', 'wiki');
      const level = viewer.principal ? await ctx.access.unitLevel(target, viewer.principal, 'wiki') : 'read';
      return { viewer, repo, canWrite: Boolean(viewer.principal) && !repo.archived && (level === 'write' || level === 'admin') };
    },

    /** A form page: anonymous visitors are sent to sign in, readers get the 403 page the API would give. */
    async writer(req: Request, res: Response, wiki: WikiView): Promise<boolean> {
      if (!wiki.viewer.principal) {
        if (req.method === 'GET') {
          res.redirect(303, signInHref(req.originalUrl));
          return false;
        }
        throw ApiError.unauthorized();
      }
      await ctx.access.repository(wiki.repo.owner.login, wiki.repo.name, wiki.viewer.principal, 'write', 'wiki');
      return true;
    },

    page: (wiki: WikiView, name: string) => api.get<WikiPageJson>(wiki.viewer, `${data.base(wiki.repo)}${apiPath`/page/${name}`}`),
    findPage: (wiki: WikiView, name: string) => api.find<WikiPageJson>(wiki.viewer, `${data.base(wiki.repo)}${apiPath`/page/${name}`}`),

    render: (repo: RepoJson, markdown: string) => web.markdown.render(markdown, { mode: 'wiki', context: repo.full_name }),

    showForm(req: Request, res: Response, wiki: WikiView, props: Omit<WikiFormProps, 'kit' | 'repo'>, status = 200): void {
      renderer.send(res, h(WikiFormPage, { kit: renderer.kit(req), repo: wiki.repo, ...props }), status);
    },
  };
  return data;
}

/** The GET pages: a page, the list, revisions, the forms, and a page's raw Markdown. */
function wikiPages(web: WebRoutes) {
  const { api, renderer } = web;
  const data = wikiData(web);

  const view = async (req: Request, res: Response, wiki: WikiView, name: string) => {
    const { repo, canWrite } = wiki;
    const kit = renderer.kit(req);
    const page = await data.findPage(wiki, name);
    if (!page) {
      // No page: a wiki without any page yet shows Gitea's start page; otherwise this page is missing.
      const exists = (await api.find(wiki.viewer, `${data.base(repo)}/pages`, { limit: 1 })) !== null;
      if (!exists) return renderer.send(res, h(WikiMissingPage, { kit, repo, canWrite }));
      return renderer.send(res, h(WikiMissingPage, { kit, repo, canWrite, title: name === HOME ? HOME : titleGuess(name) }), 404);
    }
    const part = (base64: string) => (base64 ? data.render(repo, decode(base64)) : undefined);
    renderer.send(
      res,
      h(WikiPageView, {
        kit,
        repo,
        page,
        html: data.render(repo, decode(page.content_base64)),
        sidebarHtml: part(page.sidebar),
        footerHtml: part(page.footer),
        canWrite,
        notice: req.query.saved === '1' ? 'The page was saved.' : undefined,
      }),
    );
  };

  const show = async (req: Request, res: Response, param: string | null): Promise<void> => {
    const wiki = await data.wiki(req);
    const name = param ?? HOME;
    const kit = renderer.kit(req);
    switch (actionOf(req, param)) {
      case '_pages': {
        const list = await listAll<WikiMetaJson>(web, wiki.viewer, `${data.base(wiki.repo)}/pages`).catch((err: unknown) => {
          if (refusal(err) && err.status === 404) return []; // no wiki yet
          throw err;
        });
        const notice = req.query.deleted === '1' ? 'The page was deleted.' : undefined;
        return renderer.send(res, h(WikiPageList, { kit, repo: wiki.repo, pages: list, canWrite: wiki.canWrite, notice }));
      }
      case '_revision': {
        const page = await data.page(wiki, name);
        const pageNo = pageNumber(req);
        const revisions = await api.get<{ commits: WikiCommitJson[]; count: number }>(
          wiki.viewer,
          `${data.base(wiki.repo)}${apiPath`/revisions/${name}`}`,
          { page: pageNo, limit: REVISIONS_PER_PAGE },
        );
        const props = { kit, repo: wiki.repo, page, ...revisions, pageNo, limit: REVISIONS_PER_PAGE, canWrite: wiki.canWrite };
        return renderer.send(res, h(WikiRevisionsPage, props));
      }
      case '_new':
        if (!(await data.writer(req, res, wiki))) return;
        return data.showForm(req, res, wiki, { form: { title: text(req.query.title).trim(), content: '', message: '' } });
      case '_edit': {
        if (!(await data.writer(req, res, wiki))) return;
        const page = await data.page(wiki, name);
        return data.showForm(req, res, wiki, { page, form: { title: page.title, content: decode(page.content_base64), message: '' } });
      }
      default:
        return view(req, res, wiki, name);
    }
  };

  /** `…/wiki/raw/{page}`: the page's Markdown as plain text. */
  const raw = async (req: Request, res: Response, name: string): Promise<void> => {
    const wiki = await data.wiki(req);
    const page = await data.page(wiki, name);
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' }).type('text/plain; charset=utf-8');
    res.send(decode(page.content_base64));
  };

  return Object.assign(show, { raw });
}

/** A page name from a URL, as the title the API would read it (`Some-Page` → `Some Page`), for the "does not exist" page. */
function titleGuess(name: string): string {
  if (name.endsWith('.-') && name.length > 2) return name.slice(0, -2);
  return name.startsWith('.-') ? name.slice(2) : name.replace(/-/g, ' ');
}

/** The POSTs: create (`?action=_new`), edit and rename (`?action=_edit`, the default), delete (`?action=_delete`). */
function wikiChanges(web: WebRoutes) {
  const { api } = web;
  const data = wikiData(web);

  return async (req: Request, res: Response, param: string | null): Promise<void> => {
    const wiki = await data.wiki(req);
    await data.writer(req, res, wiki);
    const { viewer, repo } = wiki;
    const action = actionOf(req, param);
    const name = param ?? HOME;
    if (action === '_delete') {
      await api.send(viewer, 'delete', `${data.base(repo)}${apiPath`/page/${name}`}`);
      return res.redirect(303, `${wikiHref(repo, '', '_pages')}&deleted=1`);
    }
    const form = formOf(req.body);
    const page = action === '_new' ? undefined : await data.page(wiki, name);
    const preview = req.body.preview ? data.render(repo, form.content) : undefined;
    if (preview !== undefined) return data.showForm(req, res, wiki, { page, form, previewHtml: preview });
    const body = {
      title: form.title,
      content_base64: Buffer.from(form.content, 'utf8').toString('base64'),
      ...(form.message ? { message: form.message } : {}),
    };
    let saved: WikiPageJson;
    try {
      saved = page
        ? await api.send<WikiPageJson>(viewer, 'patch', `${data.base(repo)}${apiPath`/page/${name}`}`, body)
        : await api.send<WikiPageJson>(viewer, 'post', `${data.base(repo)}/new`, body);
    } catch (err) {
      // The API's page-name rules (empty, reserved, taken, `/`, `..`): shown on the form, the text kept.
      if (refusal(err)) return data.showForm(req, res, wiki, { page, form, error: err.message }, 422);
      throw err;
    }
    res.redirect(303, `${wikiHref(repo, saved.sub_url)}?saved=1`);
  };
}
