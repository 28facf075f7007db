import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { moveWiki, removeWiki, wikiDirOf } from '../plugins/wiki/src/wiki-store';
import { fileOf, subUrlOf, titleFromParam, titleOfFile, titlesFromParam } from '../plugins/wiki/src/wiki-names';

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let carol: { name: string; password: string; id: number };
let aliceToken: string;
let aliceReadToken: string;
let bobToken: string;
let carolToken: string;
let sandbox: ReturnType<typeof gitSandbox>;

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const wikiDir = (repo: string, owner = 'alice') => path.join(server.dataDir, 'repositories', owner, `${repo.toLowerCase()}.wiki.git`);

const newPage = (repo: string, body: Record<string, unknown>, token = aliceToken) =>
  server.api('POST', `/repos/alice/${repo}/wiki/new`, { token, body });
const getPage = (repo: string, name: string, token: string | null = aliceToken) =>
  server.api('GET', `/repos/alice/${repo}/wiki/page/${name}`, { token: token ?? undefined });
const gitLog = async (repo: string, args: string[] = []) =>
  (await sandbox.git(['--git-dir', wikiDir(repo), 'log', '--format=%an <%ae>|%cn <%ce>|%s', ...args])).stdout.trim().split('\n');
const lsFiles = async (repo: string) =>
  (await sandbox.git(['--git-dir', wikiDir(repo), 'ls-tree', '--name-only', 'HEAD'])).stdout.trim().split('\n');

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  carol = await server.user('carol');
  aliceToken = await server.token(alice, ['write:repository', 'delete:repository', 'write:user']);
  aliceReadToken = await server.token(alice, ['read:repository']);
  bobToken = await server.token(bob, ['write:repository']);
  carolToken = await server.token(carol, ['write:repository']);
  const named = await server.api('PATCH', '/admin/users/alice', {
    basic: [ADMIN.name, ADMIN.password],
    body: { login_name: 'alice', source_id: 0, full_name: 'Alice Liddell' },
  });
  expect(named.status).toBe(200);
  for (const body of [{ name: 'notes' }, { name: 'names' }, { name: 'secret', private: true }, { name: 'nowiki' }, { name: 'perm' }]) {
    expect((await server.api('POST', '/user/repos', { token: aliceToken, body })).status).toBe(201);
  }
  sandbox = gitSandbox();
});
afterAll(async () => {
  sandbox?.cleanup();
  await server.close();
});

describe('wiki pages through the API', () => {
  test('no wiki yet: listing and reading are 404, nothing is created on disk', async () => {
    expect((await server.api('GET', '/repos/alice/notes/wiki/pages', { token: aliceToken })).status).toBe(404);
    expect((await getPage('notes', 'Home')).status).toBe(404);
    expect(fs.existsSync(wikiDir('notes'))).toBe(false);
  });

  test('creating the first page creates the bare wiki repository beside the code and one commit by the user', async () => {
    const res = await newPage('notes', { title: 'Home', content_base64: b64('# Welcome\n') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Home',
      sub_url: 'Home',
      html_url: `${server.url}alice/notes/wiki/Home`,
      commit_count: 1,
      content_base64: b64('# Welcome\n'),
      sidebar: '',
      footer: '',
      last_commit: {
        author: { name: 'Alice Liddell', email: 'alice@example.com' },
        commiter: { name: 'Alice Liddell', email: 'alice@example.com' },
        message: "Add 'Home'\n",
      },
    });
    expect(res.body.last_commit.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body.last_commit.author.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(fs.existsSync(path.join(wikiDir('notes'), 'HEAD'))).toBe(true);
    expect(fs.existsSync(path.join(wikiDir('notes'), 'hooks', 'pre-receive'))).toBe(true);
    expect(await lsFiles('notes')).toEqual(['Home.md']);
    expect(await gitLog('notes')).toEqual(["Alice Liddell <alice@example.com>|Alice Liddell <alice@example.com>|Add 'Home'"]);
    const head = await sandbox.git(['--git-dir', wikiDir('notes'), 'symbolic-ref', 'HEAD']);
    expect(head.stdout.trim()).toBe('refs/heads/main');
  });

  test('create, list (paged), read, edit, rename, delete and revisions', async () => {
    expect((await newPage('notes', { title: 'Some Page', content_base64: b64('one'), message: 'first words' })).status).toBe(201);
    expect((await newPage('notes', { title: 'Other', content_base64: b64('other') })).status).toBe(201);
    expect((await newPage('notes', { title: 'Other', content_base64: b64('again') })).status).toBe(400); // exists (Gitea: 400)

    const list = await server.api('GET', '/repos/alice/notes/wiki/pages?limit=2&page=1', { token: aliceToken });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('3');
    expect(list.body).toHaveLength(2);
    const all = await server.api('GET', '/repos/alice/notes/wiki/pages', { token: aliceToken });
    expect(all.body.map((p: { title: string }) => p.title)).toEqual(['Home', 'Other', 'Some Page']);
    const some = all.body.find((p: { title: string }) => p.title === 'Some Page');
    expect(some).toMatchObject({
      sub_url: 'Some-Page',
      html_url: `${server.url}alice/notes/wiki/Some-Page`,
      last_commit: { message: 'first words\n' },
    });
    expect(Object.keys(some).sort()).toEqual(['html_url', 'last_commit', 'sub_url', 'title']);

    const read = await getPage('notes', 'Some-Page');
    expect(read.status).toBe(200);
    expect(unb64(read.body.content_base64)).toBe('one');

    const edit = await server.api('PATCH', '/repos/alice/notes/wiki/page/Some-Page', {
      token: aliceToken,
      body: { content_base64: b64('two') },
    });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ title: 'Some Page', commit_count: 2, last_commit: { message: "Update 'Some Page'\n" } });
    expect(unb64(edit.body.content_base64)).toBe('two');

    // Renaming through title keeps the text when content_base64 is absent: one commit.
    const renamed = await server.api('PATCH', '/repos/alice/notes/wiki/page/Some-Page', {
      token: aliceToken,
      body: { title: 'Renamed Page' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      title: 'Renamed Page',
      sub_url: 'Renamed-Page',
      last_commit: { message: "Update 'Renamed Page'\n" },
    });
    expect(unb64(renamed.body.content_base64)).toBe('two');
    expect((await getPage('notes', 'Some-Page')).status).toBe(404);
    expect(await lsFiles('notes')).toEqual(['Home.md', 'Other.md', 'Renamed-Page.md']);
    // Renaming onto an existing page is refused; editing a missing page is 404.
    expect(
      (await server.api('PATCH', '/repos/alice/notes/wiki/page/Renamed-Page', { token: aliceToken, body: { title: 'Other' } })).status,
    ).toBe(400);
    expect(
      (await server.api('PATCH', '/repos/alice/notes/wiki/page/Missing', { token: aliceToken, body: { content_base64: b64('x') } })).status,
    ).toBe(404);

    // Revisions of the page at its current name, newest first, paged.
    await server.api('PATCH', '/repos/alice/notes/wiki/page/Other', {
      token: aliceToken,
      body: { content_base64: b64('other 2'), message: 'second' },
    });
    const revs = await server.api('GET', '/repos/alice/notes/wiki/revisions/Other', { token: aliceToken });
    expect(revs.status).toBe(200);
    expect(revs.body.count).toBe(2);
    expect(revs.body.commits.map((c: { message: string }) => c.message)).toEqual(['second\n', "Add 'Other'\n"]);
    expect(revs.body.commits[0]).toMatchObject({
      author: { name: 'Alice Liddell', email: 'alice@example.com' },
      commiter: { name: 'Alice Liddell' },
    });
    const page2 = await server.api('GET', '/repos/alice/notes/wiki/revisions/Other?page=2&limit=1', { token: aliceToken });
    expect(page2.body).toMatchObject({ count: 2, commits: [{ message: "Add 'Other'\n" }] });
    expect((await server.api('GET', '/repos/alice/notes/wiki/revisions/Nope', { token: aliceToken })).status).toBe(404);

    const del = await server.api('DELETE', '/repos/alice/notes/wiki/page/Other', { token: aliceToken });
    expect(del.status).toBe(204);
    expect((await getPage('notes', 'Other')).status).toBe(404);
    expect((await server.api('DELETE', '/repos/alice/notes/wiki/page/Other', { token: aliceToken })).status).toBe(404);
    expect((await gitLog('notes', ['-1']))[0]).toBe("Alice Liddell <alice@example.com>|Alice Liddell <alice@example.com>|Delete 'Other'");
    expect(await gitLog('notes')).toHaveLength(7); // one commit per successful change, none for refused ones
  });

  test('_Sidebar and _Footer come with every page, base64 encoded', async () => {
    expect((await newPage('notes', { title: '_Sidebar', content_base64: b64('side') })).status).toBe(201);
    expect((await newPage('notes', { title: '_Footer', content_base64: b64('foot') })).status).toBe(201);
    const home = await getPage('notes', 'Home');
    expect(unb64(home.body.sidebar)).toBe('side');
    expect(unb64(home.body.footer)).toBe('foot');
    expect(await lsFiles('notes')).toEqual(expect.arrayContaining(['_Sidebar.md', '_Footer.md']));
  });

  test('concurrent creates of different pages all land, one commit each', async () => {
    const results = await Promise.all(['C1', 'C2', 'C3', 'C4'].map((t) => newPage('notes', { title: t, content_base64: b64(t) })));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(await lsFiles('notes')).toEqual(expect.arrayContaining(['C1.md', 'C2.md', 'C3.md', 'C4.md']));
  });
});

describe('page names', () => {
  test('mapping functions: spaces ↔ dashes, dash marker, percent escapes, legacy %2F', () => {
    expect(fileOf('Some Page')).toBe('Some-Page.md');
    expect(fileOf('a-b c')).toBe('a-b c.-.md');
    expect(subUrlOf('a-b c')).toBe('a-b%20c.-');
    expect(titleOfFile('2000-01-02 meeting.-.md')).toBe('2000-01-02 meeting'); // Gitea 1.20's file
    expect(titleOfFile('.-a-b c.md')).toBe('a-b c'); // an earlier Hearth's prefix marker
    expect(titlesFromParam('a-b c')).toEqual(['a b c', 'a-b c']);
    expect(titlesFromParam('a-b%20c.-')[0]).toBe('a-b c');
    expect(fileOf('What?')).toBe('What%3F.md');
    expect(fileOf('C++')).toBe('C++.md');
    for (const t of ['Some Page', 'a-b c', '-', 'What? 100%', 'café', 'x.md', '.-odd', 'A/B', 'C++']) {
      expect(titleOfFile(fileOf(t))).toBe(t);
      expect(titleFromParam(decodeURIComponent(subUrlOf(t)))).toBe(t);
    }
    expect(titleOfFile('A%2FB.md')).toBe('A/B');
    expect(titleOfFile('notes.txt')).toBeNull();
    expect(titleOfFile('bad%zz.md')).toBeNull();
  });

  test('a title with spaces is stored with dashes and read by its sub_url', async () => {
    const res = await newPage('names', { title: 'Getting Started', content_base64: b64('go') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'Getting Started', sub_url: 'Getting-Started' });
    expect(await lsFiles('names')).toEqual(['Getting-Started.md']);
    expect((await getPage('names', 'Getting-Started')).body.title).toBe('Getting Started');
    expect((await getPage('names', 'Getting%20Started')).body.title).toBe('Getting Started');
  });

  test('dashes in titles are allowed and round-trip (Gitea 1.20 dash marker suffix ".-")', async () => {
    const res = await newPage('names', { title: 'how-to use it', content_base64: b64('dash') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'how-to use it', sub_url: 'how-to%20use%20it.-' });
    expect(await lsFiles('names')).toContain('how-to use it.-.md');
    const read = await getPage('names', res.body.sub_url);
    expect(read.status).toBe(200);
    expect(read.body.title).toBe('how-to use it');
    // The same title without the dash is another page.
    expect((await newPage('names', { title: 'how to use it', content_base64: b64('spaces') })).status).toBe(201);
    expect(unb64((await getPage('names', 'how-to-use-it')).body.content_base64)).toBe('spaces');
    expect(unb64((await getPage('names', encodeURIComponent('how-to use it.-'))).body.content_base64)).toBe('dash');
    const titles = (await server.api('GET', '/repos/alice/names/wiki/pages', { token: aliceToken })).body.map(
      (p: { title: string }) => p.title,
    );
    expect(titles).toEqual(expect.arrayContaining(['how-to use it', 'how to use it']));
  });

  test('a page whose title has dashes is read back, edited and deleted by that title', async () => {
    const res = await newPage('names', { title: 'a-b c', content_base64: b64('abc') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'a-b c', sub_url: 'a-b%20c.-' });
    const byTitle = await getPage('names', encodeURIComponent('a-b c'));
    expect(byTitle.status).toBe(200);
    expect(byTitle.body).toMatchObject({ title: 'a-b c', sub_url: 'a-b%20c.-' });
    expect(unb64(byTitle.body.content_base64)).toBe('abc');
    expect((await getPage('names', encodeURIComponent('a-b c.-'))).body.title).toBe('a-b c');
    const revisions = await server.api('GET', `/repos/alice/names/wiki/revisions/${encodeURIComponent('a-b c')}`, { token: aliceToken });
    expect(revisions.status).toBe(200);
    expect(revisions.body.count).toBe(1);
    const edited = await server.api('PATCH', `/repos/alice/names/wiki/page/${encodeURIComponent('a-b c')}`, {
      token: aliceToken,
      body: { content_base64: b64('abc 2') },
    });
    expect(edited.status).toBe(200);
    expect(unb64(edited.body.content_base64)).toBe('abc 2');
    // A page whose web path reads as that name comes first: `x-y` is the page `x y` when it exists.
    expect((await newPage('names', { title: 'x y', content_base64: b64('spaces') })).status).toBe(201);
    expect((await newPage('names', { title: 'x-y', content_base64: b64('dash') })).status).toBe(201);
    expect(unb64((await getPage('names', 'x-y')).body.content_base64)).toBe('spaces');
    expect(unb64((await getPage('names', 'x-y.-')).body.content_base64)).toBe('dash');
    expect((await server.api('DELETE', `/repos/alice/names/wiki/page/${encodeURIComponent('a-b c')}`, { token: aliceToken })).status).toBe(
      204,
    );
    expect(await lsFiles('names')).not.toContain('a-b c.-.md');
    expect((await getPage('names', encodeURIComponent('a-b c'))).status).toBe(404);
  });

  test('leading spaces before a dashed title: trimmed, never a 500', async () => {
    const res = await newPage('names', { title: '  -lead-in x', content_base64: b64('x') });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('-lead-in x');
    expect((await getPage('names', encodeURIComponent('  -lead-in x'))).status).toBe(200);
    expect((await getPage('names', encodeURIComponent('  -lead-in x.-'))).status).toBe(200);
    expect((await getPage('names', encodeURIComponent('  -nothing'))).status).toBe(404);
  });

  test('leading and trailing spaces are trimmed, never a 500', async () => {
    const res = await newPage('names', { title: '   Leading Spaces  ', content_base64: b64('lead') });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('Leading Spaces');
    expect(await lsFiles('names')).toContain('Leading-Spaces.md');
    expect((await getPage('names', '%20%20Leading-Spaces')).status).toBe(200);
    expect((await getPage('names', '%20%20')).status).toBe(404);
    expect((await newPage('names', { title: '   ', content_base64: b64('x') })).status).toBe(400);
    expect((await newPage('names', { title: '', content_base64: b64('x') })).status).toBe(400);
    expect((await newPage('names', { content_base64: b64('x') })).status).toBe(400);
  });

  test("'/' is refused with a clear 422: sub-directories are not supported", async () => {
    const res = await newPage('names', { title: 'dir/page', content_base64: b64('x') });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/sub-directories are not supported/);
    const rename = await server.api('PATCH', '/repos/alice/names/wiki/page/Getting-Started', { token: aliceToken, body: { title: 'a/b' } });
    expect(rename.status).toBe(422);
  });

  test("'..', control characters and reserved names are 4xx; nothing is written", async () => {
    const before = await gitLog('names');
    for (const title of ['..', '../escape', 'a..b', 'tab\there', 'nul\u0000x', 'bell\u0007']) {
      const res = await newPage('names', { title, content_base64: b64('x') });
      expect(res.status).toBe(422);
    }
    for (const title of ['_pages', '_new', '_edit', 'raw'])
      expect((await newPage('names', { title, content_base64: b64('x') })).status).toBe(400);
    expect((await newPage('names', { title: 'bad64', content_base64: '!!!' })).status).toBe(422);
    for (const name of ['..', '%2E%2E', 'a%00b', '%2E%2E%2Fnames.git%2Fconfig']) {
      const res = await getPage('names', name);
      expect([404, 422]).toContain(res.status);
    }
    expect((await server.api('DELETE', '/repos/alice/names/wiki/page/%2E%2E%2FHEAD', { token: aliceToken })).status).toBe(422);
    expect(await gitLog('names')).toEqual(before);
  });

  test('a legacy page file with an encoded slash (pushed by git) is listed as "A/B", readable, editable and deletable', async () => {
    const work = path.join(sandbox.dir, 'legacy');
    expect((await sandbox.git(['clone', '-q', wikiDir('names'), work])).status).toBe(0);
    fs.writeFileSync(path.join(work, 'A%2FB.md'), 'legacy');
    fs.mkdirSync(path.join(work, 'sub'));
    fs.writeFileSync(path.join(work, 'sub', 'Nested.md'), 'nested');
    fs.writeFileSync(path.join(work, 'image.png'), 'png');
    fs.writeFileSync(path.join(work, '2000-01-02 meeting.-.md'), 'from gitea');
    fs.writeFileSync(path.join(work, '.-old-style page.md'), 'from an earlier hearth');
    expect((await sandbox.git(['add', '.'], work)).status).toBe(0);
    expect((await sandbox.git(['commit', '-q', '-m', 'legacy page'], work)).status).toBe(0);
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:main'], work)).status).toBe(0);

    const list = await server.api('GET', '/repos/alice/names/wiki/pages?limit=50', { token: aliceToken });
    const legacy = list.body.find((p: { title: string }) => p.title === 'A/B');
    expect(legacy).toMatchObject({ sub_url: 'A%2FB', last_commit: { message: 'legacy page\n', author: { name: 'Tester' } } });
    expect(list.body.map((p: { title: string }) => p.title)).not.toContain('Nested');
    expect(list.body.map((p: { title: string }) => p.title)).not.toContain('image.png');
    expect(list.body.find((p: { title: string }) => p.title === '2000-01-02 meeting')).toMatchObject({ sub_url: '2000-01-02%20meeting.-' });
    expect(unb64((await getPage('names', encodeURIComponent('2000-01-02 meeting'))).body.content_base64)).toBe('from gitea');
    expect(unb64((await getPage('names', encodeURIComponent('2000-01-02 meeting.-'))).body.content_base64)).toBe('from gitea');
    const oldStyle = await getPage('names', encodeURIComponent('old-style page'));
    expect(oldStyle.body).toMatchObject({ title: 'old-style page', sub_url: 'old-style%20page.-' });
    expect(unb64(oldStyle.body.content_base64)).toBe('from an earlier hearth');
    const read = await getPage('names', 'A%2FB');
    expect(read.status).toBe(200);
    expect(unb64(read.body.content_base64)).toBe('legacy');
    expect((await getPage('names', 'A%252FB')).status).toBe(200); // the sub_url escaped once more
    const edit = await server.api('PATCH', '/repos/alice/names/wiki/page/A%2FB', {
      token: aliceToken,
      body: { content_base64: b64('kept') },
    });
    expect(edit.status).toBe(200);
    expect(await lsFiles('names')).toEqual(expect.arrayContaining(['A%2FB.md', 'sub', 'image.png']));
    expect((await newPage('names', { title: 'A/B', content_base64: b64('x') })).status).toBe(422);
    expect((await server.api('DELETE', '/repos/alice/names/wiki/page/A%2FB', { token: aliceToken })).status).toBe(204);
    expect(await lsFiles('names')).not.toContain('A%2FB.md');
    expect(await lsFiles('names')).toContain('sub'); // a sub-tree a push added is kept as it is
  });
});

describe('a wiki pushed on another branch', () => {
  test("a wiki whose HEAD branch does not exist is read and written on 'master' (Gitea 1.20's wiki branch)", async () => {
    expect((await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'oldwiki' } })).status).toBe(201);
    expect((await sandbox.git(['init', '-q', '--bare', '--initial-branch=main', wikiDir('oldwiki')])).status).toBe(0);
    const work = path.join(sandbox.dir, 'oldwiki');
    expect((await sandbox.git(['init', '-q', '--initial-branch=master', work])).status).toBe(0);
    fs.writeFileSync(path.join(work, 'Home.md'), 'from gitea');
    await sandbox.git(['add', '.'], work);
    await sandbox.git(['commit', '-q', '-m', 'imported'], work);
    expect((await sandbox.git(['push', '-q', wikiDir('oldwiki'), 'master'], work)).status).toBe(0);
    expect(unb64((await getPage('oldwiki', 'Home')).body.content_base64)).toBe('from gitea');
    expect((await newPage('oldwiki', { title: 'Next', content_base64: b64('n') })).status).toBe(201);
    const log = await sandbox.git(['--git-dir', wikiDir('oldwiki'), 'log', '--format=%s', 'master']);
    expect(log.stdout.trim().split('\n')).toEqual(["Add 'Next'", 'imported']);
  });
});

describe('permissions', () => {
  beforeAll(async () => {
    expect((await newPage('perm', { title: 'Home', content_base64: b64('p') })).status).toBe(201);
    expect((await newPage('secret', { title: 'Home', content_base64: b64('s') })).status).toBe(201);
    expect(
      (await server.api('PUT', '/repos/alice/perm/collaborators/carol', { token: aliceToken, body: { permission: 'read' } })).status,
    ).toBe(204);
  });

  test('a public wiki is readable by anyone, changeable by writers only', async () => {
    expect((await server.api('GET', '/repos/alice/perm/wiki/pages')).status).toBe(200);
    expect((await getPage('perm', 'Home', null)).status).toBe(200);
    expect((await getPage('perm', 'Home', bobToken)).status).toBe(200);
    expect((await server.api('POST', '/repos/alice/perm/wiki/new', { body: { title: 'Anon', content_base64: b64('x') } })).status).toBe(
      401,
    );
    expect((await newPage('perm', { title: 'Bob', content_base64: b64('x') }, bobToken)).status).toBe(403);
    expect(
      (await server.api('PATCH', '/repos/alice/perm/wiki/page/Home', { token: bobToken, body: { content_base64: b64('x') } })).status,
    ).toBe(403);
    expect((await server.api('DELETE', '/repos/alice/perm/wiki/page/Home', { token: bobToken })).status).toBe(403);
    // A read collaborator is still only a reader.
    expect(
      (await server.api('PATCH', '/repos/alice/perm/wiki/page/Home', { token: carolToken, body: { content_base64: b64('x') } })).status,
    ).toBe(403);
    expect(await gitLog('perm')).toHaveLength(1);
  });

  test("a read-only token cannot edit (403), even the owner's", async () => {
    expect((await getPage('perm', 'Home', aliceReadToken)).status).toBe(200);
    const res = await server.api('PATCH', '/repos/alice/perm/wiki/page/Home', {
      token: aliceReadToken,
      body: { content_base64: b64('x') },
    });
    expect(res.status).toBe(403);
    expect((await newPage('perm', { title: 'X', content_base64: b64('x') }, aliceReadToken)).status).toBe(403);
    expect((await server.api('DELETE', '/repos/alice/perm/wiki/page/Home', { token: aliceReadToken })).status).toBe(403);
  });

  test("outsiders get 404 on a private repository's wiki", async () => {
    expect((await getPage('secret', 'Home')).status).toBe(200);
    for (const token of [bobToken, undefined]) {
      expect((await server.api('GET', '/repos/alice/secret/wiki/pages', { token })).status).toBe(404);
      expect((await getPage('secret', 'Home', token ?? null)).status).toBe(404);
      expect((await server.api('GET', '/repos/alice/secret/wiki/revisions/Home', { token })).status).toBe(404);
    }
    expect((await newPage('secret', { title: 'X', content_base64: b64('x') }, bobToken)).status).toBe(404);
  });

  test('wiki unit off → 404 for every wiki route, also for the owner', async () => {
    expect((await newPage('nowiki', { title: 'Home', content_base64: b64('x') })).status).toBe(201);
    expect((await server.api('PATCH', '/repos/alice/nowiki', { token: aliceToken, body: { has_wiki: false } })).status).toBe(200);
    expect((await server.api('GET', '/repos/alice/nowiki/wiki/pages', { token: aliceToken })).status).toBe(404);
    expect((await getPage('nowiki', 'Home')).status).toBe(404);
    expect((await server.api('GET', '/repos/alice/nowiki/wiki/revisions/Home', { token: aliceToken })).status).toBe(404);
    expect((await newPage('nowiki', { title: 'New', content_base64: b64('x') })).status).toBe(404);
    expect(
      (await server.api('PATCH', '/repos/alice/nowiki/wiki/page/Home', { token: aliceToken, body: { content_base64: b64('x') } })).status,
    ).toBe(404);
    expect((await server.api('DELETE', '/repos/alice/nowiki/wiki/page/Home', { token: aliceToken })).status).toBe(404);
    expect((await server.api('PATCH', '/repos/alice/nowiki', { token: aliceToken, body: { has_wiki: true } })).status).toBe(200);
    expect((await getPage('nowiki', 'Home')).status).toBe(200);
  });
});

describe('wiki directory helpers', () => {
  test('wikiDirOf, moveWiki and removeWiki', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-wiki-'));
    try {
      const from = path.join(root, 'alice', 'proj.git');
      const to = path.join(root, 'bob', 'renamed.git');
      expect(wikiDirOf(from)).toBe(path.join(root, 'alice', 'proj.wiki.git'));
      moveWiki(from, to); // no wiki: nothing happens
      expect(fs.existsSync(wikiDirOf(to))).toBe(false);
      fs.mkdirSync(wikiDirOf(from), { recursive: true });
      fs.writeFileSync(path.join(wikiDirOf(from), 'HEAD'), 'ref: refs/heads/main\n');
      moveWiki(from, to);
      expect(fs.existsSync(wikiDirOf(from))).toBe(false);
      expect(fs.readFileSync(path.join(wikiDirOf(to), 'HEAD'), 'utf8')).toContain('main');
      removeWiki(to);
      expect(fs.existsSync(wikiDirOf(to))).toBe(false);
      removeWiki(to); // idempotent
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('git transport of the wiki', () => {
  // Needs the smart-http.ts change that serves `{repo}.wiki.git` (resolve the base repository,
  // check the wiki unit, use wikiDirOf(target.gitDir), skip recordPush). Enable when it is applied.
  test("the wiki clones and pushes at /{owner}/{repo}.wiki.git with the wiki unit's permissions", async () => {
    const url = cloneUrl(server.url, 'alice/notes.wiki.git', 'alice', aliceToken);
    const work = path.join(sandbox.dir, 'wiki-http');
    expect((await sandbox.git(['clone', '-q', url, work])).status).toBe(0);
    expect(fs.readFileSync(path.join(work, 'Home.md'), 'utf8')).toBe('# Welcome\n');
    fs.writeFileSync(path.join(work, 'Pushed-Page.md'), 'pushed');
    expect((await sandbox.git(['add', '.'], work)).status).toBe(0);
    expect((await sandbox.git(['commit', '-q', '-m', 'pushed page'], work)).status).toBe(0);
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD'], work)).status).toBe(0);
    expect(unb64((await getPage('notes', 'Pushed-Page')).body.content_base64)).toBe('pushed');
    // The code repository's branches are untouched by a wiki push.
    const branches = await server.api('GET', '/repos/alice/notes/branches', { token: aliceToken });
    expect(branches.body).toEqual([]);
    // Readers of the wiki unit clone, but cannot push; outsiders of a private repository see nothing.
    const bobWork = path.join(sandbox.dir, 'wiki-bob');
    expect((await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/notes.wiki.git', 'bob', bobToken), bobWork])).status).toBe(0);
    fs.writeFileSync(path.join(bobWork, 'Bob.md'), 'bob');
    await sandbox.git(['add', '.'], bobWork);
    await sandbox.git(['commit', '-q', '-m', 'bob'], bobWork);
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD'], bobWork)).status).not.toBe(0);
    expect(
      (await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/secret.wiki.git', 'bob', bobToken), path.join(sandbox.dir, 'x')]))
        .status,
    ).not.toBe(0);
    // Wiki unit off: no wiki transport.
    expect(
      (await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/nowiki.wiki.git', 'alice', aliceToken), path.join(sandbox.dir, 'y')]))
        .status,
    ).toBe(0);
    await server.api('PATCH', '/repos/alice/nowiki', { token: aliceToken, body: { has_wiki: false } });
    expect(
      (await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/nowiki.wiki.git', 'alice', aliceToken), path.join(sandbox.dir, 'z')]))
        .status,
    ).not.toBe(0);
    await server.api('PATCH', '/repos/alice/nowiki', { token: aliceToken, body: { has_wiki: true } });
  });
});

describe('the wiki follows its repository', () => {
  // Needs the repo-service.ts (rename, delete) and transfer-routes.ts (transfer) calls of
  // moveWiki/removeWiki. Enable when they are applied.
  test('renaming and transferring move the wiki, deleting removes it', async () => {
    expect((await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'mover' } })).status).toBe(201);
    expect((await newPage('mover', { title: 'Home', content_base64: b64('moving') })).status).toBe(201);
    const renamed = await server.api('PATCH', '/repos/alice/mover', { token: aliceToken, body: { name: 'moved' } });
    expect(renamed.status).toBe(200);
    expect(fs.existsSync(wikiDir('mover'))).toBe(false);
    expect(unb64((await getPage('moved', 'Home')).body.content_base64)).toBe('moving');

    expect((await server.api('POST', '/repos/alice/moved/transfer', { token: aliceToken, body: { new_owner: 'bob' } })).status).toBe(202);
    expect((await server.api('POST', '/repos/alice/moved/transfer/accept', { token: bobToken })).status).toBe(202);
    expect(fs.existsSync(wikiDir('moved'))).toBe(false);
    expect(fs.existsSync(wikiDir('moved', 'bob'))).toBe(true);
    const read = await server.api('GET', '/repos/bob/moved/wiki/page/Home', { token: bobToken });
    expect(unb64(read.body.content_base64)).toBe('moving');

    const bobAdmin = await server.token(bob, ['write:repository', 'delete:repository']);
    expect((await server.api('DELETE', '/repos/bob/moved', { token: bobAdmin })).status).toBe(204);
    expect(fs.existsSync(wikiDir('moved', 'bob'))).toBe(false);
    // A new repository of the same name starts without the old wiki.
    expect((await server.api('POST', '/user/repos', { token: bobAdmin, body: { name: 'moved' } })).status).toBe(201);
    expect((await server.api('GET', '/repos/bob/moved/wiki/pages', { token: bobAdmin })).status).toBe(404);
  });
});
