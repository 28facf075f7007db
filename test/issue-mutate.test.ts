import fs from 'node:fs';
import path from 'node:path';
import type { ForgeEvent } from '@hearth/plugin-api';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

// issue.mutate runs once per mutation of every kind. The probe plugin records each mutation of an
// existing issue (inside the mutation's transaction) and vetoes closing an issue whose title or
// body carries "[veto-close]" with a 422.

const PROBE = path.join(__dirname, 'fixtures/plugins/probe');
const P = '/repos/alice/proj';

let server: TestServer;
let token: string;
let sandbox: ReturnType<typeof gitSandbox>;
let dir: string;
const emitted: ForgeEvent[] = [];

async function git(args: string[], cwd = dir): Promise<string> {
  const run = await sandbox.git(args, cwd);
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}
const call = (method: string, p: string, body?: unknown) => server.api(method, p, { token, body });
const newIssue = async (title: string) => {
  const res = await call('POST', `${P}/issues`, { title });
  expect(res.status).toBe(201);
  return res.body as { number: number; id: number };
};
const timelineTypes = async (n: number) =>
  ((await call('GET', `${P}/issues/${n}/timeline?limit=50`)).body as Array<{ type: string }>).map((t) => t.type);
const state = async (n: number) => (await call('GET', `${P}/issues/${n}`)).body.state as string;
/** The mutations of issue `id` the probe saw (and that committed). */
async function mutations(id: number): Promise<Array<{ kind: string; changes: Record<string, unknown> }>> {
  const all = (await server.api('GET', '/probe/events')).body as Array<{ hook: string; detail: string }>;
  return all
    .filter((e) => e.hook === 'issue.mutate')
    .map((e) => JSON.parse(e.detail))
    .filter((d) => d.issueId === id);
}
const issueEvents = (id: number) =>
  emitted.filter(
    (e) =>
      (e.payload.issue as { id?: number } | undefined)?.id === id || (e.payload.pull_request as { id?: number } | undefined)?.id === id,
  );
const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
};

/** Commit `message` on `branch` (from origin/main) and push it. Returns the commit id. */
async function pushCommit(message: string, branch = 'main'): Promise<string> {
  await git(['fetch', '-q', 'origin']);
  await git(['checkout', '-q', '-B', branch, 'origin/main']);
  const file = `f-${Date.now()}-${Math.random().toString(16).slice(2)}.txt`;
  fs.writeFileSync(path.join(dir, file), `${message}\n`);
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', message]);
  await git(['push', '-q', '-f', 'origin', `${branch}:refs/heads/${branch}`]);
  return git(['rev-parse', 'HEAD']);
}
const remoteMain = async () => (await git(['ls-remote', 'origin', 'refs/heads/main'])).split(/\s+/)[0];

beforeAll(async () => {
  server = await startServer({ plugins: { probe: { package: PROBE } } });
  const alice = await server.user('alice');
  token = await server.token(alice, ['write:repository', 'write:issue', 'delete:issue', 'read:user']);
  server.kernel.hooks.webhook.emit.tapPromise('issue-mutate-test', async (e: ForgeEvent) => {
    emitted.push(e);
  });
  expect((await call('POST', '/user/repos', { name: 'proj', auto_init: true, default_branch: 'main' })).status).toBe(201);
  sandbox = gitSandbox();
  dir = path.join(sandbox.dir, 'alice');
  await git(['clone', '-q', cloneUrl(server.url, 'alice/proj.git', 'alice', token), dir], sandbox.dir);
  await git(['config', 'user.email', 'alice@example.com']);
  await git(['config', 'user.name', 'alice']);
}, 60000);
afterAll(async () => {
  sandbox?.cleanup();
  await server?.close();
});

describe('close and reopen', () => {
  test('PATCH state closed: a veto answers 422 and changes nothing', async () => {
    const issue = await newIssue('Keep me open [veto-close]');
    const res = await call('PATCH', `${P}/issues/${issue.number}`, { state: 'closed' });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/may not be closed/);
    expect(await state(issue.number)).toBe('open');
    expect(await timelineTypes(issue.number)).not.toContain('close');
    expect(issueEvents(issue.id).filter((e) => e.action === 'closed')).toEqual([]);
    expect(await mutations(issue.id)).toEqual([]);
  });

  test('PATCH state closed without the marker closes, through one edit mutation', async () => {
    const issue = await newIssue('Close me');
    const res = await call('PATCH', `${P}/issues/${issue.number}`, { state: 'closed' });
    expect(res.status).toBe(201);
    expect(res.body.state).toBe('closed');
    // The probe rewrites titles only when a title is being changed.
    expect(res.body.title).toBe('Close me [probe]');
    expect((await mutations(issue.id)).map((m) => m.kind)).toEqual(['edit']);
    expect((await timelineTypes(issue.number)).filter((t) => t === 'close')).toHaveLength(1);
  });

  test('a closing keyword in a pushed commit: a vetoed issue stays open, the push succeeds, others close', async () => {
    const vetoed = await newIssue('Bug A [veto-close]');
    const plain = await newIssue('Bug B');
    const sha = await pushCommit(`Rework\n\nFixes #${vetoed.number}, fixes #${plain.number}`);
    expect(await remoteMain()).toBe(sha);
    await until(async () => (await state(plain.number)) === 'closed');
    expect(await state(plain.number)).toBe('closed');
    await until(async () => (await timelineTypes(vetoed.number)).includes('commit_ref'));
    expect(await state(vetoed.number)).toBe('open');
    expect(await timelineTypes(vetoed.number)).toEqual(['commit_ref']);
    expect(issueEvents(vetoed.id).filter((e) => e.action === 'closed')).toEqual([]);
    expect(await mutations(vetoed.id)).toEqual([]);
    expect(await mutations(plain.id)).toEqual([{ kind: 'state', issueId: plain.id, changes: { state: 'closed', commitSha: sha } }]);
    // Reopening by keyword is a state mutation too, not vetoed.
    await pushCommit(`reopens #${plain.number}`);
    await until(async () => (await state(plain.number)) === 'open');
    expect((await mutations(plain.id)).map((m) => m.changes.state)).toEqual(['closed', 'open']);
  });
});

describe('merge', () => {
  test('a veto of the close refuses the merge before the base branch moves; without it the merge closes once', async () => {
    await pushCommit('feature work', 'feat');
    const before = await remoteMain();
    const pr = await call('POST', `${P}/pulls`, { head: 'feat', base: 'main', title: 'Ship it [veto-close]' });
    expect(pr.status).toBe(201);
    const index = pr.body.number as number;
    const issueId = (await call('GET', `${P}/issues/${index}`)).body.id as number;
    const refused = await call('POST', `${P}/pulls/${index}/merge`, { Do: 'merge' });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/may not be closed/);
    expect(await remoteMain()).toBe(before);
    const pull = (await call('GET', `${P}/pulls/${index}`)).body;
    expect(pull).toMatchObject({ state: 'open', merged: false });
    expect(await timelineTypes(index)).not.toContain('merge_pull');
    expect(issueEvents(issueId).filter((e) => e.action === 'closed')).toEqual([]);
    expect(await mutations(issueId)).toEqual([]);

    // Drop the marker: the merge goes through, with one state mutation for its close.
    expect((await call('PATCH', `${P}/pulls/${index}`, { title: 'Ship it' })).status).toBe(201);
    const merged = await call('POST', `${P}/pulls/${index}/merge`, { Do: 'merge' });
    expect(merged.status).toBe(200);
    expect(await remoteMain()).not.toBe(before);
    expect((await call('GET', `${P}/pulls/${index}`)).body).toMatchObject({ state: 'closed', merged: true });
    const seen = await mutations(issueId);
    expect(seen.map((m) => m.kind)).toEqual(['edit', 'state']);
    expect(seen[1].changes).toMatchObject({ state: 'closed', merged: true });
  });
});

describe('every other kind reaches the tap once per mutation', () => {
  test('pin, move, unpin, lock, unlock, deadline, assignees', async () => {
    const issue = await newIssue('Kinds');
    const n = issue.number;
    expect((await call('POST', `${P}/issues/${n}/pin`)).status).toBe(204);
    expect((await call('PATCH', `${P}/issues/${n}/pin/1`)).status).toBe(204);
    expect((await call('DELETE', `${P}/issues/${n}/pin`)).status).toBe(204);
    expect((await call('PUT', `${P}/issues/${n}/lock`, { lock_reason: 'spam' })).status).toBe(204);
    expect((await call('DELETE', `${P}/issues/${n}/lock`)).status).toBe(204);
    expect((await call('POST', `${P}/issues/${n}/deadline`, { due_date: '2030-01-02T00:00:00Z' })).status).toBe(201);
    expect((await call('PATCH', `${P}/issues/${n}`, { assignees: ['alice'] })).status).toBe(201);
    const seen = await mutations(issue.id);
    expect(seen.map((m) => [m.kind, m.changes])).toEqual([
      ['pin', { pinned: true }],
      ['pin', { position: 1 }],
      ['pin', { pinned: false }],
      ['lock', { locked: true, lockReason: 'spam' }],
      ['lock', { locked: false }],
      ['deadline', { deadlineUnix: Date.UTC(2030, 0, 2, 23, 59, 59) / 1000 }],
      ['edit', { assigneeIds: [expect.any(Number)] }],
    ]);
    const types = await timelineTypes(n);
    for (const t of ['pin', 'unpin', 'lock', 'unlock', 'added_deadline', 'assignees']) expect(types.filter((x) => x === t)).toHaveLength(1);
    const after = (await call('GET', `${P}/issues/${n}`)).body;
    expect(after).toMatchObject({ is_locked: false, title: 'Kinds [probe]', assignees: [{ login: 'alice' }] });
  });
});
