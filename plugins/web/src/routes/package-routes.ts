import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import { pageNumber } from './home-routes';
import { listAll, text } from './route-parts';
import { userHref } from '../views/common';
import type { UserJson } from '../views/home-pages';
import { signInHref } from '../views/layout';
import {
  PACKAGE_TYPES,
  packageHref,
  PackageSettingsPage,
  PackagesPage,
  PackageVersionPage,
  PackageVersionsPage,
  type PackageFileJson,
  type PackageGroup,
  type PackageJson,
} from '../views/package-pages';
import { packageSetup } from '../package-setup';

const PAGE_SIZE = 20;
/** Pages of the API's version list read for one owner's package list (50 versions each). */
const MAX_LIST_PAGES = 20;
/** Formats whose setup names where a file lives (distribution, group, branch, channel): it is in the file's composite key. */
const KEYED_TYPES = new Set(['debian', 'rpm', 'alpine', 'conda']);

/** A package's route parameters. */
function partsOf(req: Request): { owner: string; type: string; name: string; version: string } {
  const p = req.params as Record<string, string>;
  return { owner: String(p.owner), type: String(p.type), name: String(p.name), version: String(p.version ?? '') };
}

/**
 * The package pages at Gitea's URLs, `/{owner}/-/packages…`: the owner's packages (type filter,
 * search, paging), a package (its newest version), a version with files, hashes, downloads and the
 * client setup of its format, all versions, and deleting a version (`…/{version}/settings`). Every
 * read and the delete go through the API's package operations as the viewer; file downloads and the
 * files' locations (distribution, group, channel) are read from the package registry only after the
 * API listed the version's files to the viewer.
 */
export function packageRoutes(web: WebRoutes): void {
  const reads = packageReads(web);
  packageListRoutes(web, reads);
  packageVersionRoutes(web, reads);
  packageDeleteRoutes(web, reads);
}

/** What the package pages read, each through the API as the viewer. */
function packageReads(web: WebRoutes) {
  const { api, ctx } = web;

  const ownerOf = (viewer: PageViewer, name: string) => api.get<UserJson>(viewer, apiPath`/users/${name}`);

  /** The versions of an owner's packages the API lists, newest first (at most MAX_LIST_PAGES pages). */
  const versionsOf = (viewer: PageViewer, owner: string, query: Record<string, unknown>) =>
    listAll<PackageJson>(web, viewer, apiPath`/packages/${owner}`, query, MAX_LIST_PAGES);

  /** Every version of one package, newest first. */
  const packageVersions = async (viewer: PageViewer, owner: string, type: string, name: string) =>
    (await versionsOf(viewer, owner, { type, q: name })).filter((v) => v.type === type && v.name.toLowerCase() === name.toLowerCase());

  const versionPath = (p: { owner: string; type: string; name: string; version: string }) =>
    apiPath`/packages/${p.owner}/${p.type}/${p.name}/${p.version}`;

  /** Whether the viewer may publish and delete the owner's packages, as the API's package operations decide it. */
  const canWrite = async (viewer: PageViewer, owner: string) =>
    viewer.principal ? (await ctx.packages.ownerAccess(owner, viewer.principal, 'read')).canWrite : false;

  return { ownerOf, versionsOf, packageVersions, versionPath, canWrite };
}

type PackageReads = ReturnType<typeof packageReads>;

/** The owner's packages, a package (its newest version) and all its versions. */
function packageListRoutes(web: WebRoutes, { ownerOf, versionsOf, packageVersions }: PackageReads): void {
  const { pages, renderer } = web;

  pages.get('/:owner/-/packages', async (req, res) => {
    const viewer = viewerOf(req);
    const owner = await ownerOf(viewer, String(req.params.owner));
    const type = PACKAGE_TYPES.includes(String(req.query.type)) ? String(req.query.type) : '';
    const q = text(req.query.q, 100).trim();
    const versions = await versionsOf(viewer, owner.login, { ...(type ? { type } : {}), ...(q ? { q } : {}) });
    const groups = new Map<string, PackageGroup>();
    for (const v of versions) {
      const key = `${v.type}/${v.name.toLowerCase()}`;
      const group = groups.get(key);
      if (group) group.versions++;
      else groups.set(key, { latest: v, versions: 1 });
    }
    const all = [...groups.values()];
    const page = pageNumber(req);
    renderer.send(
      res,
      h(PackagesPage, {
        kit: renderer.kit(req),
        owner,
        packages: all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
        total: all.length,
        page,
        limit: PAGE_SIZE,
        type,
        q,
        truncated: versions.length >= MAX_LIST_PAGES * 50,
        deleted: req.query.deleted === '1',
      }),
    );
  });

  pages.get('/:owner/-/packages/:type/:name', async (req, res) => {
    const { owner, type, name } = partsOf(req);
    const [latest] = await packageVersions(viewerOf(req), owner, type, name);
    if (!latest) throw ApiError.notFound();
    res.redirect(303, packageHref(latest.owner.login, latest.type, latest.name, latest.version));
  });

  pages.get('/:owner/-/packages/:type/:name/versions', async (req, res) => {
    const viewer = viewerOf(req);
    const { type, name } = partsOf(req);
    const owner = await ownerOf(viewer, String(req.params.owner));
    const versions = await packageVersions(viewer, owner.login, type, name);
    if (versions.length === 0) throw ApiError.notFound();
    const page = pageNumber(req);
    renderer.send(
      res,
      h(PackageVersionsPage, { kit: renderer.kit(req), owner, type, name: versions[0].name, versions, page, limit: PAGE_SIZE }),
    );
  });
}

/** A version with its files, hashes and setup, and its files' downloads. */
function packageVersionRoutes(web: WebRoutes, { ownerOf, packageVersions, versionPath, canWrite }: PackageReads): void {
  const { api, pages, renderer, ctx } = web;

  pages.get('/:owner/-/packages/:type/:name/:version', async (req, res) => {
    const viewer = viewerOf(req);
    const parts = partsOf(req);
    const pkg = await api.get<PackageJson>(viewer, versionPath(parts));
    const [owner, files, versions, writer] = await Promise.all([
      ownerOf(viewer, pkg.owner.login),
      api.get<PackageFileJson[]>(viewer, `${versionPath(parts)}/files`),
      packageVersions(viewer, pkg.owner.login, pkg.type, pkg.name),
      canWrite(viewer, pkg.owner.login),
    ]);
    // Where each file lives (a distribution, group, branch or channel) is in its composite key, which the API does not show.
    const keys = new Map<number, string>();
    if (KEYED_TYPES.has(pkg.type)) for (const f of await ctx.packages.listFiles(pkg.id)) keys.set(f.id, f.compositeKey);
    const setup = packageSetup({
      root: ctx.forge.appUrl,
      appName: ctx.forge.appName,
      owner: pkg.owner.login,
      type: pkg.type,
      name: pkg.name,
      version: pkg.version,
      files: files.map((f) => ({ name: f.name, key: keys.get(f.id) ?? '' })),
    });
    renderer.send(
      res,
      h(PackageVersionPage, {
        kit: renderer.kit(req),
        owner,
        pkg,
        files,
        versions,
        setup,
        privateNote: owner.visibility !== undefined && owner.visibility !== 'public',
        canWrite: writer,
      }),
    );
  });

  pages.get('/:owner/-/packages/:type/:name/:version/files/:fileid', async (req, res) => {
    const viewer = viewerOf(req);
    const parts = partsOf(req);
    const fileId = Number(req.params.fileid);
    if (!Number.isSafeInteger(fileId) || fileId < 1) throw ApiError.notFound();
    const pkg = await api.get<PackageJson>(viewer, versionPath(parts));
    const listed = await api.get<PackageFileJson[]>(viewer, `${versionPath(parts)}/files`);
    if (!listed.some((f) => f.id === fileId)) throw ApiError.notFound();
    const file = (await ctx.packages.listFiles(pkg.id)).find((f) => f.id === fileId);
    if (!file) throw ApiError.notFound();
    const download = await ctx.packages.openFile(file);
    res.set({
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(download.size),
      'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-cache',
      ETag: `"${download.hashes.sha256}"`,
    });
    // A client that goes away mid-download ends the stream; there is no page left to answer with.
    await pipeline(download.stream, res).catch(() => res.destroy());
  });
}

/** Deleting a version (Gitea's version settings page), for those who may change the owner's packages. */
function packageDeleteRoutes(web: WebRoutes, { ownerOf, versionPath, canWrite }: PackageReads): void {
  const { api, pages, renderer } = web;

  const settings = async (req: Request, res: Response, error?: string, status = 200) => {
    const viewer = viewerOf(req);
    const pkg = await api.get<PackageJson>(viewer, versionPath(partsOf(req)));
    if (!viewer.user) return res.redirect(303, signInHref(req.originalUrl));
    if (!(await canWrite(viewer, pkg.owner.login))) throw ApiError.forbidden('You may not change this owner’s packages.');
    const owner = await ownerOf(viewer, pkg.owner.login);
    renderer.send(res, h(PackageSettingsPage, { kit: renderer.kit(req), owner, pkg, error }), status);
  };

  pages.get('/:owner/-/packages/:type/:name/:version/settings', (req, res) => settings(req, res));

  pages.post('/:owner/-/packages/:type/:name/:version/settings', async (req, res) => {
    const viewer = viewerOf(req);
    if (!viewer.user) throw ApiError.unauthorized();
    if (req.body.action !== 'delete') throw ApiError.badRequest('Unknown action.');
    const pkg = await api.get<PackageJson>(viewer, versionPath(partsOf(req)));
    if (text(req.body.confirm).trim() !== pkg.version) {
      // The refusal of those who may not delete comes first: a wrong confirmation tells them nothing more.
      if (!(await canWrite(viewer, pkg.owner.login))) throw ApiError.forbidden('You may not change this owner’s packages.');
      return settings(req, res, `Type the version, ${pkg.version}, exactly to confirm.`, 422);
    }
    await api.send(viewer, 'delete', versionPath({ owner: pkg.owner.login, type: pkg.type, name: pkg.name, version: pkg.version }));
    res.redirect(303, `${userHref(pkg.owner.login)}/-/packages?deleted=1`);
  });
}
