import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError, isApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import { pageNumber } from './home-routes';
import { loadRepo } from './route-parts';
import {
  MAX_TREE_BYTES,
  MAX_VIEW_BYTES,
  ObjectReader,
  blame,
  cleanPath,
  commitDiff,
  HistoryWalk,
  listRefs,
  parseTree,
  readTree,
  readmeOf,
  type CodeRef,
  type RefKind,
  type RefList,
  type TreeItem,
} from './repo-git';
import { repoHref } from '../views/common';
import type { RepoJson } from '../views/home-pages';
import { signInHref } from '../views/layout';
import { RepoCreatePage, type OwnerChoice, type RepoForm } from '../views/repo-create';
import { BlamePage, EmptyRepoPage, RepoHomePage, SourcePage, type CodeView, type FileContent, type ReadmeView } from '../views/repo-pages';
import { BranchesPage, CommitPage, CommitsPage, TagsPage, type BranchJson, type CommitJson, type TagJson } from '../views/repo-history';
import { diff2html } from '../views/pull-pages';

const LIST_SIZE = 20;
const COMMITS_PER_PAGE = 30;
/** Commit pages render this much patch at most (diff2html's HTML grows ~10×); the rest is behind the raw `.diff` link. */
const MAX_DIFF_BYTES = 1024 * 1024;
const REF_KINDS = new Set<RefKind>(['branch', 'tag', 'commit']);
const MARKDOWN = /\.(md|markdown|mdown|mkd|mkdn)$/i;
const IMAGE = /\.(png|jpe?g|gif|webp|bmp|ico|avif)$/i;

/**
 * The repository pages at Gitea's URLs: `/repo/create`, `/{owner}/{repo}` (home),
 * `/src|blame/{branch|tag|commit}/{ref}/{path}`, `/commits/…`, `/commit/{sha}`, `/branches`, `/tags`.
 * Register after the routes with fixed first segments (`/user/…`, `/explore/…`): `/:owner/:repo` matches those too.
 */
export function repoRoutes(web: WebRoutes): void {
  createRoutes(web);
  codeRoutes(web);
  historyRoutes(web);
}

// --- shared --------------------------------------------------------------------------------------

/** The git directory, only after the access module allowed the viewer to read the code. */
async function gitDirOf(web: WebRoutes, viewer: PageViewer, repo: RepoJson): Promise<string> {
  return (await web.ctx.access.repository(repo.owner.login, repo.name, viewer.principal, 'read', 'code')).gitDir;
}

function segmentsOf(req: Request): string[] {
  const rest = req.params.rest as unknown as string[] | string | undefined;
  return rest === undefined ? [] : Array.isArray(rest) ? rest : [rest];
}

/** What a code page reads git with: started together, right after the access check, so their start-ups overlap. */
interface CodeGit {
  gitDir: string;
  /** Every tree and blob of the page, and the ref it names, through one `cat-file --batch`. */
  reader: ObjectReader;
  /** Branches and tags (the switcher, and the check of the ref the reader resolved). */
  refs: Promise<RefList>;
}

async function openCode(web: WebRoutes, viewer: PageViewer, repo: RepoJson): Promise<CodeGit> {
  const gitDir = await gitDirOf(web, viewer, repo);
  const reader = new ObjectReader(web.ctx.git, gitDir);
  const refs = listRefs(web.ctx.git, gitDir);
  refs.catch(() => undefined); // awaited later; a page that fails first must not leave it unhandled
  return { gitDir, reader, refs };
}

/**
 * The ref and path a URL names: a branch or tag by the longest run of leading segments that names
 * one (names may hold slashes, as Gitea resolves them), a commit by an id git resolves; null when
 * nothing matches or a segment is unsafe. Candidates are asked of the object reader (valid ref
 * names only, so no revision syntax such as `main~1` reaches git); `confirm` checks the answer
 * against the listed refs once they are in.
 */
async function locate(
  web: WebRoutes,
  kind: RefKind,
  segments: string[],
  reader: ObjectReader,
): Promise<{ current: CodeRef; path: string } | null> {
  const clean = cleanPath(segments);
  if (clean === null || clean === '') return null;
  const parts = clean.split('/');
  if (kind === 'commit') {
    if (!/^[0-9a-f]{4,64}$/i.test(parts[0])) return null;
    const commit = await reader.read(`${parts[0].toLowerCase()}^{commit}`, 0);
    if (!commit || commit.type !== 'commit') return null;
    return { current: { kind, name: commit.sha, commit: commit.sha }, path: parts.slice(1).join('/') };
  }
  for (let n = parts.length; n > 0; n--) {
    const name = parts.slice(0, n).join('/');
    if (!isRefName(web, name)) continue;
    const found = await reader.read(`refs/${kind === 'branch' ? 'heads' : 'tags'}/${name}^{commit}`, 0);
    if (found?.type === 'commit') return { current: { kind, name, commit: found.sha }, path: parts.slice(n).join('/') };
  }
  return null;
}

function isRefName(web: WebRoutes, name: string): boolean {
  try {
    web.ctx.git.assertValidRefName(name);
    return true;
  } catch {
    return false;
  }
}

/** The listed refs, once the branch or tag the reader found is confirmed among them (a 404 otherwise). */
async function confirm(refs: Promise<RefList>, current: CodeRef): Promise<RefList> {
  const list = await refs;
  const names = current.kind === 'branch' ? list.branches : current.kind === 'tag' ? list.tags : null;
  if (names && !names.some((r) => r.name === current.name)) throw ApiError.notFound('no such branch or tag');
  return list;
}

// --- code ----------------------------------------------------------------------------------------

/** What a code page shows and reads it with: the ref and path located, the page's object reader and history walk. */
interface CodeAt {
  web: WebRoutes;
  repo: RepoJson;
  reader: ObjectReader;
  walk: HistoryWalk;
  current: CodeRef;
  path: string;
}

/** A directory's listing with last commits (the history walk) and its README (read by the same cat-file). */
async function directoryView(at: CodeAt, items: TreeItem[]): Promise<CodeView> {
  const { web, repo, reader, walk, current, path } = at;
  const readmeItem = readmeOf(items);
  const [history, readme] = await Promise.all([
    walk.collect(
      path,
      items.map((i) => i.name),
    ),
    readmeItem ? reader.read(readmeItem.sha, MAX_VIEW_BYTES) : Promise.resolve(null),
  ]);
  let readmeView: ReadmeView | null = null;
  if (readmeItem && readme) {
    const text = readme.data.toString('utf8');
    readmeView = MARKDOWN.test(readmeItem.name)
      ? { name: readmeItem.name, html: renderMarkdown(web, repo, current, path, text), truncated: readme.truncated }
      : { name: readmeItem.name, text, truncated: readme.truncated };
  }
  return {
    kind: 'dir',
    entries: items.map((item) => ({ ...item, last: history.byName.get(item.name) })),
    latest: history.latest,
    readme: readmeView,
  };
}

/** Markdown rendered by the forge's renderer; relative links resolve against the directory shown. */
function renderMarkdown(web: WebRoutes, repo: RepoJson, current: CodeRef, dir: string, text: string): string {
  const context = [repo.owner.login, repo.name, 'src', current.kind, ...current.name.split('/'), ...(dir ? dir.split('/') : [])]
    .map((s) => encodeURIComponent(s))
    .join('/');
  return web.markdown.render(text, { mode: 'gfm', context });
}

/** A file: what to show of it, from its mode (in the parent tree), size and first bytes. */
async function fileView(at: CodeAt, blob: { size: number; data: Buffer }, source: boolean): Promise<CodeView> {
  const { web, repo, reader, walk, current, path } = at;
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const dir = slash < 0 ? '' : path.slice(0, slash);
  const [parent, history] = await Promise.all([
    readTree(reader, dir ? `${current.commit}:${dir}` : `${current.commit}^{tree}`),
    walk.collect(path, null),
  ]);
  const mode = parent?.items.find((i) => i.name === name)?.kind;
  let content: FileContent;
  if (mode === 'symlink') content = { kind: 'symlink', target: blob.data.toString('utf8') };
  else if (IMAGE.test(name)) content = { kind: 'image' };
  else if (blob.size > MAX_VIEW_BYTES) content = { kind: 'too-large' };
  else if (blob.data.subarray(0, 8000).includes(0)) content = { kind: 'binary' };
  else {
    const text = blob.data.toString('utf8');
    content = MARKDOWN.test(name)
      ? { kind: 'markdown', text, source, html: source ? '' : renderMarkdown(web, repo, current, dir, text) }
      : { kind: 'text', text };
  }
  return { kind: 'file', name, size: blob.size, content, latest: history.latest };
}

/** The home page (`kind` null: the default branch's root) or a `src/` page. */
async function showCode(web: WebRoutes, req: Request, res: Response, kind: RefKind | null): Promise<void> {
  const { viewer, repo } = await loadRepo(web, req);
  const kit = web.renderer.kit(req);
  if (repo.empty) {
    if (kind) throw ApiError.notFound('the repository is empty');
    return web.renderer.send(res, h(EmptyRepoPage, { kit, repo }));
  }
  const { gitDir, reader, refs } = await openCode(web, viewer, repo);
  let walk: HistoryWalk | undefined;
  try {
    const located = kind
      ? await locate(web, kind, segmentsOf(req), reader)
      : await locate(web, 'branch', repo.default_branch.split('/'), reader);
    if (!located && !kind) return web.renderer.send(res, h(EmptyRepoPage, { kit, repo, missingBranch: await refs }));
    if (!located) throw ApiError.notFound('no such branch, tag or commit');
    const { current, path } = located;
    // The history walk starts now, beside the reads: it serves a directory's entries or a file alike.
    walk = new HistoryWalk(web.ctx.git, gitDir, current.commit, path);
    const target = await reader.read(path ? `${current.commit}:${path}` : `${current.commit}^{tree}`, (type) =>
      type === 'tree' ? MAX_TREE_BYTES : MAX_VIEW_BYTES,
    );
    const at: CodeAt = { web, repo, reader, walk, current, path };
    let view: CodeView;
    if (target?.type === 'tree' && !target.truncated) {
      view = await directoryView(at, parseTree(target.data, target.sha));
    } else if (target?.type === 'blob') {
      view = await fileView(at, target, req.query.display === 'source');
    } else throw ApiError.notFound(`no file or directory ${path}`);
    const props = { kit, repo, refs: await confirm(refs, current), current, path, view };
    web.renderer.send(res, h(kind ? SourcePage : RepoHomePage, props));
  } finally {
    reader.close();
    walk?.stop();
  }
}

function codeRoutes(web: WebRoutes): void {
  const { pages } = web;
  pages.get('/:owner/:repo', (req, res) => showCode(web, req, res, null));
  pages.get('/:owner/:repo/src', async (req, res) => {
    const { repo } = await loadRepo(web, req);
    res.redirect(303, repoHref(repo.full_name));
  });
  pages.get('/:owner/:repo/src/:kind/*rest', (req, res) => {
    const kind = req.params.kind as RefKind;
    if (!REF_KINDS.has(kind)) throw ApiError.notFound('no such page');
    return showCode(web, req, res, kind);
  });
  pages.get('/:owner/:repo/blame/:kind/*rest', (req, res) => {
    const kind = req.params.kind as RefKind;
    if (!REF_KINDS.has(kind)) throw ApiError.notFound('no such page');
    return showBlame(web, req, res, kind);
  });
}

/** `git blame --porcelain` of a text file up to 1 MiB, grouped by commit. */
async function showBlame(web: WebRoutes, req: Request, res: Response, kind: RefKind): Promise<void> {
  const { viewer, repo } = await loadRepo(web, req);
  if (repo.empty) throw ApiError.notFound('the repository is empty');
  const { gitDir, reader, refs } = await openCode(web, viewer, repo);
  try {
    const located = await locate(web, kind, segmentsOf(req), reader);
    if (!located || !located.path) throw ApiError.notFound('no such file');
    const { current, path } = located;
    const blob = await reader.read(`${current.commit}:${path}`, 8000);
    if (!blob || blob.type !== 'blob') throw ApiError.notFound(`no file ${path}`);
    reader.close();
    let notice: string | undefined;
    if (blob.size > MAX_VIEW_BYTES) notice = 'This file is larger than 1 MiB and is not blamed here.';
    else if (blob.data.includes(0)) notice = 'This file is binary and is not blamed here.';
    const groups = notice ? [] : await blame(web.ctx.git, gitDir, current.commit, path);
    const props = { kit: web.renderer.kit(req), repo, refs: await confirm(refs, current), current, path, groups, notice };
    web.renderer.send(res, h(BlamePage, props));
  } finally {
    reader.close();
  }
}

// --- history -------------------------------------------------------------------------------------

function historyRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  pages.get('/:owner/:repo/commits/:kind/*rest', async (req, res) => {
    const kind = req.params.kind as RefKind;
    if (!REF_KINDS.has(kind)) throw ApiError.notFound('no such page');
    const { viewer, repo } = await loadRepo(web, req);
    if (repo.empty) throw ApiError.notFound('the repository is empty');
    const { reader, refs } = await openCode(web, viewer, repo);
    let located;
    try {
      located = await locate(web, kind, segmentsOf(req), reader);
    } finally {
      reader.close();
    }
    if (!located) throw ApiError.notFound('no such branch, tag or commit');
    const refList = await confirm(refs, located.current);
    const page = pageNumber(req);
    const query = { sha: located.current.commit, page, limit: COMMITS_PER_PAGE, stat: false, files: false, verification: false };
    const { items, total } = await api.list<CommitJson>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/commits`, {
      ...query,
      ...(located.path ? { path: located.path } : {}),
    });
    const props = { kit: renderer.kit(req), repo, refs: refList, ...located, commits: items, page, limit: COMMITS_PER_PAGE, total };
    renderer.send(res, h(CommitsPage, props));
  });

  pages.get('/:owner/:repo/commit/:sha', async (req, res) => {
    const param = String(req.params.sha);
    const raw = param.endsWith('.diff');
    const sha = raw ? param.slice(0, -5) : param;
    if (!/^[0-9a-f]{4,64}$/i.test(sha)) throw ApiError.notFound('no such commit');
    const { viewer, repo } = await loadRepo(web, req);
    const commit = await api.get<CommitJson>(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/git/commits/${sha}`, {
      stat: true,
      files: true,
      verification: false,
    });
    const gitDir = await gitDirOf(web, viewer, repo);
    const parent = commit.parents[0]?.sha ?? null;
    if (raw) return sendRawDiff(web, res, gitDir, commit.sha, parent);
    const diff = await commitDiff(web.ctx.git, gitDir, commit.sha, parent, MAX_DIFF_BYTES);
    const diffHtml = diff.text ? diff2html().html(diff.text, { outputFormat: 'line-by-line', drawFileList: true, matching: 'none' }) : '';
    renderer.send(res, h(CommitPage, { kit: renderer.kit(req), repo, commit, diffHtml, truncated: diff.truncated }));
  });

  const refList = (what: 'branches' | 'tags') => async (req: Request, res: Response) => {
    const { viewer, repo } = await loadRepo(web, req);
    const page = pageNumber(req);
    const { items, total } = await api.list(viewer, apiPath`/repos/${repo.owner.login}/${repo.name}/${what}`, { page, limit: LIST_SIZE });
    const props = { kit: renderer.kit(req), repo, page, limit: LIST_SIZE, total };
    if (what === 'branches') renderer.send(res, h(BranchesPage, { ...props, items: items as BranchJson[] }));
    else renderer.send(res, h(TagsPage, { ...props, items: items as TagJson[] }));
  };
  pages.get('/:owner/:repo/branches', refList('branches'));
  pages.get('/:owner/:repo/tags', refList('tags'));
}

/** `/commit/{sha}.diff`: the whole patch as text, streamed from git. */
async function sendRawDiff(web: WebRoutes, res: Response, gitDir: string, sha: string, parent: string | null): Promise<void> {
  const base = ['diff-tree', '-p', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--no-commit-id'];
  const proc = web.ctx.git.spawn(gitDir, parent ? [...base, parent, sha] : [...base, '--root', sha]);
  proc.stdin.end();
  proc.stderr.resume();
  res.status(200).set({ 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
  res.on('close', () => proc.kill());
  proc.stdout.pipe(res);
  await proc.exited;
}

// --- create --------------------------------------------------------------------------------------

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function formOf(body: Record<string, unknown>, fallbackUid: number): RepoForm {
  const gitignores = body.gitignores;
  const uid = Number(body.uid);
  return {
    uid: Number.isInteger(uid) && uid > 0 ? uid : fallbackUid,
    repo_name: str(body.repo_name),
    description: typeof body.description === 'string' ? body.description : '',
    private: body.private === 'on',
    template: body.template === 'on',
    auto_init: body.auto_init === 'on',
    gitignores: (Array.isArray(gitignores) ? gitignores : [gitignores]).filter((g): g is string => typeof g === 'string' && g !== ''),
    license: str(body.license),
    readme: str(body.readme) || 'Default',
    issue_labels: str(body.issue_labels),
    default_branch: str(body.default_branch),
  };
}

function createRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;

  /** The viewer, then the organizations whose repositories they may create (Gitea's CanCreateOrgRepo). */
  const owners = async (viewer: PageViewer): Promise<OwnerChoice[]> => {
    const me = viewer.user!;
    const { items } = await api.list<{ id: number; name: string; username?: string }>(viewer, '/user/orgs', { limit: 50 });
    const allowed = await Promise.all(
      items.map(async (org) => {
        const name = org.name || org.username || '';
        const permissions = await api.find(viewer, apiPath`/users/${me.name}/orgs/${name}/permissions`);
        return permissions?.can_create_repository ? { id: org.id, name } : null;
      }),
    );
    return [{ id: me.id, name: me.name }, ...allowed.filter((o): o is OwnerChoice => o !== null)];
  };

  const render = async (req: Request, res: Response, form: RepoForm, error?: string, status = 200) => {
    const viewer = viewerOf(req);
    const [choices, gitignores, licenses, labelSets] = await Promise.all([
      owners(viewer),
      api.get<string[]>(viewer, '/gitignore/templates'),
      api.get<Array<{ key: string }>>(viewer, '/licenses'),
      api.find<string[]>(viewer, '/label/templates'),
    ]);
    const props = { kit: renderer.kit(req), owners: choices, form, gitignores, licenses: licenses.map((l) => l.key), labelSets, error };
    renderer.send(res, h(RepoCreatePage, props), status);
  };

  const signInFirst = (req: Request, res: Response) => {
    if (viewerOf(req).user) return false;
    res.redirect(303, signInHref('/repo/create'));
    return true;
  };

  pages.get('/repo/create', async (req, res) => {
    if (signInFirst(req, res)) return;
    const me = viewerOf(req).user!;
    const form = formOf({ uid: req.query.org }, me.id);
    form.default_branch = String(web.ctx.forge.raw.repository?.DEFAULT_BRANCH ?? 'main');
    await render(req, res, form);
  });

  pages.post('/repo/create', async (req, res) => {
    if (signInFirst(req, res)) return;
    const viewer = viewerOf(req);
    const form = formOf(req.body ?? {}, viewer.user!.id);
    const owner = (await owners(viewer)).find((o) => o.id === form.uid);
    if (!owner) return render(req, res, form, 'You may not create repositories for that owner.', 403);
    const body = {
      name: form.repo_name,
      description: form.description,
      private: form.private,
      template: form.template,
      auto_init: form.auto_init,
      readme: form.readme,
      gitignores: form.gitignores.join(','),
      license: form.license,
      issue_labels: form.issue_labels,
      ...(form.default_branch ? { default_branch: form.default_branch } : {}),
    };
    try {
      const path = owner.id === viewer.user!.id ? '/user/repos' : apiPath`/orgs/${owner.name}/repos`;
      const created = await api.send<RepoJson>(viewer, 'post', path, body);
      res.redirect(303, repoHref(created.full_name));
    } catch (err) {
      if (isApiError(err) && err.status < 500) return render(req, res, form, err.message, err.status);
      throw err;
    }
  });
}
