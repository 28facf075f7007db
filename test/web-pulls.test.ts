import type { TestServer } from './helpers/server';
import { csrfToken, textOf, WebClient, webServer, mustCall, signedIn } from './helpers/web';

/** Pull request pages over plain HTTP: access, the merge form, CSRF, the compare form, escaping. */
type User = { name: string; password: string; id: number };
let server: TestServer;
let alice: User;
let bob: User;
let eve: User;
let aliceToken: string;

const XSS_TITLE = '<script>alert("title")</script>';
const XSS_BODY = '<img src=x onerror=alert("body")>';
const XSS_BRANCH = '<svg/onload=alert(1)>';
const XSS_FILE = '<img src=x onerror=alert(2)>.txt';

const must = mustCall(
  () => server,
  () => ({ token: aliceToken }),
);

/** A commit of one file on a new branch (the contents API: no git client needed for these tests). */
async function branchWithFile(repo: string, branch: string, file: string, content: string) {
  await must('POST', `/repos/alice/${repo}/contents/${encodeURIComponent(file)}`, {
    content: Buffer.from(content).toString('base64'),
    message: `add ${file}`,
    new_branch: branch,
  });
}

/** No unescaped markup from user data: the attack strings appear only as text. */
function expectInert(html: string) {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toContain('<img src=x onerror');
  expect(html).not.toContain('<svg/onload');
}

const suite = webServer();
beforeAll(async () => {
  server = suite.server;
  alice = await server.user('alice');
  bob = await server.user('bob');
  eve = await server.user('eve');
  aliceToken = await server.token(alice, ['delete:repository', 'write:issue', 'read:user']);
  await must('POST', '/user/repos', { name: 'secret', auto_init: true, private: true, default_branch: 'main' });
  await must('PUT', '/repos/alice/secret/collaborators/bob', { permission: 'read' });
  await branchWithFile('secret', 'feature', 'feature.txt', 'secret feature\n');
  await must('POST', '/repos/alice/secret/pulls', { head: 'feature', base: 'main', title: 'Secret feature', body: 'hidden' });

  await must('POST', '/user/repos', { name: 'proj', auto_init: true, default_branch: 'main' });
  await branchWithFile('proj', XSS_BRANCH, XSS_FILE, '<script>alert("line")</script>\n');
  await must('POST', '/repos/alice/proj/pulls', { head: XSS_BRANCH, base: 'main', title: XSS_TITLE, body: XSS_BODY });
  await branchWithFile('proj', 'docs', 'docs.md', '# Docs\n');
}, 60000);

describe('a private repository', () => {
  const pages = [
    '/alice/secret/pulls',
    '/alice/secret/pulls/1',
    '/alice/secret/pulls/1/commits',
    '/alice/secret/pulls/1/files',
    '/alice/secret/pulls/1.diff',
    '/alice/secret/compare',
    '/alice/secret/compare/main...feature',
  ];

  test('is a 404 page for anonymous visitors and for strangers', async () => {
    const anonymous = new WebClient(server);
    const stranger = await signedIn(server, eve);
    for (const client of [anonymous, stranger]) {
      for (const path of pages) {
        const res = await client.get(path);
        expect([path, res.status]).toEqual([path, 404]);
        expect(res.html).toContain('Page not found');
        expect(res.html).not.toContain('Secret feature');
      }
    }
  });

  test('a stranger cannot merge or open pull requests there either', async () => {
    const stranger = await signedIn(server, eve);
    const merge = await stranger.post('/alice/secret/pulls/1/merge', { do: 'merge' }, { csrfFrom: '/' });
    expect(merge.status).toBe(404);
    const open = await stranger.post('/alice/secret/compare/main...feature', { title: 'x' }, { csrfFrom: '/' });
    expect(open.status).toBe(404);
    expect((await server.api('GET', '/repos/alice/secret/pulls/1', { token: aliceToken })).body.merged).toBe(false);
  });
});

describe('a reader', () => {
  test('sees the pull request, its commits and files, but no merge form', async () => {
    const reader = await signedIn(server, bob);
    const list = await reader.get('/alice/secret/pulls');
    expect(list.status).toBe(200);
    expect(textOf(list.html)).toContain('1 Open');
    expect(textOf(list.html)).toContain('Secret feature');
    expect(textOf(list.html)).toContain('feature → main');

    const page = await reader.get('/alice/secret/pulls/1');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Secret feature #1');
    expect(text).toContain('alice wants to merge 1 commit into main from feature');
    expect(text).toContain('This branch has no conflicts with the base branch.');
    expect(text).toContain('Only people with write access to this repository can merge pull requests.');
    expect(page.html).not.toContain('/alice/secret/pulls/1/merge');
    expect(text).not.toContain('Merge pull request');

    const commits = await reader.get('/alice/secret/pulls/1/commits');
    expect(textOf(commits.html)).toContain('add feature.txt');
    const files = await reader.get('/alice/secret/pulls/1/files');
    expect(files.status).toBe(200);
    expect(textOf(files.html)).toContain('feature.txt');
    expect(textOf(files.html)).toContain('secret feature');
  });

  test('their merge is refused by the API', async () => {
    const reader = await signedIn(server, bob);
    const res = await reader.post('/alice/secret/pulls/1/merge', { do: 'merge' }, { csrfFrom: '/alice/secret/pulls/1' });
    expect(res.status).toBe(403);
    expect((await server.api('GET', '/repos/alice/secret/pulls/1', { token: aliceToken })).body.merged).toBe(false);
  });
});

describe('the owner', () => {
  test('sees the merge box with the allowed styles, the default chosen', async () => {
    await must('PATCH', '/repos/alice/secret', { allow_rebase: false, default_merge_style: 'squash' });
    const owner = await signedIn(server, alice);
    const page = await owner.get('/alice/secret/pulls/1');
    const text = textOf(page.html);
    expect(text).toContain('Merge pull request');
    expect(text).toContain('Create merge commit');
    expect(text).toContain('Create squash commit');
    expect(text).not.toContain('Rebase then fast-forward');
    expect(page.html).toMatch(/<input type="radio" id="do-squash" name="do" value="squash" checked/);
  });

  test('a merge without the CSRF token is refused', async () => {
    const owner = await signedIn(server, alice);
    const res = await owner.post('/alice/secret/pulls/1/merge', { do: 'merge' }, { csrf: null });
    expect(res.status).toBe(403);
    const forged = await owner.post('/alice/secret/pulls/1/merge', { do: 'merge' }, { csrf: 'x'.repeat(43) });
    expect(forged.status).toBe(403);
    expect((await server.api('GET', '/repos/alice/secret/pulls/1', { token: aliceToken })).body.merged).toBe(false);
  });

  test('a style the repository does not allow is refused on the page, with its reason', async () => {
    const owner = await signedIn(server, alice);
    const res = await owner.post('/alice/secret/pulls/1/merge', { do: 'rebase' }, { csrfFrom: '/alice/secret/pulls/1' });
    expect(res.status).toBe(405);
    expect(textOf(res.html)).toContain('The merge was refused: merge style "rebase" is not allowed in this repository');
  });

  test('branch protection refusals show their message', async () => {
    await must('POST', '/repos/alice/secret/branch_protections', { rule_name: 'main', required_approvals: 1 });
    const owner = await signedIn(server, alice);
    const res = await owner.post('/alice/secret/pulls/1/merge', { do: 'merge' }, { csrfFrom: '/alice/secret/pulls/1' });
    expect(res.status).toBe(405);
    expect(textOf(res.html)).toContain('does not have enough approvals (0 of 1)');
    await must('DELETE', '/repos/alice/secret/branch_protections/main');
  });

  test('merges with the form and then sees it merged', async () => {
    const owner = await signedIn(server, alice);
    const page = await owner.get('/alice/secret/pulls/1');
    const head = /name="head_commit_id" value="([0-9a-f]+)"/.exec(page.html)![1];
    const res = await owner.post(
      '/alice/secret/pulls/1/merge',
      { do: 'merge', head_commit_id: head, merge_title_field: 'Merge the secret feature' },
      { csrf: csrfToken(page.html) },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/alice/secret/pulls/1');
    const pr = (await server.api('GET', '/repos/alice/secret/pulls/1', { token: aliceToken })).body;
    expect(pr.merged).toBe(true);
    const after = textOf((await owner.get('/alice/secret/pulls/1')).html);
    expect(after).toContain('Merged');
    expect(after).toContain('alice merged 1 commit into main from feature');
    expect(after).not.toContain('Merge pull request');
    const closed = await owner.get('/alice/secret/pulls?state=closed');
    expect(textOf(closed.html)).toContain('Secret feature');
    expect(textOf(closed.html)).toContain('0 Open 1 Closed');
  });
});

describe('the default merge message template', () => {
  test('the merge box names the base branch’s template; a merge with empty title and message uses it', async () => {
    await must('POST', '/user/repos', { name: 'templated', auto_init: true, default_branch: 'main' });
    await must('POST', '/repos/alice/templated/contents/.gitea%2Fdefault_merge_message%2FMERGE_TEMPLATE.md', {
      content: Buffer.from('Merged ${PullRequestTitle} (!${PullRequestIndex}) by ${MergerName}\n\nFrom ${HeadBranch}.\n').toString(
        'base64',
      ),
      message: 'add the merge message template',
    });
    await branchWithFile('templated', 'topic', 'topic.txt', 'topic\n');
    await must('POST', '/repos/alice/templated/pulls', { head: 'topic', base: 'main', title: 'Topic work' });
    const owner = await signedIn(server, alice);
    const page = await owner.get('/alice/templated/pulls/1');
    expect(textOf(page.html)).toContain('Left empty, the title and message come from this repository’s template');
    expect(textOf(page.html)).toContain('.gitea/default_merge_message/MERGE_TEMPLATE.md on main');
    // Readers see no merge form, so no template note either.
    expect(textOf((await (await signedIn(server, bob)).get('/alice/templated/pulls/1')).html)).not.toContain('Left empty');
    const head = /name="head_commit_id" value="([0-9a-f]+)"/.exec(page.html)![1];
    const res = await owner.post(
      '/alice/templated/pulls/1/merge',
      { do: 'merge', head_commit_id: head, merge_title_field: '', merge_message_field: '' },
      { csrf: csrfToken(page.html) },
    );
    expect(res.status).toBe(303);
    const pr = await must('GET', '/repos/alice/templated/pulls/1');
    const commit = await must('GET', `/repos/alice/templated/git/commits/${pr.merge_commit_sha}`);
    expect(commit.commit.message.trim()).toBe('Merged Topic work (!1) by alice\n\nFrom topic.');
    // A pull request without a template shows no note.
    expect(textOf((await owner.get('/alice/proj/pulls/1')).html)).not.toContain('Left empty');
  });
});

describe('compare and new pull request', () => {
  test('the compare page shows commits and the diff; the form is for signed-in viewers', async () => {
    const anonymous = new WebClient(server);
    const page = await anonymous.get('/alice/proj/compare/main...docs');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Comparing main...docs');
    expect(text).toContain('1 commit');
    expect(text).toContain('add docs.md');
    expect(page.html).toContain('d2h-file-name');
    expect(text).toContain('Sign in to open a pull request');
    expect(page.html).not.toContain('Create pull request');
    // The head alone compares with the default branch; the chooser's GET form redirects to the canonical URL.
    expect(textOf((await anonymous.get('/alice/proj/compare/docs')).html)).toContain('Comparing main...docs');
    const chosen = await anonymous.get('/alice/proj/compare?base=main&head=docs');
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe('/alice/proj/compare/main...docs');
    expect((await anonymous.get('/alice/proj/compare/main...nope')).status).toBe(404);
  });

  test('creates a pull request and goes to it; then the compare page links to it', async () => {
    const owner = await signedIn(server, alice);
    const page = await owner.get('/alice/proj/compare/main...docs');
    expect(textOf(page.html)).toContain('Create pull request');
    expect(page.html).toContain('value="add docs.md"');
    const noToken = await owner.post('/alice/proj/compare/main...docs', { title: 'Docs' }, { csrf: null });
    expect(noToken.status).toBe(403);
    const empty = await owner.post('/alice/proj/compare/main...docs', { title: ' ', body: 'kept' }, { csrf: csrfToken(page.html) });
    expect(empty.status).toBe(422);
    expect(textOf(empty.html)).toContain('A pull request needs a title.');
    expect(empty.html).toContain('>kept</textarea>');
    const res = await owner.post(
      '/alice/proj/compare/main...docs',
      { title: 'Add docs', body: 'Some docs' },
      { csrf: csrfToken(page.html) },
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/alice\/proj\/pulls\/\d+$/);
    const pr = await owner.get(location);
    expect(textOf(pr.html)).toContain('Add docs');
    const again = await owner.get('/alice/proj/compare/main...docs');
    expect(textOf(again.html)).toContain('A pull request between these branches is already open: Add docs');
  });
});

describe('stored XSS', () => {
  test('titles, bodies, branch names and file names render inert', async () => {
    const owner = await signedIn(server, alice);
    const list = await owner.get('/alice/proj/pulls');
    expect(list.status).toBe(200);
    expectInert(list.html);
    expect(textOf(list.html)).toContain(XSS_TITLE);
    expect(textOf(list.html)).toContain(XSS_BRANCH);

    const page = await owner.get('/alice/proj/pulls/1');
    expect(page.status).toBe(200);
    expectInert(page.html);
    expect(textOf(page.html)).toContain(`${XSS_TITLE} #1`);
    expect(textOf(page.html)).toContain(`from ${XSS_BRANCH}`);

    const files = await owner.get('/alice/proj/pulls/1/files');
    expectInert(files.html);
    expect(textOf(files.html)).toContain(XSS_FILE);

    const compare = await owner.get(`/alice/proj/compare/main...${encodeURIComponent(XSS_BRANCH).replace(/%2F/g, '/')}`);
    expect(compare.status).toBe(200);
    expectInert(compare.html);
    expect(textOf(compare.html)).toContain(`Comparing main...${XSS_BRANCH}`);
  });

  test('review comments are shown per file and line on the files page, inert', async () => {
    const review = await server.api('POST', '/repos/alice/proj/pulls/1/reviews', {
      basic: [bob.name, bob.password],
      body: { event: 'COMMENT', body: 'Looked at it', comments: [{ path: XSS_FILE, body: `Why this? ${XSS_BODY}`, new_position: 1 }] },
    });
    expect(review.status).toBe(200);
    const files = await new WebClient(server).get('/alice/proj/pulls/1/files');
    expectInert(files.html);
    const text = textOf(files.html);
    expect(text).toContain('bob reviewed');
    expect(text).toContain('Looked at it');
    expect(text).toMatch(/Reviews .*<img src=x onerror=alert\(2\)>\.txt Line 1 .*bob .*Why this\?/);
    // The file's heading links to the file in the diff above.
    const anchor = /<h3><a href="#(d2h-\d+)">/.exec(files.html)![1];
    expect(files.html).toContain(`id="${anchor}"`);
  });

  test('labels show on the list, inert, and filter it', async () => {
    const label = await must('POST', '/repos/alice/proj/labels', { name: '<b onmouseover=alert(3)>bug</b>', color: '#ee0701' });
    await must('POST', '/repos/alice/proj/issues/1/labels', { labels: [label.id] });
    const list = await new WebClient(server).get('/alice/proj/pulls');
    expect(list.html).not.toContain('<b onmouseover');
    expect(list.html).toContain('fill="#ee0701"');
    expect(textOf(list.html)).toContain('<b onmouseover=alert(3)>bug</b>');
    const filtered = await new WebClient(server).get(`/alice/proj/pulls?labels=${label.id}`);
    expect(textOf(filtered.html)).toContain('1 Open 0 Closed');
    expect(textOf(filtered.html)).toContain(XSS_TITLE);
    expect(textOf(filtered.html)).not.toContain('Add docs');
    expect(textOf(filtered.html)).toContain('Clear the filter');
  });

  test('the raw diff is plain text that browsers do not sniff', async () => {
    const raw = await new WebClient(server).get('/alice/proj/pulls/1.diff');
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(raw.headers.get('x-content-type-options')).toBe('nosniff');
    expect(raw.html).toContain(`+++ b/${XSS_FILE}`);
  });
});
