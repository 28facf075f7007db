import type { ForgeEvent } from '@hearth/plugin-api';
import { startServer, type TestServer } from './helpers/server';

/**
 * One issue write path: a pull request created and edited through /pulls records the same
 * timeline, passes issue.mutate as often, and emits the same events (as pull_request_*) as an
 * issue created and edited the same way through /issues.
 */
type User = { name: string; password: string; id: number };
let server: TestServer;
let alice: User;
let bob: User;
let token: string;
const events: ForgeEvent[] = [];
const mutations: { kind: string; issueId: number | null }[] = [];
const R = '/repos/alice/twins';

const content = (s: string) => Buffer.from(s).toString('base64');

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  token = await server.token(alice, ['write:repository', 'write:issue', 'delete:issue', 'read:user']);
  server.kernel.hooks.webhook.emit.tapPromise('pull-timeline-test', async (e: ForgeEvent) => {
    events.push(e);
  });
  server.kernel.hooks.issue.mutate.tapPromise('pull-timeline-test', async (m) => {
    mutations.push({ kind: m.kind, issueId: m.issueId });
    return m;
  });
  expect(
    (await server.api('POST', '/user/repos', { token, body: { name: 'twins', auto_init: true, default_branch: 'main' } })).status,
  ).toBe(201);
  expect((await server.api('PUT', `${R}/collaborators/bob`, { token, body: { permission: 'write' } })).status).toBe(204);
  expect(
    (await server.api('POST', `${R}/contents/f.txt`, { token, body: { content: content('f\n'), message: 'add f', new_branch: 'feature' } }))
      .status,
  ).toBe(201);
}, 60000);
afterAll(async () => {
  await server.close();
});

const PULL_ONLY = new Set(['pull_push', 'merge_pull', 'change_target_branch', 'review', 'review_request', 'delete_branch']);

async function timelineTypes(index: number): Promise<string[]> {
  const res = await server.api('GET', `${R}/issues/${index}/timeline?limit=50`, { token });
  expect(res.status).toBe(200);
  return (res.body as { type: string }[]).map((t) => t.type).filter((t) => !PULL_ONLY.has(t));
}

/** Events of an item, with the pull_request prefix folded into the issue's names. */
function eventsOf(number: number): string[] {
  return events
    .filter((e) => (e.payload as { number?: number }).number === number)
    .map((e) => `${e.event.replace(/^pull_request$/, 'issues').replace(/^pull_request_/, 'issue_')}:${e.action}`);
}

test('a pull request and an issue edited alike record the same timeline, mutations and events', async () => {
  const labels: number[] = [];
  for (const name of ['bug', 'feature', 'docs']) {
    const res = await server.api('POST', `${R}/labels`, { token, body: { name, color: '#00aabb' } });
    expect(res.status).toBe(201);
    labels.push((res.body as { id: number }).id);
  }
  const milestones: number[] = [];
  for (const title of ['v1', 'v2']) {
    const res = await server.api('POST', `${R}/milestones`, { token, body: { title } });
    expect(res.status).toBe(201);
    milestones.push((res.body as { id: number }).id);
  }
  const common = { body: 'same body', labels: [labels[0], labels[1]], milestone: milestones[0], assignees: ['alice'] };
  events.length = 0;
  mutations.length = 0;
  const issue = await server.api('POST', `${R}/issues`, { token, body: { title: 'Twin', ...common } });
  expect(issue.status).toBe(201);
  const pull = await server.api('POST', `${R}/pulls`, { token, body: { title: 'Twin', head: 'feature', base: 'main', ...common } });
  expect(pull.status).toBe(201);
  const iNum = (issue.body as { number: number }).number;
  const pNum = (pull.body as { number: number }).number;
  const iId = (issue.body as { id: number }).id;
  const pId = (await server.api('GET', `${R}/issues/${pNum}`, { token })).body as { id: number };

  const edits: Record<string, unknown>[] = [
    { title: 'Twin renamed' },
    { milestone: milestones[1] },
    { assignees: ['alice', 'bob'] },
    { assignees: ['bob'] },
    { due_date: '2030-01-02T00:00:00Z' },
    { due_date: '2030-02-03T00:00:00Z' },
    { unset_due_date: true },
    { state: 'closed' },
    { state: 'open' },
  ];
  for (const [n, path] of [
    [iNum, 'issues'],
    [pNum, 'pulls'],
  ] as const) {
    for (const body of edits) {
      const res = await server.api('PATCH', `${R}/${path}/${n}`, { token, body });
      expect(res.status).toBe(201);
    }
    // Labels through the shared labels routes: add one, remove one.
    expect((await server.api('POST', `${R}/issues/${n}/labels`, { token, body: { labels: [labels[2]] } })).status).toBe(200);
    expect((await server.api('DELETE', `${R}/issues/${n}/labels/${labels[0]}`, { token })).status).toBe(204);
  }
  // Labels through PATCH /pulls: the same label events as the labels routes.
  expect((await server.api('PATCH', `${R}/pulls/${pNum}`, { token, body: { labels: [labels[0], labels[1]] } })).status).toBe(201);
  expect((await server.api('PUT', `${R}/issues/${iNum}/labels`, { token, body: { labels: [labels[0], labels[1]] } })).status).toBe(200);

  const issueTimeline = await timelineTypes(iNum);
  const pullTimeline = await timelineTypes(pNum);
  expect(issueTimeline).toEqual([
    'label',
    'label',
    'milestone',
    'assignees',
    'change_title',
    'milestone',
    'assignees',
    'assignees',
    'added_deadline',
    'modified_deadline',
    'removed_deadline',
    'close',
    'reopen',
    'label',
    'label',
    'label',
    'label',
  ]);
  expect(pullTimeline).toEqual(issueTimeline);

  // issue.mutate: once per mutation, the same kinds for both.
  const kindsOf = (id: number) => mutations.filter((m) => m.issueId === id).map((m) => m.kind);
  expect(mutations.filter((m) => m.issueId === null).map((m) => m.kind)).toEqual(['create', 'create']);
  const issueKinds = kindsOf(iId);
  expect(issueKinds).toEqual([...edits.map(() => 'edit'), 'labels', 'labels', 'labels']);
  expect(kindsOf(pId.id)).toEqual([...edits.map(() => 'edit'), 'labels', 'labels', 'edit']);

  // Events: the same, as pull_request_* for the pull request (the labels routes emit issue events only for issues).
  const withoutLabels = (list: string[]) => list.filter((e) => !e.startsWith('issue_label:'));
  expect(withoutLabels(eventsOf(pNum))).toEqual(withoutLabels(eventsOf(iNum)));
  expect(eventsOf(iNum).slice(0, 2)).toEqual(['issues:opened', 'issue_assign:assigned']);
  const pullAssign = events.filter((e) => e.event === 'pull_request_assign');
  expect(pullAssign.map((e) => [e.action, (e.payload as { assignee_id?: number }).assignee_id])).toEqual([
    ['assigned', alice.id],
    ['assigned', bob.id],
    ['unassigned', alice.id],
  ]);
  expect(events.filter((e) => e.event === 'pull_request_label').map((e) => e.action)).toEqual(['label_updated']);
});
