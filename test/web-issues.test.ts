import type { TestServer } from './helpers/server';
import { csrfToken, textOf, WebClient, webServer, mustCall, signedInAll } from './helpers/web';

/**
 * Issue pages over plain HTTP (what a browser without JavaScript does): access to private
 * repositories, what readers may and may not do, CSRF, escaping of stored markup, the list's
 * filters and paging, the forms (new issue, comment, close/reopen, labels, milestone, assignees,
 * reactions).
 */
type User = { name: string; password: string; id: number };
let server: TestServer;
const users: Record<string, User> = {};
const clients: Record<string, WebClient> = {};
let token: string;

const XSS_TITLE = '<script>alert("title")</script>';
const XSS_BODY = '<img src=x onerror=alert("body")>';
const XSS_COMMENT = '<script>alert("comment")</script>';
const XSS_LABEL = '<img src=x onerror=alert(3)>';

const must = mustCall(
  () => server,
  () => ({ token }),
);

async function issueJson(repo: string, index: number): Promise<any> {
  return must('GET', `/repos/owner/${repo}/issues/${index}`);
}

/** No unescaped markup from user data: the attack strings appear only as text. */
function expectInert(html: string) {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toContain('<img src=x onerror');
  expect(html).not.toMatch(/<img[^>]*onerror/);
}

/** The titles of the issue rows of a list page, in order. */
function rowTitles(html: string): string[] {
  return [...html.matchAll(/<a class="title" href="[^"]*\/issues\/\d+">([^<]*)<\/a>/g)].map((m) => m[1]);
}

const suite = webServer();
beforeAll(async () => {
  server = suite.server;
  for (const name of ['owner', 'writer', 'reader', 'stranger']) users[name] = await server.user(name);
  token = await server.token(users.owner, ['write:repository', 'write:issue', 'read:user']);
  await must('POST', '/user/repos', { name: 'pub', auto_init: true, default_branch: 'main' });
  await must('POST', '/user/repos', { name: 'priv', private: true });
  await must('POST', '/user/repos', { name: 'many' });
  for (const repo of ['pub', 'priv', 'many']) {
    await must('PUT', `/repos/owner/${repo}/collaborators/writer`, { permission: 'write' });
    await must('PUT', `/repos/owner/${repo}/collaborators/reader`, { permission: 'read' });
  }
  await must('POST', '/repos/owner/priv/issues', { title: 'Secret plans', body: 'hidden' });
  await must('POST', '/repos/owner/pub/issues', { title: 'First issue', body: 'Some **bold** text' });
  await must('POST', '/repos/owner/pub/labels', { name: 'bug', color: '#ee0701' });
  await must('POST', '/repos/owner/pub/milestones', { title: 'v1.0' });
  Object.assign(clients, await signedInAll(server, users));
}, 120000);

describe('access', () => {
  test("a private repository's issue pages are 404 pages for anonymous visitors and strangers", async () => {
    const anonymous = new WebClient(server);
    for (const path of ['/owner/priv/issues', '/owner/priv/issues/1', '/owner/priv/issues?state=closed']) {
      for (const client of [anonymous, clients.stranger]) {
        const res = await client.get(path);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/text\/html/);
        expect(textOf(res.html)).toContain('Page not found');
        expect(res.html).not.toContain('Secret plans');
      }
    }
    expect((await clients.stranger.get('/owner/priv/issues/new')).status).toBe(404);
    // Anonymous visitors are sent to sign in (for any repository: nothing is revealed).
    const newForm = await anonymous.get('/owner/priv/issues/new');
    expect(newForm.status).toBe(303);
    expect(newForm.headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);
    // A stranger's forms are refused the same way.
    const post = await clients.stranger.post('/owner/priv/issues/1/comments', { content: 'hi' }, { csrfFrom: '/' });
    expect(post.status).toBe(404);
    const owner = await clients.owner.get('/owner/priv/issues/1');
    expect(owner.status).toBe(200);
    expect(textOf(owner.html)).toContain('Secret plans');
    const reader = await clients.reader.get('/owner/priv/issues');
    expect(textOf(reader.html)).toContain('Secret plans');
  });

  test('an index that is not a number, or no issue, is a 404 page', async () => {
    expect((await clients.owner.get('/owner/pub/issues/abc')).status).toBe(404);
    expect((await clients.owner.get('/owner/pub/issues/999')).status).toBe(404);
    expect((await clients.owner.get('/owner/nope/issues')).status).toBe(404);
  });

  test('readers see no edit controls, and their posts that need write access are refused', async () => {
    const page = await clients.reader.get('/owner/pub/issues/1');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('First issue');
    expect(text).toContain('Comment');
    expect(text).not.toContain('Close with comment');
    expect(text).not.toContain('Edit labels');
    expect(text).not.toContain('Set milestone');
    expect(text).not.toContain('Edit assignees');
    expect(text).not.toContain('Edit title');
    const labels = await must<{ id: number }[]>('GET', '/repos/owner/pub/labels');
    const refused = [
      await clients.reader.post('/owner/pub/issues/1/comments', { content: '', status: 'close' }, { csrfFrom: '/owner/pub/issues/1' }),
      await clients.reader.post('/owner/pub/issues/1/comments', { content: 'and close', status: 'close' }, { csrfFrom: '/' }),
      await clients.reader.post('/owner/pub/issues/1/labels', { label: String(labels[0].id) }, { csrfFrom: '/' }),
      await clients.reader.post('/owner/pub/issues/1/milestone', { milestone: '1' }, { csrfFrom: '/' }),
      await clients.reader.post('/owner/pub/issues/1/assignees', { assignee: 'reader' }, { csrfFrom: '/' }),
      await clients.reader.post('/owner/pub/issues/1/title', { title: 'Renamed' }, { csrfFrom: '/' }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(textOf(res.html)).toContain('Not allowed');
    }
    const issue = await issueJson('pub', 1);
    expect(issue.state).toBe('open');
    expect(issue.title).toBe('First issue');
    expect(issue.labels).toEqual([]);
    expect(issue.milestone).toBeNull();
    expect(issue.comments).toBe(0);
    // A reader may comment.
    const comment = await clients.reader.post('/owner/pub/issues/1/comments', { content: 'A reader says hi' }, { csrfFrom: '/' });
    expect(comment.status).toBe(303);
    expect(comment.headers.get('location')).toMatch(/^\/owner\/pub\/issues\/1#issuecomment-\d+$/);
    expect(textOf((await clients.reader.get('/owner/pub/issues/1')).html)).toContain('A reader says hi');
  });

  test('forms without the CSRF token, or with another session’s, are refused', async () => {
    const before = (await issueJson('pub', 1)).comments;
    const missing = await clients.writer.post('/owner/pub/issues/1/comments', { content: 'no token' }, { csrf: null });
    expect(missing.status).toBe(403);
    const other = csrfToken((await clients.reader.get('/owner/pub/issues/1')).html);
    const foreign = await clients.writer.post('/owner/pub/issues/1/comments', { content: 'wrong token' }, { csrf: other });
    expect(foreign.status).toBe(403);
    const labels = await clients.writer.post('/owner/pub/issues/1/labels', { label: '1' }, { csrf: null });
    expect(labels.status).toBe(403);
    const created = await clients.writer.post('/owner/pub/issues/new', { title: 'no token' }, { csrf: null });
    expect(created.status).toBe(403);
    expect((await issueJson('pub', 1)).comments).toBe(before);
    expect((await issueJson('pub', 1)).labels).toEqual([]);
  });
});

describe('forms', () => {
  test('a writer opens an issue with a label, a milestone and an assignee; the page renders its markdown', async () => {
    const form = await clients.writer.get('/owner/pub/issues/new');
    expect(form.status).toBe(200);
    const text = textOf(form.html);
    expect(text).toContain('Labels');
    expect(text).toContain('bug');
    expect(text).toContain('v1.0');
    const labels = await must<{ id: number; name: string }[]>('GET', '/repos/owner/pub/labels');
    const milestones = await must<{ id: number }[]>('GET', '/repos/owner/pub/milestones');
    const res = await clients.writer.post(
      '/owner/pub/issues/new',
      {
        title: 'Made by form',
        content: '# Heading\n\nSome *emphasis* and `code`',
        label: String(labels[0].id),
        milestone: String(milestones[0].id),
        assignee: 'writer',
      },
      { csrf: csrfToken(form.html) },
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/owner\/pub\/issues\/\d+$/);
    const page = await clients.writer.get(location);
    expect(page.html).toContain('<em>emphasis</em>');
    expect(page.html).toMatch(/<h1[^>]*>\s*Heading/);
    const shown = textOf(page.html);
    expect(shown).toContain('Made by form');
    expect(shown).toContain('Open');
    expect(shown).toContain('added bug label');
    expect(shown).toContain('added this to the v1.0 milestone');
    expect(shown).toContain('self-assigned this issue');
    const index = Number(location.split('/').pop());
    const issue = await issueJson('pub', index);
    expect(issue.labels.map((l: { name: string }) => l.name)).toEqual(['bug']);
    expect(issue.milestone.title).toBe('v1.0');
    expect(issue.assignees.map((a: { login: string }) => a.login)).toEqual(['writer']);
  });

  test("a reader's new issue form has no labels, and labels they send are not applied", async () => {
    const form = await clients.reader.get('/owner/pub/issues/new');
    expect(form.status).toBe(200);
    expect(textOf(form.html)).not.toContain('Assignees');
    const labels = await must<{ id: number }[]>('GET', '/repos/owner/pub/labels');
    const res = await clients.reader.post(
      '/owner/pub/issues/new',
      { title: 'Reader issue', content: 'x', label: String(labels[0].id) },
      { csrfFrom: '/' },
    );
    expect(res.status).toBe(303);
    const issue = await issueJson('pub', Number(res.headers.get('location')!.split('/').pop()));
    expect(issue.title).toBe('Reader issue');
    expect(issue.labels).toEqual([]);
  });

  test('an empty title shows the form again with the error and keeps what was typed', async () => {
    const res = await clients.writer.post('/owner/pub/issues/new', { title: '  ', content: 'kept text' }, { csrfFrom: '/' });
    expect(res.status).toBe(422);
    expect(textOf(res.html)).toContain('The title may not be empty.');
    expect(res.html).toContain('kept text');
  });

  test('comment, close with comment, reopen; labels, milestone and assignees edited from the sidebar', async () => {
    const { number } = await must('POST', '/repos/owner/pub/issues', { title: 'Lifecycle' });
    const base = `/owner/pub/issues/${number}`;
    const page = await clients.writer.get(base);
    const text = textOf(page.html);
    expect(text).toContain('Close with comment');
    expect(text).toContain('Edit labels');
    let res = await clients.writer.post(`${base}/comments`, { content: 'Looking **into** it' }, { csrf: csrfToken(page.html) });
    expect(res.status).toBe(303);
    res = await clients.writer.post(`${base}/comments`, { content: 'Fixed now', status: 'close' }, { csrfFrom: base });
    expect(res.status).toBe(303);
    let issue = await issueJson('pub', number);
    expect(issue.state).toBe('closed');
    expect(issue.comments).toBe(2);
    let shown = await clients.writer.get(base);
    expect(shown.html).toContain('<strong>into</strong>');
    expect(textOf(shown.html)).toContain('closed this issue');
    expect(textOf(shown.html)).toContain('Reopen with comment');
    res = await clients.writer.post(`${base}/comments`, { content: '', status: 'reopen' }, { csrfFrom: base });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(base);
    expect((await issueJson('pub', number)).state).toBe('open');

    const labels = await must<{ id: number }[]>('GET', '/repos/owner/pub/labels');
    const milestones = await must<{ id: number }[]>('GET', '/repos/owner/pub/milestones');
    expect((await clients.writer.post(`${base}/labels`, { label: String(labels[0].id) }, { csrfFrom: base })).status).toBe(303);
    expect((await clients.writer.post(`${base}/milestone`, { milestone: String(milestones[0].id) }, { csrfFrom: base })).status).toBe(303);
    expect(
      (await clients.writer.post(`${base}/assignees`, { assignee: 'writer', assignee_other: 'owner' }, { csrfFrom: base })).status,
    ).toBe(303);
    expect((await clients.writer.post(`${base}/title`, { title: 'Lifecycle renamed' }, { csrfFrom: base })).status).toBe(303);
    issue = await issueJson('pub', number);
    expect(issue.labels.map((l: { name: string }) => l.name)).toEqual(['bug']);
    expect(issue.milestone.title).toBe('v1.0');
    expect(issue.assignees.map((a: { login: string }) => a.login).sort()).toEqual(['owner', 'writer']);
    shown = await clients.writer.get(base);
    const after = textOf(shown.html);
    expect(after).toContain('reopened this issue');
    expect(after).toContain('changed the title from Lifecycle to Lifecycle renamed');
    expect(after).toContain('assigned owner');
    // Removing every label and the milestone.
    expect((await clients.writer.post(`${base}/labels`, {}, { csrfFrom: base })).status).toBe(303);
    expect((await clients.writer.post(`${base}/milestone`, { milestone: '0' }, { csrfFrom: base })).status).toBe(303);
    issue = await issueJson('pub', number);
    expect(issue.labels).toEqual([]);
    expect(issue.milestone).toBeNull();
    expect(textOf((await clients.writer.get(base)).html)).toContain('removed bug label');
  });

  test('an unknown assignee is refused with the API’s message', async () => {
    const res = await clients.writer.post('/owner/pub/issues/1/assignees', { assignee_other: 'nobody-here' }, { csrfFrom: '/' });
    expect(res.status).toBe(422);
    expect(textOf(res.html)).toContain('nobody-here');
  });

  test('reactions are toggled by forms, on the opening post and on comments', async () => {
    const { number } = await must('POST', '/repos/owner/pub/issues', { title: 'React to me' });
    const comment = await must('POST', `/repos/owner/pub/issues/${number}/comments`, { body: 'a comment' });
    const base = `/owner/pub/issues/${number}`;
    let res = await clients.writer.post(`${base}/reactions/react`, { content: 'heart', comment_id: '0' }, { csrfFrom: base });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${base}#issue-${number}`);
    res = await clients.reader.post(`${base}/reactions/react`, { content: 'rocket', comment_id: String(comment.id) }, { csrfFrom: base });
    expect(res.headers.get('location')).toBe(`${base}#issuecomment-${comment.id}`);
    const page = await clients.writer.get(base);
    expect(page.html).toMatch(/aria-pressed="true" aria-label="heart: writer \(remove yours\)"/);
    expect(page.html).toMatch(/aria-pressed="false" aria-label="rocket: reader \(add yours\)"/);
    expect((await must('GET', `/repos/owner/pub/issues/${number}/reactions`)).length).toBe(1);
    res = await clients.writer.post(`${base}/reactions/unreact`, { content: 'heart', comment_id: '0' }, { csrfFrom: base });
    expect(res.status).toBe(303);
    expect((await must('GET', `/repos/owner/pub/issues/${number}/reactions`)).length).toBe(0);
    // Anonymous visitors see reactions but get no buttons.
    const anonymous = await new WebClient(server).get(base);
    expect(anonymous.html).toContain('rocket: reader');
    expect(anonymous.html).not.toContain('/reactions/react');
  });

  test('a pull request number redirects to its pull request page', async () => {
    await must('POST', '/repos/owner/pub/contents/feature.txt', {
      content: Buffer.from('feature\n').toString('base64'),
      message: 'add feature',
      new_branch: 'feature',
    });
    const pull = await must('POST', '/repos/owner/pub/pulls', { head: 'feature', base: 'main', title: 'A pull' });
    const res = await clients.reader.get(`/owner/pub/issues/${pull.number}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/owner/pub/pulls/${pull.number}`);
    // The list shows issues only.
    expect(textOf((await clients.reader.get('/owner/pub/issues?state=all')).html)).not.toContain('A pull');
    // A comment on a pull request posted through the issue form goes back to the pull request.
    const comment = await clients.reader.post(`/owner/pub/issues/${pull.number}/comments`, { content: 'on the pull' }, { csrfFrom: '/' });
    expect(comment.headers.get('location')).toMatch(new RegExp(`^/owner/pub/pulls/${pull.number}#issuecomment-\\d+$`));
  });
});

describe('stored markup', () => {
  test('script and onerror markup in titles, bodies, comments and label names renders inert', async () => {
    const label = await must('POST', '/repos/owner/pub/labels', { name: XSS_LABEL, color: '#00aabb' });
    const issue = await must('POST', '/repos/owner/pub/issues', { title: XSS_TITLE, body: XSS_BODY, labels: [label.id] });
    await must('POST', `/repos/owner/pub/issues/${issue.number}/comments`, { body: XSS_COMMENT });
    await must('PATCH', `/repos/owner/pub/issues/${issue.number}`, { title: `${XSS_TITLE}!` });
    for (const path of [
      `/owner/pub/issues/${issue.number}`,
      '/owner/pub/issues',
      `/owner/pub/issues?labels=${label.id}`,
      '/owner/pub/issues/new',
      `/owner/pub/issues?q=${encodeURIComponent(XSS_TITLE)}`,
      `/owner/pub/issues?poster=${encodeURIComponent(XSS_BODY)}`,
    ]) {
      const page = await clients.owner.get(path);
      expect(page.status).toBe(200);
      expectInert(page.html);
    }
    const page = textOf((await clients.owner.get(`/owner/pub/issues/${issue.number}`)).html);
    expect(page).toContain(XSS_TITLE);
    expect(page).toContain(XSS_COMMENT);
    expect(page).toContain(XSS_LABEL);
    expect(textOf((await clients.owner.get(`/owner/pub/issues?labels=${label.id}`)).html)).toContain(`${XSS_TITLE}!`);
  });
});

describe('the list', () => {
  let bug: number;
  let milestone: number;
  beforeAll(async () => {
    bug = (await must('POST', '/repos/owner/many/labels', { name: 'bug', color: '#ee0701' })).id;
    await must('POST', '/repos/owner/many/labels', { name: 'feature', color: '#00aa00' });
    milestone = (await must('POST', '/repos/owner/many/milestones', { title: 'v2' })).id;
    const writerToken = await server.token(users.writer, ['write:issue']);
    for (let n = 1; n <= 25; n++) {
      const body: Record<string, unknown> = { title: `Task ${n}`, body: n === 7 ? 'needle in the body' : 'plain' };
      if (n % 5 === 0) body.labels = [bug];
      if (n % 4 === 0) body.milestone = milestone;
      if (n % 6 === 0) body.assignees = ['writer'];
      if (n % 3 === 0) {
        const res = await server.api('POST', '/repos/owner/many/issues', { token: writerToken, body });
        expect(res.status).toBe(201);
      } else {
        await must('POST', '/repos/owner/many/issues', body);
      }
    }
    for (const n of [2, 10]) await must('PATCH', `/repos/owner/many/issues/${n}`, { state: 'closed' });
  }, 60000);

  test('open and closed counts, newest first, 20 a page', async () => {
    const page1 = await clients.reader.get('/owner/many/issues');
    expect(page1.status).toBe(200);
    const text = textOf(page1.html);
    expect(text).toContain('23 Open');
    expect(text).toContain('2 Closed');
    expect(text).toContain('New issue');
    const titles = rowTitles(page1.html);
    expect(titles).toHaveLength(20);
    expect(titles[0]).toBe('Task 25');
    expect(text).toContain('Page 1 of 2');
    const page2 = await clients.reader.get('/owner/many/issues?page=2');
    expect(rowTitles(page2.html)).toEqual(['Task 4', 'Task 3', 'Task 1']);
    const closed = await clients.reader.get('/owner/many/issues?state=closed');
    expect(rowTitles(closed.html)).toEqual(['Task 10', 'Task 2']);
    expect(closed.html).toMatch(/aria-current="page"[^>]*>2 Closed/);
    expect(rowTitles((await clients.reader.get('/owner/many/issues?state=all')).html)).toHaveLength(20);
    // Anonymous visitors see the list without the "New issue" link.
    const anonymous = await new WebClient(server).get('/owner/many/issues');
    expect(anonymous.status).toBe(200);
    expect(textOf(anonymous.html)).not.toContain('New issue');
  });

  test('filters: label, milestone, author, assignee, keyword; they combine, and the counts follow them', async () => {
    const titles = async (query: string) => rowTitles((await clients.reader.get(`/owner/many/issues?${query}`)).html);
    expect(await titles(`labels=${bug}`)).toEqual(['Task 25', 'Task 20', 'Task 15', 'Task 5']);
    expect(await titles(`labels=${bug}&state=closed`)).toEqual(['Task 10']);
    expect(await titles(`milestone=${milestone}`)).toEqual(['Task 24', 'Task 20', 'Task 16', 'Task 12', 'Task 8', 'Task 4']);
    expect(await titles('poster=writer')).toEqual(['Task 24', 'Task 21', 'Task 18', 'Task 15', 'Task 12', 'Task 9', 'Task 6', 'Task 3']);
    expect(await titles(`poster=${users.writer.id}`)).toEqual(await titles('poster=writer'));
    expect(await titles('q=needle')).toEqual(['Task 7']);
    expect(await titles('q=task+1')).toEqual([
      'Task 19',
      'Task 18',
      'Task 17',
      'Task 16',
      'Task 15',
      'Task 14',
      'Task 13',
      'Task 12',
      'Task 11',
      'Task 1',
    ]);
    expect(await titles(`labels=${bug}&milestone=${milestone}`)).toEqual(['Task 20']);
    expect(await titles('poster=nobody-at-all')).toEqual([]);
    expect(await titles('labels=999999')).toEqual([]);
    const filtered = textOf((await clients.reader.get(`/owner/many/issues?labels=${bug}`)).html);
    expect(filtered).toContain('4 Open');
    expect(filtered).toContain('1 Closed');
    expect(filtered).toContain('Filtered by: label bug');
    // Paging keeps the filters.
    const page = await clients.reader.get('/owner/many/issues?q=task');
    expect(page.html).toContain('href="/owner/many/issues?q=task&amp;page=2"');
  });

  // Needs the API's assigned_by (Gitea 1.20), which the issues plugin gains with /work/briefs/web-issues-assigned-by.patch.
  test('the assignee filter', async () => {
    const page = await clients.reader.get(`/owner/many/issues?assignee=writer`);
    expect(rowTitles(page.html)).toEqual(['Task 24', 'Task 18', 'Task 12', 'Task 6']);
    expect(textOf(page.html)).toContain('4 Open');
    expect(rowTitles((await clients.reader.get('/owner/many/issues?assignee=nobody-at-all')).html)).toEqual([]);
  });
});
