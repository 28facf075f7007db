import fs from 'node:fs';
import path from 'node:path';
import type { ForgeEvent } from '@hearth/plugin-api';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { cutDiffAroundLine } from '../plugins/pulls/src/review-routes';

type User = { name: string; password: string; id: number };
let server: TestServer;
let alice: User;
let bob: User;
let carol: User;
let dave: User;
/** alice owns alice/rev (admin); bob and carol write; dave reads. */
let aliceToken: string;
let bobToken: string;
let carolToken: string;
let daveToken: string;
let sandbox: ReturnType<typeof gitSandbox>;
let dir: string;
const events: ForgeEvent[] = [];

const R = '/repos/alice/rev';

async function git(args: string[], cwd = dir): Promise<string> {
  const run = await sandbox.git(args, cwd);
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** Start `name` at `from`, commit the files as one commit, push it; returns the new tip. */
async function branch(name: string, from: string, files: Record<string, string>): Promise<string> {
  await git(['checkout', '-q', '-B', name, from]);
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), content);
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', `${name}: ${Object.keys(files).join(', ')}`]);
  await git(['push', '-q', '-f', 'origin', `${name}:refs/heads/${name}`]);
  return git(['rev-parse', 'HEAD']);
}

/** bob opens a pull request of a new branch into main; returns its number and head commit. */
async function openPull(name: string, files: Record<string, string>): Promise<{ index: number; head: string }> {
  const head = await branch(name, 'origin/main', files);
  const res = await server.api('POST', `${R}/pulls`, { token: bobToken, body: { head: name, base: 'main', title: `PR ${name}` } });
  expect(res.status).toBe(201);
  return { index: res.body.number, head };
}

const review = (index: number, token: string, body: Record<string, unknown>) =>
  server.api('POST', `${R}/pulls/${index}/reviews`, { token, body });
const merge = (index: number, token: string, extra: Record<string, unknown> = {}) =>
  server.api('POST', `${R}/pulls/${index}/merge`, { token, body: { Do: 'merge', ...extra } });
const eventsOf = (name: string) => events.filter((e) => e.event === name);

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  carol = await server.user('carol');
  dave = await server.user('dave');
  aliceToken = await server.token(alice, ['delete:repository', 'write:issue', 'read:user']);
  bobToken = await server.token(bob, ['delete:repository', 'write:issue']);
  carolToken = await server.token(carol, ['delete:repository', 'write:issue']);
  daveToken = await server.token(dave, ['write:repository', 'write:issue']);
  server.kernel.hooks.webhook.emit.tapPromise('reviews-test', async (e: ForgeEvent) => {
    events.push(e);
  });
  expect(
    (await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'rev', auto_init: true, default_branch: 'main' } })).status,
  ).toBe(201);
  for (const [who, permission] of [
    ['bob', 'write'],
    ['carol', 'write'],
    ['dave', 'read'],
  ]) {
    expect((await server.api('PUT', `${R}/collaborators/${who}`, { token: aliceToken, body: { permission } })).status).toBe(204);
  }
  sandbox = gitSandbox();
  dir = path.join(sandbox.dir, 'bob');
  await git(['clone', '-q', cloneUrl(server.url, 'alice/rev.git', 'bob', bobToken), dir], sandbox.dir);
  await branch('main', 'origin/main', { 'base.txt': 'one\ntwo\nthree\nfour\nfive\nsix\n' });
}, 60000);
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

describe('diff hunks of code comments', () => {
  const diff = [
    'diff --git a/f b/f',
    'index 1..2 100644',
    '--- a/f',
    '+++ b/f',
    '@@ -1,6 +1,6 @@',
    ' one',
    ' two',
    '-three',
    '+THREE',
    ' four',
    ' five',
    ' six',
    '',
  ].join('\n');
  test('cut at a new line: up to four lines ending at it, with a recomputed header', () => {
    expect(cutDiffAroundLine(diff, 4)).toBe(['--- a/f', '+++ b/f', '@@ -2,3 +2,3 @@', ' two', '-three', '+THREE', ' four'].join('\n'));
  });
  test('cut at an old line (negative) and a line outside the diff', () => {
    expect(cutDiffAroundLine(diff, -3)).toBe(['--- a/f', '+++ b/f', '@@ -1,3 +1,2 @@', ' one', ' two', '-three'].join('\n'));
    expect(cutDiffAroundLine(diff, 40)).toBe('');
  });
});

describe('reviews', () => {
  let pr: { index: number; head: string };
  let pendingId: number;
  beforeAll(async () => {
    pr = await openPull('feature', { 'base.txt': 'one\ntwo\nTHREE\nfour\nfive\nsix\n', 'new.txt': 'new\n' });
  });

  test('a pending review with inline comments is visible to its author only and collects further comments', async () => {
    const res = await review(pr.index, carolToken, {
      event: 'PENDING',
      body: 'first pass',
      comments: [{ path: 'base.txt', body: 'why upper case?', new_position: 3 }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: 'PENDING',
      body: 'first pass',
      comments_count: 1,
      commit_id: pr.head,
      official: false,
      dismissed: false,
      stale: false,
    });
    expect(res.body.user.login).toBe('carol');
    pendingId = res.body.id;

    expect((await server.api('GET', `${R}/pulls/${pr.index}/reviews/${pendingId}`, { token: bobToken })).status).toBe(404);
    expect((await server.api('GET', `${R}/pulls/${pr.index}/reviews`, { token: bobToken })).body).toEqual([]);
    expect(
      (await server.api('GET', `${R}/pulls/${pr.index}/reviews`, { token: carolToken })).body.map((r: { id: number }) => r.id),
    ).toEqual([pendingId]);
    const codeIn = async (token: string) =>
      (await server.api('GET', `/repos/alice/rev/issues/${pr.index}/timeline`, { token })).body.filter(
        (c: { type: string }) => c.type === 'code',
      ).length;
    expect(await codeIn(bobToken)).toBe(0);
    expect(await codeIn(carolToken)).toBe(1);

    const again = await review(pr.index, carolToken, {
      event: 'PENDING',
      comments: [
        { path: 'base.txt', body: 'old line', old_position: 3 },
        { path: 'new.txt', body: 'new file', new_position: 1 },
      ],
    });
    expect(again.body).toMatchObject({ id: pendingId, state: 'PENDING', comments_count: 3, body: 'first pass' });
  });

  test('submitting the pending review approves with its comments; the event carries the review', async () => {
    events.length = 0;
    const res = await server.api('POST', `${R}/pulls/${pr.index}/reviews/${pendingId}`, {
      token: carolToken,
      body: { event: 'APPROVED', body: 'looks good' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: pendingId,
      state: 'APPROVED',
      body: 'looks good',
      official: true,
      comments_count: 3,
      commit_id: pr.head,
    });
    expect(res.body.html_url).toMatch(new RegExp(`/alice/rev/pulls/${pr.index}#issuecomment-\\d+$`));
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/reviews/${pendingId}`, { token: carolToken, body: { event: 'APPROVED' } })).status,
    ).toBe(422);

    const [ev] = eventsOf('pull_request_review_approved');
    expect(ev).toMatchObject({
      action: 'reviewed',
      actor: { name: 'carol' },
      payload: { action: 'reviewed', number: pr.index, review: { type: 'pull_request_review_approved', content: 'looks good' } },
    });
    expect((ev.payload as any).pull_request.number).toBe(pr.index);

    const comments = await server.api('GET', `${R}/pulls/${pr.index}/reviews/${pendingId}/comments`, { token: bobToken });
    expect(comments.status).toBe(200);
    expect(comments.body).toHaveLength(3);
    expect(comments.body[0]).toMatchObject({
      path: 'base.txt',
      body: 'why upper case?',
      position: 3,
      original_position: 0,
      pull_request_review_id: pendingId,
      commit_id: pr.head,
    });
    expect(comments.body[0].diff_hunk).toContain('+THREE');
    expect(comments.body[0].diff_hunk.split('\n').pop()).toBe('+THREE');
    expect(comments.body[1]).toMatchObject({ path: 'base.txt', position: 0, original_position: 3 });
    expect(comments.body[1].diff_hunk.split('\n').pop()).toBe('-three');
    expect(comments.body[2]).toMatchObject({ path: 'new.txt', position: 1 });
    expect(comments.body[0].user.login).toBe('carol');

    const list = await server.api('GET', `${R}/pulls/${pr.index}/reviews`, { token: bobToken });
    expect(list.body.map((r: { state: string }) => r.state)).toEqual(['APPROVED']);
    expect(list.headers.get('x-total-count')).toBe('1');
  });

  test('the timeline holds the review and its code comments', async () => {
    const timeline = await server.api('GET', `/repos/alice/rev/issues/${pr.index}/timeline`, { token: bobToken });
    expect(timeline.status).toBe(200);
    const types = timeline.body.map((c: { type: string }) => c.type);
    expect(types.filter((t: string) => t === 'review')).toHaveLength(1);
    expect(types.filter((t: string) => t === 'code')).toHaveLength(3);
  });

  test("a submitted review takes over the caller's drafts; pending_review comments stay drafts", async () => {
    const draft = await review(pr.index, carolToken, {
      event: 'PENDING',
      comments: [{ path: 'new.txt', body: 'drafted', new_position: 1 }],
    });
    expect(draft.body.state).toBe('PENDING');
    const submitted = await review(pr.index, carolToken, {
      event: 'COMMENT',
      body: 'two remarks',
      comments: [
        { path: 'base.txt', body: 'now', new_position: 3 },
        { path: 'base.txt', body: 'later', new_position: 1, pending_review: true },
      ],
    });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ id: draft.body.id, state: 'COMMENT', body: 'two remarks', comments_count: 2 });
    const mine = (await server.api('GET', `${R}/pulls/${pr.index}/reviews`, { token: carolToken })).body;
    const pending = mine.filter((r: { state: string }) => r.state === 'PENDING');
    expect(pending).toHaveLength(1);
    expect(pending[0].comments_count).toBe(1);
    const [later] = (await server.api('GET', `${R}/pulls/${pr.index}/reviews/${pending[0].id}/comments`, { token: carolToken })).body;
    expect(later).toMatchObject({ body: 'later', position: 1 });
    expect(
      (await server.api('GET', `${R}/pulls/${pr.index}/reviews`, { token: bobToken })).body.some(
        (r: { state: string }) => r.state === 'PENDING',
      ),
    ).toBe(false);
    expect((await server.api('DELETE', `${R}/pulls/${pr.index}/reviews/${pending[0].id}`, { token: carolToken })).status).toBe(204);
  });

  test("Gitea's refusals: own pull, empty COMMENT, unknown event, a reader's approval is not official", async () => {
    const own = await review(pr.index, bobToken, { event: 'APPROVED' });
    expect(own.status).toBe(422);
    expect(own.body.message).toContain('approve your own pull is not allowed');
    expect((await review(pr.index, bobToken, { event: 'REQUEST_CHANGES', body: 'no' })).status).toBe(422);
    expect((await review(pr.index, carolToken, { event: 'COMMENT' })).status).toBe(422);
    expect((await review(pr.index, carolToken, { event: 'MAYBE', body: 'x' })).status).toBe(422);
    expect((await review(pr.index, carolToken, { event: 'COMMENT', comments: [{ path: '', body: 'x' }] })).status).toBe(422);
    expect((await review(pr.index, carolToken, { event: 'APPROVED', body: 'x' })).body.official).toBe(true);
    const reader = await review(pr.index, daveToken, { event: 'APPROVED', body: 'fine by me' });
    expect(reader.status).toBe(200);
    expect(reader.body.official).toBe(false);
    expect((await review(pr.index, carolToken, { event: 'APPROVED' })).status).toBe(200);
    expect((await review(999, carolToken, { event: 'APPROVED' })).status).toBe(404);
  });

  test('dismiss and undismiss: repository admins only, verdicts only', async () => {
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/reviews/${pendingId}/dismissals`, { token: bobToken, body: { message: 'no' } }))
        .status,
    ).toBe(403);
    const dismissed = await server.api('POST', `${R}/pulls/${pr.index}/reviews/${pendingId}/dismissals`, {
      token: aliceToken,
      body: { message: 'outdated' },
    });
    expect(dismissed.status).toBe(200);
    expect(dismissed.body).toMatchObject({ id: pendingId, dismissed: true, state: 'APPROVED' });
    const timeline = await server.api('GET', `/repos/alice/rev/issues/${pr.index}/timeline`, { token: bobToken });
    expect(timeline.body.some((c: { type: string; body: string }) => c.type === 'dismiss_review' && c.body === 'outdated')).toBe(true);
    const undone = await server.api('POST', `${R}/pulls/${pr.index}/reviews/${pendingId}/undismissals`, { token: aliceToken });
    expect(undone.status).toBe(200);
    expect(undone.body.dismissed).toBe(false);
    const comment = (await server.api('GET', `${R}/pulls/${pr.index}/reviews`, { token: aliceToken })).body.find(
      (r: { state: string }) => r.state === 'COMMENT',
    );
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/reviews/${comment.id}/dismissals`, { token: aliceToken, body: {} })).status,
    ).toBe(422);
  });

  test('delete: the reviewer (or a site admin) only; the review and its comments go', async () => {
    const res = await review(pr.index, carolToken, {
      event: 'COMMENT',
      body: 'to delete',
      comments: [{ path: 'new.txt', body: 'x', new_position: 1 }],
    });
    const id = res.body.id;
    const [code] = (await server.api('GET', `${R}/pulls/${pr.index}/reviews/${id}/comments`, { token: carolToken })).body;
    expect((await server.api('DELETE', `${R}/pulls/${pr.index}/reviews/${id}`, { token: bobToken })).status).toBe(403);
    expect((await server.api('DELETE', `${R}/pulls/${pr.index}/reviews/${id}`, { token: carolToken })).status).toBe(204);
    expect((await server.api('GET', `${R}/pulls/${pr.index}/reviews/${id}`, { token: carolToken })).status).toBe(404);
    expect((await server.api('GET', `${R}/pulls/${pr.index}/reviews/${id}/comments`, { token: carolToken })).status).toBe(404);
    const timeline = await server.api('GET', `/repos/alice/rev/issues/${pr.index}/timeline`, { token: bobToken });
    expect(timeline.body.some((c: { id: number }) => c.id === code.id)).toBe(false);
  });

  test('attachments on review-kind comments', async () => {
    const res = await review(pr.index, carolToken, {
      event: 'COMMENT',
      body: 'with a screenshot',
      comments: [{ path: 'new.txt', body: 'see attached', new_position: 1 }],
    });
    const [code] = (await server.api('GET', `${R}/pulls/${pr.index}/reviews/${res.body.id}/comments`, { token: carolToken })).body;
    const form = new FormData();
    form.append('attachment', new Blob([Buffer.from('png bytes')], { type: 'image/png' }), 'shot.png');
    const up = await fetch(new URL(`api/v1${R}/issues/comments/${code.id}/assets`, server.url), {
      method: 'POST',
      headers: { Authorization: `token ${carolToken}` },
      body: form,
    });
    expect(up.status).toBe(201);
    const asset = (await up.json()) as { id: number; name: string; browser_download_url: string };
    expect(asset.name).toBe('shot.png');
    const listed = await server.api('GET', `${R}/issues/comments/${code.id}/assets`, { token: bobToken });
    expect(listed.status).toBe(200);
    expect(listed.body.map((a: { id: number }) => a.id)).toEqual([asset.id]);
    // Deleting the review takes its comments' attachments along.
    expect((await server.api('DELETE', `${R}/pulls/${pr.index}/reviews/${res.body.id}`, { token: carolToken })).status).toBe(204);
    expect((await server.api('GET', `${R}/issues/comments/${code.id}/assets`, { token: bobToken })).status).toBe(404);
    expect((await fetch(asset.browser_download_url)).status).toBe(404);
  });
});

describe('requested reviewers', () => {
  let pr: { index: number; head: string };
  beforeAll(async () => {
    pr = await openPull('reviewme', { 'r.txt': 'r\n' });
  });

  test('requesting fires review_requested with the reviewer; the pull request lists them', async () => {
    events.length = 0;
    const res = await server.api('POST', `${R}/pulls/${pr.index}/requested_reviewers`, {
      token: aliceToken,
      body: { reviewers: ['carol', 'dave'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.map((r: { state: string; user: { login: string } }) => [r.state, r.user.login])).toEqual([
      ['REQUEST_REVIEW', 'carol'],
      ['REQUEST_REVIEW', 'dave'],
    ]);
    const requested = eventsOf('pull_request_review_request');
    expect(requested.map((e) => [e.action, (e.payload as any).requested_reviewer.login])).toEqual([
      ['review_requested', 'carol'],
      ['review_requested', 'dave'],
    ]);
    expect((requested[1].payload as any).pull_request.requested_reviewers.map((u: { login: string }) => u.login)).toEqual([
      'carol',
      'dave',
    ]);
    expect(requested[0].payload).toMatchObject({ action: 'review_requested', number: pr.index });

    const json = await server.api('GET', `${R}/pulls/${pr.index}`, { token: bobToken });
    expect(json.body.requested_reviewers.map((u: { login: string }) => u.login)).toEqual(['carol', 'dave']);
    expect(json.body.requested_reviewers_teams).toEqual([]);

    // Asking again changes nothing and fires nothing.
    events.length = 0;
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/requested_reviewers`, { token: aliceToken, body: { reviewers: ['carol'] } })).body,
    ).toEqual([]);
    expect(eventsOf('pull_request_review_request')).toEqual([]);
  });

  test('the users who may be asked: owner, collaborators (readers too), sorted by name', async () => {
    const res = await server.api('GET', `${R}/reviewers`, { token: bobToken });
    expect(res.status).toBe(200);
    expect(res.body.map((u: { login: string }) => u.login)).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  test('invalid requests: the poster, unknown users, a reader choosing reviewers', async () => {
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/requested_reviewers`, { token: aliceToken, body: { reviewers: ['bob'] } })).status,
    ).toBe(422);
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/requested_reviewers`, { token: aliceToken, body: { reviewers: ['nobody'] } }))
        .status,
    ).toBe(404);
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/requested_reviewers`, { token: daveToken, body: { reviewers: ['alice'] } })).status,
    ).toBe(422);
  });

  test('removing fires review_request_removed; a review answers a request; the timeline records both', async () => {
    events.length = 0;
    expect(
      (await server.api('DELETE', `${R}/pulls/${pr.index}/requested_reviewers`, { token: aliceToken, body: { reviewers: ['dave'] } }))
        .status,
    ).toBe(204);
    const removed = eventsOf('pull_request_review_request');
    expect(removed.map((e) => [e.action, (e.payload as any).requested_reviewer.login])).toEqual([['review_request_removed', 'dave']]);
    expect((removed[0].payload as any).pull_request.requested_reviewers.map((u: { login: string }) => u.login)).toEqual(['carol']);

    // The cross-repository search finds what waits for a caller's review, and what they reviewed.
    const search = async (token: string, filter: string) =>
      (await server.api('GET', `/repos/issues/search?type=pulls&state=all&${filter}=true`, { token })).body.map(
        (i: { number: number }) => i.number,
      );
    expect(await search(carolToken, 'review_requested')).toContain(pr.index);
    expect(await search(daveToken, 'review_requested')).not.toContain(pr.index);
    expect(await search(carolToken, 'reviewed')).not.toContain(pr.index);

    expect((await review(pr.index, carolToken, { event: 'COMMENT', body: 'done' })).status).toBe(200);
    expect((await server.api('GET', `${R}/pulls/${pr.index}`, { token: bobToken })).body.requested_reviewers).toEqual([]);
    expect(await search(carolToken, 'reviewed')).toContain(pr.index);
    expect(await search(carolToken, 'review_requested')).not.toContain(pr.index);
    const timeline = await server.api('GET', `/repos/alice/rev/issues/${pr.index}/timeline`, { token: bobToken });
    expect(timeline.body.filter((c: { type: string }) => c.type === 'review_request')).toHaveLength(3);
  });
});

describe('team reviewers', () => {
  test('teams of the owning organization are requested and removed; they show in requested_reviewers_teams', async () => {
    const orgToken = await server.token(alice, ['write:organization', 'delete:repository', 'read:user']);
    expect((await server.api('POST', '/orgs', { token: orgToken, body: { username: 'acme' } })).status).toBe(201);
    expect(
      (
        await server.api('POST', '/orgs/acme/teams', {
          token: orgToken,
          body: { name: 'Reviewers', permission: 'write', includes_all_repositories: true },
        })
      ).status,
    ).toBe(201);
    expect((await server.api('POST', '/orgs/acme/repos', { token: orgToken, body: { name: 'app', auto_init: true } })).status).toBe(201);
    const content = Buffer.from('feature\n').toString('base64');
    expect(
      (
        await server.api('POST', '/repos/acme/app/contents/f.txt', {
          token: orgToken,
          body: { content, message: 'feature', new_branch: 'feat' },
        })
      ).status,
    ).toBe(201);
    const pr = await server.api('POST', '/repos/acme/app/pulls', {
      token: orgToken,
      body: { head: 'feat', base: 'main', title: 'Feature' },
    });
    expect(pr.status).toBe(201);
    const path_ = `/repos/acme/app/pulls/${pr.body.number}/requested_reviewers`;

    expect((await server.api('POST', path_, { token: orgToken, body: { team_reviewers: ['nosuchteam'] } })).status).toBe(404);
    const added = await server.api('POST', path_, { token: orgToken, body: { team_reviewers: ['reviewers'] } });
    expect(added.status).toBe(201);
    expect(added.body).toHaveLength(1);
    expect(added.body[0]).toMatchObject({ state: 'REQUEST_REVIEW', user: null, team: { name: 'Reviewers', permission: 'write' } });
    const json = await server.api('GET', `/repos/acme/app/pulls/${pr.body.number}`, { token: orgToken });
    expect(json.body.requested_reviewers).toEqual([]);
    expect(json.body.requested_reviewers_teams.map((t: { name: string }) => t.name)).toEqual(['Reviewers']);
    expect((await server.api('DELETE', path_, { token: orgToken, body: { team_reviewers: ['Reviewers'] } })).status).toBe(204);
    expect(
      (await server.api('GET', `/repos/acme/app/pulls/${pr.body.number}`, { token: orgToken })).body.requested_reviewers_teams,
    ).toEqual([]);
  });
});

describe('merges obey branch protection', () => {
  const rule = (body: Record<string, unknown>) =>
    server.api('POST', `${R}/branch_protections`, { token: aliceToken, body: { rule_name: 'main', ...body } });
  afterEach(async () => {
    await server.api('DELETE', `${R}/branch_protections/main`, { token: aliceToken });
  });

  test('required approvals and status contexts block until an official approval and a success status', async () => {
    expect(
      (await rule({ enable_push: true, required_approvals: 1, enable_status_check: true, status_check_contexts: ['ci/build'] })).status,
    ).toBe(201);
    const pr = await openPull('guarded', { 'g.txt': 'g\n' });
    const first = await merge(pr.index, carolToken);
    expect(first.status).toBe(405);
    expect(first.body.message).toContain('enough approvals (0 of 1)');
    expect(first.body.message).toContain('status checks');

    expect((await review(pr.index, daveToken, { event: 'APPROVED' })).status).toBe(200); // not official: does not count
    expect((await merge(pr.index, carolToken)).body.message).toContain('(0 of 1)');
    expect((await review(pr.index, carolToken, { event: 'APPROVED' })).status).toBe(200);
    const second = await merge(pr.index, carolToken);
    expect(second.status).toBe(405);
    expect(second.body.message).not.toContain('approvals');
    expect(second.body.message).toContain('ci/build');

    const status = (state: string, context: string) =>
      server.api('POST', `${R}/statuses/${pr.head}`, { token: bobToken, body: { state, context } });
    expect((await status('pending', 'ci/build')).status).toBe(201);
    expect((await status('success', 'ci/other')).status).toBe(201);
    expect((await merge(pr.index, carolToken)).status).toBe(405);
    expect((await status('success', 'ci/build')).status).toBe(201);
    const done = await merge(pr.index, carolToken);
    expect(done.status).toBe(200);
    expect((await server.api('GET', `${R}/pulls/${pr.index}`, { token: bobToken })).body.merged).toBe(true);
  });

  test('requested changes block; dismissing them unblocks; stale approvals do not count when dismissed as stale', async () => {
    expect((await rule({ required_approvals: 1, block_on_rejected_reviews: true, dismiss_stale_approvals: true })).status).toBe(201);
    const pr = await openPull('rejected', { 'x.txt': 'x\n' });
    expect((await review(pr.index, aliceToken, { event: 'APPROVED' })).status).toBe(200);
    const rejection = await review(pr.index, carolToken, { event: 'REQUEST_CHANGES', body: 'please fix' });
    expect((await merge(pr.index, carolToken)).body.message).toContain('requested changes');
    expect(
      (
        await server.api('POST', `${R}/pulls/${pr.index}/reviews/${rejection.body.id}/dismissals`, {
          token: aliceToken,
          body: { message: 'fixed' },
        })
      ).status,
    ).toBe(200);

    // A new commit makes alice's approval stale.
    const newHead = await branch('rejected', 'rejected', { 'x.txt': 'x2\n' });
    let pull = await server.api('GET', `${R}/pulls/${pr.index}`, { token: bobToken });
    for (let i = 0; i < 50 && pull.body.head.sha !== newHead; i++) {
      await new Promise((r) => setTimeout(r, 100));
      pull = await server.api('GET', `${R}/pulls/${pr.index}`, { token: bobToken });
    }
    expect(pull.body.head.sha).toBe(newHead);
    const reviews = (await server.api('GET', `${R}/pulls/${pr.index}/reviews`, { token: bobToken })).body;
    expect(reviews.find((r: { user: { login: string } }) => r.user.login === 'alice')).toMatchObject({ state: 'APPROVED', stale: true });
    const stale = await merge(pr.index, carolToken);
    expect(stale.status).toBe(405);
    expect(stale.body.message).toContain('(0 of 1)');
    expect((await review(pr.index, aliceToken, { event: 'APPROVED' })).status).toBe(200);
    expect((await merge(pr.index, carolToken)).status).toBe(200);
  });

  test('an open official review request blocks until the reviewer answers; an outdated head blocks when asked to', async () => {
    expect((await rule({ block_on_official_review_requests: true, block_on_outdated_branch: true })).status).toBe(201);
    const pr = await openPull('asked', { 'q.txt': 'q\n' });
    expect(
      (await server.api('POST', `${R}/pulls/${pr.index}/requested_reviewers`, { token: aliceToken, body: { reviewers: ['carol'] } }))
        .status,
    ).toBe(201);
    expect((await merge(pr.index, aliceToken)).body.message).toContain('official review requests');
    expect((await review(pr.index, carolToken, { event: 'COMMENT', body: 'fine' })).status).toBe(200);
    // Meanwhile main moved on (another pull request merged): the head is behind the base.
    const other = await openPull('other', { 'o.txt': 'o\n' });
    expect((await merge(other.index, aliceToken, { force_merge: true })).status).toBe(200);
    const behind = await merge(pr.index, aliceToken);
    expect(behind.status).toBe(405);
    expect(behind.body.message).toContain('behind the base branch');
    expect((await server.api('POST', `${R}/pulls/${pr.index}/update`, { token: bobToken })).status).toBe(200);
    let done = await merge(pr.index, aliceToken);
    for (let i = 0; i < 50 && done.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      done = await merge(pr.index, aliceToken);
    }
    expect(done.status).toBe(200);
  });

  test('force_merge lets a repository admin pass unmet checks; nobody else', async () => {
    expect((await rule({ required_approvals: 2 })).status).toBe(201);
    const pr = await openPull('forced', { 'f.txt': 'f\n' });
    expect((await merge(pr.index, carolToken, { force_merge: true })).status).not.toBe(200);
    expect((await merge(pr.index, aliceToken)).status).toBe(405);
    expect((await merge(pr.index, aliceToken, { force_merge: true })).status).toBe(200);
    expect((await server.api('GET', `${R}/pulls/${pr.index}`, { token: bobToken })).body.merged).toBe(true);
  });

  test('a merge whitelist keeps other writers out, even with force_merge', async () => {
    expect((await rule({ enable_merge_whitelist: true, merge_whitelist_usernames: ['carol'] })).status).toBe(201);
    const pr = await openPull('whitelisted', { 'w.txt': 'w\n' });
    const refused = await merge(pr.index, aliceToken, { force_merge: true });
    expect(refused.status).toBe(405);
    expect(refused.body.message).toContain('not allowed to merge');
    expect((await merge(pr.index, carolToken)).status).toBe(200);
  });
});
