import type { TestServer } from './helpers/server';
import { textOf, WebClient, webServer, mustCall, signedInAll } from './helpers/web';

/**
 * Label and milestone pages over plain HTTP (and pinned issues on the issue list): private
 * repositories, what readers see and may do, the writers' forms (new, edit, delete, exclusive
 * scoped labels, loading a label template; new, edit, close, reopen, delete milestones), the API's
 * refusals on the form, CSRF, and escaping of stored names.
 */
type User = { name: string; password: string; id: number };
let server: TestServer;
const users: Record<string, User> = {};
const clients: Record<string, WebClient> = {};
let token: string;

const XSS_LABEL = '<img src=x onerror=alert(1)>';
const XSS_MILESTONE = '<script>alert("milestone")</script>';

const must = mustCall(
  () => server,
  () => ({ token }),
);

function expectInert(html: string) {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toMatch(/<img[^>]*onerror/);
}

const labelsOf = (repo: string) =>
  must<Array<{ id: number; name: string; color: string; description: string; exclusive: boolean }>>(
    'GET',
    `/repos/owner/${repo}/labels?limit=50`,
  );
const milestonesOf = (repo: string, state = 'all') => must<any[]>('GET', `/repos/owner/${repo}/milestones?state=${state}`);

const suite = webServer();
beforeAll(async () => {
  server = suite.server;
  for (const name of ['owner', 'writer', 'reader', 'stranger']) users[name] = await server.user(name);
  token = await server.token(users.owner, ['write:repository', 'write:issue', 'read:user']);
  for (const repo of ['pub', 'priv', 'fresh']) {
    await must('POST', '/user/repos', { name: repo, private: repo === 'priv' });
    await must('PUT', `/repos/owner/${repo}/collaborators/writer`, { permission: 'write' });
    await must('PUT', `/repos/owner/${repo}/collaborators/reader`, { permission: 'read' });
  }
  await must('POST', '/repos/owner/pub/labels', { name: 'bug', color: '#ee0701', description: 'Something is broken' });
  await must('POST', '/repos/owner/pub/labels', { name: XSS_LABEL, color: '#00aa00', description: XSS_LABEL });
  await must('POST', '/repos/owner/priv/labels', { name: 'hidden-label', color: '#000000' });
  await must('POST', '/repos/owner/priv/milestones', { title: 'Hidden milestone' });
  const m = await must('POST', '/repos/owner/pub/milestones', {
    title: 'v1.0',
    description: 'The **first** one',
    due_on: '2000-01-02T00:00:00Z',
  });
  await must('POST', '/repos/owner/pub/milestones', { title: XSS_MILESTONE });
  await must('POST', '/repos/owner/pub/milestones', { title: 'Old', state: 'closed' });
  for (const title of ['One', 'Two', 'Three', 'Four']) await must('POST', '/repos/owner/pub/issues', { title, milestone: m.id });
  await must('PATCH', '/repos/owner/pub/issues/1', { state: 'closed' });
  await must('POST', '/repos/owner/pub/issues/2/pin');
  Object.assign(clients, await signedInAll(server, users));
}, 120000);

describe('access', () => {
  test('a private repository’s label and milestone pages are 404 pages for anonymous visitors and strangers', async () => {
    const anonymous = new WebClient(server);
    for (const path of ['/owner/priv/labels', '/owner/priv/milestones', '/owner/priv/milestones/new', '/owner/priv/milestones/1/edit']) {
      for (const client of [anonymous, clients.stranger]) {
        const res = await client.get(path);
        expect(res.status).toBe(404);
        expect(res.html).not.toContain('hidden-label');
        expect(res.html).not.toContain('Hidden milestone');
      }
    }
    const post = await clients.stranger.post('/owner/priv/labels/new', { title: 'x', color: '#000000' });
    expect(post.status).toBe(404);
    expect(textOf((await clients.reader.get('/owner/priv/labels')).html)).toContain('hidden-label');
    expect(textOf((await clients.reader.get('/owner/priv/milestones')).html)).toContain('Hidden milestone');
  });

  test('readers see the lists without controls; their changes are 403 pages and change nothing', async () => {
    const labels = await clients.reader.get('/owner/pub/labels');
    expect(labels.status).toBe(200);
    const text = textOf(labels.html);
    expect(text).toContain('bug');
    expect(text).toContain('Something is broken');
    expect(labels.html).toMatch(/<circle cx="5" cy="5" r="5" fill="#ee0701"/);
    for (const control of ['New label', 'Edit label', 'Delete label', 'Load a label template']) expect(text).not.toContain(control);
    const milestones = await clients.reader.get('/owner/pub/milestones');
    expect(textOf(milestones.html)).not.toContain('New milestone');
    expect(milestones.html).not.toContain('/milestones/delete');
    const [v1] = (await milestonesOf('pub')).filter((m) => m.title === 'v1.0');
    expect((await clients.reader.get('/owner/pub/milestones/new')).status).toBe(403);
    expect((await clients.reader.get(`/owner/pub/milestones/${v1.id}/edit`)).status).toBe(403);
    const anonymous = await new WebClient(server).get('/owner/pub/milestones/new');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);
    const [bug] = (await labelsOf('pub')).filter((l) => l.name === 'bug');
    const refused = [
      await clients.reader.post('/owner/pub/labels/new', { title: 'mine', color: '#123456' }, { csrfFrom: '/owner/pub/labels' }),
      await clients.reader.post('/owner/pub/labels/edit', { id: String(bug.id), title: 'renamed', color: '#123456' }),
      await clients.reader.post('/owner/pub/labels/delete', { id: String(bug.id) }),
      await clients.reader.post('/owner/pub/labels/initialize', { template_name: 'Default' }),
      await clients.reader.post('/owner/pub/milestones/new', { title: 'mine' }),
      await clients.reader.post(`/owner/pub/milestones/${v1.id}/edit`, { title: 'renamed' }),
      await clients.reader.post(`/owner/pub/milestones/${v1.id}/close`, {}),
      await clients.reader.post('/owner/pub/milestones/delete', { id: String(v1.id) }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(textOf(res.html)).toContain('Not allowed');
    }
    expect((await labelsOf('pub')).map((l) => l.name).sort()).toEqual([XSS_LABEL, 'bug'].sort());
    expect((await milestonesOf('pub')).map((m) => m.title)).toContain('v1.0');
    expect((await milestonesOf('pub', 'closed')).length).toBe(1);
  });

  test('forms without the CSRF token are refused', async () => {
    const missing = [
      await clients.writer.post('/owner/pub/labels/new', { title: 'no token', color: '#123456' }, { csrf: null }),
      await clients.writer.post('/owner/pub/milestones/new', { title: 'no token' }, { csrf: null }),
      await clients.writer.post('/owner/pub/milestones/2/close', {}, { csrf: null }),
    ];
    for (const res of missing) expect(res.status).toBe(403);
    expect((await labelsOf('pub')).some((l) => l.name === 'no token')).toBe(false);
    expect((await milestonesOf('pub')).some((m) => m.title === 'no token')).toBe(false);
  });
});

describe('labels', () => {
  test('a writer creates an exclusive scoped label, edits and deletes it; refusals come back on the form', async () => {
    const created = await clients.writer.post(
      '/owner/pub/labels/new',
      { title: 'priority/high', color: '#d93f0b', description: 'Do it first', exclusive: 'on' },
      { csrfFrom: '/owner/pub/labels' },
    );
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/owner/pub/labels?saved=created');
    const label = (await labelsOf('pub')).find((l) => l.name === 'priority/high')!;
    expect(label).toMatchObject({ color: 'd93f0b', description: 'Do it first', exclusive: true });
    const page = await clients.writer.get('/owner/pub/labels?saved=created');
    const text = textOf(page.html);
    expect(text).toContain('The label was created.');
    expect(text).toContain('Exclusive scope priority');
    expect(page.html).toContain(`href="/owner/pub/issues?labels=${label.id}"`);

    const bad = await clients.writer.post('/owner/pub/labels/new', { title: 'kept name', color: 'not-a-colour', description: 'kept too' });
    expect(bad.status).toBe(422);
    expect(textOf(bad.html)).toContain('invalid color');
    expect(bad.html).toContain('value="kept name"');
    expect(bad.html).toContain('value="kept too"');
    const empty = await clients.writer.post('/owner/pub/labels/new', { title: '  ', color: '#000000' });
    expect(empty.status).toBe(422);
    expect(textOf(empty.html)).toContain('The label name may not be empty.');

    const edited = await clients.writer.post('/owner/pub/labels/edit', {
      id: String(label.id),
      title: 'priority/low',
      color: '#0e8a16',
      description: '',
    });
    expect(edited.status).toBe(303);
    expect((await labelsOf('pub')).find((l) => l.id === label.id)).toMatchObject({
      name: 'priority/low',
      color: '0e8a16',
      exclusive: false,
    });
    const deleted = await clients.writer.post('/owner/pub/labels/delete', { id: String(label.id) });
    expect(deleted.status).toBe(303);
    expect((await labelsOf('pub')).some((l) => l.id === label.id)).toBe(false);
    expect((await clients.writer.post('/owner/pub/labels/delete', { id: String(label.id) })).status).toBe(404);
  });

  test('an empty repository offers the label templates; loading one adds its labels', async () => {
    const page = await clients.writer.get('/owner/fresh/labels');
    const text = textOf(page.html);
    expect(text).toContain('This repository has no labels yet.');
    expect(text).toContain('Load a label template');
    const templates = await must<string[]>('GET', '/label/templates');
    expect(templates).toContain('Default');
    const res = await clients.writer.post('/owner/fresh/labels/initialize', { template_name: 'Default' });
    expect(res.status).toBe(303);
    const expected = await must<Array<{ name: string; exclusive: boolean }>>('GET', '/label/templates/Default');
    const loaded = await labelsOf('fresh');
    expect(loaded.map((l) => l.name).sort()).toEqual(expected.map((l) => l.name).sort());
    const after = textOf((await clients.writer.get('/owner/fresh/labels?saved=loaded')).html);
    expect(after).toContain('The labels of the template were added.');
    expect(after).not.toContain('Load a label template');
    // Loading again adds nothing twice.
    await clients.writer.post('/owner/fresh/labels/initialize', { template_name: 'Default' });
    expect((await labelsOf('fresh')).length).toBe(loaded.length);
    expect((await clients.writer.post('/owner/fresh/labels/initialize', { template_name: 'No such set' })).status).toBe(404);
  });
});

describe('milestones', () => {
  test('the list shows open and closed counts, progress from the issues, due dates and the description', async () => {
    const res = await clients.reader.get('/owner/pub/milestones');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('2 Open');
    expect(text).toContain('1 Closed');
    expect(text).toContain('Past due 2000-01-02');
    expect(text).toContain('25% complete · 3 open · 1 closed');
    expect(res.html).toMatch(/<progress max="100" value="25"/);
    expect(res.html).toContain('<strong>first</strong>');
    expect(text).not.toContain('Old');
    const closed = textOf((await clients.reader.get('/owner/pub/milestones?state=closed')).html);
    expect(closed).toContain('Old');
    expect(closed).not.toContain('v1.0');
    const [v1] = (await milestonesOf('pub')).filter((m) => m.title === 'v1.0');
    const issues = await clients.reader.get(`/owner/pub/milestone/${v1.id}`);
    expect(issues.status).toBe(303);
    expect(issues.headers.get('location')).toBe(`/owner/pub/issues?milestone=${v1.id}`);
  });

  test('a writer creates, edits, closes, reopens and deletes a milestone', async () => {
    const form = await clients.writer.get('/owner/pub/milestones/new');
    expect(form.status).toBe(200);
    const empty = await clients.writer.post('/owner/pub/milestones/new', { title: '', content: 'kept text', deadline: '' });
    expect(empty.status).toBe(422);
    expect(textOf(empty.html)).toContain('The title may not be empty.');
    expect(empty.html).toContain('kept text');
    const badDate = await clients.writer.post('/owner/pub/milestones/new', { title: 'Dated', deadline: 'tomorrow' });
    expect(badDate.status).toBe(422);
    expect(badDate.html).toContain('value="Dated"');
    const created = await clients.writer.post('/owner/pub/milestones/new', { title: 'v2.0', content: 'Next', deadline: '2099-12-31' });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/owner/pub/milestones?saved=milestone-created');
    const m = (await milestonesOf('pub')).find((x) => x.title === 'v2.0');
    expect(m).toMatchObject({ description: 'Next', state: 'open' });
    expect(m.due_on.slice(0, 10)).toBe('2099-12-31');
    expect(textOf((await clients.writer.get('/owner/pub/milestones?saved=milestone-created')).html)).toContain(
      'The milestone was created.',
    );

    const edit = await clients.writer.get(`/owner/pub/milestones/${m.id}/edit`);
    expect(edit.html).toContain('value="2099-12-31"');
    const edited = await clients.writer.post(`/owner/pub/milestones/${m.id}/edit`, {
      title: 'v2.0 final',
      content: 'Later',
      deadline: '2100-01-15',
    });
    expect(edited.status).toBe(303);
    const after = (await milestonesOf('pub')).find((x) => x.id === m.id);
    expect(after).toMatchObject({ title: 'v2.0 final', description: 'Later' });
    expect(after.due_on.slice(0, 10)).toBe('2100-01-15');
    // An emptied date field removes the due date (through Gitea's year-9999 "no due date").
    const cleared = await clients.writer.post(`/owner/pub/milestones/${m.id}/edit`, {
      title: 'v2.0 final',
      content: 'Later',
      deadline: '',
    });
    expect(cleared.status).toBe(303);
    expect((await milestonesOf('pub')).find((x) => x.id === m.id)).toMatchObject({ title: 'v2.0 final', due_on: null });
    expect((await clients.writer.get(`/owner/pub/milestones/${m.id}/edit`)).html).toMatch(/name="deadline" type="date" value(="")?\/>/);
    expect(textOf((await clients.writer.get('/owner/pub/milestones')).html)).toContain('No due date');

    const closed = await clients.writer.post(`/owner/pub/milestones/${m.id}/close`, {});
    expect(closed.status).toBe(303);
    expect(closed.headers.get('location')).toBe('/owner/pub/milestones?state=closed&saved=milestone-closed');
    expect((await milestonesOf('pub', 'closed')).some((x) => x.id === m.id)).toBe(true);
    expect((await clients.writer.post(`/owner/pub/milestones/${m.id}/open`, {})).status).toBe(303);
    expect((await milestonesOf('pub', 'open')).some((x) => x.id === m.id)).toBe(true);
    expect((await clients.writer.post(`/owner/pub/milestones/${m.id}/explode`, {})).status).toBe(404);
    const deleted = await clients.writer.post('/owner/pub/milestones/delete', { id: String(m.id) });
    expect(deleted.status).toBe(303);
    expect((await milestonesOf('pub')).some((x) => x.id === m.id)).toBe(false);
  });
});

test('pinned issues are shown above the issue list, which links to labels and milestones', async () => {
  const res = await clients.reader.get('/owner/pub/issues');
  const pinned = /<section class="pinned-issues"[\s\S]*?<\/section>/.exec(res.html);
  expect(pinned).not.toBeNull();
  expect(textOf(pinned![0])).toContain('Pinned issues');
  expect(textOf(pinned![0])).toContain('Two');
  expect(textOf(pinned![0])).not.toContain('Three');
  expect(res.html).toContain('href="/owner/pub/labels"');
  expect(res.html).toContain('href="/owner/pub/milestones"');
  expect((await clients.reader.get('/owner/pub/issues?page=2')).html).not.toContain('pinned-issues');
});

test('stored markup in label names, descriptions and milestone titles renders inert', async () => {
  for (const path of ['/owner/pub/labels', '/owner/pub/milestones', '/owner/pub/issues']) {
    const res = await clients.writer.get(path);
    expect(res.status).toBe(200);
    expectInert(res.html);
  }
  expect(textOf((await clients.writer.get('/owner/pub/labels')).html)).toContain(XSS_LABEL);
  expect(textOf((await clients.writer.get('/owner/pub/milestones')).html)).toContain(XSS_MILESTONE);
});
