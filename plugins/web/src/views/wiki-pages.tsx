/**
 * The wiki pages (Gitea 1.20's `/{owner}/{repo}/wiki…` with `?action=`): a page with its sidebar
 * and footer, the start page of a wiki without pages, the page list, a page's revisions, and the
 * new/edit form with its preview.
 */
import type { ComponentChildren } from 'preact';
import { Notice, Pager, plural, Rendered, repoHref, When } from './common';
import type { RepoJson } from './home-pages';
import { Csrf, Layout, type PageKit } from './layout';
import { RepoHeader } from './repo-header';

/** Gitea's WikiCommit JSON. */
export interface WikiCommitJson {
  sha: string;
  author: { name: string; email: string; date: string } | null;
  message: string;
}

/** Gitea's WikiPageMetaData JSON; `sub_url` is the page's name in URLs (already escaped by the API). */
export interface WikiMetaJson {
  title: string;
  sub_url: string;
  last_commit: WikiCommitJson | null;
}

/** Gitea's WikiPage JSON. */
export interface WikiPageJson extends WikiMetaJson {
  content_base64: string;
  commit_count: number;
  sidebar: string;
  footer: string;
}

/** `/{owner}/{repo}/wiki/{sub_url}`, optionally with Gitea's `?action=`. */
export function wikiHref(repo: RepoJson, subUrl = '', action?: string): string {
  return `${repoHref(repo.full_name)}/wiki/${subUrl}${action ? `?action=${action}` : ''}`;
}

/** The repository header with the wiki's own links: the page list and, for writers, a new page. */
function WikiFrame(props: { kit: PageKit; repo: RepoJson; title: string; canWrite: boolean; children: ComponentChildren }) {
  const { kit, repo, title, canWrite, children } = props;
  return (
    <Layout kit={kit} title={`${title} - Wiki - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="wiki" title="breadcrumb" />
      <nav class="wiki-bar" aria-label="Wiki">
        <a href={wikiHref(repo)}>Home</a>
        <a href={wikiHref(repo, '', '_pages')}>Pages</a>
        {canWrite && (
          <a class="button primary" href={wikiHref(repo, '', '_new')}>
            New page
          </a>
        )}
      </nav>
      {children}
    </Layout>
  );
}

export interface WikiViewProps {
  kit: PageKit;
  repo: RepoJson;
  page: WikiPageJson;
  html: string;
  sidebarHtml?: string;
  footerHtml?: string;
  canWrite: boolean;
  notice?: string;
}

export function WikiPageView({ kit, repo, page, html, sidebarHtml, footerHtml, canWrite, notice }: WikiViewProps) {
  const last = page.last_commit;
  return (
    <WikiFrame kit={kit} repo={repo} title={page.title} canWrite={canWrite}>
      {notice && <Notice kind="success">{notice}</Notice>}
      <header class="wiki-head">
        <h1>{page.title}</h1>
        {canWrite && (
          <a class="button" href={wikiHref(repo, page.sub_url, '_edit')}>
            Edit
          </a>
        )}
      </header>
      <p class="meta">
        {last?.author && (
          <>
            {last.author.name} edited this page <When at={last.author.date} /> ·{' '}
          </>
        )}
        <a href={wikiHref(repo, page.sub_url, '_revision')}>{plural(page.commit_count, 'revision')}</a>
      </p>
      <div class={sidebarHtml !== undefined ? 'columns' : undefined}>
        <article class="box wiki-content">
          <div class="body">{html.trim() ? <Rendered html={html} /> : <p class="empty">This page is empty.</p>}</div>
        </article>
        {sidebarHtml !== undefined && (
          <aside class="sidebar wiki-sidebar" aria-label="Wiki sidebar">
            <Rendered html={sidebarHtml} />
          </aside>
        )}
      </div>
      {footerHtml !== undefined && (
        <footer class="wiki-footer">
          <Rendered html={footerHtml} />
        </footer>
      )}
      {canWrite && (
        <details class="edit wiki-delete">
          <summary>Delete this page</summary>
          <form method="post" action={wikiHref(repo, page.sub_url, '_delete')} class="stacked">
            <Csrf kit={kit} />
            <p>This deletes the page “{page.title}” (its history stays in the wiki’s git repository).</p>
            <button type="submit" class="danger">
              Yes, delete this page
            </button>
          </form>
        </details>
      )}
    </WikiFrame>
  );
}

/** A wiki without any page yet (Gitea's start page), or a page that does not exist (404). */
export function WikiMissingPage({ kit, repo, canWrite, title }: { kit: PageKit; repo: RepoJson; canWrite: boolean; title?: string }) {
  const newHref = `${wikiHref(repo, '', '_new')}${title ? `&title=${encodeURIComponent(title)}` : ''}`;
  return (
    <WikiFrame kit={kit} repo={repo} title={title ?? 'Wiki'} canWrite={canWrite}>
      <section class="hero">
        {title === undefined ? (
          <>
            <h1>Welcome to the wiki</h1>
            <p>The wiki lets you write and share documentation with collaborators.</p>
          </>
        ) : (
          <>
            <h1>{title}</h1>
            <p>This page does not exist.</p>
          </>
        )}
        {canWrite && (
          <a class="button primary" href={newHref}>
            {title === undefined ? 'Create the first page' : 'Create this page'}
          </a>
        )}
      </section>
    </WikiFrame>
  );
}

export function WikiPageList(props: { kit: PageKit; repo: RepoJson; pages: WikiMetaJson[]; canWrite: boolean; notice?: string }) {
  const { kit, repo, pages, canWrite, notice } = props;
  return (
    <WikiFrame kit={kit} repo={repo} title="Pages" canWrite={canWrite}>
      <h1>Pages</h1>
      {notice && <Notice kind="success">{notice}</Notice>}
      {pages.length === 0 ? (
        <p class="empty">No pages yet.</p>
      ) : (
        <ul class="rows wiki-pages">
          {pages.map((p) => (
            <li>
              <a class="title" href={wikiHref(repo, p.sub_url)}>
                {p.title}
              </a>
              {p.last_commit?.author && (
                <span class="meta">
                  {' '}
                  · updated <When at={p.last_commit.author.date} />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </WikiFrame>
  );
}

export interface WikiRevisionsProps {
  kit: PageKit;
  repo: RepoJson;
  page: WikiMetaJson;
  commits: WikiCommitJson[];
  count: number;
  pageNo: number;
  limit: number;
  canWrite: boolean;
}

export function WikiRevisionsPage({ kit, repo, page, commits, count, pageNo, limit, canWrite }: WikiRevisionsProps) {
  const href = (n: number) => `${wikiHref(repo, page.sub_url, '_revision')}${n > 1 ? `&page=${n}` : ''}`;
  return (
    <WikiFrame kit={kit} repo={repo} title={`Revisions of ${page.title}`} canWrite={canWrite}>
      <p class="breadcrumb">
        <a href={wikiHref(repo, page.sub_url)}>{page.title}</a> / <span aria-current="page">Revisions</span>
      </p>
      <h1>Revisions</h1>
      <p class="meta">{plural(count, 'revision')}</p>
      <ul class="rows wiki-revisions">
        {commits.map((c) => (
          <li>
            <span class="title">{c.message.split('\n')[0]}</span>
            <p class="meta">
              {c.author?.name ?? 'Unknown'} <When at={c.author?.date} /> · <code class="sha">{c.sha.slice(0, 10)}</code>
            </p>
          </li>
        ))}
      </ul>
      <Pager page={pageNo} limit={limit} total={count} href={href} />
    </WikiFrame>
  );
}

/** The form's values (Gitea's field names), kept when it comes back with an error or a preview. */
export interface WikiForm {
  title: string;
  content: string;
  message: string;
}

export interface WikiFormProps {
  kit: PageKit;
  repo: RepoJson;
  form: WikiForm;
  /** The page being edited (absent on the new page form). */
  page?: WikiMetaJson;
  error?: string;
  previewHtml?: string;
}

export function WikiFormPage({ kit, repo, form, page, error, previewHtml }: WikiFormProps) {
  const heading = page ? `Edit ${page.title}` : 'New page';
  const action = page ? wikiHref(repo, page.sub_url, '_edit') : wikiHref(repo, '', '_new');
  return (
    <WikiFrame kit={kit} repo={repo} title={heading} canWrite>
      <section class="wide-form wiki-editor">
        <h1>{heading}</h1>
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action={action} class="stacked">
          <Csrf kit={kit} />
          <label for="title">Title</label>
          <input id="title" name="title" value={form.title} required maxLength={255} autofocus={!page} aria-describedby="title-help" />
          <p class="meta" id="title-help">
            Titles may not contain “/” and may not be _pages, _new, _edit or raw. Changing the title renames the page.
          </p>
          <label for="content">Content</label>
          <textarea id="content" name="content" rows={16} placeholder="Write the page (Markdown)" value={form.content} />
          {previewHtml !== undefined && (
            <section class="preview" aria-label="Preview of the page">
              {form.content.trim() ? <Rendered html={previewHtml} /> : <p class="empty">Nothing to preview.</p>}
            </section>
          )}
          <label for="message">Commit message (optional)</label>
          <input
            id="message"
            name="message"
            value={form.message}
            maxLength={1000}
            placeholder={page ? `Update '${page.title}'` : 'Add page'}
          />
          <div class="actions">
            <button type="submit" class="primary">
              {page ? 'Save page' : 'Create page'}
            </button>
            <button type="submit" name="preview" value="1">
              Preview
            </button>
            <a href={page ? wikiHref(repo, page.sub_url) : wikiHref(repo)}>Cancel</a>
          </div>
        </form>
      </section>
    </WikiFrame>
  );
}
