import { ADMIN, startServer, type TestServer } from './helpers/server';
import * as store from '../plugins/issues/src/issue-store';

let server: TestServer;
const tokens: Record<string, string> = {};
const SCOPES = ['delete:repository', 'delete:issue'];

beforeAll(async () => {
  server = await startServer();
  tokens.admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, SCOPES);
  for (const name of ['owner', 'writer', 'reader', 'stranger']) tokens[name] = await server.token(await server.user(name), SCOPES);
  const mk = async (name: string, priv = false) =>
    expect((await call('POST', '/user/repos', 'owner', { name, private: priv })).status).toBe(201);
  await mk('pub');
  await mk('priv', true);
  await mk('other');
  await mk('noiss');
  expect((await call('PATCH', '/repos/owner/noiss', 'owner', { has_issues: false })).status).toBe(200);
  for (const [who, permission] of [
    ['writer', 'write'],
    ['reader', 'read'],
  ]) {
    for (const repo of ['pub', 'priv'])
      expect((await call('PUT', `/repos/owner/${repo}/collaborators/${who}`, 'owner', { permission })).status).toBe(204);
  }
});
afterAll(async () => {
  await server.close();
});

const call = (method: string, p: string, who: string | null, body?: unknown) =>
  server.api(method, p, { token: who ? tokens[who] : undefined, body });
const R = '/repos/owner/pub';
const newIssue = async (title: string, who = 'owner', extra: Record<string, unknown> = {}, repo = R) => {
  const res = await call('POST', `${repo}/issues`, who, { title, ...extra });
  expect(res.status).toBe(201);
  return res.body;
};
const newLabel = async (name: string, exclusive = false, repo = R) => {
  const res = await call('POST', `${repo}/labels`, 'owner', { name, color: '#00aabb', exclusive });
  expect(res.status).toBe(201);
  return res.body as { id: number; name: string };
};
const labelNames = (body: { name: string }[]) => body.map((l) => l.name).sort();

describe('label scope helpers', () => {
  test('the scope is the part before the last slash', () => {
    expect(store.labelScope('scope/name')).toBe('scope');
    expect(store.labelScope('scope/alpha/name')).toBe('scope/alpha');
    expect(store.labelScope('plain')).toBe('');
    expect(store.labelScope('/name')).toBe('');
    expect(store.labelScope('name/')).toBe('');
    expect(store.exclusiveScope({ name: 'a/b', exclusive: false })).toBe('');
  });
  test('of several exclusive labels of a scope the last one wins', () => {
    const l = (id: number, name: string, exclusive = true) => ({ id, name, exclusive });
    const kept = store.removeDuplicateExclusive([
      l(1, 'prio/high'),
      l(2, 'prio/low'),
      l(3, 'prio/mid', false),
      l(4, 'kind/bug'),
      l(5, 'prio/urgent'),
    ]);
    expect(kept.map((x) => x.id)).toEqual([3, 4, 5]);
  });
  test('colors', () => {
    expect(store.normalizeColor('#00AABB')).toBe('#00aabb');
    expect(store.normalizeColor('00aabb')).toBe('#00aabb');
    expect(store.normalizeColor('abc')).toBe('#aabbcc');
    expect(store.normalizeColor('zzzzzz')).toBeNull();
  });
});

describe('issues', () => {
  test('create, get and the Issue JSON', async () => {
    const issue = await newIssue('First issue', 'owner', { body: 'hello world', ref: 'main' });
    expect(issue).toMatchObject({
      number: 1,
      title: 'First issue',
      body: 'hello world',
      ref: 'main',
      state: 'open',
      comments: 0,
      labels: [],
      milestone: null,
      assignee: null,
      assignees: null,
      is_locked: false,
      closed_at: null,
      due_date: null,
      pull_request: null,
      pin_order: 0,
      original_author: '',
      original_author_id: 0,
      user: { login: 'owner' },
      repository: { name: 'pub', owner: 'owner', full_name: 'owner/pub' },
    });
    expect(issue.url).toMatch(/\/api\/v1\/repos\/owner\/pub\/issues\/1$/);
    expect(issue.html_url).toMatch(/\/owner\/pub\/issues\/1$/);
    const got = await call('GET', `${R}/issues/1`, 'owner');
    expect(got.status).toBe(200);
    expect(got.body).toEqual(issue);
    const anon = await call('GET', `${R}/issues/1`, null);
    expect(anon.status).toBe(200);
    expect(anon.body).toMatchObject({ number: 1, title: 'First issue', user: { login: 'owner' } });
    expect((await call('GET', `${R}/issues/999`, 'owner')).status).toBe(404);
  });

  test('numbers: one sequence per repository, unique under concurrency', async () => {
    const before = (await call('GET', `${R}/issues?state=all&limit=50`, 'owner')).body.length;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call('POST', `${R}/issues`, i % 2 ? 'writer' : 'reader', { title: `parallel ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const numbers = results.map((r) => r.body.number).sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(10);
    expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => before + 1 + i));
    // another repository starts at 1
    expect((await newIssue('elsewhere', 'owner', {}, '/repos/owner/other')).number).toBe(1);
  });

  test('permissions', async () => {
    const mine = await newIssue('reader issue', 'reader');
    const theirs = await newIssue('owner issue', 'owner');
    // the author edits their own issue and may close it
    const edited = await call('PATCH', `${R}/issues/${mine.number}`, 'reader', { title: 'reader issue (edited)', body: 'more' });
    expect(edited.status).toBe(201);
    expect(edited.body).toMatchObject({ title: 'reader issue (edited)', body: 'more' });
    expect((await call('PATCH', `${R}/issues/${mine.number}`, 'reader', { state: 'closed' })).body.state).toBe('closed');
    // but not others' issues, nor writer-only fields
    expect((await call('PATCH', `${R}/issues/${theirs.number}`, 'reader', { state: 'closed' })).status).toBe(403);
    expect((await call('PATCH', `${R}/issues/${theirs.number}`, 'reader', { title: 'x' })).status).toBe(403);
    expect((await call('PATCH', `${R}/issues/${mine.number}`, 'reader', { milestone: 0 })).status).toBe(403);
    // a writer may close others' issues
    const closed = await call('PATCH', `${R}/issues/${theirs.number}`, 'writer', { state: 'closed' });
    expect(closed.status).toBe(201);
    expect(closed.body.state).toBe('closed');
    expect(closed.body.closed_at).toEqual(expect.any(String));
    expect((await call('PATCH', `${R}/issues/${theirs.number}`, 'writer', { state: 'open' })).body).toMatchObject({
      state: 'open',
      closed_at: null,
    });
    // readers cannot manage labels; anonymous cannot create
    expect((await call('POST', `${R}/labels`, 'reader', { name: 'nope', color: '#ffffff' })).status).toBe(403);
    expect((await call('POST', `${R}/issues`, null, { title: 'anon' })).status).toBe(401);
    // anonymous reads public issues; private issues are 404 for outsiders
    expect((await call('GET', `${R}/issues`, null)).status).toBe(200);
    await newIssue('secret', 'owner', {}, '/repos/owner/priv');
    expect((await call('GET', '/repos/owner/priv/issues/1', null)).status).toBe(404);
    expect((await call('GET', '/repos/owner/priv/issues/1', 'stranger')).status).toBe(404);
    expect((await call('GET', '/repos/owner/priv/issues', 'stranger')).status).toBe(404);
    expect((await call('GET', '/repos/owner/priv/issues/1', 'reader')).status).toBe(200);
    // issues unit off → 404
    expect((await call('GET', '/repos/owner/noiss/issues', 'owner')).status).toBe(404);
    expect((await call('POST', '/repos/owner/noiss/issues', 'owner', { title: 'x' })).status).toBe(404);
    expect((await call('GET', '/repos/owner/noiss/labels', 'owner')).status).toBe(404);
    // delete: admins only
    expect((await call('DELETE', `${R}/issues/${mine.number}`, 'writer')).status).toBe(403);
    expect((await call('DELETE', `${R}/issues/${mine.number}`, 'owner')).status).toBe(204);
    expect((await call('GET', `${R}/issues/${mine.number}`, 'owner')).status).toBe(404);
    // a reader's labels/milestone on create are ignored (as Gitea)
    const l = await newLabel('ignored-for-readers');
    expect((await newIssue('with label', 'reader', { labels: [l.id] })).labels).toEqual([]);
  });

  test('bad input is a 4xx, never a 500', async () => {
    expect((await call('POST', `${R}/issues`, 'owner', {})).status).toBe(422);
    expect((await call('POST', `${R}/issues`, 'owner', { title: '' })).status).toBe(422);
    expect((await call('POST', `${R}/issues`, 'owner', { title: 'x'.repeat(256) })).status).toBe(422);
    expect((await call('POST', `${R}/issues`, 'owner', { title: 'x', labels: [999999] })).status).toBe(422);
    expect((await call('POST', `${R}/issues`, 'owner', { title: 'x', milestone: 999999 })).status).toBe(422);
    expect((await call('POST', `${R}/issues`, 'owner', { title: 'x', due_date: 'soon' })).status).toBe(422);
    // assignees need write access
    expect((await call('POST', `${R}/issues`, 'owner', { title: 'x', assignees: ['reader'] })).status).toBe(422);
    expect((await call('PATCH', `${R}/issues/1`, 'owner', { state: 'weird' })).status).toBe(422);
    expect((await call('PATCH', `${R}/issues/1`, 'owner', { milestone: 999999 })).status).toBe(422);
    expect((await call('GET', `${R}/issues/abc`, 'owner')).status).toBeLessThan(500);
    expect((await call('GET', `${R}/issues?state=nope`, 'owner')).status).toBe(422);
    expect((await call('GET', `${R}/issues?since=notatime`, 'owner')).status).toBe(422);
    expect((await call('POST', `${R}/labels`, 'owner', { name: 'bad', color: 'red' })).status).toBe(422);
    expect((await call('POST', `${R}/labels`, 'owner', { name: 'bad' })).status).toBe(422);
    expect((await call('POST', `${R}/issues/1/labels`, 'owner', { labels: [999999] })).status).toBe(422);
    expect((await call('POST', `${R}/issues/1/labels`, 'owner', { labels: ['x'] })).status).toBe(422);
    expect((await call('POST', `${R}/milestones`, 'owner', { title: 'm', state: 'bogus' })).status).toBe(422);
    expect((await call('POST', `${R}/milestones`, 'owner', { title: 'm', due_on: 'never' })).status).toBe(422);
    expect((await call('GET', `${R}/milestones/nosuch`, 'owner')).status).toBe(404);
  });
});

describe('list filters and paging', () => {
  const F = '/repos/owner/filters';
  let bugId = 0;
  beforeAll(async () => {
    expect((await call('POST', '/user/repos', 'owner', { name: 'filters' })).status).toBe(201);
    expect((await call('PUT', `${F}/collaborators/writer`, 'owner', { permission: 'write' })).status).toBe(204);
    bugId = (await newLabel('bug', false, F)).id;
    const feat = await newLabel('feature', false, F);
    const m1 = (await call('POST', `${F}/milestones`, 'owner', { title: 'v1' })).body;
    await newIssue('Crash on start', 'owner', { labels: [bugId], milestone: m1.id, body: 'segfault here' }, F);
    await newIssue('Add dark mode', 'writer', { labels: [feat.id] }, F);
    await newIssue('Crash and feature', 'owner', { labels: [bugId, feat.id] }, F);
    await newIssue('Closed one', 'owner', { closed: true }, F);
    await newIssue('Plain', 'writer', {}, F);
  });
  const titles = async (query: string) => {
    const res = await call('GET', `${F}/issues?${query}`, 'owner');
    expect(res.status).toBe(200);
    return res.body.map((i: { title: string }) => i.title);
  };

  test('state, newest first', async () => {
    expect(await titles('')).toEqual(['Plain', 'Crash and feature', 'Add dark mode', 'Crash on start']);
    expect(await titles('state=closed')).toEqual(['Closed one']);
    expect(await titles('state=all')).toHaveLength(5);
  });
  test('labels (all named labels), q, milestones, created_by, type', async () => {
    expect(await titles('labels=bug')).toEqual(['Crash and feature', 'Crash on start']);
    expect(await titles('labels=bug,feature')).toEqual(['Crash and feature']);
    expect(await titles('labels=nosuch')).toEqual([]);
    expect(await titles('q=crash')).toEqual(['Crash and feature', 'Crash on start']);
    expect(await titles('q=SEGFAULT')).toEqual(['Crash on start']);
    expect(await titles('q=100%25')).toEqual([]);
    expect(await titles('milestones=v1')).toEqual(['Crash on start']);
    const ms = (await call('GET', `${F}/milestones`, 'owner')).body;
    expect(await titles(`milestones=${ms[0].id}`)).toEqual(['Crash on start']);
    expect(await titles('milestones=nosuch')).toEqual([]);
    expect(await titles('created_by=writer')).toEqual(['Plain', 'Add dark mode']);
    expect(await titles('created_by=nobody-here')).toEqual([]);
    expect(await titles('type=issues')).toHaveLength(4);
    expect(await titles('type=pulls')).toEqual([]);
  });
  test('page and limit with X-Total-Count and Link', async () => {
    const res = await call('GET', `${F}/issues?state=all&limit=2&page=2`, 'owner');
    expect(res.status).toBe(200);
    expect(res.body.map((i: { number: number }) => i.number)).toEqual([3, 2]);
    expect(res.headers.get('x-total-count')).toBe('5');
    expect(res.headers.get('link')).toContain('rel="next"');
  });
});

describe('comments', () => {
  test('create, list, edit, delete; authors and writers', async () => {
    const issue = await newIssue('discussion');
    const base = `${R}/issues/${issue.number}/comments`;
    const c1 = await call('POST', base, 'reader', { body: 'first' });
    expect(c1.status).toBe(201);
    expect(c1.body).toMatchObject({ body: 'first', user: { login: 'reader' }, original_author: '', pull_request_url: '' });
    expect(c1.body.html_url).toMatch(new RegExp(`/owner/pub/issues/${issue.number}#issuecomment-${c1.body.id}$`));
    const c2 = await call('POST', base, 'owner', { body: 'second' });
    expect((await call('POST', base, null, { body: 'anon' })).status).toBe(401);
    expect((await call('POST', base, 'reader', {})).status).toBe(422);
    const listed = await call('GET', base, null);
    expect(listed.body.map((c: { body: string }) => c.body)).toEqual(['first', 'second']);
    expect((await call('GET', `${R}/issues/${issue.number}`, null)).body.comments).toBe(2);
    // the repository-wide list, paged
    const repoWide = await call('GET', `${R}/issues/comments?limit=1`, 'owner');
    expect(repoWide.status).toBe(200);
    expect(repoWide.body).toHaveLength(1);
    expect(repoWide.headers.get('x-total-count')).toBe('2');
    expect((await call('GET', `${R}/issues/comments/${c1.body.id}`, null)).body.body).toBe('first');
    // authors edit their own; others without write get 403; writers may edit any
    expect((await call('PATCH', `${R}/issues/comments/${c1.body.id}`, 'reader', { body: 'first!' })).body.body).toBe('first!');
    expect((await call('PATCH', `${R}/issues/comments/${c2.body.id}`, 'reader', { body: 'hijack' })).status).toBe(403);
    expect((await call('PATCH', `${R}/issues/comments/${c1.body.id}`, 'writer', { body: 'moderated' })).status).toBe(200);
    expect((await call('DELETE', `${R}/issues/comments/${c2.body.id}`, 'reader')).status).toBe(403);
    expect((await call('DELETE', `${R}/issues/comments/${c1.body.id}`, 'reader')).status).toBe(204);
    expect((await call('GET', `${R}/issues/comments/${c1.body.id}`, 'owner')).status).toBe(404);
    // a comment of another repository is not found through this one
    expect((await call('GET', `/repos/owner/other/issues/comments/${c2.body.id}`, 'owner')).status).toBe(404);
  });
});

describe('labels', () => {
  const L = '/repos/owner/labels';
  beforeAll(async () => {
    expect((await call('POST', '/user/repos', 'owner', { name: 'labels' })).status).toBe(201);
  });
  const mk = async (name: string, exclusive = false) => {
    const res = await call('POST', `${L}/labels`, 'owner', { name, color: 'ff0000', exclusive });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const issueLabels = async (n: number) => labelNames((await call('GET', `${L}/issues/${n}/labels`, 'owner')).body);

  test('CRUD and JSON', async () => {
    const res = await call('POST', `${L}/labels`, 'owner', { name: 'kind/bug', color: '#EE0701', description: 'broken', exclusive: true });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'kind/bug',
      color: 'ee0701',
      description: 'broken',
      exclusive: true,
      url: expect.stringMatching(/\/api\/v1\/repos\/owner\/labels\/labels\/\d+$/),
    });
    const edited = await call('PATCH', `${L}/labels/${res.body.id}`, 'owner', { color: 'abc', exclusive: false });
    expect(edited.body).toMatchObject({ color: 'aabbcc', exclusive: false, name: 'kind/bug' });
    expect((await call('PATCH', `${L}/labels/${res.body.id}`, 'owner', { color: '#12345' })).status).toBe(422);
    expect((await call('GET', `${L}/labels/${res.body.id}`, null)).status).toBe(200);
    expect((await call('DELETE', `${L}/labels/${res.body.id}`, 'owner')).status).toBe(204);
    expect((await call('GET', `${L}/labels/${res.body.id}`, 'owner')).status).toBe(404);
  });

  test('exclusive scoped labels: adding one removes the others of its scope', async () => {
    const high = await mk('priority/high', true);
    const low = await mk('priority/low', true);
    const bug = await mk('type/bug', true);
    const note = await mk('priority/note'); // not exclusive: coexists
    const plain = await mk('plain');
    const issue = await newIssue('prio', 'owner', {}, L);
    expect((await call('POST', `${L}/issues/${issue.number}/labels`, 'owner', { labels: [high, bug, note, plain] })).status).toBe(200);
    expect(await issueLabels(issue.number)).toEqual(['plain', 'priority/high', 'priority/note', 'type/bug']);
    const added = await call('POST', `${L}/issues/${issue.number}/labels`, 'owner', { labels: [low] });
    expect(labelNames(added.body)).toEqual(['plain', 'priority/low', 'priority/note', 'type/bug']);
    // re-adding an exclusive label already present keeps it alone in its scope
    expect(labelNames((await call('POST', `${L}/issues/${issue.number}/labels`, 'owner', { labels: [high] })).body)).toEqual([
      'plain',
      'priority/high',
      'priority/note',
      'type/bug',
    ]);
  });

  test('replacing all labels keeps the last one given per exclusive scope', async () => {
    const a = await mk('scope/alpha/a', true);
    const b = await mk('scope/alpha/b', true);
    const c = await mk('scope/c', true); // scope "scope": a different scope from "scope/alpha"
    const issue = await newIssue('replace', 'owner', {}, L);
    const put = await call('PUT', `${L}/issues/${issue.number}/labels`, 'owner', { labels: [b, c, a] });
    expect(put.status).toBe(200);
    expect(labelNames(put.body)).toEqual(['scope/alpha/a', 'scope/c']);
    expect(labelNames((await call('PUT', `${L}/issues/${issue.number}/labels`, 'owner', { labels: [a, b] })).body)).toEqual([
      'scope/alpha/b',
    ]);
    // also on create
    const created = await newIssue('created', 'owner', { labels: [a, b, c] }, L);
    expect(labelNames(created.labels)).toEqual(['scope/alpha/b', 'scope/c']);
  });

  test('non-exclusive labels of one scope coexist; remove and clear', async () => {
    const x = await mk('area/x');
    const y = await mk('area/y');
    const issue = await newIssue('coexist', 'owner', { labels: [x, y] }, L);
    expect(labelNames(issue.labels)).toEqual(['area/x', 'area/y']);
    expect((await call('DELETE', `${L}/issues/${issue.number}/labels/${x}`, 'owner')).status).toBe(204);
    expect(await issueLabels(issue.number)).toEqual(['area/y']);
    expect((await call('DELETE', `${L}/issues/${issue.number}/labels/999999`, 'owner')).status).toBe(422);
    expect((await call('DELETE', `${L}/issues/${issue.number}/labels`, 'owner')).status).toBe(204);
    expect(await issueLabels(issue.number)).toEqual([]);
  });

  test('labels of another repository are refused; readers cannot label', async () => {
    const foreign = await newLabel('foreign');
    const issue = await newIssue('foreign', 'owner', {}, L);
    expect((await call('POST', `${L}/issues/${issue.number}/labels`, 'owner', { labels: [foreign.id] })).status).toBe(422);
    expect((await call('PUT', `${L}/issues/${issue.number}/labels`, 'owner', { labels: [foreign.id] })).status).toBe(422);
    expect((await call('POST', `${L}/issues`, 'owner', { title: 'x', labels: [foreign.id] })).status).toBe(422);
    expect((await call('POST', `${R}/issues/1/labels`, 'reader', { labels: [foreign.id] })).status).toBe(403);
  });

  test('a plugin tap on issue.mutate may veto a change', async () => {
    const { ApiError } = await import('@hearth/plugin-api');
    const hooks = (server.kernel as unknown as { hooks: import('@hearth/plugin-api').KernelHooks }).hooks;
    hooks.issue.mutate.tapPromise('test-veto', async (m) => {
      if (m.kind === 'edit' && m.changes.title === 'forbidden') throw ApiError.unprocessable('vetoed');
      return m;
    });
    const issue = await newIssue('veto me', 'owner', {}, L);
    expect((await call('PATCH', `${L}/issues/${issue.number}`, 'owner', { title: 'forbidden' })).status).toBe(422);
    expect((await call('GET', `${L}/issues/${issue.number}`, 'owner')).body.title).toBe('veto me');
  });
});

describe('milestones', () => {
  const M = '/repos/owner/ms';
  beforeAll(async () => {
    expect((await call('POST', '/user/repos', 'owner', { name: 'ms' })).status).toBe(201);
  });
  test('CRUD, counts, closed_at, by id or name, state filter', async () => {
    const res = await call('POST', `${M}/milestones`, 'owner', { title: 'v1.0', description: 'first', due_on: '2030-01-02T03:04:05Z' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      title: 'v1.0',
      description: 'first',
      state: 'open',
      open_issues: 0,
      closed_issues: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      closed_at: null,
      due_on: '2030-01-02T03:04:05Z',
    });
    const id = res.body.id;
    await newIssue('a', 'owner', { milestone: id }, M);
    await newIssue('b', 'owner', { milestone: id }, M);
    const c = await newIssue('c', 'owner', { milestone: id, closed: true }, M);
    expect(c.milestone).toMatchObject({ id, open_issues: 2, closed_issues: 1 });
    expect((await call('GET', `${M}/milestones/v1.0`, null)).body).toMatchObject({ id, open_issues: 2, closed_issues: 1 });
    // close: closed_at set; reopen: null; a closed milestone can still be assigned
    const closed = await call('PATCH', `${M}/milestones/${id}`, 'owner', { state: 'closed' });
    expect(closed.status).toBe(200);
    expect(closed.body.state).toBe('closed');
    expect(closed.body.closed_at).toEqual(expect.any(String));
    const d = await newIssue('d', 'owner', { milestone: id }, M);
    expect(d.milestone).toMatchObject({ id, state: 'closed', open_issues: 3 });
    expect((await call('GET', `${M}/milestones`, 'owner')).body).toEqual([]);
    expect((await call('GET', `${M}/milestones?state=closed`, 'owner')).body.map((m: { id: number }) => m.id)).toEqual([id]);
    expect((await call('PATCH', `${M}/milestones/${id}`, 'owner', { state: 'open' })).body).toMatchObject({
      state: 'open',
      closed_at: null,
    });
    // due_on as Gitea's API reads it: Go's zero time (what its clients send for "unset") keeps the due
    // date; a date in year 9999 is "no due date" and removes it.
    const kept = await call('PATCH', `${M}/milestones/${id}`, 'owner', { title: 'v1.0', due_on: '0001-01-01T00:00:00Z' });
    expect([kept.status, kept.body.due_on]).toEqual([200, '2030-01-02T03:04:05Z']);
    expect((await call('PATCH', `${M}/milestones/${id}`, 'owner', { due_on: '9999-12-31T23:59:59Z' })).body.due_on).toBeNull();
    expect((await call('PATCH', `${M}/milestones/${id}`, 'owner', { due_on: '2031-01-01T00:00:00Z' })).body.due_on).toBe(
      '2031-01-01T00:00:00Z',
    );
    // unset via edit, readers may not manage
    expect((await call('PATCH', `${M}/issues/${d.number}`, 'owner', { milestone: 0 })).body.milestone).toBeNull();
    expect((await call('POST', `${M}/milestones`, 'reader', { title: 'nope' })).status).toBe(403); // public: read only
    expect((await call('POST', `${R}/milestones`, 'reader', { title: 'nope' })).status).toBe(403);
    // delete clears the issues' milestone
    expect((await call('DELETE', `${M}/milestones/${id}`, 'owner')).status).toBe(204);
    expect((await call('GET', `${M}/issues/${c.number}`, 'owner')).body.milestone).toBeNull();
  });
});

describe('removeRepoIssues', () => {
  test('removes everything of a repository', async () => {
    const db = (server.kernel as unknown as { db: import('knex').Knex }).db;
    const repo = await db('repositories').where({ lower_name: 'other' }).first('id');
    await db.transaction((trx) => store.removeRepoIssues(trx, [Number(repo.id)]));
    expect((await call('GET', '/repos/owner/other/issues?state=all', 'owner')).body).toEqual([]);
    expect((await newIssue('again', 'owner', {}, '/repos/owner/other')).number).toBe(1);
  });
});
