import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { verify } from '@octokit/webhooks-methods';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { waitFor } from './helpers/wait';

/** A real HTTP receiver: records every request; `answer` decides the status (default 200). */
interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  status: number;
}
interface Receiver {
  url: string;
  port: number;
  got: Received[];
  answer: (r: Received) => number;
  delayMs: number;
  close(): Promise<void>;
}

async function receiver(port = 0): Promise<Receiver> {
  const state: Receiver = { url: '', port: 0, got: [], answer: () => 200, delayMs: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json, status: 0 };
      if (state.delayMs) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      r.status = state.answer(r);
      state.got.push(r);
      res.writeHead(r.status, { 'Content-Type': 'text/plain' }).end(`status ${r.status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}/hook`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return state;
}

const FAST = { webhook: { ALLOWED_HOST_LIST: 'loopback', RETRY_BACKOFF: 0.2, POLL_INTERVAL: 0.1, DELIVER_TIMEOUT: 2 } };

let server: TestServer;
let rx: Receiver;
let sandbox: ReturnType<typeof gitSandbox>;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let aliceToken: string;
let bobToken: string;
let adminToken: string;

const hookBody = (extra: Record<string, unknown> = {}, config: Record<string, string> = {}) => ({
  type: 'gitea',
  active: true,
  events: ['push'],
  ...extra,
  config: { url: rx.url, content_type: 'json', ...config },
});
const ofEvent = (event: string, repo?: string) =>
  rx.got.filter((r) => r.headers['x-gitea-event-type'] === event && (!repo || r.json?.repository?.full_name === repo));
/** The deliveries of an event, or null while there are none (for waitFor). */
const arrived = (event: string, repo?: string) => (ofEvent(event, repo).length ? ofEvent(event, repo) : null);

beforeAll(async () => {
  rx = await receiver();
  server = await startServer(FAST);
  alice = await server.user('alice');
  bob = await server.user('bob');
  aliceToken = await server.token(alice, ['delete:repository', 'write:issue', 'delete:organization', 'delete:user']);
  bobToken = await server.token(bob, ['delete:repository', 'delete:user']);
  adminToken = await server.token(ADMIN, ['delete:admin', 'write:repository']);
  sandbox = gitSandbox();
  expect(
    (await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'proj', auto_init: true, default_branch: 'main' } }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
  await rx.close();
});

describe('hook management', () => {
  test('create, get, list, edit and delete a repository hook; the secret and authorization header are never returned', async () => {
    const create = await server.api('POST', '/repos/alice/proj/hooks', {
      token: aliceToken,
      body: hookBody(
        { events: ['push', 'issues', 'pull_request_review'], branch_filter: 'main', authorization_header: 'Bearer s3cret' },
        { secret: 'shh' },
      ),
    });
    expect(create.status).toBe(201);
    const hook = create.body;
    expect(hook).toMatchObject({
      type: 'gitea',
      active: true,
      branch_filter: 'main',
      authorization_header: '',
      config: { url: rx.url, content_type: 'json' },
    });
    expect(hook.events).toEqual([
      'push',
      'issues',
      'pull_request_review_approved',
      'pull_request_review_rejected',
      'pull_request_review_comment',
    ]);
    expect(JSON.stringify(hook)).not.toContain('shh');
    expect(JSON.stringify(hook)).not.toContain('s3cret');
    const stored = await server.kernel.db('webhook').where('id', hook.id).first();
    expect(String(stored.header_authorization_encrypted)).not.toContain('s3cret');

    expect((await server.api('GET', `/repos/alice/proj/hooks/${hook.id}`, { token: aliceToken })).body.id).toBe(hook.id);
    const list = await server.api('GET', '/repos/alice/proj/hooks', { token: aliceToken });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('1');
    const edit = await server.api('PATCH', `/repos/alice/proj/hooks/${hook.id}`, {
      token: aliceToken,
      body: { active: false, events: ['release'], config: { content_type: 'form' } },
    });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({
      active: false,
      events: ['release'],
      branch_filter: 'main',
      config: { content_type: 'form', url: rx.url },
    });

    expect((await server.api('DELETE', `/repos/alice/proj/hooks/${hook.id}`, { token: aliceToken })).status).toBe(204);
    const gone = await server.api('GET', `/repos/alice/proj/hooks/${hook.id}`, { token: aliceToken });
    expect(gone.status).toBe(404);
    expect(gone.body.message).toMatch(/hook does not exist/);
    expect((await server.api('PATCH', '/repos/alice/proj/hooks/999999', { token: aliceToken, body: { active: true } })).status).toBe(404);
    expect((await server.api('DELETE', '/repos/alice/proj/hooks/999999', { token: aliceToken })).status).toBe(404);
    expect((await server.api('GET', '/orgs/nope/hooks/1', { token: aliceToken })).status).toBe(404);
    expect((await server.api('GET', '/user/hooks/999999', { token: aliceToken })).status).toBe(404);
    expect((await server.api('GET', '/admin/hooks/999999', { token: adminToken })).status).toBe(404);
  });

  test('bad input is a 422; others may not manage the hooks; git hooks are an empty list', async () => {
    const bad = [
      hookBody({}, { url: 'ftp://example.com/x' }),
      hookBody({}, { url: 'not a url' }),
      hookBody({}, { content_type: 'xml' }),
      hookBody({ events: ['no_such_event'] }),
      { ...hookBody(), type: 'telegram' },
      { ...hookBody(), type: 'slack' },
    ];
    for (const body of bad) expect((await server.api('POST', '/repos/alice/proj/hooks', { token: aliceToken, body })).status).toBe(422);
    expect((await server.api('POST', '/repos/alice/proj/hooks', { token: aliceToken, body: { config: { url: rx.url } } })).status).toBe(
      422,
    );
    expect([403, 404]).toContain((await server.api('POST', '/repos/alice/proj/hooks', { token: bobToken, body: hookBody() })).status);
    expect([403, 404]).toContain((await server.api('GET', '/repos/alice/proj/hooks', { token: bobToken })).status);
    const readOnly = await server.token(alice, ['read:repository']);
    expect((await server.api('POST', '/repos/alice/proj/hooks', { token: readOnly, body: hookBody() })).status).toBe(403);
    expect((await server.api('GET', '/admin/hooks', { token: aliceToken })).status).toBe(403);
    const git = await server.api('GET', '/repos/alice/proj/hooks/git', { token: aliceToken });
    expect(git.status).toBe(200);
    expect(git.body).toEqual([]);
    expect((await server.api('GET', '/repos/alice/proj/hooks/git/pre-receive', { token: aliceToken })).status).toBe(404);
    expect(
      (await server.api('PATCH', '/repos/alice/proj/hooks/git/pre-receive', { token: aliceToken, body: { content: 'x' } })).status,
    ).toBe(404);
    expect((await server.api('DELETE', '/repos/alice/proj/hooks/git/pre-receive', { token: aliceToken })).status).toBe(404);
  });
});

describe('deliveries', () => {
  let work: string;
  let hookId: number;

  beforeAll(async () => {
    const res = await server.api('POST', '/repos/alice/proj/hooks', {
      token: aliceToken,
      body: hookBody(
        { events: ['push', 'create', 'delete', 'issues', 'release', 'issue_comment'], branch_filter: '{main,feature/*}' },
        { secret: 'top-secret' },
      ),
    });
    expect(res.status).toBe(201);
    hookId = res.body.id;
    work = path.join(sandbox.dir, 'proj');
    expect((await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/proj.git', 'alice', aliceToken), work])).status).toBe(0);
  });

  test('a push is delivered with Gitea headers, both signatures and the commits with their files', async () => {
    rx.got.length = 0;
    fs.writeFileSync(path.join(work, 'added.txt'), 'new\n');
    fs.appendFileSync(path.join(work, 'README.md'), 'more\n');
    expect((await sandbox.git(['add', '-A'], work)).status).toBe(0);
    expect((await sandbox.git(['commit', '-q', '-m', 'first change'], work)).status).toBe(0);
    fs.rmSync(path.join(work, 'added.txt'));
    expect((await sandbox.git(['add', '-A'], work)).status).toBe(0);
    expect((await sandbox.git(['commit', '-q', '-m', 'second change'], work)).status).toBe(0);
    const before = (await sandbox.git(['rev-parse', 'origin/main'], work)).stdout.trim();
    const after = (await sandbox.git(['rev-parse', 'HEAD'], work)).stdout.trim();
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:main'], work)).status).toBe(0);

    const [push] = await waitFor('push delivery', () => arrived('push'));
    expect(push.method).toBe('POST');
    expect(push.headers['content-type']).toBe('application/json');
    expect(push.headers['x-gitea-event']).toBe('push');
    expect(push.headers['x-gogs-event']).toBe('push');
    expect(push.headers['x-github-event']).toBe('push');
    const uuid = push.headers['x-gitea-delivery'] as string;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(push.headers['x-gogs-delivery']).toBe(uuid);
    expect(push.headers['x-github-delivery']).toBe(uuid);
    // Plain HMAC-SHA256, and the GitHub form checked with @octokit/webhooks-methods.
    const hmac = crypto.createHmac('sha256', 'top-secret').update(push.body).digest('hex');
    expect(push.headers['x-gitea-signature']).toBe(hmac);
    expect(push.headers['x-gogs-signature']).toBe(hmac);
    expect(push.headers['x-hub-signature-256']).toBe(`sha256=${hmac}`);
    expect(await verify('top-secret', push.body, push.headers['x-hub-signature-256'] as string)).toBe(true);
    expect(await verify('wrong-secret', push.body, push.headers['x-hub-signature-256'] as string)).toBe(false);
    expect(push.headers['x-hub-signature']).toBe(`sha1=${crypto.createHmac('sha1', 'top-secret').update(push.body).digest('hex')}`);

    const p = push.json;
    expect(p).toMatchObject({ ref: 'refs/heads/main', before, after, total_commits: 2 });
    expect(p.compare_url).toBe(`${server.url}alice/proj/compare/${before}...${after}`);
    expect(p.commits.map((c: any) => c.message.trim())).toEqual(['second change', 'first change']);
    expect(p.commits[0]).toMatchObject({
      id: after,
      removed: ['added.txt'],
      added: [],
      modified: [],
      url: `${server.url}alice/proj/commit/${after}`,
    });
    expect(p.commits[1]).toMatchObject({ added: ['added.txt'], modified: ['README.md'], removed: [] });
    expect(p.commits[0].author).toMatchObject({ name: 'Tester', email: 'tester@example.com' });
    expect(p.head_commit.id).toBe(after);
    expect(p.repository).toMatchObject({ full_name: 'alice/proj', name: 'proj', owner: { login: 'alice' } });
    expect(p.pusher.login).toBe('alice');
    expect(p.sender.login).toBe('alice');

    const history = await waitFor('delivery recorded', async () => {
      const res = await server.api('GET', `/repos/alice/proj/hooks/${hookId}/deliveries`, { token: aliceToken });
      return res.body.find((d: any) => d.uuid === uuid && d.delivered) ?? null;
    });
    expect(history).toMatchObject({ event: 'push', is_succeed: true, attempts: 1, response: { status: 200, body: 'status 200' } });
    expect(history.request.headers['X-Gitea-Delivery']).toBe(uuid);
    expect(history.request.body).toBe(push.body);
  });

  test('tags and branches: create and delete events; the branch filter picks branches', async () => {
    rx.got.length = 0;
    const head = (await sandbox.git(['rev-parse', 'HEAD'], work)).stdout.trim();
    expect((await sandbox.git(['tag', 'v1.0'], work)).status).toBe(0);
    expect((await sandbox.git(['push', '-q', 'origin', 'v1.0', 'HEAD:refs/heads/feature/x', 'HEAD:refs/heads/other'], work)).status).toBe(
      0,
    );
    const creates = await waitFor('create deliveries', () => (ofEvent('create').length >= 2 ? ofEvent('create') : null));
    await waitFor('push deliveries', () => ofEvent('push').length >= 2);
    const tag = creates.find((r) => r.json.ref_type === 'tag')!;
    expect(tag.json).toMatchObject({
      sha: head,
      ref: 'v1.0',
      ref_type: 'tag',
      repository: { full_name: 'alice/proj' },
      sender: { login: 'alice' },
    });
    expect(creates.find((r) => r.json.ref_type === 'branch')!.json).toMatchObject({ ref: 'feature/x', sha: head });
    expect(creates.some((r) => r.json.ref === 'other')).toBe(false);
    expect((await sandbox.git(['push', '-q', 'origin', ':refs/tags/v1.0', ':refs/heads/other'], work)).status).toBe(0);
    const [del] = await waitFor('delete delivery', () => arrived('delete'));
    expect(del.json).toMatchObject({ ref: 'v1.0', ref_type: 'tag', pusher_type: 'user', repository: { full_name: 'alice/proj' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ofEvent('delete').length).toBe(1); // the branch "other" is filtered out
    expect(rx.got.some((r) => r.json?.ref === 'refs/heads/other')).toBe(false);
  });

  test('a release and an issue are delivered with their Gitea payloads', async () => {
    rx.got.length = 0;
    const rel = await server.api('POST', '/repos/alice/proj/releases', { token: aliceToken, body: { tag_name: 'v2.0', name: 'Two' } });
    expect(rel.status).toBe(201);
    const [release] = await waitFor('release delivery', () => arrived('release'));
    expect(release.headers['x-gitea-event']).toBe('release');
    expect(release.json).toMatchObject({
      action: 'published',
      release: { id: rel.body.id, tag_name: 'v2.0', name: 'Two' },
      repository: { full_name: 'alice/proj' },
      sender: { login: 'alice' },
    });
    const issue = await server.api('POST', '/repos/alice/proj/issues', { token: aliceToken, body: { title: 'Broken' } });
    expect(issue.status).toBe(201);
    const [opened] = await waitFor('issues delivery', () => arrived('issues'));
    expect(opened.json).toMatchObject({
      action: 'opened',
      number: issue.body.number,
      commit_id: '',
      issue: { title: 'Broken' },
      repository: { full_name: 'alice/proj' },
      sender: { login: 'alice' },
    });
    rx.got.length = 0;
    expect(
      (await server.api('PATCH', `/repos/alice/proj/issues/${issue.body.number}`, { token: aliceToken, body: { state: 'closed' } })).status,
    ).toBe(201);
    const closed = await waitFor('issue closed delivery', () => ofEvent('issues').find((r) => r.json.action === 'closed'));
    expect(closed.json).toMatchObject({ action: 'closed', number: issue.body.number, commit_id: '', issue: { state: 'closed' } });
  });

  test('an issue closed by a pushed commit carries commit_id; a review request carries requested_reviewer', async () => {
    const issue = await server.api('POST', '/repos/alice/proj/issues', { token: aliceToken, body: { title: 'Fix me by commit' } });
    expect(issue.status).toBe(201);
    rx.got.length = 0;
    fs.writeFileSync(path.join(work, 'fix.txt'), 'fixed\n');
    expect((await sandbox.git(['add', '-A'], work)).status).toBe(0);
    expect((await sandbox.git(['commit', '-q', '-m', `Repair it, closes #${issue.body.number}`], work)).status).toBe(0);
    const sha = (await sandbox.git(['rev-parse', 'HEAD'], work)).stdout.trim();
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:main'], work)).status).toBe(0);
    const closed = await waitFor('closed by commit', () => ofEvent('issues').find((r) => r.json.action === 'closed'));
    expect(closed.json).toMatchObject({ action: 'closed', number: issue.body.number, commit_id: sha, issue: { state: 'closed' } });

    const hook = await server.api('POST', '/repos/alice/proj/hooks', {
      token: aliceToken,
      body: hookBody({ events: ['pull_request_review_request'] }, { url: `${rx.url}?pr` }),
    });
    expect(hook.status).toBe(201);
    expect(
      (await server.api('PUT', '/repos/alice/proj/collaborators/bob', { token: aliceToken, body: { permission: 'read' } })).status,
    ).toBe(204);
    fs.writeFileSync(path.join(work, 'feature.txt'), 'feature\n');
    expect((await sandbox.git(['add', '-A'], work)).status).toBe(0);
    expect((await sandbox.git(['commit', '-q', '-m', 'feature work'], work)).status).toBe(0);
    expect((await sandbox.git(['push', '-q', 'origin', 'HEAD:refs/heads/feature/pr'], work)).status).toBe(0);
    const pr = await server.api('POST', '/repos/alice/proj/pulls', {
      token: aliceToken,
      body: { head: 'feature/pr', base: 'main', title: 'A feature' },
    });
    expect(pr.status).toBe(201);
    rx.got.length = 0;
    expect(
      (
        await server.api('POST', `/repos/alice/proj/pulls/${pr.body.number}/requested_reviewers`, {
          token: aliceToken,
          body: { reviewers: ['bob'] },
        })
      ).status,
    ).toBe(201);
    const [requested] = await waitFor('review_requested', () => arrived('pull_request_review_request'));
    expect(requested.headers['x-gitea-event']).toBe('pull_request');
    expect(requested.json).toMatchObject({
      action: 'review_requested',
      number: pr.body.number,
      requested_reviewer: { login: 'bob' },
      repository: { full_name: 'alice/proj' },
      sender: { login: 'alice' },
    });
    expect(requested.json.pull_request.requested_reviewers.map((u: any) => u.login)).toEqual(['bob']);
    rx.got.length = 0;
    expect(
      (
        await server.api('DELETE', `/repos/alice/proj/pulls/${pr.body.number}/requested_reviewers`, {
          token: aliceToken,
          body: { reviewers: ['bob'] },
        })
      ).status,
    ).toBe(204);
    const [removed] = await waitFor('review_request_removed', () => arrived('pull_request_review_request'));
    expect(removed.json).toMatchObject({ action: 'review_request_removed', requested_reviewer: { login: 'bob' } });
    await server.api('DELETE', `/repos/alice/proj/hooks/${hook.body.id}`, { token: aliceToken });
  });

  test('the test endpoint sends a push of the latest commit; redelivery keeps the UUID', async () => {
    rx.got.length = 0;
    expect((await server.api('POST', `/repos/alice/proj/hooks/${hookId}/tests`, { token: aliceToken })).status).toBe(204);
    const [push] = await waitFor('test delivery', () => {
      const m = ofEvent('push').filter((r) => r.json.ref === 'refs/heads/main');
      return m.length ? m : null;
    });
    const head = (await sandbox.git(['rev-parse', 'origin/main'], work)).stdout.trim();
    expect(push.json).toMatchObject({
      ref: 'refs/heads/main',
      before: head,
      after: head,
      total_commits: 1,
      commits: [{ id: head }],
      head_commit: { id: head },
    });
    expect((await server.api('POST', `/repos/alice/proj/hooks/999999/tests`, { token: aliceToken })).status).toBe(404);

    const uuid = push.headers['x-gitea-delivery'] as string;
    await waitFor('recorded', async () => (await server.kernel.db('hook_task').where({ uuid, is_delivered: true }).first()) ?? null);
    const again = await server.api('POST', `/repos/alice/proj/hooks/${hookId}/deliveries/${uuid}/redeliver`, { token: aliceToken });
    expect(again.status).toBe(202);
    const both = await waitFor('redelivery', () =>
      rx.got.filter((r) => r.headers['x-gitea-delivery'] === uuid).length === 2 ? rx.got : null,
    );
    const copies = both.filter((r) => r.headers['x-gitea-delivery'] === uuid);
    expect(copies[1].body).toBe(copies[0].body);
    expect((await server.api('POST', `/repos/alice/proj/hooks/${hookId}/deliveries/nope/redeliver`, { token: aliceToken })).status).toBe(
      404,
    );
  });

  test('form content type and an authorization header', async () => {
    const res = await server.api('POST', '/repos/alice/proj/hooks', {
      token: aliceToken,
      body: hookBody({ events: ['release'], authorization_header: 'Bearer abc123' }, { content_type: 'form', secret: 'k' }),
    });
    rx.got.length = 0;
    await server.api('POST', '/repos/alice/proj/releases', { token: aliceToken, body: { tag_name: 'v3.0' } });
    const form = await waitFor('form delivery', () =>
      rx.got.find((r) => r.headers['content-type'] === 'application/x-www-form-urlencoded'),
    );
    expect(form.headers.authorization).toBe('Bearer abc123');
    const payload = JSON.parse(new URLSearchParams(form.body).get('payload')!);
    expect(payload).toMatchObject({ action: 'published', release: { tag_name: 'v3.0' } });
    expect(form.headers['x-gitea-signature']).toBe(crypto.createHmac('sha256', 'k').update(form.body).digest('hex'));
    const history = await server.api('GET', `/repos/alice/proj/hooks/${res.body.id}/deliveries`, { token: aliceToken });
    expect(JSON.stringify(history.body)).not.toContain('abc123');
    await server.api('DELETE', `/repos/alice/proj/hooks/${res.body.id}`, { token: aliceToken });
  });
});

test('slack, discord and msteams hooks get chat messages', async () => {
  const made: number[] = [];
  for (const [type, cfg] of [
    ['slack', { channel: '#dev', username: 'hearth' }],
    ['discord', { username: 'hearth' }],
    ['msteams', {}],
  ] as const) {
    const res = await server.api('POST', '/repos/alice/proj/hooks', {
      token: aliceToken,
      body: { ...hookBody({ events: ['release'] }, { ...cfg, url: `${rx.url}?type=${type}` }), type },
    });
    expect(res.status).toBe(201);
    expect(res.body.type).toBe(type);
    made.push(res.body.id);
  }
  rx.got.length = 0;
  await server.api('POST', '/repos/alice/proj/releases', { token: aliceToken, body: { tag_name: 'chat-1' } });
  const of = (type: string) => rx.got.find((r) => r.url.includes(`type=${type}`));
  await waitFor('three chat deliveries', () => of('slack') && of('discord') && of('msteams'));
  expect(of('slack')!.json).toMatchObject({ channel: '#dev', username: 'hearth' });
  expect(of('slack')!.json.text).toContain('release chat-1 published by alice');
  expect(of('discord')!.json.embeds[0].title).toContain('release chat-1 published by alice');
  expect(of('msteams')!.json).toMatchObject({ '@type': 'MessageCard' });
  expect(of('msteams')!.json.title).toContain('chat-1');
  for (const id of made) await server.api('DELETE', `/repos/alice/proj/hooks/${id}`, { token: aliceToken });
});

describe('hook levels', () => {
  test('org hooks see the org repositories only; user hooks the user repositories; a system hook sees every repository', async () => {
    expect((await server.api('POST', '/orgs', { token: aliceToken, body: { username: 'acme' } })).status).toBe(201);
    const org = await server.api('POST', '/orgs/acme/hooks', {
      token: aliceToken,
      body: hookBody({ events: ['repository'] }, { url: `${rx.url}?level=org` }),
    });
    expect(org.status).toBe(201);
    expect([403, 404]).toContain((await server.api('POST', '/orgs/acme/hooks', { token: bobToken, body: hookBody() })).status);
    const user = await server.api('POST', '/user/hooks', {
      token: bobToken,
      body: hookBody({ events: ['repository'] }, { url: `${rx.url}?level=user` }),
    });
    expect(user.status).toBe(201);
    const sys = await server.api('POST', '/admin/hooks', {
      token: adminToken,
      body: hookBody({ events: ['repository', 'release'] }, { url: `${rx.url}?level=system` }),
    });
    expect(sys.status).toBe(201);
    expect(sys.body.is_system_webhook).toBe(true);
    expect((await server.api('GET', '/admin/hooks', { token: adminToken })).body.map((h: any) => h.id)).toEqual([sys.body.id]);
    expect((await server.api('GET', '/orgs/acme/hooks', { token: aliceToken })).body.map((h: any) => h.id)).toEqual([org.body.id]);
    expect((await server.api('GET', '/user/hooks', { token: bobToken })).body.map((h: any) => h.id)).toEqual([user.body.id]);
    expect((await server.api('GET', '/user/hooks', { token: aliceToken })).body).toEqual([]);
    expect((await server.api('GET', `/user/hooks/${user.body.id}`, { token: aliceToken })).status).toBe(404);

    rx.got.length = 0;
    expect((await server.api('POST', '/orgs/acme/repos', { token: aliceToken, body: { name: 'tool', private: true } })).status).toBe(201);
    expect((await server.api('POST', '/user/repos', { token: bobToken, body: { name: 'bobs', private: true } })).status).toBe(201);
    await waitFor('four deliveries', () => ofEvent('repository').length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const seen = ofEvent('repository')
      .map((r) => `${new URL(r.url, 'http://x').searchParams.get('level')}:${r.json.repository.full_name}`)
      .sort();
    expect(seen).toEqual(['org:acme/tool', 'system:acme/tool', 'system:bob/bobs', 'user:bob/bobs']);
    const orgCreated = ofEvent('repository', 'acme/tool')[0].json;
    expect(orgCreated).toMatchObject({
      action: 'created',
      organization: { login: 'acme' },
      sender: { login: 'alice' },
      repository: { private: true },
    });

    rx.got.length = 0;
    expect((await server.api('DELETE', '/repos/bob/bobs', { token: bobToken })).status).toBe(204);
    await waitFor('deleted deliveries', () => ofEvent('repository').length >= 2);
    expect(ofEvent('repository').every((r) => r.json.action === 'deleted' && r.json.repository.full_name === 'bob/bobs')).toBe(true);
    for (const [p, id] of [
      ['/orgs/acme/hooks', org.body.id],
      ['/user/hooks', user.body.id],
    ] as const) {
      expect((await server.api('DELETE', `${p}/${id}`, { token: p.startsWith('/orgs') ? aliceToken : bobToken })).status).toBe(204);
    }
    expect((await server.api('DELETE', `/admin/hooks/${sys.body.id}`, { token: adminToken })).status).toBe(204);
  });
});

describe('outgoing allow-list and reliability', () => {
  test('with the default list (external), a hook to 127.0.0.1 is accepted but its delivery is refused and recorded', async () => {
    const strict = await startServer({ webhook: { POLL_INTERVAL: 0.1 } });
    try {
      const carol = await strict.user('carol');
      const token = await strict.token(carol, ['write:repository']);
      await strict.api('POST', '/user/repos', { token, body: { name: 'r', auto_init: true } });
      const hook = await strict.api('POST', '/repos/carol/r/hooks', { token, body: hookBody({ events: ['release'] }) });
      expect(hook.status).toBe(201);
      rx.got.length = 0;
      await strict.api('POST', '/repos/carol/r/releases', { token, body: { tag_name: 'v1' } });
      const record = await waitFor('refused delivery', async () => {
        const res = await strict.api('GET', `/repos/carol/r/hooks/${hook.body.id}/deliveries`, { token });
        return res.body.find((d: any) => d.delivered) ?? null;
      });
      expect(record.is_succeed).toBe(false);
      expect(record.response.error).toMatch(/ALLOWED_HOST_LIST/);
      expect(record.response.error).toMatch(/127\.0\.0\.1/);
      expect(rx.got.length).toBe(0);
    } finally {
      await strict.close();
    }
  });

  test('receiver down, then back: every delivery arrives exactly once, with retries keeping the UUID', async () => {
    const hook = await server.api('POST', '/repos/alice/proj/hooks', {
      token: aliceToken,
      body: hookBody({ events: ['issues'] }, { url: `${rx.url}?down` }),
    });
    rx.got.length = 0;
    let down = true;
    rx.answer = (r) => (r.url.includes('down') && down ? 503 : 200);
    const numbers: number[] = [];
    for (let i = 0; i < 6; i++)
      numbers.push(
        (await server.api('POST', '/repos/alice/proj/issues', { token: aliceToken, body: { title: `outage ${i}` } })).body.number,
      );
    // Every event is queued before its request returns.
    expect(Number((await server.kernel.db('hook_task').where('hook_id', hook.body.id).count({ n: '*' }))[0].n)).toBe(6);
    await waitFor('failed attempts', () => rx.got.filter((r) => r.status === 503).length >= 12);
    down = false;
    const ok = await waitFor(
      'all delivered',
      () => {
        const good = rx.got.filter((r) => r.url.includes('down') && r.status === 200);
        return good.length >= 6 ? good : null;
      },
      20000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const uuids = rx.got.filter((r) => r.url.includes('down') && r.status === 200).map((r) => r.headers['x-gitea-delivery']);
    expect(new Set(uuids).size).toBe(6);
    expect(uuids.length).toBe(6);
    expect(ok.map((r) => r.json.issue.number).sort((a, b) => a - b)).toEqual(numbers);
    const failedUuids = new Set(rx.got.filter((r) => r.status === 503).map((r) => r.headers['x-gitea-delivery']));
    for (const u of failedUuids) expect(uuids).toContain(u);
    const rows = await server.kernel.db('hook_task').where('hook_id', hook.body.id);
    expect(rows.every((r: any) => Number(r.attempts) >= 2 && (r.is_succeed === true || r.is_succeed === 1))).toBe(true);
    rx.answer = () => 200;
    await server.api('DELETE', `/repos/alice/proj/hooks/${hook.body.id}`, { token: aliceToken });
  });
});
