import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import * as doc from '../plugins/issues/src/milestone-document';

let server: TestServer;
let templatesDir: string;
const tokens: Record<string, string> = {};
const SCOPES = ['delete:repository', 'delete:issue', 'delete:organization'];

beforeAll(async () => {
  templatesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-label-templates-'));
  fs.writeFileSync(
    path.join(templatesDir, 'Team.yaml'),
    [
      'labels:',
      '  - name: Team/Backend',
      '    color: "#123456"',
      '    exclusive: true',
      '    description: Server side',
      '  - name: Team/Frontend',
      '    color: abc',
      '    exclusive: true',
      '  - name: triage',
      '    color: 00ff00',
    ].join('\n'),
  );
  // Wrong color, an unknown property: never listed, a 422 when asked for.
  fs.writeFileSync(path.join(templatesDir, 'Broken.yaml'), 'labels:\n  - name: bad\n    color: nope\n    weight: 3\n');
  fs.writeFileSync(path.join(templatesDir, 'Garbage.yml'), 'labels: [unclosed\n');
  fs.writeFileSync(path.join(templatesDir, 'README.txt'), 'not a template');
  server = await startServer({ repository: { LABEL_TEMPLATES_DIR: templatesDir } });
  tokens.admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, SCOPES);
  for (const name of ['boss', 'stranger', 'rival']) tokens[name] = await server.token(await server.user(name), SCOPES);
  expect((await call('POST', '/orgs', 'boss', { username: 'acme' })).status).toBe(201);
  expect((await call('POST', '/orgs', 'rival', { username: 'rivalco' })).status).toBe(201);
  for (const [org, who, name, priv] of [
    ['acme', 'boss', 'app', false],
    ['acme', 'boss', 'secret', true],
    ['rivalco', 'rival', 'tool', false],
  ] as const) {
    expect((await call('POST', `/orgs/${org}/repos`, who, { name, private: priv })).status).toBe(201);
  }
  expect((await call('POST', '/user/repos', 'boss', { name: 'mine' })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
  fs.rmSync(templatesDir, { recursive: true, force: true });
});

const call = (method: string, p: string, who: string | null, body?: unknown) =>
  server.api(method, p, { token: who ? tokens[who] : undefined, body });
const newIssue = async (repo: string, title: string, extra: Record<string, unknown> = {}, who = 'boss') => {
  const res = await call('POST', `/repos/${repo}/issues`, who, { title, ...extra });
  expect(res.status).toBe(201);
  return res.body as { number: number; labels: { id: number; name: string; url: string }[] };
};
const orgLabel = async (org: string, name: string, exclusive = false, who = 'boss') => {
  const res = await call('POST', `/orgs/${org}/labels`, who, { name, color: '#aa0000', exclusive, description: `org ${name}` });
  expect(res.status).toBe(201);
  return res.body as { id: number; name: string; url: string; color: string };
};
const repoLabel = async (repo: string, name: string, exclusive = false) => {
  const res = await call('POST', `/repos/${repo}/labels`, 'boss', { name, color: '00aa00', exclusive });
  expect(res.status).toBe(201);
  return res.body as { id: number; name: string };
};
const labelNames = (body: { name: string }[]) => body.map((l) => l.name).sort();

describe('organization labels', () => {
  test('CRUD by an owner; strangers read but may not change', async () => {
    const l = await orgLabel('acme', 'org/crud');
    expect(l.color).toBe('aa0000');
    expect(l.url).toBe(`${server.url}api/v1/orgs/acme/labels/${l.id}`);
    expect((await call('POST', '/orgs/acme/labels', 'stranger', { name: 'x', color: '#000000' })).status).toBe(403);
    expect((await call('POST', '/orgs/acme/labels', null, { name: 'x', color: '#000000' })).status).toBe(401);
    expect((await call('POST', '/orgs/acme/labels', 'boss', { name: 'x', color: 'purple' })).status).toBe(422);
    const listed = await call('GET', '/orgs/acme/labels', 'stranger');
    expect(listed.status).toBe(200);
    expect(listed.body.map((x: { id: number }) => x.id)).toContain(l.id);
    expect(listed.headers.get('x-total-count')).toBe(String(listed.body.length));
    expect((await call('GET', `/orgs/acme/labels/${l.id}`, 'boss')).body.name).toBe('org/crud');
    expect((await call('GET', `/orgs/rivalco/labels/${l.id}`, 'boss')).status).toBe(404);
    expect((await call('PATCH', `/orgs/acme/labels/${l.id}`, 'stranger', { name: 'no' })).status).toBe(403);
    const patched = await call('PATCH', `/orgs/acme/labels/${l.id}`, 'boss', { name: 'org/renamed', exclusive: true, color: '#0000ff' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'org/renamed', exclusive: true, color: '0000ff' });
    expect((await call('DELETE', `/orgs/acme/labels/${l.id}`, 'stranger')).status).toBe(403);
    expect((await call('DELETE', `/orgs/acme/labels/${l.id}`, 'boss')).status).toBe(204);
    expect((await call('GET', `/orgs/acme/labels/${l.id}`, 'boss')).status).toBe(404);
    // A repository-owned user is not an organization.
    expect((await call('GET', '/orgs/boss/labels', 'boss')).status).toBe(404);
  });

  test("usable on issues of the organization's repositories; a foreign organization's or repository's label is 422", async () => {
    const mine = await orgLabel('acme', 'area/api');
    const foreign = await orgLabel('rivalco', 'area/rival', false, 'rival');
    const otherRepo = await repoLabel('boss/mine', 'elsewhere');
    const issue = await newIssue('acme/app', 'with an org label', { labels: [mine.id] });
    expect(issue.labels.map((l) => l.id)).toEqual([mine.id]);
    expect(issue.labels[0].url).toBe(`${server.url}api/v1/orgs/acme/labels/${mine.id}`);
    expect((await call('POST', '/repos/acme/app/issues', 'boss', { title: 'x', labels: [foreign.id] })).status).toBe(422);
    expect((await call('POST', `/repos/acme/app/issues/${issue.number}/labels`, 'boss', { labels: [foreign.id] })).status).toBe(422);
    expect((await call('PUT', `/repos/acme/app/issues/${issue.number}/labels`, 'boss', { labels: [otherRepo.id] })).status).toBe(422);
    expect((await call('DELETE', `/repos/acme/app/issues/${issue.number}/labels/${foreign.id}`, 'boss')).status).toBe(422);
    // An organization label is not usable in a user's repository either.
    expect((await call('POST', '/repos/boss/mine/issues', 'boss', { title: 'x', labels: [mine.id] })).status).toBe(422);
    // Adding it again is harmless, and the issue list filters by its name.
    const added = await call('POST', `/repos/acme/app/issues/${issue.number}/labels`, 'boss', { labels: [mine.id] });
    expect(added.status).toBe(200);
    const filtered = await call('GET', '/repos/acme/app/issues?labels=area/api', 'boss');
    expect(filtered.body.map((i: { number: number }) => i.number)).toEqual([issue.number]);
    // Deleting the organization label takes it off the issue.
    expect((await call('DELETE', `/orgs/acme/labels/${mine.id}`, 'boss')).status).toBe(204);
    expect((await call('GET', `/repos/acme/app/issues/${issue.number}/labels`, 'boss')).body).toEqual([]);
    expect((await call('DELETE', `/orgs/rivalco/labels/${foreign.id}`, 'rival')).status).toBe(204);
  });

  test('exclusive scopes apply across organization and repository labels', async () => {
    const high = await orgLabel('acme', 'prio/high', true);
    const low = await repoLabel('acme/app', 'prio/low', true);
    const free = await orgLabel('acme', 'prio/any');
    const issue = await newIssue('acme/app', 'exclusive across', { labels: [high.id, free.id] });
    // Adding the repository's exclusive label of the same scope drops the organization's one.
    let res = await call('POST', `/repos/acme/app/issues/${issue.number}/labels`, 'boss', { labels: [low.id] });
    expect(res.status).toBe(200);
    expect(labelNames(res.body)).toEqual(['prio/any', 'prio/low']);
    // And the other way round; replacing with both keeps the last one given.
    res = await call('POST', `/repos/acme/app/issues/${issue.number}/labels`, 'boss', { labels: [high.id] });
    expect(labelNames(res.body)).toEqual(['prio/any', 'prio/high']);
    res = await call('PUT', `/repos/acme/app/issues/${issue.number}/labels`, 'boss', { labels: [high.id, low.id] });
    expect(labelNames(res.body)).toEqual(['prio/low']);
  });
});

describe('label templates', () => {
  test('listed: shipped sets and valid operator files, not broken ones', async () => {
    const res = await call('GET', '/label/templates', null);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['Advanced', 'Default', 'Team']);
  });

  test('a template with exclusive scoped labels', async () => {
    const res = await call('GET', '/label/templates/Default', 'stranger');
    expect(res.status).toBe(200);
    expect(res.body).toContainEqual({
      name: 'Kind/Bug',
      color: 'd73a4a',
      exclusive: true,
      description: 'Something does not work as documented',
    });
    expect(
      res.body
        .filter((l: { name: string; exclusive: boolean }) => l.name.startsWith('Priority/'))
        .every((l: { exclusive: boolean }) => l.exclusive),
    ).toBe(true);
    expect(res.body.find((l: { name: string }) => l.name === 'help wanted').exclusive).toBe(false);
    const team = await call('GET', '/label/templates/team', null);
    expect(team.body).toEqual([
      { name: 'Team/Backend', color: '123456', exclusive: true, description: 'Server side' },
      { name: 'Team/Frontend', color: 'aabbcc', exclusive: true, description: '' },
      { name: 'triage', color: '00ff00', exclusive: false, description: '' },
    ]);
    expect((await call('GET', '/label/templates/Nope', null)).status).toBe(404);
    const broken = await call('GET', '/label/templates/Broken', null);
    expect(broken.status).toBe(422);
    expect(broken.body.message).toMatch(/Broken.*invalid/);
    expect((await call('GET', '/label/templates/Garbage', null)).status).toBe(422);
  });

  test("applied by repository creation's issue_labels; unknown or broken → 422 and no repository", async () => {
    const res = await call('POST', '/user/repos', 'boss', { name: 'labelled', issue_labels: 'Advanced' });
    expect(res.status).toBe(201);
    const labels = await call('GET', '/repos/boss/labelled/labels?limit=50', 'boss');
    expect(labels.body.length).toBe(22);
    expect(labels.body.find((l: { name: string }) => l.name === 'Status/Blocked')).toMatchObject({ exclusive: true, color: '5d5d5d' });
    // The template's exclusive labels work as such.
    const kinds = labels.body.filter((l: { name: string }) => l.name.startsWith('Kind/')).map((l: { id: number }) => l.id);
    const issue = await newIssue('boss/labelled', 'kinds', { labels: kinds });
    expect(issue.labels.length).toBe(1);

    const team = await call('POST', '/orgs/acme/repos', 'boss', { name: 'teamed', issue_labels: 'Team' });
    expect(team.status).toBe(201);
    expect(labelNames((await call('GET', '/repos/acme/teamed/labels', 'boss')).body)).toEqual(['Team/Backend', 'Team/Frontend', 'triage']);

    for (const name of ['Nope', 'Broken']) {
      const bad = await call('POST', '/user/repos', 'boss', { name: `bad-${name}`, issue_labels: name });
      expect(bad.status).toBe(422);
      expect((await call('GET', `/repos/boss/bad-${name}`, 'boss')).status).toBe(404);
    }
  });
});

describe('milestone interchange document (JSON Schema draft-04)', () => {
  const item = {
    title: 'v1',
    description: 'first',
    deadline: '2030-01-01T00:00:00Z',
    created: '2024-01-01T10:00:00Z',
    updated: '2024-02-01T10:00:00Z',
    closed: null,
    state: 'open',
  };

  test('accepted and rejected as the spec says', () => {
    expect(doc.validateMilestoneDocument([item])).toEqual([]);
    expect(doc.validateMilestoneDocument([])).toEqual([]);
    expect(doc.validateMilestoneDocument([{ ...item, state: 'closed', closed: '2024-03-01T00:00:00Z' }])).toEqual([]);
    const { deadline: _d, ...missing } = item;
    expect(doc.validateMilestoneDocument([missing])).toEqual([
      expect.objectContaining({ field: '/0', message: expect.stringContaining('deadline') }),
    ]);
    const { closed: _c, ...noClosed } = item;
    expect(doc.validateMilestoneDocument([noClosed]).length).toBe(1);
    expect(doc.validateMilestoneDocument([{ ...item, extra: 1 }])).toEqual([
      expect.objectContaining({ message: expect.stringContaining('extra') }),
    ]);
    expect(doc.validateMilestoneDocument([{ ...item, state: 'done' }])).toEqual([expect.objectContaining({ field: '/0/state' })]);
    expect(doc.validateMilestoneDocument([{ ...item, created: 'yesterday' }])).toEqual([expect.objectContaining({ field: '/0/created' })]);
    expect(doc.validateMilestoneDocument([{ ...item, closed: 5 }]).length).toBeGreaterThan(0);
    expect(doc.validateMilestoneDocument({ ...item }).length).toBe(1);
    // The schema file itself is draft-04.
    const schema = JSON.parse(fs.readFileSync(doc.MILESTONE_DOCUMENT_SCHEMA, 'utf8'));
    expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
    expect(schema.items.required.length).toBe(7);
  });

  test('export → import round trip; invalid documents and taken titles refused', async () => {
    const R = '/repos/acme/app';
    const a = await call('POST', `${R}/milestones`, 'boss', { title: 'alpha', description: 'the first', due_on: '2031-05-01T00:00:00Z' });
    expect(a.status).toBe(201);
    const b = await call('POST', `${R}/milestones`, 'boss', { title: 'beta' });
    expect((await call('PATCH', `${R}/milestones/${b.body.id}`, 'boss', { state: 'closed' })).status).toBe(200);
    const exported = await call('GET', `${R}/interchange/milestones`, 'stranger');
    expect(exported.status).toBe(200);
    expect(doc.validateMilestoneDocument(exported.body)).toEqual([]);
    expect(exported.body).toEqual([
      expect.objectContaining({ title: 'alpha', description: 'the first', deadline: '2031-05-01T00:00:00Z', state: 'open', closed: null }),
      expect.objectContaining({
        title: 'beta',
        description: '',
        deadline: '9999-12-31T23:59:59Z',
        state: 'closed',
        closed: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    ]);

    expect((await call('POST', '/repos/boss/mine/interchange/milestones', 'stranger', exported.body)).status).toBe(403);
    const imported = await call('POST', '/repos/boss/mine/interchange/milestones', 'boss', exported.body);
    expect(imported.status).toBe(201);
    expect(imported.body.map((m: { title: string; state: string; due_on: string | null }) => [m.title, m.state, m.due_on])).toEqual([
      ['alpha', 'open', '2031-05-01T00:00:00Z'],
      ['beta', 'closed', null],
    ]);
    const again = await call('GET', '/repos/boss/mine/interchange/milestones', 'boss');
    expect(again.body).toEqual(exported.body);

    // Same titles again: 409, nothing added.
    expect((await call('POST', '/repos/boss/mine/interchange/milestones', 'boss', exported.body)).status).toBe(409);
    for (const bad of [[{ ...item, state: 'done' }], [{ ...item, extra: true }], [{ title: 'x' }], { not: 'an array' }]) {
      const res = await call('POST', '/repos/boss/mine/interchange/milestones', 'boss', bad);
      expect(res.status).toBe(422);
    }
    const res = await call('POST', '/repos/boss/mine/interchange/milestones', 'boss', [{ ...item, state: 'done' }]);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: '/0/state' })]);
    expect((await call('GET', '/repos/boss/mine/milestones?state=all', 'boss')).body.length).toBe(2);
  });
});

describe('cross-repository issue search', () => {
  test('only issues of repositories the caller can see', async () => {
    const pub = await newIssue('acme/app', 'needle in public');
    const priv = await newIssue('acme/secret', 'needle in private');
    await newIssue('rivalco/tool', 'needle of rival', {}, 'rival');
    const search = async (who: string | null, qs: string) => {
      const res = await call('GET', `/repos/issues/search?${qs}`, who);
      expect(res.status).toBe(200);
      return res.body.map((i: { title: string; repository: { full_name: string } }) => `${i.repository.full_name}:${i.title}`).sort();
    };
    expect(await search('stranger', 'q=needle')).toEqual(['acme/app:needle in public', 'rivalco/tool:needle of rival']);
    expect(await search(null, 'q=needle')).toEqual(['acme/app:needle in public', 'rivalco/tool:needle of rival']);
    expect(await search('boss', 'q=needle')).toEqual(
      ['acme/app:needle in private', 'acme/app:needle in public', 'rivalco/tool:needle of rival']
        .map((s) => s.replace('acme/app:needle in private', 'acme/secret:needle in private'))
        .sort(),
    );
    expect(await search('admin', 'q=needle&owner=acme')).toEqual(['acme/app:needle in public', 'acme/secret:needle in private']);
    expect(await search('boss', 'q=needle&created=true')).toEqual(['acme/app:needle in public', 'acme/secret:needle in private']);
    expect(await search('boss', 'q=needle&priority_repo_id=0&state=closed')).toEqual([]);
    expect(pub.number).toBeGreaterThan(0);
    expect(priv.number).toBe(1);
    // A collaborator on the private repository sees it.
    expect((await call('PUT', '/repos/acme/secret/collaborators/stranger', 'boss', { permission: 'read' })).status).toBe(204);
    expect(await search('stranger', 'q=needle&owner=acme')).toEqual(['acme/app:needle in public', 'acme/secret:needle in private']);
    expect((await call('DELETE', '/repos/acme/secret/collaborators/stranger', 'boss')).status).toBe(204);
    expect(await search('stranger', 'q=needle&owner=acme')).toEqual(['acme/app:needle in public']);
    // Bad filters.
    expect((await call('GET', '/repos/issues/search?owner=nobody-here', 'boss')).status).toBe(400);
    expect((await call('GET', '/repos/issues/search?team=Owners', 'boss')).status).toBe(400);
    expect((await call('GET', '/repos/issues/search?since=not-a-time', 'boss')).status).toBe(422);
    expect((await call('GET', '/repos/issues/search?state=weird', 'boss')).status).toBe(422);
  });

  test('label and milestone filters, paging headers', async () => {
    const l = await orgLabel('acme', 'search/hit');
    const hit = await newIssue('acme/app', 'labelled for search', { labels: [l.id] });
    await newIssue('acme/app', 'not labelled for search');
    const res = await call('GET', '/repos/issues/search?labels=search/hit', 'stranger');
    expect(res.body.map((i: { number: number }) => i.number)).toEqual([hit.number]);
    expect(res.headers.get('x-total-count')).toBe('1');
    const ms = await call('POST', '/repos/acme/app/milestones', 'boss', { title: 'search-ms' });
    const inMs = await newIssue('acme/app', 'in a milestone', { milestone: ms.body.id });
    const byMs = await call('GET', '/repos/issues/search?milestones=search-ms', 'stranger');
    expect(byMs.body.map((i: { number: number }) => i.number)).toEqual([inMs.number]);
    expect((await call('GET', '/repos/issues/search?milestones=search-ms&labels=search/hit', 'stranger')).body).toEqual([]);
    // assigned: the caller's rows in issue_assignees (written directly: assigning is another feature's route).
    const stranger = await server.kernel.users.byName('stranger');
    const hitRow = await server.kernel.db('issue').where('name', 'labelled for search').first('id');
    await server.kernel.db('issue_assignees').insert({ issue_id: hitRow.id, assignee_id: stranger!.id });
    const mine = await call('GET', '/repos/issues/search?assigned=true', 'stranger');
    expect(mine.body.map((i: { title: string }) => i.title)).toEqual(['labelled for search']);
    expect((await call('GET', '/repos/issues/search?assigned=true', 'boss')).body).toEqual([]);
    // mentioned: @name in an issue body or in a comment (unknown names and e-mail addresses are not mentions).
    await newIssue('acme/app', 'a question', { body: 'what do you think, @stranger? cc nobody@example.com @no-such-user' });
    const other = await newIssue('acme/app', 'another question');
    expect((await call('POST', `/repos/acme/app/issues/${other.number}/comments`, 'boss', { body: '@rival, over to you' })).status).toBe(
      201,
    );
    const titles = async (who: string) =>
      (await call('GET', '/repos/issues/search?mentioned=true', who)).body.map((i: { title: string }) => i.title);
    expect(await titles('stranger')).toEqual(['a question']);
    expect(await titles('rival')).toEqual(['another question']);
    expect(await titles('boss')).toEqual([]);
    const paged = await call('GET', '/repos/issues/search?limit=1&state=all', 'boss');
    expect(paged.body.length).toBe(1);
    expect(Number(paged.headers.get('x-total-count'))).toBeGreaterThan(3);
    expect(paged.headers.get('link')).toContain('rel="next"');
  });
});

describe('organization deletion', () => {
  test("removes the organization's labels and their issue links", async () => {
    expect((await call('POST', '/orgs', 'rival', { username: 'shortlived' })).status).toBe(201);
    const l = await orgLabel('shortlived', 'gone', false, 'rival');
    // An issue elsewhere cannot carry it, so plant the link directly: it must go with the organization.
    const org = await server.kernel.users.byName('shortlived');
    await server.kernel.db('issue_label').insert({ issue_id: 999999, label_id: l.id });
    expect((await call('DELETE', '/orgs/shortlived', 'rival')).status).toBe(204);
    expect(await server.kernel.db('label').where('org_id', org!.id)).toEqual([]);
    expect(await server.kernel.db('issue_label').where('label_id', l.id)).toEqual([]);
    // Recreated under the same name, the organization starts without labels.
    expect((await call('POST', '/orgs', 'rival', { username: 'shortlived' })).status).toBe(201);
    expect((await call('GET', '/orgs/shortlived/labels', 'rival')).body).toEqual([]);
  });
});

describe('repository transfer', () => {
  test("a repository leaving the organization loses the organization's labels on its issues", async () => {
    expect((await call('POST', '/orgs/acme/repos', 'boss', { name: 'moving' })).status).toBe(201);
    const org = await orgLabel('acme', 'moving/org');
    const own = await repoLabel('acme/moving', 'moving/own');
    const issue = await newIssue('acme/moving', 'labelled', { labels: [org.id, own.id] });
    expect(issue.labels.length).toBe(2);
    const moved = await call('POST', '/repos/acme/moving/transfer', 'admin', { new_owner: 'boss' });
    expect([201, 202]).toContain(moved.status);
    const labels = await call('GET', `/repos/boss/moving/issues/${issue.number}/labels`, 'boss');
    expect(labels.status).toBe(200);
    expect(labelNames(labels.body)).toEqual(['moving/own']);
  });
});

describe('Repository.open_issues_count', () => {
  test('counts open issues, in single and listed repositories', async () => {
    expect((await call('POST', '/user/repos', 'boss', { name: 'counted' })).status).toBe(201);
    const before = await call('GET', '/repos/boss/counted', 'boss');
    expect(before.body.open_issues_count).toBe(0);
    for (const t of ['a', 'b', 'c']) await newIssue('boss/counted', t);
    expect((await call('PATCH', '/repos/boss/counted/issues/2', 'boss', { state: 'closed' })).status).toBe(201);
    const one = await call('GET', '/repos/boss/counted', 'boss');
    expect(one.body.open_issues_count).toBe(2);
    expect(one.body.open_pr_counter).toBe(0);
    const listed = await call('GET', '/repos/search?q=counted', 'boss');
    expect(listed.body.data.find((r: { name: string }) => r.name === 'counted').open_issues_count).toBe(2);
  });
});
