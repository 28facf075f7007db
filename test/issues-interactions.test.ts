import fs from 'node:fs';
import path from 'node:path';
import type { ForgeEvent } from '@hearth/plugin-api';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

let server: TestServer;
let sandbox: ReturnType<typeof gitSandbox>;
const tokens: Record<string, string> = {};
const users: Record<string, { name: string; password: string; id: number }> = {};
const SCOPES = ['write:repository', 'write:issue', 'delete:issue', 'delete:repository', 'read:user'];
const emitted: ForgeEvent[] = [];

beforeAll(async () => {
  server = await startServer();
  sandbox = gitSandbox();
  server.kernel.hooks.webhook.emit.tapPromise('test:collect', async (ev: ForgeEvent) => {
    emitted.push(ev);
  });
  tokens.admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, SCOPES);
  for (const name of ['owner', 'writer', 'reader', 'stranger']) {
    users[name] = await server.user(name);
    tokens[name] = await server.token(users[name], SCOPES);
  }
  for (const [name, priv] of [
    ['pub', false],
    ['other', false],
    ['secret', true],
    ['pins', false],
    ['git', false],
  ] as const) {
    expect(
      (await call('POST', '/user/repos', 'owner', { name, private: priv, auto_init: name === 'git', default_branch: 'main' })).status,
    ).toBe(201);
  }
  for (const repo of ['pub', 'other', 'pins', 'git']) {
    expect((await call('PUT', `/repos/owner/${repo}/collaborators/writer`, 'owner', { permission: 'write' })).status).toBe(204);
    expect((await call('PUT', `/repos/owner/${repo}/collaborators/reader`, 'owner', { permission: 'read' })).status).toBe(204);
  }
});
afterAll(async () => {
  await server.close();
  sandbox.cleanup();
});

const call = (method: string, p: string, who: string | null, body?: unknown) =>
  server.api(method, p, { token: who ? tokens[who] : undefined, body });
const R = '/repos/owner/pub';
const newIssue = async (title: string, who = 'owner', extra: Record<string, unknown> = {}, repo = R) => {
  const res = await call('POST', `${repo}/issues`, who, { title, ...extra });
  expect(res.status).toBe(201);
  return res.body as { number: number; id: number; [k: string]: any };
};
const timeline = async (index: number, repo = R, who = 'owner') => {
  const res = await call('GET', `${repo}/issues/${index}/timeline?limit=50`, who);
  expect(res.status).toBe(200);
  return res.body as any[];
};
const types = (tl: any[]) => tl.map((t) => t.type);

async function upload(apiPath: string, who: string, content: Buffer, filename: string, name?: string) {
  const form = new FormData();
  form.append('attachment', new Blob([content], { type: 'application/octet-stream' }), filename);
  const url = new URL(`api/v1${apiPath}${name ? `?name=${encodeURIComponent(name)}` : ''}`, server.url);
  const res = await fetch(url, { method: 'POST', headers: { Authorization: `token ${tokens[who]}` }, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A pull request row inserted directly (the pull requests module creates them through its API). */
async function pullRow(repo: string, title: string): Promise<number> {
  const db = server.kernel.db;
  const r = await db('repositories').where({ lower_name: repo }).first('id');
  await db('issue_index').insert({ repo_id: r.id, max_index: 0 }).onConflict('repo_id').ignore();
  await db('issue_index').where('repo_id', r.id).increment('max_index', 1);
  const { max_index } = await db('issue_index').where('repo_id', r.id).first('max_index');
  const now = Math.floor(Date.now() / 1000);
  await db('issue').insert({
    repo_id: r.id,
    index: Number(max_index),
    poster_id: users.owner.id,
    name: title,
    content: '',
    is_pull: true,
    created_unix: now,
    updated_unix: now,
  });
  return Number(max_index);
}

describe('assignees', () => {
  test('set on create and edit, shown in the Issue JSON; only writers can be assigned and assign', async () => {
    const issue = await newIssue('assign me', 'owner', { assignees: ['writer'], assignee: 'owner' });
    expect(issue.assignee).toMatchObject({ login: 'owner' });
    expect(issue.assignees.map((u: { login: string }) => u.login)).toEqual(['owner', 'writer']);
    expect((await call('POST', `${R}/issues`, 'owner', { title: 'x', assignees: ['reader'] })).status).toBe(422);
    expect((await call('POST', `${R}/issues`, 'owner', { title: 'x', assignees: ['nobody-here'] })).status).toBe(422);
    // A reader's assignees are ignored on create (as Gitea), refused on edit.
    const byReader = await newIssue('reader issue', 'reader', { assignees: ['writer'] });
    expect(byReader.assignees).toBeNull();
    expect((await call('PATCH', `${R}/issues/${byReader.number}`, 'reader', { assignees: ['writer'] })).status).toBe(403);
    const edited = await call('PATCH', `${R}/issues/${issue.number}`, 'writer', { assignees: ['writer'] });
    expect(edited.status).toBe(201);
    expect(edited.body.assignees.map((u: { login: string }) => u.login)).toEqual(['writer']);
    const cleared = await call('PATCH', `${R}/issues/${issue.number}`, 'writer', { assignees: [] });
    expect(cleared.body.assignees).toBeNull();
    expect(cleared.body.assignee).toBeNull();
    const tl = (await timeline(issue.number)).filter((t) => t.type === 'assignees');
    expect(tl.map((t) => [t.assignee.login, t.removed_assignee])).toEqual([
      ['owner', false],
      ['writer', false],
      ['owner', true],
      ['writer', true],
    ]);
    const assignEvents = emitted
      .filter((e) => e.event === 'issue_assign' && (e.payload.issue as any).number === issue.number)
      .map((e) => e.action);
    expect(assignEvents).toEqual(['assigned', 'assigned', 'unassigned', 'unassigned']);
    const assignIds = emitted
      .filter((e) => e.event === 'issue_assign' && (e.payload.issue as any).number === issue.number)
      .map((e) => e.payload.assignee_id);
    expect(assignIds).toEqual([users.owner.id, users.writer.id, users.owner.id, users.writer.id]);
  });
});

describe('deadline and locking', () => {
  test('deadline: writers set it to the end of the day; readers cannot', async () => {
    const issue = await newIssue('deadline');
    const res = await call('POST', `${R}/issues/${issue.number}/deadline`, 'writer', { due_date: '2030-05-06T08:00:00Z' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ due_date: '2030-05-06T23:59:59Z' });
    expect((await call('GET', `${R}/issues/${issue.number}`, 'reader')).body.due_date).toBe('2030-05-06T23:59:59Z');
    expect((await call('POST', `${R}/issues/${issue.number}/deadline`, 'reader', { due_date: '2030-05-07T08:00:00Z' })).status).toBe(403);
    expect((await call('POST', `${R}/issues/${issue.number}/deadline`, 'writer', { due_date: 'tomorrow' })).status).toBeGreaterThanOrEqual(
      400,
    );
    expect((await call('POST', `${R}/issues/${issue.number}/deadline`, 'writer', { due_date: '2030-06-01T00:00:00Z' })).status).toBe(201);
    const tl = (await timeline(issue.number)).filter((t) => t.type.endsWith('deadline'));
    expect(tl.map((t) => [t.type, t.body])).toEqual([
      ['added_deadline', '2030-05-06'],
      ['modified_deadline', '2030-06-01|2030-05-06'],
    ]);
  });

  test('locked issues take comments and reactions only from writers', async () => {
    const issue = await newIssue('heated', 'reader');
    expect((await call('PUT', `${R}/issues/${issue.number}/lock`, 'reader', { lock_reason: 'Too heated' })).status).toBe(403);
    expect((await call('PUT', `${R}/issues/${issue.number}/lock`, 'writer', { lock_reason: 'Too heated' })).status).toBe(204);
    expect((await call('GET', `${R}/issues/${issue.number}`, 'reader')).body.is_locked).toBe(true);
    expect((await call('POST', `${R}/issues/${issue.number}/comments`, 'reader', { body: 'but…' })).status).toBe(403);
    expect((await call('POST', `${R}/issues/${issue.number}/reactions`, 'reader', { content: 'heart' })).status).toBe(403);
    expect((await call('POST', `${R}/issues/${issue.number}/comments`, 'writer', { body: 'calm down' })).status).toBe(201);
    expect((await call('DELETE', `${R}/issues/${issue.number}/lock`, 'writer')).status).toBe(204);
    expect((await call('POST', `${R}/issues/${issue.number}/comments`, 'reader', { body: 'thanks' })).status).toBe(201);
    const tl = await timeline(issue.number);
    expect(types(tl)).toEqual(['lock', 'comment', 'unlock', 'comment']);
    expect(tl[0].body).toBe('Too heated');
    // Without a body, and again when already locked: 204, one event.
    expect((await call('PUT', `${R}/issues/${issue.number}/lock`, 'owner')).status).toBe(204);
    expect((await call('PUT', `${R}/issues/${issue.number}/lock`, 'owner')).status).toBe(204);
    expect(types(await timeline(issue.number))).toEqual(['lock', 'comment', 'unlock', 'comment', 'lock']);
    expect((await call('PUT', `${R}/issues/${issue.number}/lock`, 'owner', { lock_reason: 'x'.repeat(300) })).status).toBe(422);
    expect((await call('DELETE', `${R}/issues/999999/lock`, 'owner')).status).toBe(404);
  });
});

describe('pins', () => {
  const P = '/repos/owner/pins';
  const pinned = async (kind: 'issues' | 'pulls') => {
    const res = await call('GET', `${P}/${kind}/pinned`, 'reader');
    expect(res.status).toBe(200);
    return (res.body as { number: number; pin_order: number }[]).map((i) => [i.number, i.pin_order]);
  };

  test('positions of issues and pull requests are counted separately, with moves, unpins, close and delete', async () => {
    const issues = [];
    for (let i = 0; i < 5; i++) issues.push((await newIssue(`pin ${i}`, 'owner', {}, P)).number);
    const pulls = [await pullRow('pins', 'pull a'), await pullRow('pins', 'pull b')];
    for (const n of issues.slice(0, 3)) expect((await call('POST', `${P}/issues/${n}/pin`, 'writer')).status).toBe(204);
    expect(await pinned('issues')).toEqual([
      [issues[0], 1],
      [issues[1], 2],
      [issues[2], 3],
    ]);
    expect((await call('GET', `${P}/new_pin_allowed`, 'reader')).body).toEqual({ issues: false, pull_requests: true });
    const tooMany = await call('POST', `${P}/issues/${issues[3]}/pin`, 'writer');
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toMatch(/MAX_PINNED/);
    expect((await call('POST', `${P}/issues/${issues[3]}/pin`, 'reader')).status).toBe(403);
    // Pull requests have their own positions.
    for (const n of pulls) expect((await call('POST', `${P}/issues/${n}/pin`, 'writer')).status).toBe(204);
    expect(await pinned('pulls')).toEqual([
      [pulls[0], 1],
      [pulls[1], 2],
    ]);
    expect((await call('PATCH', `${P}/issues/${pulls[1]}/pin/1`, 'writer')).status).toBe(204);
    expect(await pinned('pulls')).toEqual([
      [pulls[1], 1],
      [pulls[0], 2],
    ]);
    // Moves shift the others.
    expect((await call('PATCH', `${P}/issues/${issues[2]}/pin/1`, 'writer')).status).toBe(204);
    expect(await pinned('issues')).toEqual([
      [issues[2], 1],
      [issues[0], 2],
      [issues[1], 3],
    ]);
    expect((await call('PATCH', `${P}/issues/${issues[2]}/pin/99`, 'writer')).status).toBe(204);
    expect(await pinned('issues')).toEqual([
      [issues[0], 1],
      [issues[1], 2],
      [issues[2], 3],
    ]);
    expect((await call('PATCH', `${P}/issues/${issues[2]}/pin/2`, 'reader')).status).toBe(403);
    // Unpin closes the gap.
    expect((await call('DELETE', `${P}/issues/${issues[0]}/pin`, 'writer')).status).toBe(204);
    expect(await pinned('issues')).toEqual([
      [issues[1], 1],
      [issues[2], 2],
    ]);
    expect((await call('GET', `${P}/issues/${issues[0]}`, 'reader')).body.pin_order).toBe(0);
    // Closing unpins (as Gitea); deleting keeps positions gap-free.
    expect((await call('POST', `${P}/issues/${issues[3]}/pin`, 'writer')).status).toBe(204);
    expect((await call('PATCH', `${P}/issues/${issues[1]}`, 'writer', { state: 'closed' })).status).toBe(201);
    expect(await pinned('issues')).toEqual([
      [issues[2], 1],
      [issues[3], 2],
    ]);
    expect((await call('DELETE', `${P}/issues/${issues[2]}`, 'owner')).status).toBe(204);
    expect(await pinned('issues')).toEqual([[issues[3], 1]]);
    expect(await pinned('pulls')).toEqual([
      [pulls[1], 1],
      [pulls[0], 2],
    ]);
    expect(types(await timeline(issues[0], P)).filter((t) => t.includes('pin'))).toEqual(['pin', 'unpin']);
    expect(types(await timeline(issues[1], P))).toEqual(['pin', 'close', 'unpin']);
  });

  test('concurrent moves keep positions 1..n', async () => {
    const ns = [];
    for (let i = 0; i < 2; i++) ns.push((await newIssue(`race ${i}`, 'owner', {}, P)).number);
    for (const n of ns) expect((await call('POST', `${P}/issues/${n}/pin`, 'writer')).status).toBe(204);
    const all = (await pinned('issues')).map(([n]) => n);
    expect(all.length).toBe(3);
    const moves = [];
    for (let i = 0; i < 24; i++)
      moves.push(call('PATCH', `${P}/issues/${all[i % 3]}/pin/${((i * 7) % 3) + 1}`, i % 2 ? 'writer' : 'owner'));
    for (const res of await Promise.all(moves)) expect(res.status).toBe(204);
    const after = await pinned('issues');
    expect(after.map(([, pos]) => pos)).toEqual([1, 2, 3]);
    expect(after.map(([n]) => n).sort()).toEqual([...all].sort());
    // Concurrent pins never exceed the maximum nor share a position.
    expect((await call('DELETE', `${P}/issues/${all[0]}/pin`, 'writer')).status).toBe(204);
    expect((await call('DELETE', `${P}/issues/${all[1]}/pin`, 'writer')).status).toBe(204);
    const fresh = [];
    for (let i = 0; i < 4; i++) fresh.push((await newIssue(`burst ${i}`, 'owner', {}, P)).number);
    const pins = await Promise.all(fresh.map((n) => call('POST', `${P}/issues/${n}/pin`, 'writer')));
    expect(pins.filter((r) => r.status === 204).length).toBe(2);
    expect(pins.filter((r) => r.status === 422).length).toBe(2);
    expect((await pinned('issues')).map(([, pos]) => pos)).toEqual([1, 2, 3]);
  });
});

describe('subscriptions', () => {
  test('poster and commenters watch; explicit watches win; only oneself (or an admin) may change', async () => {
    const issue = await newIssue('watch me', 'writer');
    const check = async (who: string) => (await call('GET', `${R}/issues/${issue.number}/subscriptions/check`, who)).body;
    expect(await check('writer')).toMatchObject({ subscribed: true, ignored: false });
    expect(await check('reader')).toMatchObject({ subscribed: false, ignored: true });
    expect((await call('GET', `${R}/issues/${issue.number}/subscriptions/check`, null)).status).toBe(401);
    expect((await call('PUT', `${R}/issues/${issue.number}/subscriptions/reader`, 'reader')).status).toBe(201);
    expect((await call('PUT', `${R}/issues/${issue.number}/subscriptions/reader`, 'reader')).status).toBe(200);
    expect(await check('reader')).toMatchObject({ subscribed: true });
    expect((await call('PUT', `${R}/issues/${issue.number}/subscriptions/writer`, 'reader')).status).toBe(403);
    expect((await call('PUT', `${R}/issues/${issue.number}/subscriptions/nobody-here`, 'reader')).status).toBe(404);
    expect((await call('PUT', `${R}/issues/${issue.number}/subscriptions/stranger`, 'admin')).status).toBe(201);
    const list = await call('GET', `${R}/issues/${issue.number}/subscriptions`, 'reader');
    expect(list.status).toBe(200);
    expect(list.body.map((u: { login: string }) => u.login)).toEqual(['reader', 'stranger']);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect((await call('DELETE', `${R}/issues/${issue.number}/subscriptions/writer`, 'writer')).status).toBe(201);
    expect((await call('DELETE', `${R}/issues/${issue.number}/subscriptions/writer`, 'writer')).status).toBe(200);
    expect(await check('writer')).toMatchObject({ subscribed: false });
    // Watching the repository (table of the notifications module) subscribes to its issues.
    const db = server.kernel.db;
    if (await db.schema.hasTable('watch')) {
      const repoId = (await db('repositories').where('lower_name', 'pub').first('id')).id;
      const now = Math.floor(Date.now() / 1000);
      await db('watch').insert({ user_id: users.stranger.id, repo_id: repoId, mode: 1, created_unix: now, updated_unix: now });
      const other = await newIssue('watched through the repository', 'writer');
      expect((await call('GET', `${R}/issues/${other.number}/subscriptions/check`, 'stranger')).body).toMatchObject({ subscribed: true });
      await db('watch').where({ user_id: users.stranger.id, repo_id: repoId }).delete();
    }
  });
});

describe('dependencies', () => {
  test('blocks and depends on, across repositories, with the rules', async () => {
    const a = await newIssue('A');
    const b = await newIssue('B');
    const c = await newIssue('C in other', 'owner', {}, '/repos/owner/other');
    const dep = await call('POST', `${R}/issues/${a.number}/dependencies`, 'writer', { index: b.number });
    expect(dep.status).toBe(201);
    expect(dep.body.number).toBe(a.number);
    expect((await call('GET', `${R}/issues/${a.number}/dependencies`, 'reader')).body.map((i: { title: string }) => i.title)).toEqual([
      'B',
    ]);
    expect((await call('GET', `${R}/issues/${b.number}/blocks`, 'reader')).body.map((i: { title: string }) => i.title)).toEqual(['A']);
    expect((await call('POST', `${R}/issues/${a.number}/dependencies`, 'writer', { index: b.number })).status).toBe(422);
    expect((await call('POST', `${R}/issues/${a.number}/dependencies`, 'writer', { index: a.number })).status).toBe(422);
    expect((await call('POST', `${R}/issues/${b.number}/dependencies`, 'writer', { index: a.number })).status).toBe(422);
    expect(
      (await call('POST', `${R}/issues/${a.number}/dependencies`, 'reader', { index: b.number, owner: 'owner', repo: 'pub' })).status,
    ).toBe(403);
    expect((await call('POST', `${R}/issues/${a.number}/dependencies`, 'writer', { index: 9999 })).status).toBe(404);
    // Cross-repository, through /blocks: C (other repo) blocks A.
    const blk = await call('POST', `/repos/owner/other/issues/${c.number}/blocks`, 'writer', {
      index: a.number,
      owner: 'owner',
      repo: 'pub',
    });
    expect(blk.status).toBe(201);
    expect(blk.body.title).toBe('C in other');
    expect((await call('GET', `${R}/issues/${a.number}/dependencies`, 'reader')).body.map((i: { title: string }) => i.title)).toEqual([
      'B',
      'C in other',
    ]);
    // A private repository's issue cannot be referenced by whom cannot read it.
    const s = await newIssue('secret', 'owner', {}, '/repos/owner/secret');
    expect(
      (await call('POST', `${R}/issues/${a.number}/dependencies`, 'writer', { index: s.number, owner: 'owner', repo: 'secret' })).status,
    ).toBe(404);
    // A blocked issue cannot be closed.
    const close = await call('PATCH', `${R}/issues/${a.number}`, 'writer', { state: 'closed' });
    expect(close.status).toBe(412);
    expect((await call('DELETE', `${R}/issues/${a.number}/dependencies`, 'writer', { index: b.number })).status).toBe(200);
    expect((await call('DELETE', `${R}/issues/${a.number}/dependencies`, 'writer', { index: b.number })).status).toBe(404);
    expect(
      (await call('DELETE', `/repos/owner/other/issues/${c.number}/blocks`, 'writer', { index: a.number, owner: 'owner', repo: 'pub' }))
        .status,
    ).toBe(200);
    expect((await call('PATCH', `${R}/issues/${a.number}`, 'writer', { state: 'closed' })).status).toBe(201);
    const tl = (await timeline(a.number)).filter((t) => t.type.endsWith('dependency'));
    expect(tl.map((t) => [t.type, t.dependent_issue.title])).toEqual([
      ['add_dependency', 'B'],
      ['add_dependency', 'C in other'],
      ['remove_dependency', 'B'],
      ['remove_dependency', 'C in other'],
    ]);
    expect((await timeline(b.number)).filter((t) => t.type === 'add_dependency')[0].dependent_issue.title).toBe('A');
  });
});

describe('reactions', () => {
  test('on issues and comments: 201 new, 200 existing, allowed list only', async () => {
    const issue = await newIssue('react');
    const post = (who: string, content: string) => call('POST', `${R}/issues/${issue.number}/reactions`, who, { content });
    const first = await post('reader', 'heart');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ content: 'heart', user: { login: 'reader' } });
    expect((await post('reader', 'heart')).status).toBe(200);
    expect((await post('writer', '+1')).status).toBe(201);
    expect((await post('writer', 'party-parrot')).status).toBe(403);
    expect((await call('POST', `${R}/issues/${issue.number}/reactions`, null, { content: 'heart' })).status).toBe(401);
    const list = await call('GET', `${R}/issues/${issue.number}/reactions`, null);
    expect(list.body.map((r: { content: string; user: { login: string } }) => [r.user.login, r.content])).toEqual([
      ['reader', 'heart'],
      ['writer', '+1'],
    ]);
    expect((await call('DELETE', `${R}/issues/${issue.number}/reactions`, 'reader', { content: 'heart' })).status).toBe(200);
    expect((await call('GET', `${R}/issues/${issue.number}/reactions`, null)).body.length).toBe(1);
    const comment = (await call('POST', `${R}/issues/${issue.number}/comments`, 'writer', { body: 'nice' })).body;
    expect((await call('POST', `${R}/issues/comments/${comment.id}/reactions`, 'reader', { content: 'rocket' })).status).toBe(201);
    expect((await call('POST', `${R}/issues/comments/${comment.id}/reactions`, 'reader', { content: 'rocket' })).status).toBe(200);
    const cl = await call('GET', `${R}/issues/comments/${comment.id}/reactions`, 'reader');
    expect(cl.body.map((r: { content: string }) => r.content)).toEqual(['rocket']);
    // Comment reactions do not show among the issue's.
    expect((await call('GET', `${R}/issues/${issue.number}/reactions`, null)).body.length).toBe(1);
    expect((await call('DELETE', `${R}/issues/comments/${comment.id}/reactions`, 'reader', { content: 'rocket' })).status).toBe(200);
    expect((await call('GET', `${R}/issues/comments/${comment.id}/reactions`, 'reader')).body).toEqual([]);
    expect((await call('POST', `${R}/issues/comments/999999/reactions`, 'reader', { content: 'rocket' })).status).toBe(404);
  });
});

describe('attachments', () => {
  test('issue and comment assets round-trip their bytes; review comments take them too', async () => {
    const issue = await newIssue('with files', 'reader');
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13]);
    const up = await upload(`${R}/issues/${issue.number}/assets`, 'reader', bytes, 'dump.dmp');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ name: 'dump.dmp', size: bytes.length });
    expect((await upload(`${R}/issues/${issue.number}/assets`, 'stranger', bytes, 'x.dmp')).status).toBe(403);
    const list = await call('GET', `${R}/issues/${issue.number}/assets`, null);
    expect(list.body.map((a: { id: number }) => a.id)).toEqual([up.body.id]);
    expect((await call('GET', `${R}/issues/${issue.number}`, null)).body.assets.map((a: { uuid: string }) => a.uuid)).toEqual([
      up.body.uuid,
    ]);
    const dl = await fetch(up.body.browser_download_url);
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
    const renamed = await call('PATCH', `${R}/issues/${issue.number}/assets/${up.body.id}`, 'reader', { name: 'renamed.dmp' });
    expect(renamed.status).toBe(201);
    expect(renamed.body.name).toBe('renamed.dmp');
    expect((await call('PATCH', `${R}/issues/${issue.number}/assets/${up.body.id}`, 'stranger', { name: 'no.dmp' })).status).toBe(403);
    expect((await call('GET', `${R}/issues/${issue.number}/assets/${up.body.id}`, null)).body.name).toBe('renamed.dmp');

    const comment = (await call('POST', `${R}/issues/${issue.number}/comments`, 'writer', { body: 'see attached' })).body;
    const cup = await upload(`${R}/issues/comments/${comment.id}/assets`, 'writer', Buffer.from('log line\n'), 'log.txt');
    expect(cup.status).toBe(201);
    expect((await call('GET', `${R}/issues/comments/${comment.id}`, null)).body.assets.map((a: { name: string }) => a.name)).toEqual([
      'log.txt',
    ]);
    expect((await call('GET', `${R}/issues/comments/${comment.id}/assets`, null)).body.map((a: { name: string }) => a.name)).toEqual([
      'log.txt',
    ]);
    expect((await call('GET', `${R}/issues/${issue.number}/assets`, null)).body.length).toBe(1); // the comment's are not the issue's
    // A review-kind comment row (type 22), as the pull requests module stores them.
    const db = server.kernel.db;
    const now = Math.floor(Date.now() / 1000);
    const [row] = await db('comment').insert(
      {
        type: 22,
        repo_id: issue.repository ? (await db('repositories').where('lower_name', 'pub').first('id')).id : 0,
        issue_id: issue.id,
        poster_id: users.writer.id,
        content: 'review',
        created_unix: now,
        updated_unix: now,
      },
      ['id'],
    );
    const reviewId = typeof row === 'object' ? Number(row.id) : Number(row);
    const rup = await upload(`${R}/issues/comments/${reviewId}/assets`, 'writer', Buffer.from('review file'), 'review.txt');
    expect(rup.status).toBe(201);
    const rdl = await fetch(rup.body.browser_download_url);
    expect(await rdl.text()).toBe('review file');
    expect((await call('DELETE', `${R}/issues/comments/${comment.id}/assets/${cup.body.id}`, 'writer')).status).toBe(204);
    expect((await call('GET', `${R}/issues/comments/${comment.id}/assets`, null)).body).toEqual([]);
    expect((await call('DELETE', `${R}/issues/${issue.number}/assets/${up.body.id}`, 'reader')).status).toBe(204);
    expect((await fetch(up.body.browser_download_url)).status).toBe(404);
  });

  test('attachments of a private repository need read access', async () => {
    const issue = await newIssue('secret files', 'owner', {}, '/repos/owner/secret');
    const up = await upload(`/repos/owner/secret/issues/${issue.number}/assets`, 'owner', Buffer.from('classified'), 'c.txt');
    expect(up.status).toBe(201);
    expect((await fetch(up.body.browser_download_url)).status).toBe(404);
    expect((await call('GET', `/repos/owner/secret/issues/${issue.number}/assets`, 'reader')).status).toBe(404);
  });
});

describe('timeline and events', () => {
  test('a cross-repository reference lands only where its author can read', async () => {
    const hidden = await newIssue('hidden target', 'owner', {}, '/repos/owner/secret');
    const visible = await newIssue('visible target');
    expect((await call('POST', '/user/repos', 'stranger', { name: 'own' })).status).toBe(201);
    await newIssue(`see owner/secret#${hidden.number} and owner/pub#${visible.number}`, 'stranger', {}, '/repos/stranger/own');
    expect(types(await timeline(hidden.number, '/repos/owner/secret', 'owner'))).toEqual([]);
    expect(types(await timeline(visible.number, R, 'owner'))).toEqual(['issue_ref']);
  });

  test('deleting the referring comment or issue takes its reference off the timeline', async () => {
    const target = await newIssue('often mentioned');
    const source = await newIssue('source of references');
    const comment = (await call('POST', `${R}/issues/${source.number}/comments`, 'owner', { body: `about #${target.number}` })).body;
    const referrer = await newIssue(`also #${target.number}`);
    expect(types(await timeline(target.number))).toEqual(['comment_ref', 'issue_ref']);
    expect((await call('DELETE', `${R}/issues/comments/${comment.id}`, 'owner')).status).toBe(204);
    expect(types(await timeline(target.number))).toEqual(['issue_ref']);
    const admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['delete:issue'], 'ref-cleanup');
    expect((await server.api('DELETE', `${R}/issues/${referrer.number}`, { token: admin })).status).toBe(204);
    expect(types(await timeline(target.number))).toEqual([]);
  });

  test('every event kind in order; /comments shows only comments', async () => {
    const label = (await call('POST', `${R}/labels`, 'owner', { name: 'bug', color: '#ff0000' })).body;
    const milestone = (await call('POST', `${R}/milestones`, 'owner', { title: 'v1' })).body;
    const issue = await newIssue('timeline');
    const other = await newIssue(`mentions #${issue.number}`, 'reader', { body: 'related' });
    expect((await call('POST', `${R}/issues/${issue.number}/labels`, 'writer', { labels: [label.id] })).status).toBe(200);
    expect((await call('DELETE', `${R}/issues/${issue.number}/labels/${label.id}`, 'writer')).status).toBe(204);
    expect((await call('PATCH', `${R}/issues/${issue.number}`, 'writer', { milestone: milestone.id })).status).toBe(201);
    expect((await call('PATCH', `${R}/issues/${issue.number}`, 'owner', { title: 'timeline renamed', body: 'new body' })).status).toBe(201);
    const comment = (await call('POST', `${R}/issues/${other.number}/comments`, 'reader', { body: `see also #${issue.number}` })).body;
    expect((await call('POST', `${R}/issues/${issue.number}/comments`, 'reader', { body: 'a plain comment' })).status).toBe(201);
    expect((await call('PATCH', `${R}/issues/${issue.number}`, 'owner', { state: 'closed' })).status).toBe(201);
    expect((await call('PATCH', `${R}/issues/${issue.number}`, 'owner', { state: 'open' })).status).toBe(201);
    expect((await call('POST', `${R}/issues/${issue.number}/pin`, 'owner')).status).toBe(204);
    expect((await call('DELETE', `${R}/issues/${issue.number}/pin`, 'owner')).status).toBe(204);
    const tl = await timeline(issue.number, R, 'reader');
    expect(types(tl)).toEqual([
      'issue_ref',
      'label',
      'label',
      'milestone',
      'change_title',
      'comment_ref',
      'comment',
      'close',
      'reopen',
      'pin',
      'unpin',
    ]);
    expect(tl[0].ref_issue.number).toBe(other.number);
    expect(tl[1]).toMatchObject({ label: { name: 'bug' }, body: '1' });
    expect(tl[2]).toMatchObject({ label: { name: 'bug' }, body: '' });
    expect(tl[3]).toMatchObject({ milestone: { title: 'v1' }, old_milestone: null });
    expect(tl[4]).toMatchObject({ old_title: 'timeline', new_title: 'timeline renamed' });
    expect(tl[5]).toMatchObject({ ref_issue: { number: other.number }, ref_comment: { id: comment.id } });
    expect(tl[6]).toMatchObject({ body: 'a plain comment', user: { login: 'reader' } });
    const paged = await call('GET', `${R}/issues/${issue.number}/timeline?limit=3&page=2`, 'reader');
    expect(paged.headers.get('x-total-count')).toBe('11');
    expect(types(paged.body)).toEqual(['milestone', 'change_title', 'comment_ref']);
    const comments = await call('GET', `${R}/issues/${issue.number}/comments`, 'reader');
    expect(comments.body.map((c: { body: string }) => c.body)).toEqual(['a plain comment']);
    expect((await call('GET', `${R}/issues/${issue.number}`, 'reader')).body.comments).toBe(1);
    const repoComments = await call('GET', `${R}/issues/comments?limit=50`, 'reader');
    expect(repoComments.body.every((c: { body: string }) => !c.body.startsWith('timeline'))).toBe(true);

    const mine = emitted.filter((e) => (e.payload.issue as any)?.id === issue.id);
    expect(mine.map((e) => `${e.event}:${e.action}`)).toEqual([
      'issues:opened',
      'issue_label:label_updated',
      'issue_label:label_updated',
      'issue_milestone:milestoned',
      'issues:edited',
      'issue_comment:created',
      'issues:closed',
      'issues:reopened',
    ]);
    const edited = mine.find((e) => e.action === 'edited')!;
    expect(edited.payload).toMatchObject({
      changes: { title: { from: 'timeline' }, body: { from: '' } },
      commit_id: '',
      number: issue.number,
    });
    expect(edited).toMatchObject({ ownerId: users.owner.id, actor: { name: 'owner' } });
    expect(edited.payload.repository).toBeUndefined();
    const created = mine.find((e) => e.event === 'issue_comment')!;
    expect(created.payload).toMatchObject({ action: 'created', is_pull: false, comment: { body: 'a plain comment' } });

    // Labels and milestone given on create are in the timeline too (as Gitea).
    const withAll = await newIssue('born labelled', 'owner', { labels: [label.id], milestone: milestone.id });
    const born = await timeline(withAll.number);
    expect(born.map((t) => [t.type, t.label?.name ?? t.milestone?.title])).toEqual([
      ['label', 'bug'],
      ['milestone', 'v1'],
    ]);
  });

  test('comment edit and delete, label clear and issue delete emit their events', async () => {
    const issue = await newIssue('events');
    const label = (await call('POST', `${R}/labels`, 'owner', { name: 'ev', color: '#00ff00' })).body;
    const c = (await call('POST', `${R}/issues/${issue.number}/comments`, 'owner', { body: 'one' })).body;
    expect((await call('PATCH', `${R}/issues/comments/${c.id}`, 'owner', { body: 'two' })).status).toBe(200);
    expect((await call('DELETE', `${R}/issues/comments/${c.id}`, 'owner')).status).toBe(204);
    expect((await call('PUT', `${R}/issues/${issue.number}/labels`, 'owner', { labels: [label.id] })).status).toBe(200);
    expect((await call('DELETE', `${R}/issues/${issue.number}/labels`, 'owner')).status).toBe(204);
    expect((await call('DELETE', `${R}/issues/${issue.number}`, 'owner')).status).toBe(204);
    const mine = emitted.filter((e) => (e.payload.issue as any)?.id === issue.id);
    expect(mine.map((e) => `${e.event}:${e.action}`)).toEqual([
      'issues:opened',
      'issue_comment:created',
      'issue_comment:edited',
      'issue_comment:deleted',
      'issue_label:label_updated',
      'issue_label:label_cleared',
      'issues:deleted',
    ]);
    expect(mine[2].payload.changes).toEqual({ body: { from: 'one' } });
    expect((mine[3].payload.comment as any).body).toBe('two');
  });
});

describe('bad input', () => {
  test('is a 4xx, never a 500', async () => {
    const issue = await newIssue('bad input');
    const n = issue.number;
    const cases: [string, string, unknown][] = [
      ['POST', `${R}/issues/${n}/reactions`, {}],
      ['POST', `${R}/issues/${n}/reactions`, { content: 42 }],
      ['POST', `${R}/issues/${n}/dependencies`, {}],
      ['POST', `${R}/issues/${n}/dependencies`, { index: 'one' }],
      ['POST', `${R}/issues/${n}/dependencies`, { index: 1, owner: 'nobody-here', repo: 'x' }],
      ['POST', `${R}/issues/${n}/blocks`, { index: -1 }],
      ['PATCH', `${R}/issues/${n}/pin/0`, undefined],
      ['PATCH', `${R}/issues/${n}/pin/abc`, undefined],
      ['POST', `${R}/issues/${n}/deadline`, {}],
      ['POST', `${R}/issues/${n}/deadline`, { due_date: 12 }],
      ['PUT', `${R}/issues/${n}/subscriptions/${'x'.repeat(300)}`, undefined],
      ['GET', `${R}/issues/${n}/timeline?since=yesterday`, undefined],
      ['GET', `${R}/issues/${n}/assets/999999`, undefined],
      ['GET', `${R}/issues/comments/999999/assets`, undefined],
      ['POST', `${R}/issues/${n}/assets`, { not: 'multipart' }],
      ['PATCH', `${R}/issues/${n}`, { assignees: 'writer' }],
      ['PATCH', `${R}/issues/${n}`, { assignee: 'nobody-here' }],
    ];
    for (const [method, p, body] of cases) {
      const res = await call(method, p, 'owner', body);
      expect([method, p, res.status >= 400 && res.status < 500]).toEqual([method, p, true]);
    }
  });
});

describe('closing keywords', () => {
  async function pushCommit(message: string, branch = 'main'): Promise<string> {
    const folder = `git-${Date.now()}-${Math.random().toString(16).slice(2)}`;
    const url = cloneUrl(server.url, 'owner/git.git', 'writer', users.writer.password);
    expect((await sandbox.git(['clone', '-q', url, folder])).status).toBe(0);
    const dir = path.join(sandbox.dir, folder);
    fs.writeFileSync(path.join(dir, `${folder}.txt`), `${message}\n`);
    expect((await sandbox.git(['add', '.'], dir)).status).toBe(0);
    expect((await sandbox.git(['commit', '-q', '-m', message], dir)).status).toBe(0);
    const pushed = await sandbox.git(['push', '-q', 'origin', `HEAD:${branch}`], dir);
    expect(pushed.status).toBe(0);
    return (await sandbox.git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  }
  const G = '/repos/owner/git';
  const state = async (n: number) => (await call('GET', `${G}/issues/${n}`, 'owner')).body.state;
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
  };

  test('a real git push closes and reopens issues and records the commit', async () => {
    const one = await newIssue('bug one', 'owner', {}, G);
    const two = await newIssue('bug two', 'owner', {}, G);
    const three = await newIssue('bug three', 'owner', {}, G);
    // Another branch: no effect.
    await pushCommit(`Fixes #${one.number}`, 'feature');
    await new Promise((r) => setTimeout(r, 300));
    expect(await state(one.number)).toBe('open');
    const sha = await pushCommit(`Rework parser\n\nThis FIXES #${one.number}, resolves #${two.number} and mentions #${three.number}.`);
    await until(async () => (await state(two.number)) === 'closed');
    expect(await state(one.number)).toBe('closed');
    expect(await state(two.number)).toBe('closed');
    expect(await state(three.number)).toBe('open');
    const tl = await timeline(one.number, G);
    const ref = tl.find((t) => t.type === 'commit_ref');
    expect(ref).toMatchObject({ ref_commit_sha: sha, user: { login: 'writer' } });
    expect(tl.find((t) => t.type === 'close')).toMatchObject({ ref_commit_sha: sha, user: { login: 'writer' } });
    expect(types(await timeline(three.number, G))).toEqual(['commit_ref']);
    const closed = emitted.find((e) => e.event === 'issues' && e.action === 'closed' && (e.payload.issue as any).id === one.id)!;
    expect(closed.payload.commit_id).toBe(sha);
    expect(closed.actor).toMatchObject({ name: 'writer' });
    const reopen = await pushCommit(`reopens #${one.number}`);
    await until(async () => (await state(one.number)) === 'open');
    expect(await state(one.number)).toBe('open');
    const reopened = emitted.find((e) => e.event === 'issues' && e.action === 'reopened' && (e.payload.issue as any).id === one.id)!;
    expect(reopened.payload.commit_id).toBe(reopen);
  });
});
