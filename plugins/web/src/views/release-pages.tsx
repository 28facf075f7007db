/**
 * The release pages (Gitea's `/{owner}/{repo}/releases…`): the list with the latest release marked,
 * one release, and the new/edit form with its files (assets) and the delete confirmation.
 */
import { Avatar, encodeSegments, Notice, Pager, plural, Rendered, repoHref, UserLink, When } from './common';
import type { RepoJson } from './home-pages';
import { Csrf, Layout, type PageKit } from './layout';
import { RepoHeader } from './repo-header';

/** Gitea's Attachment JSON, as the release API gives a release's assets. */
export interface AssetJson {
  id: number;
  name: string;
  size: number;
  download_count: number;
  created_at: string;
  uuid: string;
  browser_download_url: string;
}

/** Gitea's Release JSON. */
export interface ReleaseJson {
  id: number;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  created_at: string;
  published_at: string;
  author: { login: string; avatar_url?: string } | null;
  assets: AssetJson[];
}

/** `1.5 KiB`: a file size as people read it. */
export function fileSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** `/{owner}/{repo}/releases/tag/{tag}` (a tag may hold `/`: each segment encoded). */
export function releaseHref(repo: RepoJson, tag: string): string {
  return `${repoHref(repo.full_name)}/releases/tag/${encodeSegments(tag)}`;
}

export function releaseEditHref(repo: RepoJson, tag: string): string {
  return `${repoHref(repo.full_name)}/releases/edit/${encodeSegments(tag)}`;
}

/** "Releases | Tags", above the release pages (Gitea's switch). */
function ReleaseNav({ repo }: { repo: RepoJson }) {
  const base = repoHref(repo.full_name);
  return (
    <nav class="tabs sub" aria-label="Releases and tags">
      <a href={`${base}/releases`} aria-current="page">
        Releases
      </a>
      <a href={`${base}/tags`}>Tags</a>
    </nav>
  );
}

function Badges({ release, latest }: { release: ReleaseJson; latest: boolean }) {
  return (
    <>
      {latest && <span class="badge release-latest">Latest</span>}
      {release.draft && <span class="badge release-draft">Draft</span>}
      {release.prerelease && <span class="badge release-pre">Pre-release</span>}
    </>
  );
}

/** The files of a release, each with its size and download count, downloaded where the API's `browser_download_url` says. */
export function AssetList(props: { release: ReleaseJson; sourceArchives?: { zip: string; tarGz: string }; heading: 'h2' | 'h3' }) {
  const { release, sourceArchives } = props;
  if (release.assets.length === 0 && !sourceArchives) return null;
  const Heading = props.heading;
  return (
    <section class="release-assets" aria-label={`Downloads of ${release.name || release.tag_name}`}>
      <Heading>Downloads</Heading>
      <ul class="rows">
        {release.assets.map((a) => (
          <li>
            <a href={a.browser_download_url} download={a.name}>
              {a.name}
            </a>{' '}
            <span class="meta">
              {fileSize(a.size)} · {plural(a.download_count, 'download')}
            </span>
          </li>
        ))}
        {sourceArchives && (
          <>
            <li>
              <a href={sourceArchives.zip}>Source code (ZIP)</a>
            </li>
            <li>
              <a href={sourceArchives.tarGz}>Source code (TAR.GZ)</a>
            </li>
          </>
        )}
      </ul>
    </section>
  );
}

export interface ReleaseCardProps {
  repo: RepoJson;
  release: ReleaseJson;
  latest: boolean;
  /** The notes as the forge's markdown renderer made them. */
  notesHtml: string;
  canWrite: boolean;
  /** The source archives' page URLs (`/{owner}/{repo}/archive/{tag}.zip`, streamed through the API as the viewer). */
  sourceArchives?: { zip: string; tarGz: string };
  /** `h2` in the list, `h1` on the release's own page. */
  heading: 'h1' | 'h2';
}

/** One release: title, tag, badges, author and date, notes, downloads. */
export function ReleaseCard({ repo, release, latest, notesHtml, canWrite, sourceArchives, heading }: ReleaseCardProps) {
  const title = release.name || release.tag_name;
  const Heading = heading;
  return (
    <article class="box release" id={`release-${release.id}`}>
      <header class="release-head">
        <Heading>{heading === 'h2' ? <a href={releaseHref(repo, release.tag_name)}>{title}</a> : title}</Heading>
        <Badges release={release} latest={latest} />
        {canWrite && (
          <a class="button release-edit" href={releaseEditHref(repo, release.tag_name)}>
            Edit
          </a>
        )}
      </header>
      <div class="body">
        <p class="meta">
          <span class="release-tag">
            Tag <code>{release.tag_name}</code>
          </span>
          {release.target_commitish && (
            <>
              {' '}
              · target <code>{release.target_commitish}</code>
            </>
          )}
          {' · '}
          {release.author && <Avatar url={release.author.avatar_url} name={release.author.login} size={20} />}{' '}
          <UserLink user={release.author} /> {release.draft ? 'drafted this' : 'released this'} <When at={release.created_at} />
        </p>
        {release.body.trim() ? <Rendered html={notesHtml} /> : <p class="empty">No release notes.</p>}
        <AssetList release={release} sourceArchives={sourceArchives} heading={heading === 'h1' ? 'h2' : 'h3'} />
      </div>
    </article>
  );
}

export interface ReleaseListProps {
  kit: PageKit;
  repo: RepoJson;
  releases: Array<Omit<ReleaseCardProps, 'repo' | 'heading'>>;
  page: number;
  limit: number;
  total: number;
  canWrite: boolean;
  notice?: string;
}

export function ReleaseListPage({ kit, repo, releases, page, limit, total, canWrite, notice }: ReleaseListProps) {
  const base = repoHref(repo.full_name);
  return (
    <Layout kit={kit} title={`Releases - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="releases" title="breadcrumb" />
      <ReleaseNav repo={repo} />
      <div class="list-head">
        <h1>Releases</h1>
        {canWrite && (
          <a class="button primary" href={`${base}/releases/new`}>
            New release
          </a>
        )}
      </div>
      {notice && <Notice kind="success">{notice}</Notice>}
      {releases.length === 0 ? <p class="empty">No releases yet.</p> : releases.map((r) => <ReleaseCard {...r} repo={repo} heading="h2" />)}
      <Pager page={page} limit={limit} total={total} href={(p) => `${base}/releases${p > 1 ? `?page=${p}` : ''}`} />
    </Layout>
  );
}

export function ReleasePage(props: Omit<ReleaseCardProps, 'heading'> & { kit: PageKit; notice?: string }) {
  const { kit, repo, release, notice } = props;
  return (
    <Layout kit={kit} title={`${release.name || release.tag_name} - Releases - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="releases" title="breadcrumb" />
      <p class="breadcrumb">
        <a href={`${repoHref(repo.full_name)}/releases`}>Releases</a> / <span aria-current="page">{release.tag_name}</span>
      </p>
      {notice && <Notice kind="success">{notice}</Notice>}
      <ReleaseCard {...props} heading="h1" />
    </Layout>
  );
}

/** The form's values (Gitea's field names), kept when the form comes back with an error or a preview. */
export interface ReleaseForm {
  tag_name: string;
  tag_target: string;
  title: string;
  content: string;
  prerelease: boolean;
}

export interface ReleaseFormProps {
  kit: PageKit;
  repo: RepoJson;
  form: ReleaseForm;
  /** Branches the new tag may point at. */
  branches: string[];
  /** The release being edited (absent on the new release form). */
  release?: ReleaseJson;
  error?: string;
  notice?: string;
  /** The notes rendered, after the Preview button. */
  previewHtml?: string;
}

/** Tag and target: editable for a new release or a draft; a published release keeps its tag. */
function TagFields({ form, branches, release }: ReleaseFormProps) {
  if (release && !release.draft) {
    return (
      <p class="meta">
        Tag <code>{release.tag_name}</code> · target <code>{release.target_commitish}</code> (a published release keeps its tag)
      </p>
    );
  }
  const choices = branches.includes(form.tag_target) || !form.tag_target ? branches : [form.tag_target, ...branches];
  return (
    <div class="release-tag-fields">
      <div class="stacked">
        <label for="tag_name">Tag name</label>
        <input id="tag_name" name="tag_name" value={form.tag_name} required maxLength={255} placeholder="v1.0.0" autofocus={!release} />
      </div>
      <div class="stacked">
        <label for="tag_target">Target branch (where a new tag is created)</label>
        <select id="tag_target" name="tag_target">
          {choices.map((b) => (
            <option value={b} selected={b === form.tag_target}>
              {b}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

function ReleaseFields(props: ReleaseFormProps) {
  const { kit, repo, form, release, previewHtml } = props;
  const base = repoHref(repo.full_name);
  const action = release ? releaseEditHref(repo, release.tag_name) : `${base}/releases/new`;
  const publishing = !release || release.draft;
  return (
    <form method="post" action={action} class="stacked release-form">
      <Csrf kit={kit} />
      <TagFields {...props} />
      <label for="title">Title</label>
      <input id="title" name="title" value={form.title} maxLength={255} placeholder="Release title (the tag name when empty)" />
      <label for="content">Release notes</label>
      <textarea id="content" name="content" rows={12} placeholder="What changed (Markdown)" value={form.content} />
      {previewHtml !== undefined && (
        <section class="preview" aria-label="Preview of the release notes">
          <h2 class="visually-hidden">Preview</h2>
          {form.content.trim() ? <Rendered html={previewHtml} /> : <p class="empty">Nothing to preview.</p>}
        </section>
      )}
      <div class="check">
        <input type="checkbox" id="prerelease" name="prerelease" value="on" checked={form.prerelease} />
        <label for="prerelease">This is a pre-release (not ready for production)</label>
      </div>
      <div class="actions">
        <button type="submit" class="primary">
          {publishing ? 'Publish release' : 'Update release'}
        </button>
        {publishing && (
          <button type="submit" name="draft" value="1">
            Save draft
          </button>
        )}
        <button type="submit" name="preview" value="1">
          Preview
        </button>
        <a href={release ? releaseHref(repo, release.tag_name) : `${base}/releases`}>Cancel</a>
      </div>
    </form>
  );
}

/** The files of a release being edited: each with a Remove button, and the upload form (multipart). */
function AssetEditor({ kit, repo, release }: { kit: PageKit; repo: RepoJson; release: ReleaseJson }) {
  const base = repoHref(repo.full_name);
  const upload = `${base}/releases/attachments?${new URLSearchParams({ release_id: String(release.id), _csrf: kit.viewer.csrfToken })}`;
  return (
    <section class="box" id="assets" aria-labelledby="assets-title">
      <header>
        <h2 id="assets-title">Files</h2>
      </header>
      <div class="body">
        {release.assets.length === 0 ? (
          <p class="empty">No files attached.</p>
        ) : (
          <ul class="rows">
            {release.assets.map((a) => (
              <li class="asset-row">
                <a href={a.browser_download_url} download={a.name}>
                  {a.name}
                </a>{' '}
                <span class="meta">{fileSize(a.size)}</span>
                <form method="post" action={`${base}/releases/attachments/remove`} class="inline">
                  <Csrf kit={kit} />
                  <input type="hidden" name="release_id" value={String(release.id)} />
                  <input type="hidden" name="attachment_id" value={String(a.id)} />
                  <button type="submit" class="danger" aria-label={`Remove ${a.name}`}>
                    Remove
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <form method="post" action={upload} enctype="multipart/form-data" class="stacked">
          <label for="attachment">Attach a file</label>
          <input type="file" id="attachment" name="attachment" required />
          <button type="submit">Upload</button>
        </form>
      </div>
    </section>
  );
}

/** Delete, behind a second, explicit confirmation (the tag stays, as in Gitea). */
function DeleteRelease({ kit, repo, release }: { kit: PageKit; repo: RepoJson; release: ReleaseJson }) {
  return (
    <details class="edit release-delete">
      <summary>Delete this release</summary>
      <form method="post" action={`${repoHref(repo.full_name)}/releases/delete`} class="stacked">
        <Csrf kit={kit} />
        <input type="hidden" name="id" value={String(release.id)} />
        <p>
          This deletes the release “{release.name || release.tag_name}”
          {release.assets.length > 0 && <> and its {plural(release.assets.length, 'file')}</>}. The tag <code>{release.tag_name}</code>{' '}
          stays.
        </p>
        <button type="submit" class="danger">
          Yes, delete this release
        </button>
      </form>
    </details>
  );
}

export function ReleaseFormPage(props: ReleaseFormProps) {
  const { kit, repo, release, error, notice } = props;
  const heading = release ? `Edit release ${release.tag_name}` : 'New release';
  return (
    <Layout kit={kit} title={`${heading} - ${repo.full_name}`}>
      <RepoHeader repo={repo} tab="releases" title="breadcrumb" />
      <section class="wide-form release-editor">
        <h1>{heading}</h1>
        {error && <Notice kind="error">{error}</Notice>}
        {notice && <Notice kind="success">{notice}</Notice>}
        {!release && <p class="meta">Files can be attached once the release is saved.</p>}
        <ReleaseFields {...props} />
        {release && <AssetEditor kit={kit} repo={repo} release={release} />}
        {release && <DeleteRelease kit={kit} repo={repo} release={release} />}
      </section>
    </Layout>
  );
}
