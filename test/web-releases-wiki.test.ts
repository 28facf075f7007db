import type { TestServer } from './helpers/server';
import { csrfToken, textOf, WebClient, webServer, mustCall, signedInAll } from './helpers/web';

/**
 * Release and wiki pages over plain HTTP (what a browser without JavaScript does): private
 * repositories are 404 pages for strangers and anonymous visitors, readers see no edit controls
 * and their forms are refused, CSRF, stored markup rendered inert, and the forms themselves
 * (release create/edit/preview/delete, file upload and removal, wiki create/rename/delete with
 * Gitea's page-name rules, revisions).
 */
type User = { name: string; password: string; id: number };
let server: TestServer;
const users: Record<string, User> = {};
const clients: Record<string, WebClient> = {};
let token: string;

const XSS_NOTES = '<script>alert("notes")</script> and <img src=x onerror=alert("notes")>';
const XSS_TITLE = '<img src=x onerror=alert("title")>';
const XSS_FILE = '<img src=x onerror=alert(1)>.txt';
const XSS_WIKI_TITLE = '<img src=x onerror=alert("wiki")>';
const XSS_WIKI_BODY = '<script>alert("wiki body")</script>';

const must = mustCall(
  () => server,
  () => ({ token }),
);

/** A file attached to a release through the API (multipart, as a client does). */
async function apiAsset(repo: string, releaseId: number, name: string, content: string): Promise<any> {
  const form = new FormData();
  form.append('attachment', new Blob([content]), name);
  const res = await fetch(new URL(`api/v1/repos/owner/${repo}/releases/${releaseId}/assets`, server.url), {
    method: 'POST',
    headers: { Authorization: `token ${token}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`asset upload: ${res.status} ${await res.text()}`);
  return res.json();
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** No unescaped markup from user data: the attack strings appear only as text. */
function expectInert(html: string) {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toMatch(/<img[^>]*onerror/);
}

/** The upload form's action on a release's edit page (its query carries the release and the CSRF token). */
function uploadAction(html: string): string {
  const match = /action="([^"]*\/releases\/attachments\?[^"]*)"/.exec(html);
  if (!match) throw new Error('the page has no upload form');
  return match[1].replace(/&amp;/g, '&');
}

/** POST a file as the browser's multipart form does. */
async function uploadFile(client: WebClient, action: string, name: string, content: string | Buffer) {
  const form = new FormData();
  form.append('attachment', new Blob([content]), name);
  const res = await fetch(new URL(action, server.url), {
    method: 'POST',
    headers: { Accept: 'text/html', Cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    body: form,
    redirect: 'manual',
  });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

let v1: any;
let draft: any;

// Release assets limited to a list (any type by default), so the page shows a refusal.
const suite = webServer({ repository: { release: { ALLOWED_TYPES: '.txt,.zip' } } });
beforeAll(async () => {
  server = suite.server;
  for (const name of ['owner', 'writer', 'reader', 'stranger']) users[name] = await server.user(name);
  token = await server.token(users.owner, ['write:repository', 'read:user']);
  await must('POST', '/user/repos', { name: 'pub', auto_init: true, default_branch: 'main' });
  await must('POST', '/user/repos', { name: 'priv', private: true, auto_init: true, default_branch: 'main' });
  for (const repo of ['pub', 'priv']) {
    await must('PUT', `/repos/owner/${repo}/collaborators/writer`, { permission: 'write' });
    await must('PUT', `/repos/owner/${repo}/collaborators/reader`, { permission: 'read' });
  }
  v1 = await must('POST', '/repos/owner/pub/releases', { tag_name: 'v1.0', name: XSS_TITLE, body: `# Notes\n\n${XSS_NOTES}` });
  await apiAsset('pub', v1.id, XSS_FILE, 'hello asset');
  await must('POST', '/repos/owner/pub/releases', { tag_name: 'v1.1-rc', name: 'Candidate', prerelease: true });
  draft = await must('POST', '/repos/owner/pub/releases', { tag_name: 'v2.0', name: 'Unpublished plans', draft: true });
  await must('POST', '/repos/owner/priv/releases', { tag_name: 'secret-1', name: 'Secret release', body: 'hidden notes' });
  await must('POST', '/repos/owner/pub/wiki/new', {
    title: 'Home',
    content_base64: b64(`Welcome ${XSS_WIKI_BODY}\n\n[Other](Other-Page)`),
  });
  await must('POST', '/repos/owner/pub/wiki/new', { title: XSS_WIKI_TITLE, content_base64: b64('*odd name*') });
  await must('POST', '/repos/owner/pub/wiki/new', { title: '_Sidebar', content_base64: b64('Sidebar **links**') });
  await must('POST', '/repos/owner/priv/wiki/new', { title: 'Home', content_base64: b64('Secret wiki text') });
  Object.assign(clients, await signedInAll(server, users));
}, 120000);

describe('access', () => {
  test("a private repository's release and wiki pages are 404 pages for anonymous visitors and strangers", async () => {
    const anonymous = new WebClient(server);
    const paths = [
      '/owner/priv/releases',
      '/owner/priv/releases/tag/secret-1',
      '/owner/priv/releases/latest',
      '/owner/priv/releases/new',
      '/owner/priv/releases/edit/secret-1',
      '/owner/priv/wiki',
      '/owner/priv/wiki/Home',
      '/owner/priv/wiki/?action=_pages',
      '/owner/priv/wiki/Home?action=_revision',
      '/owner/priv/wiki/?action=_new',
      '/owner/priv/wiki/Home?action=_edit',
      '/owner/priv/wiki/raw/Home',
    ];
    for (const path of paths) {
      for (const client of [anonymous, clients.stranger]) {
        const res = await client.get(path);
        expect([path, res.status]).toEqual([path, 404]);
        expect(textOf(res.html)).toContain('Page not found');
        expect(res.html).not.toContain('Secret');
      }
    }
    const csrf = csrfToken((await clients.stranger.get('/')).html);
    const posts: Array<[string, Record<string, string>]> = [
      ['/owner/priv/releases/new', { tag_name: 'x1' }],
      ['/owner/priv/releases/edit/secret-1', { title: 'taken' }],
      ['/owner/priv/releases/delete', { id: '1' }],
      ['/owner/priv/wiki?action=_new', { title: 'Intruder', content: 'x' }],
      ['/owner/priv/wiki/Home?action=_edit', { title: 'Home', content: 'defaced' }],
      ['/owner/priv/wiki/Home?action=_delete', {}],
    ];
    for (const [path, fields] of posts) expect([path, (await clients.stranger.post(path, fields, { csrf })).status]).toEqual([path, 404]);
    const upload = await uploadFile(clients.stranger, `/owner/priv/releases/attachments?release_id=1&_csrf=${csrf}`, 'a.txt', 'x');
    expect(upload.status).toBe(404);
    const secret = await must('GET', '/repos/owner/priv/releases/tags/secret-1');
    expect(secret.name).toBe('Secret release');
    expect(secret.assets).toEqual([]);
    expect(Buffer.from((await must('GET', '/repos/owner/priv/wiki/page/Home')).content_base64, 'base64').toString()).toBe(
      'Secret wiki text',
    );
    // Those who may read see them.
    expect(textOf((await clients.reader.get('/owner/priv/releases')).html)).toContain('Secret release');
    expect(textOf((await clients.reader.get('/owner/priv/wiki')).html)).toContain('Secret wiki text');
  });

  test('anonymous visitors of a public repository read releases and the wiki, and are sent to sign in by the forms', async () => {
    const anonymous = new WebClient(server);
    const list = await anonymous.get('/owner/pub/releases');
    expect(list.status).toBe(200);
    expect(textOf(list.html)).toContain('Candidate');
    expect(textOf(list.html)).not.toContain('New release');
    for (const path of [
      '/owner/pub/releases/new',
      '/owner/pub/releases/edit/v1.0',
      '/owner/pub/wiki/?action=_new',
      '/owner/pub/wiki/Home?action=_edit',
    ]) {
      const res = await anonymous.get(path);
      expect([path, res.status]).toEqual([path, 303]);
      expect(res.headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);
    }
    expect((await anonymous.post('/owner/pub/releases/new', { tag_name: 'anon' }, { csrfFrom: '/user/login' })).status).toBe(401);
  });

  test('readers see no edit controls and no drafts; their forms are 403 pages and change nothing', async () => {
    const list = await clients.reader.get('/owner/pub/releases');
    const text = textOf(list.html);
    expect(text).toContain('Candidate');
    expect(text).not.toContain('Unpublished plans');
    expect(text).not.toContain('New release');
    expect(list.html).not.toContain('/releases/edit/');
    const wiki = await clients.reader.get('/owner/pub/wiki');
    expect(wiki.status).toBe(200);
    expect(textOf(wiki.html)).not.toContain('New page');
    expect(wiki.html).not.toContain('action=_edit');
    expect(textOf(wiki.html)).not.toContain('Delete this page');
    for (const path of [
      '/owner/pub/releases/new',
      '/owner/pub/releases/edit/v1.0',
      '/owner/pub/wiki/?action=_new',
      '/owner/pub/wiki/Home?action=_edit',
    ]) {
      const res = await clients.reader.get(path);
      expect([path, res.status]).toEqual([path, 403]);
      expect(textOf(res.html)).toContain('Not allowed');
    }
    const csrf = csrfToken(list.html);
    const refused = [
      await clients.reader.post('/owner/pub/releases/new', { tag_name: 'reader-tag' }, { csrf }),
      await clients.reader.post('/owner/pub/releases/edit/v1.0', { title: 'Renamed by reader' }, { csrf }),
      await clients.reader.post('/owner/pub/releases/delete', { id: String(v1.id) }, { csrf }),
      await clients.reader.post('/owner/pub/releases/attachments/remove', { release_id: String(v1.id), attachment_id: '1' }, { csrf }),
      await clients.reader.post('/owner/pub/wiki?action=_new', { title: 'Reader page', content: 'x' }, { csrf }),
      await clients.reader.post('/owner/pub/wiki/Home?action=_edit', { title: 'Home', content: 'defaced' }, { csrf }),
      await clients.reader.post('/owner/pub/wiki/Home?action=_delete', {}, { csrf }),
      await uploadFile(clients.reader, `/owner/pub/releases/attachments?release_id=${v1.id}&_csrf=${csrf}`, 'r.txt', 'x'),
    ];
    for (const res of refused) expect(res.status).toBe(403);
    const after = await must('GET', `/repos/owner/pub/releases/${v1.id}`);
    expect(after.name).toBe(XSS_TITLE);
    expect(after.assets).toHaveLength(1);
    expect((await must('GET', '/repos/owner/pub/wiki/pages')).map((p: { title: string }) => p.title).sort()).toEqual(
      [XSS_WIKI_TITLE, 'Home', '_Sidebar'].sort(),
    );
  });

  test('forms without the CSRF token, or with another session’s, are refused', async () => {
    const other = csrfToken((await clients.reader.get('/owner/pub/releases')).html);
    expect((await clients.writer.post('/owner/pub/releases/new', { tag_name: 'no-token' }, { csrf: null })).status).toBe(403);
    expect((await clients.writer.post('/owner/pub/releases/new', { tag_name: 'foreign' }, { csrf: other })).status).toBe(403);
    expect((await clients.writer.post('/owner/pub/wiki?action=_new', { title: 'No token', content: 'x' }, { csrf: null })).status).toBe(
      403,
    );
    expect((await clients.writer.post('/owner/pub/releases/delete', { id: String(v1.id) }, { csrf: other })).status).toBe(403);
    const noToken = await uploadFile(clients.writer, `/owner/pub/releases/attachments?release_id=${v1.id}`, 'n.txt', 'x');
    expect(noToken.status).toBe(403);
    const foreign = await uploadFile(clients.writer, `/owner/pub/releases/attachments?release_id=${v1.id}&_csrf=${other}`, 'f.txt', 'x');
    expect(foreign.status).toBe(403);
    expect((await must('GET', `/repos/owner/pub/releases/${v1.id}`)).assets).toHaveLength(1);
    expect((await server.api('GET', '/repos/owner/pub/releases/tags/no-token', { token })).status).toBe(404);
    expect((await server.api('GET', '/repos/owner/pub/wiki/page/No-token', { token })).status).toBe(404);
  });
});

describe('releases', () => {
  test('the list marks the latest release and pre-releases, renders notes as markdown, shows files, and drafts to writers', async () => {
    const res = await clients.writer.get('/owner/pub/releases');
    expect(res.status).toBe(200);
    expectInert(res.html);
    const text = textOf(res.html);
    expect(text).toContain(XSS_TITLE);
    expect(text).toContain('Latest');
    expect(text).toContain('Pre-release');
    expect(text).toContain('Unpublished plans');
    expect(text).toContain('Draft');
    expect(text).toContain('New release');
    expect(res.html).toMatch(/<h1[^>]*>Notes<\/h1>/);
    expect(text).toContain(XSS_FILE);
    expect(text).toContain('11 B');
    const asset = (await must('GET', `/repos/owner/pub/releases/${v1.id}`)).assets[0];
    expect(res.html).toContain(`href="${asset.browser_download_url}"`);
    // Source archives at the page URL; the API's own download serves the same archive.
    expect(res.html).toContain('href="/owner/pub/archive/v1.0.zip"');
    expect(res.html).toContain('href="/owner/pub/archive/v1.0.tar.gz"');
    const zip = await fetch(new URL('/api/v1/repos/owner/pub/archive/v1.0.zip', server.url));
    expect(zip.status).toBe(200);
    expect(
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');
    // The latest mark sits on v1.0 (neither draft nor pre-release).
    const card = res.html.slice(res.html.indexOf(`id="release-${v1.id}"`));
    expect(card.slice(0, card.indexOf('</header>'))).toContain('Latest');
    // Repository header tabs.
    expect(res.html).toMatch(/<a href="\/owner\/pub\/releases" aria-current="page">/);
    expect(res.html).toContain('href="/owner/pub/wiki"');
  });

  test("a private repository's source archive downloads from the page for readers, 404 for others; /api ignores the session", async () => {
    const page = await clients.owner.get('/owner/priv/releases');
    expect(page.html).toContain('href="/owner/priv/archive/secret-1.zip"');
    for (const reader of [clients.owner, clients.reader]) {
      const zip = await reader.download('/owner/priv/archive/secret-1.zip');
      expect(zip.status).toBe(200);
      expect(zip.headers.get('content-type')).toBe('application/zip');
      expect(zip.headers.get('content-disposition')).toContain('priv-secret-1.zip');
      expect(zip.body.subarray(0, 2).toString()).toBe('PK');
    }
    const tarGz = await clients.owner.download('/owner/priv/archive/main.tar.gz');
    expect(tarGz.status).toBe(200);
    expect([...tarGz.body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect((await clients.stranger.download('/owner/priv/archive/secret-1.zip')).status).toBe(404);
    expect((await new WebClient(server).download('/owner/priv/archive/secret-1.zip')).status).toBe(404);
    expect((await clients.owner.download('/owner/priv/archive/no-such-ref.zip')).status).toBe(404);
    expect((await clients.owner.download('/owner/priv/archive/secret-1.rar')).status).toBe(400);
    // The session is no credential for the API: its archive operation does not see the owner.
    expect((await clients.owner.download('/api/v1/repos/owner/priv/archive/secret-1.zip')).status).toBe(404);
  });

  test('one release at /releases/tag/{tag}, /releases/latest redirects to it, and a draft is only for writers', async () => {
    const one = await clients.reader.get('/owner/pub/releases/tag/v1.0');
    expect(one.status).toBe(200);
    expectInert(one.html);
    expect(textOf(one.html)).toContain(XSS_TITLE);
    const latest = await clients.reader.get('/owner/pub/releases/latest');
    expect(latest.status).toBe(303);
    expect(latest.headers.get('location')).toBe('/owner/pub/releases/tag/v1.0');
    expect((await clients.reader.get('/owner/pub/releases/tag/v2.0')).status).toBe(404);
    expect((await clients.writer.get('/owner/pub/releases/tag/v2.0')).status).toBe(200);
    expect((await clients.writer.get('/owner/pub/releases/tag/nope')).status).toBe(404);
  });

  test('a writer creates a release (preview first), attaches a file, downloads it, removes it and deletes the release', async () => {
    const form = await clients.writer.get('/owner/pub/releases/new');
    expect(form.status).toBe(200);
    expect(textOf(form.html)).toContain('main');
    const csrf = csrfToken(form.html);
    const fields = { tag_name: 'v3.0', tag_target: 'main', title: 'Third', content: 'Some **bold** notes', prerelease: 'on' };
    const preview = await clients.writer.post('/owner/pub/releases/new', { ...fields, preview: '1' }, { csrf });
    expect(preview.status).toBe(200);
    expect(preview.html).toContain('<strong>bold</strong>');
    expect(preview.html).toContain('value="v3.0"');
    expect((await server.api('GET', '/repos/owner/pub/releases/tags/v3.0', { token })).status).toBe(404);
    const created = await clients.writer.post('/owner/pub/releases/new', fields, { csrf });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/owner/pub/releases/edit/v3.0?created=1#assets');
    const release = await must('GET', '/repos/owner/pub/releases/tags/v3.0');
    expect(release).toMatchObject({ name: 'Third', prerelease: true, draft: false, target_commitish: 'main' });
    // A taken tag comes back with the API's message and the values kept.
    const taken = await clients.writer.post('/owner/pub/releases/new', { ...fields, title: 'Again' }, { csrf });
    expect(taken.status).toBe(422);
    expect(textOf(taken.html)).toContain('release already exists');
    expect(taken.html).toContain('value="Again"');

    const edit = await clients.writer.get('/owner/pub/releases/edit/v3.0?created=1');
    expect(textOf(edit.html)).toContain('The release was saved');
    const uploaded = await uploadFile(clients.writer, uploadAction(edit.html), 'notes.txt', 'the bytes of a file');
    expect(uploaded.status).toBe(303);
    expect(uploaded.headers.get('location')).toBe('/owner/pub/releases/edit/v3.0?uploaded=1#assets');
    const [asset] = (await must('GET', `/repos/owner/pub/releases/${release.id}`)).assets;
    expect(asset).toMatchObject({ name: 'notes.txt', size: 19 });
    const download = await fetch(asset.browser_download_url);
    expect(Buffer.from(await download.arrayBuffer()).toString()).toBe('the bytes of a file');
    // A file type repository.release.ALLOWED_TYPES refuses: the API's message on the edit page, nothing stored.
    const refused = await uploadFile(clients.writer, uploadAction(edit.html), 'program.exe', 'MZ');
    expect(refused.status).toBe(422);
    expect(textOf(refused.html)).toContain('this file type is not allowed');
    expect((await must('GET', `/repos/owner/pub/releases/${release.id}`)).assets).toHaveLength(1);

    const page = await clients.writer.get('/owner/pub/releases/edit/v3.0');
    expect(textOf(page.html)).toContain('notes.txt');
    const removed = await clients.writer.post(
      '/owner/pub/releases/attachments/remove',
      { release_id: String(release.id), attachment_id: String(asset.id) },
      { csrf },
    );
    expect(removed.status).toBe(303);
    expect((await must('GET', `/repos/owner/pub/releases/${release.id}`)).assets).toEqual([]);

    const saved = await clients.writer.post('/owner/pub/releases/edit/v3.0', { title: 'Third, final', content: 'Done' }, { csrf });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/owner/pub/releases/tag/v3.0?saved=1');
    expect(await must('GET', `/repos/owner/pub/releases/${release.id}`)).toMatchObject({
      name: 'Third, final',
      prerelease: false,
      draft: false,
    });
    expect(textOf((await clients.writer.get('/owner/pub/releases/edit/v3.0')).html)).toContain('Yes, delete this release');
    const deleted = await clients.writer.post('/owner/pub/releases/delete', { id: String(release.id) }, { csrf });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/owner/pub/releases?deleted=1');
    expect((await server.api('GET', `/repos/owner/pub/releases/${release.id}`, { token })).status).toBe(404);
    expect(textOf((await clients.writer.get('/owner/pub/releases?deleted=1')).html)).toContain('The release was deleted');
  });

  test('publishing a draft through the edit form', async () => {
    const edit = await clients.writer.get('/owner/pub/releases/edit/v2.0');
    expect(textOf(edit.html)).toContain('Save draft');
    const res = await clients.writer.post(
      '/owner/pub/releases/edit/v2.0',
      { tag_name: 'v2.0', tag_target: 'main', title: 'Now public' },
      { csrf: csrfToken(edit.html) },
    );
    expect(res.status).toBe(303);
    expect(await must('GET', `/repos/owner/pub/releases/${draft.id}`)).toMatchObject({ draft: false, name: 'Now public' });
    expect(textOf((await clients.reader.get('/owner/pub/releases')).html)).toContain('Now public');
  });
});

describe('wiki', () => {
  test('Home renders with its sidebar; stored markup is inert in page names and content', async () => {
    const home = await clients.reader.get('/owner/pub/wiki');
    expect(home.status).toBe(200);
    expectInert(home.html);
    expect(textOf(home.html)).toContain(XSS_WIKI_BODY);
    expect(home.html).toContain('href="http');
    expect(home.html).toMatch(/href="[^"]*\/owner\/pub\/wiki\/Other-Page"/);
    expect(home.html).toContain('<strong>links</strong>');
    expect(home.html).toMatch(/<a href="\/owner\/pub\/wiki" aria-current="page">/);
    const list = await clients.reader.get('/owner/pub/wiki/?action=_pages');
    expectInert(list.html);
    expect(textOf(list.html)).toContain(XSS_WIKI_TITLE);
    const legacy = await clients.reader.get('/owner/pub/wiki/_pages');
    expect(textOf(legacy.html)).toContain(XSS_WIKI_TITLE);
    const meta = (await must('GET', '/repos/owner/pub/wiki/pages')).find((p: { title: string }) => p.title === XSS_WIKI_TITLE);
    const odd = await clients.reader.get(`/owner/pub/wiki/${meta.sub_url}`);
    expect(odd.status).toBe(200);
    expectInert(odd.html);
    expect(odd.html).toContain('<em>odd name</em>');
    const raw = await clients.reader.get('/owner/pub/wiki/raw/Home');
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(raw.html).toContain(XSS_WIKI_BODY);
    expect((await clients.reader.get('/owner/pub/wiki/Missing-Page')).status).toBe(404);
  });

  test('a writer creates a page (preview first), edits and renames it, sees its revisions, and deletes it', async () => {
    const form = await clients.writer.get('/owner/pub/wiki/?action=_new');
    expect(form.status).toBe(200);
    const csrf = csrfToken(form.html);
    const preview = await clients.writer.post(
      '/owner/pub/wiki?action=_new',
      { title: 'Guide', content: 'A *guide*', preview: '1' },
      { csrf },
    );
    expect(preview.status).toBe(200);
    expect(preview.html).toContain('<em>guide</em>');
    expect((await server.api('GET', '/repos/owner/pub/wiki/page/Guide', { token })).status).toBe(404);
    const created = await clients.writer.post('/owner/pub/wiki?action=_new', { title: 'Guide', content: 'A *guide*' }, { csrf });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/owner/pub/wiki/Guide?saved=1');
    // Gitea's page-name rules, from the API: reserved and taken names come back with the text kept.
    for (const [title, message] of [
      ['_pages', 'reserved'],
      ['Guide', 'already exists'],
      ['a/b', 'cannot contain'],
    ]) {
      const res = await clients.writer.post('/owner/pub/wiki?action=_new', { title, content: 'kept text' }, { csrf });
      expect([title, res.status]).toEqual([title, 422]);
      expect(textOf(res.html)).toContain(message);
      expect(res.html).toContain('kept text');
    }
    const edit = await clients.writer.get('/owner/pub/wiki/Guide?action=_edit');
    expect(edit.status).toBe(200);
    expect(edit.html).toContain('A *guide*');
    const edited = await clients.writer.post(
      '/owner/pub/wiki/Guide?action=_edit',
      { title: 'Guide', content: 'The *new* guide', message: 'Rewrite the guide' },
      { csrf },
    );
    expect(edited.status).toBe(303);
    const page = await clients.writer.get(edited.headers.get('location')!);
    expect(page.html).toContain('<em>new</em>');
    expect(textOf(page.html)).toContain('2 revisions');
    const revisions = await clients.writer.get('/owner/pub/wiki/Guide?action=_revision');
    expect(revisions.status).toBe(200);
    const text = textOf(revisions.html);
    expect(text).toContain('Rewrite the guide');
    expect(text).toContain("Add 'Guide'");
    expect(text).toContain('2 revisions');
    // A title with a dash keeps its spaces behind Gitea's `.-` marker.
    const renamed = await clients.writer.post(
      '/owner/pub/wiki/Guide?action=_edit',
      { title: 'User-Guide v2', content: 'Renamed' },
      { csrf },
    );
    expect(renamed.status).toBe(303);
    const location = renamed.headers.get('location')!;
    expect(location).toBe('/owner/pub/wiki/User-Guide%20v2.-?saved=1');
    expect(textOf((await clients.writer.get(location)).html)).toContain('User-Guide v2');
    const legacy = await clients.writer.get('/owner/pub/wiki/Home/_history');
    expect(legacy.status).toBe(301);
    expect(legacy.headers.get('location')).toBe('/owner/pub/wiki/Home?action=_revision');
    const deleted = await clients.writer.post('/owner/pub/wiki/.-User-Guide%20v2?action=_delete', {}, { csrf });
    expect(deleted.status).toBe(303);
    expect((await server.api('GET', '/repos/owner/pub/wiki/page/.-User-Guide%20v2', { token })).status).toBe(404);
  });

  test('a wiki without pages shows the start page; a switched-off wiki is a 404 page without a tab', async () => {
    await must('POST', '/user/repos', { name: 'nowiki', auto_init: true });
    const start = await clients.owner.get('/owner/nowiki/wiki');
    expect(start.status).toBe(200);
    expect(textOf(start.html)).toContain('Create the first page');
    expect(textOf((await clients.reader.get('/owner/nowiki/wiki')).html)).toContain('Welcome to the wiki');
    await must('PATCH', '/repos/owner/nowiki', { has_wiki: false, has_releases: false });
    expect((await clients.owner.get('/owner/nowiki/wiki')).status).toBe(404);
    expect((await clients.owner.get('/owner/nowiki/releases')).status).toBe(404);
    const home = await clients.owner.get('/owner/nowiki');
    expect(home.html).not.toContain('href="/owner/nowiki/wiki"');
    expect(home.html).not.toContain('href="/owner/nowiki/releases"');
  });
});
