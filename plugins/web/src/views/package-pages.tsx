/**
 * An owner's packages (`/{owner}/-/packages`), a package version with its files and the client
 * setup of its format (`/{owner}/-/packages/{type}/{name}/{version}`), all versions (`…/versions`)
 * and deleting a version (`…/{version}/settings`).
 */
import { Avatar, Notice, Pager, plural, userHref, UserLink, When } from './common';
import type { UserJson } from './home-pages';
import { Csrf, Layout, type PageKit } from './layout';

/** Gitea's Package JSON: one version of a package. */
export interface PackageJson {
  id: number;
  type: string;
  name: string;
  version: string;
  created_at: string;
  html_url?: string;
  owner: { login: string };
  creator: { login: string; id?: number } | null;
}

/** Gitea's PackageFile JSON. */
export interface PackageFileJson {
  id: number;
  Size: number;
  name: string;
  md5?: string;
  sha1?: string;
  sha256?: string;
  sha512?: string;
}

/** A package of the list: its newest version and how many it has. */
export interface PackageGroup {
  latest: PackageJson;
  versions: number;
}

/** One block of client setup: what it is for and the text to paste. */
import type { SetupBlock } from '../package-setup';

export type { SetupBlock };

/** The formats Hearth serves, for the list's type filter. */
export const PACKAGE_TYPES = ['alpine', 'cargo', 'chef', 'conda', 'cran', 'debian', 'generic', 'go', 'rpm', 'swift'];

/** `/{owner}/-/packages/{type}/{name}[/{version}]`, each part percent-encoded (go module names hold `/`). */
export function packageHref(owner: string, type: string, name: string, version?: string): string {
  const e = encodeURIComponent;
  return `${userHref(owner)}/-/packages/${e(type)}/${e(name)}${version === undefined ? '' : `/${e(version)}`}`;
}

/** `1.5 KiB`: a size as people read it. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The owner's avatar and name above the Repositories / Packages tabs, as on the profile page. */
function OwnerTabs({ owner }: { owner: UserJson }) {
  const base = userHref(owner.login);
  return (
    <>
      <p class="owner-line">
        <Avatar url={owner.avatar_url} name={owner.login} size={32} /> <a href={base}>{owner.full_name || owner.login}</a>
      </p>
      <nav class="tabs" aria-label="Profile">
        <a href={base}>Repositories</a>
        <a href={`${base}/-/packages`} aria-current="page">
          Packages
        </a>
      </nav>
    </>
  );
}

export interface PackagesPageProps {
  kit: PageKit;
  owner: UserJson;
  packages: PackageGroup[];
  total: number;
  page: number;
  limit: number;
  type: string;
  q: string;
  /** Versions that were not read (the owner has more than one list can hold): the list may miss older packages. */
  truncated: boolean;
  deleted: boolean;
}

export function PackagesPage({ kit, owner, packages, total, page, limit, type, q, truncated, deleted }: PackagesPageProps) {
  const base = `${userHref(owner.login)}/-/packages`;
  const href = (p: number) => `${base}?${new URLSearchParams({ ...(type ? { type } : {}), ...(q ? { q } : {}), page: String(p) })}`;
  return (
    <Layout kit={kit} title={`Packages - ${owner.login}`}>
      <OwnerTabs owner={owner} />
      <h1>Packages</h1>
      {deleted && <Notice kind="success">The package version was deleted.</Notice>}
      <form method="get" action={base} class="issue-filters" role="search" aria-label="Filter packages">
        <div class="field grow">
          <label for="package-q">Search</label>
          <input id="package-q" name="q" type="search" value={q} placeholder="Search packages…" />
        </div>
        <div class="field">
          <label for="package-type">Type</label>
          <select id="package-type" name="type">
            <option value="">All types</option>
            {PACKAGE_TYPES.map((t) => (
              <option value={t} selected={t === type}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>
      {packages.length === 0 ? (
        <p class="empty">{type || q ? 'No packages match.' : `${owner.login} has no packages yet.`}</p>
      ) : (
        <ul class="rows packages">
          {packages.map(({ latest, versions }) => (
            <li>
              <a class="title" href={packageHref(owner.login, latest.type, latest.name, latest.version)}>
                {latest.name}
              </a>
              <span class="badge">{latest.type}</span>
              <p class="meta">
                {latest.version} · {plural(versions, 'version')} · published <When at={latest.created_at} /> by{' '}
                <UserLink user={latest.creator} />
              </p>
            </li>
          ))}
        </ul>
      )}
      {truncated && <p class="meta">Only the newest versions were read: narrow the list with a search or a type.</p>}
      <Pager page={page} limit={limit} total={total} href={href} />
    </Layout>
  );
}

/** Deleting a version: the version's name typed again, then the API's delete. */
function DeleteVersionForm({ kit, pkg, error }: { kit: PageKit; pkg: PackageJson; error?: string }) {
  return (
    <form method="post" action={`${packageHref(pkg.owner.login, pkg.type, pkg.name, pkg.version)}/settings`} class="stacked">
      <Csrf kit={kit} />
      <input type="hidden" name="action" value="delete" />
      {error && <Notice kind="error">{error}</Notice>}
      <p>
        Deleting {pkg.name} {pkg.version} removes its files for everyone; clients that need it will fail.
      </p>
      <label for="confirm-version">Type the version, {pkg.version}, to confirm</label>
      <input id="confirm-version" name="confirm" required autocomplete="off" />
      <button type="submit" class="danger">
        Delete this version
      </button>
    </form>
  );
}

export interface PackageVersionPageProps {
  kit: PageKit;
  owner: UserJson;
  pkg: PackageJson;
  files: PackageFileJson[];
  /** The package's versions, newest first (the sidebar shows the first few). */
  versions: PackageJson[];
  setup: SetupBlock[] | null;
  /** A word on credentials for owners whose packages are not public. */
  privateNote: boolean;
  canWrite: boolean;
}

function FileList({ pkg, files }: { pkg: PackageJson; files: PackageFileJson[] }) {
  const base = packageHref(pkg.owner.login, pkg.type, pkg.name, pkg.version);
  if (files.length === 0) return <p class="empty">This version has no files.</p>;
  return (
    <ul class="rows package-files">
      {files.map((f) => (
        <li>
          <a class="title" href={`${base}/files/${f.id}`} download>
            {f.name}
          </a>{' '}
          <span class="meta">{formatSize(f.Size)}</span>
          <dl class="hashes">
            {f.sha256 && (
              <>
                <dt>SHA-256</dt>
                <dd>
                  <code>{f.sha256}</code>
                </dd>
              </>
            )}
            {f.sha512 && (
              <>
                <dt>SHA-512</dt>
                <dd>
                  <code>{f.sha512}</code>
                </dd>
              </>
            )}
          </dl>
        </li>
      ))}
    </ul>
  );
}

function Setup({ setup, privateNote }: { setup: SetupBlock[] | null; privateNote: boolean }) {
  if (!setup) return <p class="empty">No client setup is known for this package type: download its files below.</p>;
  return (
    <>
      {setup.map((block, i) => (
        <div class="setup-block">
          <div class="setup-head">
            <h3 id={`setup-title-${i}`}>{block.title}</h3>
            <button type="button" data-copy={`#setup-${i}`} aria-describedby={`setup-title-${i}`}>
              Copy
            </button>
          </div>
          <pre class="setup">
            <code id={`setup-${i}`}>{block.code}</code>
          </pre>
        </div>
      ))}
      {privateNote && (
        <p class="meta">
          This owner’s packages are not public: clients sign in with your user name and an access token (scope <code>read:package</code>).
        </p>
      )}
    </>
  );
}

export function PackageVersionPage({ kit, owner, pkg, files, versions, setup, privateNote, canWrite }: PackageVersionPageProps) {
  const shown = versions.slice(0, 10);
  return (
    <Layout kit={kit} title={`${pkg.name} ${pkg.version} - ${owner.login}`}>
      <OwnerTabs owner={owner} />
      <header class="package-head">
        <h1>
          {pkg.name} <span class="muted">{pkg.version}</span>
        </h1>
        <span class="badge">{pkg.type}</span>
        <p class="meta">
          Published <When at={pkg.created_at} /> by <UserLink user={pkg.creator} />
        </p>
      </header>
      <div class="columns">
        <section>
          <h2>Installation</h2>
          <Setup setup={setup} privateNote={privateNote} />
          <h2>Files</h2>
          <FileList pkg={pkg} files={files} />
        </section>
        <aside>
          <h2>Versions</h2>
          <ul class="plain versions">
            {shown.map((v) => (
              <li>
                <a href={packageHref(owner.login, v.type, v.name, v.version)} aria-current={v.version === pkg.version ? 'page' : undefined}>
                  {v.version}
                </a>{' '}
                <span class="meta">
                  <When at={v.created_at} />
                </span>
              </li>
            ))}
          </ul>
          {versions.length > shown.length && (
            <p>
              <a href={`${packageHref(owner.login, pkg.type, pkg.name)}/versions`}>All {versions.length} versions</a>
            </p>
          )}
          {canWrite && (
            <details class="edit delete-version">
              <summary>Delete this version</summary>
              <DeleteVersionForm kit={kit} pkg={pkg} />
            </details>
          )}
        </aside>
      </div>
    </Layout>
  );
}

export function PackageVersionsPage(props: {
  kit: PageKit;
  owner: UserJson;
  type: string;
  name: string;
  versions: PackageJson[];
  page: number;
  limit: number;
}) {
  const { kit, owner, type, name, versions, page, limit } = props;
  const base = packageHref(owner.login, type, name);
  const shown = versions.slice((page - 1) * limit, page * limit);
  return (
    <Layout kit={kit} title={`${name} versions - ${owner.login}`}>
      <OwnerTabs owner={owner} />
      <h1>
        {name} <span class="badge">{type}</span>
      </h1>
      <h2>{plural(versions.length, 'version')}</h2>
      <ul class="rows">
        {shown.map((v) => (
          <li>
            <a class="title" href={packageHref(owner.login, v.type, v.name, v.version)}>
              {v.version}
            </a>
            <p class="meta">
              Published <When at={v.created_at} /> by <UserLink user={v.creator} />
            </p>
          </li>
        ))}
      </ul>
      <Pager page={page} limit={limit} total={versions.length} href={(p) => `${base}/versions?page=${p}`} />
    </Layout>
  );
}

export function PackageSettingsPage({ kit, owner, pkg, error }: { kit: PageKit; owner: UserJson; pkg: PackageJson; error?: string }) {
  return (
    <Layout kit={kit} title={`Delete ${pkg.name} ${pkg.version} - ${owner.login}`}>
      <OwnerTabs owner={owner} />
      <section class="wide-form">
        <h1>
          Delete {pkg.name} {pkg.version}
        </h1>
        <DeleteVersionForm kit={kit} pkg={pkg} error={error} />
        <p>
          <a href={packageHref(owner.login, pkg.type, pkg.name, pkg.version)}>Back to the package</a>
        </p>
      </section>
    </Layout>
  );
}
