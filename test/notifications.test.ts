import http from 'node:http';
import { startServer, type TestServer } from './helpers/server';

let server: TestServer;
const tokens: Record<string, string> = {};
const users: Record<string, { name: string; password: string; id: number }> = {};
const SCOPES = ['delete:repository', 'delete:issue', 'delete:user', 'write:notification'];

const call = (method: string, p: string, who: string | null, body?: unknown) =>
  server.api(method, p, { token: who ? tokens[who] : undefined, body });
/**
 * Mark-as-read answers 205 with a JSON body, as Gitea; fetch() drops the body of a 205 (a "null
 * body status"), so these calls read the response with node:http.
 */
const mark = (method: string, p: string, who: string): Promise<{ status: number; body: any }> =>
  new Promise((resolve, reject) => {
    const req = http.request(new URL(`api/v1${p}`, server.url), { method, headers: { Authorization: `token ${tokens[who]}` } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end();
  });
const threads = async (who: string, query = '') => {
  const res = await call('GET', `/notifications${query}`, who);
  expect(res.status).toBe(200);
  return res.body as any[];
};
const unreadCount = async (who: string) => {
  const res = await call('GET', '/notifications/new', who);
  expect(res.status).toBe(200);
  return res.body.new as number;
};

beforeAll(async () => {
  server = await startServer();
  for (const name of ['alice', 'bob', 'carol', 'dave', 'eve']) {
    users[name] = await server.user(name);
    tokens[name] = await server.token(users[name], SCOPES);
  }
  tokens.aliceRepoOnly = await server.token(users.alice, ['write:repository']);
  expect((await call('POST', '/user/repos', 'alice', { name: 'proj', auto_init: true, default_branch: 'main' })).status).toBe(201);
  expect((await call('POST', '/user/repos', 'alice', { name: 'secret', private: true })).status).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

describe('watching', () => {
  test('the creator watches a new repository; others watch and unwatch with WatchInfo', async () => {
    const sub = await call('GET', '/repos/alice/proj/subscription', 'alice');
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({
      subscribed: true,
      ignored: false,
      reason: null,
      url: `${server.url}api/v1/repos/alice/proj/subscription`,
      repository_url: `${server.url}api/v1/repos/alice/proj`,
    });
    expect(Date.parse(sub.body.created_at)).not.toBeNaN();
    expect((await call('GET', '/repos/alice/proj/subscription', 'bob')).status).toBe(404);
    const put = await call('PUT', '/repos/alice/proj/subscription', 'bob');
    expect(put.status).toBe(200);
    expect(put.body.subscribed).toBe(true);
    expect((await call('PUT', '/repos/alice/proj/subscription', 'bob')).status).toBe(200); // idempotent
    expect((await call('GET', '/repos/alice/proj', 'bob')).body.watchers_count).toBe(2);
    const subscribers = await call('GET', '/repos/alice/proj/subscribers', null);
    expect(subscribers.body.map((u: { login: string }) => u.login)).toEqual(['alice', 'bob']);
    expect(subscribers.headers.get('x-total-count')).toBe('2');
    const mine = await call('GET', '/user/subscriptions', 'bob');
    expect(mine.body.map((r: { full_name: string }) => r.full_name)).toEqual(['alice/proj']);
    expect((await call('GET', '/users/alice/subscriptions', 'bob')).body.map((r: { full_name: string }) => r.full_name)).toEqual([
      'alice/proj',
    ]);
    expect((await call('GET', '/users/alice/subscriptions', 'alice')).body.map((r: { full_name: string }) => r.full_name).sort()).toEqual([
      'alice/proj',
      'alice/secret',
    ]);
    // carol watches, then stops.
    expect((await call('PUT', '/repos/alice/proj/subscription', 'carol')).status).toBe(200);
    expect((await call('DELETE', '/repos/alice/proj/subscription', 'carol')).status).toBe(204);
    expect((await call('GET', '/repos/alice/proj/subscription', 'carol')).status).toBe(404);
    expect((await call('GET', '/repos/alice/proj', 'carol')).body.watchers_count).toBe(2);
    // A private repository cannot be watched by whoever cannot read it.
    expect((await call('PUT', '/repos/alice/secret/subscription', 'bob')).status).toBe(404);
    expect((await call('GET', '/user/subscriptions', null)).status).toBe(401);
  });

  test('stars: put, check, list, count, delete', async () => {
    expect((await call('GET', '/user/starred/alice/proj', 'bob')).status).toBe(404);
    expect((await call('PUT', '/user/starred/alice/proj', 'bob')).status).toBe(204);
    expect((await call('PUT', '/user/starred/alice/proj', 'bob')).status).toBe(204);
    expect((await call('GET', '/user/starred/alice/proj', 'bob')).status).toBe(204);
    expect((await call('GET', '/repos/alice/proj', 'bob')).body.stars_count).toBe(1);
    expect((await call('GET', '/user/starred', 'bob')).body.map((r: { full_name: string }) => r.full_name)).toEqual(['alice/proj']);
    expect((await call('GET', '/users/bob/starred', null)).body.map((r: { full_name: string }) => r.full_name)).toEqual(['alice/proj']);
    expect((await call('GET', '/repos/alice/proj/stargazers', null)).body.map((u: { login: string }) => u.login)).toEqual(['bob']);
    expect((await call('DELETE', '/user/starred/alice/proj', 'bob')).status).toBe(204);
    expect((await call('GET', '/repos/alice/proj', 'bob')).body.stars_count).toBe(0);
  });
});

describe('notifications', () => {
  let threadId: number;

  test('a new issue notifies the repository watchers, never the actor', async () => {
    const issue = await call('POST', '/repos/alice/proj/issues', 'carol', { title: 'Broken build', body: 'please look' });
    expect(issue.status).toBe(201);
    expect(await threads('carol')).toEqual([]);
    const alice = await threads('alice');
    expect(alice).toHaveLength(1);
    const t = alice[0];
    expect(t).toMatchObject({
      unread: true,
      pinned: false,
      url: `${server.url}api/v1/notifications/threads/${t.id}`,
      subject: {
        type: 'Issue',
        title: 'Broken build',
        state: 'open',
        url: `${server.url}api/v1/repos/alice/proj/issues/1`,
        html_url: `${server.url}alice/proj/issues/1`,
        latest_comment_url: '',
        latest_comment_html_url: '',
      },
    });
    expect(t.repository).toMatchObject({ full_name: 'alice/proj' });
    expect(t.repository.permissions).toBeUndefined();
    expect(await threads('bob')).toHaveLength(1);
    expect(await threads('dave')).toEqual([]);
    expect(await unreadCount('alice')).toBe(1);
    threadId = t.id;
  });

  test('a comment notifies participants and mentioned users, with the latest comment', async () => {
    const comment = await call('POST', '/repos/alice/proj/issues/1/comments', 'alice', { body: 'looking, cc @dave' });
    expect(comment.status).toBe(201);
    // carol posted the issue: a participant.
    const carol = await threads('carol');
    expect(carol).toHaveLength(1);
    expect(carol[0].subject).toMatchObject({
      type: 'Issue',
      latest_comment_url: `${server.url}api/v1/repos/alice/proj/issues/comments/${comment.body.id}`,
      latest_comment_html_url: `${server.url}alice/proj/issues/1#issuecomment-${comment.body.id}`,
    });
    const dave = await threads('dave');
    expect(dave).toHaveLength(1);
    expect(dave[0].subject.title).toBe('Broken build');
    // alice commented herself: her thread is still the one from before, not a second one.
    expect((await threads('alice')).map((x) => x.id)).toEqual([threadId]);
    expect(await unreadCount('alice')).toBe(1);
  });

  test('marking a thread read, pinned and unread', async () => {
    const get = await call('GET', `/notifications/threads/${threadId}`, 'alice');
    expect(get.status).toBe(200);
    expect(get.body.id).toBe(threadId);
    const read = await mark('PATCH', `/notifications/threads/${threadId}`, 'alice');
    expect(read.status).toBe(205);
    expect(read.body).toMatchObject({ id: threadId, unread: false, pinned: false });
    expect(await unreadCount('alice')).toBe(0);
    expect(await threads('alice')).toEqual([]);
    expect((await threads('alice', '?all=true')).map((x) => x.id)).toEqual([threadId]);
    expect((await threads('alice', '?status-types=read')).map((x) => x.id)).toEqual([threadId]);
    const pinned = await mark('PATCH', `/notifications/threads/${threadId}?to-status=pinned`, 'alice');
    expect(pinned.body).toMatchObject({ unread: false, pinned: true });
    // Pinned threads are listed by default but are not new.
    expect((await threads('alice')).map((x) => x.pinned)).toEqual([true]);
    expect(await unreadCount('alice')).toBe(0);
    expect((await mark('PATCH', `/notifications/threads/${threadId}?to-status=unread`, 'alice')).body).toMatchObject({
      unread: true,
      pinned: false,
    });
    expect(await unreadCount('alice')).toBe(1);
    expect((await mark('PATCH', `/notifications/threads/${threadId}?to-status=bogus`, 'alice')).status).toBe(422);
  });

  test("another user's thread is a 403, a missing one a 404, and the notification scope is required", async () => {
    expect((await call('GET', `/notifications/threads/${threadId}`, 'bob')).status).toBe(403);
    expect((await mark('PATCH', `/notifications/threads/${threadId}`, 'bob')).status).toBe(403);
    expect((await call('GET', '/notifications/threads/999999', 'alice')).status).toBe(404);
    expect((await call('GET', '/notifications', 'aliceRepoOnly')).status).toBe(403);
    expect((await call('GET', '/notifications', null)).status).toBe(401);
  });

  test(
    'PUT /notifications marks everything read (205 with the changed threads); new activity ' + 'makes a read thread unread again',
    async () => {
      expect(await unreadCount('bob')).toBe(1);
      const put = await mark('PUT', '/notifications', 'bob');
      expect(put.status).toBe(205);
      expect(put.body).toHaveLength(1);
      expect(put.body[0]).toMatchObject({ unread: false });
      expect(await unreadCount('bob')).toBe(0);
      const comment = await call('POST', '/repos/alice/proj/issues/1/comments', 'carol', { body: 'any news?' });
      expect(comment.status).toBe(201);
      expect(await unreadCount('bob')).toBe(1);
      const bob = await threads('bob');
      expect(bob).toHaveLength(1);
      expect(bob[0].subject.latest_comment_url).toBe(`${server.url}api/v1/repos/alice/proj/issues/comments/${comment.body.id}`);
      // A pinned thread stays pinned when new activity arrives.
      expect((await mark('PATCH', `/notifications/threads/${threadId}?to-status=pinned`, 'alice')).status).toBe(205);
      expect((await call('POST', '/repos/alice/proj/issues/1/comments', 'bob', { body: 'me too' })).status).toBe(201);
      expect((await call('GET', `/notifications/threads/${threadId}`, 'alice')).body.pinned).toBe(true);
      // last_read_at in the past leaves newer threads alone.
      const before = await mark('PUT', '/notifications?last_read_at=2001-01-01T00:00:00Z', 'carol');
      expect(before.status).toBe(205);
      expect(before.body).toEqual([]);
      expect(await unreadCount('carol')).toBe(1);
    },
  );

  test('closing notifies participants; the subject state follows the issue; filters by subject type and time', async () => {
    expect((await mark('PUT', '/notifications', 'carol')).status).toBe(205);
    expect((await call('PATCH', '/repos/alice/proj/issues/1', 'alice', { state: 'closed' })).status).toBe(201);
    const carol = await threads('carol');
    expect(carol).toHaveLength(1);
    expect(carol[0].unread).toBe(true);
    expect(carol[0].subject.state).toBe('closed');
    expect(await threads('carol', '?subject-type=pull')).toEqual([]);
    expect(await threads('carol', '?subject-type=issue')).toHaveLength(1);
    expect(await threads('carol', '?since=2999-01-01T00:00:00Z')).toEqual([]);
    expect(await threads('carol', '?before=2999-01-01T00:00:00Z')).toHaveLength(1);
    expect((await call('GET', '/notifications?since=not-a-date', 'dave')).status).toBe(422);
  });

  test('repository notification lists and marks', async () => {
    const list = await call('GET', '/repos/alice/proj/notifications?all=true', 'alice');
    expect(list.status).toBe(200);
    expect(list.body.map((x: { id: number }) => x.id)).toEqual([threadId]);
    expect((await call('GET', '/repos/alice/secret/notifications', 'alice')).body).toEqual([]);
    const put = await mark('PUT', '/repos/alice/proj/notifications?status-types=pinned&to-status=read', 'alice');
    expect(put.status).toBe(205);
    expect(put.body).toMatchObject([{ id: threadId, unread: false, pinned: false }]);
  });

  test('a user who loses access to a private repository no longer sees its threads', async () => {
    expect((await call('PUT', '/repos/alice/secret/collaborators/eve', 'alice', { permission: 'read' })).status).toBe(204);
    expect((await call('PUT', '/repos/alice/secret/subscription', 'eve')).status).toBe(200);
    expect((await call('POST', '/repos/alice/secret/issues', 'alice', { title: 'Private matter' })).status).toBe(201);
    const eve = await threads('eve');
    expect(eve).toHaveLength(1);
    expect(eve[0].repository.full_name).toBe('alice/secret');
    expect(await unreadCount('eve')).toBe(1);
    expect((await call('DELETE', '/repos/alice/secret/collaborators/eve', 'alice')).status).toBe(204);
    expect(await threads('eve')).toEqual([]);
    expect(await unreadCount('eve')).toBe(0);
    expect((await call('GET', `/notifications/threads/${eve[0].id}`, 'eve')).status).toBe(404);
    // And no new thread reaches her: she can no longer read the issues.
    expect((await call('POST', '/repos/alice/secret/issues/1/comments', 'alice', { body: 'still private' })).status).toBe(201);
    expect(
      await server.kernel
        .db('notification')
        .where({ user_id: users.eve.id })
        .count({ n: '*' })
        .then((r: any[]) => Number(r[0].n)),
    ).toBe(1);
  });

  test('deleting a repository removes its watches and threads', async () => {
    expect((await call('POST', '/user/repos', 'alice', { name: 'temp' })).status).toBe(201);
    expect((await call('PUT', '/repos/alice/temp/subscription', 'bob')).status).toBe(200);
    expect((await call('POST', '/repos/alice/temp/issues', 'alice', { title: 'Short-lived' })).status).toBe(201);
    const repoId = (await call('GET', '/repos/alice/temp', 'alice')).body.id;
    expect(
      await server.kernel
        .db('notification')
        .where({ repo_id: repoId })
        .count({ n: '*' })
        .then((r: any[]) => Number(r[0].n)),
    ).toBe(1);
    expect((await call('DELETE', '/repos/alice/temp', 'alice')).status).toBe(204);
    expect(
      await server.kernel
        .db('notification')
        .where({ repo_id: repoId })
        .count({ n: '*' })
        .then((r: any[]) => Number(r[0].n)),
    ).toBe(0);
    expect(
      await server.kernel
        .db('watch')
        .where({ repo_id: repoId })
        .count({ n: '*' })
        .then((r: any[]) => Number(r[0].n)),
    ).toBe(0);
    expect((await call('GET', '/user/subscriptions', 'bob')).body.map((r: { full_name: string }) => r.full_name)).toEqual(['alice/proj']);
  });
});

describe('pull requests, assignees and leaving users', () => {
  beforeAll(async () => {
    expect((await call('POST', '/user/repos', 'alice', { name: 'work', auto_init: true, default_branch: 'main' })).status).toBe(201);
    expect((await call('PUT', '/repos/alice/work/subscription', 'bob')).status).toBe(200);
    expect((await call('PUT', '/repos/alice/work/collaborators/eve', 'alice', { permission: 'write' })).status).toBe(204);
  });

  test('opening and merging a pull request notify watchers with a Pull subject; the feed records both', async () => {
    const file = await call('POST', '/repos/alice/work/contents/feature.txt', 'alice', {
      content: Buffer.from('feature\n').toString('base64'),
      branch: 'main',
      new_branch: 'feature',
      message: 'add feature',
    });
    expect(file.status).toBe(201);
    const pr = await call('POST', '/repos/alice/work/pulls', 'alice', {
      title: 'Add feature',
      head: 'feature',
      base: 'main',
      body: 'please merge',
    });
    expect(pr.status).toBe(201);
    const bob = (await threads('bob')).filter((t) => t.repository.full_name === 'alice/work');
    expect(bob).toHaveLength(1);
    expect(bob[0].subject).toMatchObject({
      type: 'Pull',
      title: 'Add feature',
      state: 'open',
      url: `${server.url}api/v1/repos/alice/work/issues/${pr.body.number}`,
      html_url: `${server.url}alice/work/pulls/${pr.body.number}`,
    });
    expect(await threads('bob', '?subject-type=pull')).toHaveLength(1);
    expect((await mark('PATCH', `/notifications/threads/${bob[0].id}`, 'bob')).status).toBe(205);
    expect((await call('POST', `/repos/alice/work/pulls/${pr.body.number}/merge`, 'alice', { Do: 'merge' })).status).toBe(200);
    const after = await call('GET', `/notifications/threads/${bob[0].id}`, 'bob');
    expect(after.body).toMatchObject({ unread: true, subject: { type: 'Pull', state: 'merged' } });
    const feed = await call('GET', '/repos/alice/work/activities/feeds', 'bob');
    const types = feed.body.map((a: { op_type: string }) => a.op_type);
    expect(types).toEqual(expect.arrayContaining(['create_pull_request', 'merge_pull_request']));
    expect(feed.body.find((a: { op_type: string }) => a.op_type === 'create_pull_request').content).toBe(`${pr.body.number}|Add feature`);
  });

  test('an assignee is notified', async () => {
    const issue = await call('POST', '/repos/alice/work/issues', 'alice', { title: 'For eve', assignees: ['eve'] });
    expect(issue.status).toBe(201);
    const eve = (await threads('eve')).filter((t) => t.repository.full_name === 'alice/work');
    expect(eve.map((t) => t.subject.title)).toEqual(['For eve']);
  });

  test("a deleted user's watches, stars and threads go, and the counts follow", async () => {
    expect((await call('PUT', '/user/starred/alice/work', 'bob')).status).toBe(204);
    expect((await call('GET', '/repos/alice/work', 'alice')).body).toMatchObject({ watchers_count: 2, stars_count: 1 });
    const admin = { basic: ['forge-admin', 'admin-password-1'] as [string, string] };
    expect((await server.api('DELETE', '/admin/users/bob', admin)).status).toBe(204);
    expect((await call('GET', '/repos/alice/work', 'alice')).body).toMatchObject({ watchers_count: 1, stars_count: 0 });
    for (const table of ['watch', 'notification']) {
      expect(
        await server.kernel
          .db(table)
          .where({ user_id: users.bob.id })
          .count({ n: '*' })
          .then((r: any[]) => Number(r[0].n)),
      ).toBe(0);
    }
    expect(
      await server.kernel
        .db('star')
        .where({ uid: users.bob.id })
        .count({ n: '*' })
        .then((r: any[]) => Number(r[0].n)),
    ).toBe(0);
  });
});
