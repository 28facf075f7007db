import fs from 'node:fs';
import path from 'node:path';
import type { ForgeEvent } from '@hearth/plugin-api';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

type User = { name: string; password: string; id: number };
let server: TestServer;
let alice: User;
let bob: User;
let carol: User;
let aliceToken: string;
let bobToken: string;
let carolToken: string;
let sandbox: ReturnType<typeof gitSandbox>;
let dir: string;
const events: ForgeEvent[] = [];

const P = '/repos/alice/proj';

async function git(args: string[], cwd = dir): Promise<string> {
  const run = await sandbox.git(args, cwd);
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** Start `branch` at `from`, commit each file set as one commit, push the branch. Returns the new tip. */
async function branch(name: string, from: string, commits: Record<string, string>[], cwd = dir, remote = 'origin'): Promise<string> {
  await git(['checkout', '-q', '-B', name, from], cwd);
  for (const [n, files] of commits.entries()) {
    for (const [file, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
      fs.writeFileSync(path.join(cwd, file), content);
    }
    await git(['add', '-A'], cwd);
    await git(['commit', '-q', '-m', `${name} commit ${n + 1}`], cwd);
  }
  await git(['push', '-q', '-f', remote, `${name}:refs/heads/${name}`], cwd);
  return git(['rev-parse', 'HEAD'], cwd);
}

async function fetchMain(): Promise<string> {
  await git(['fetch', '-q', 'origin', 'main']);
  return git(['rev-parse', 'FETCH_HEAD']);
}

async function createPull(head: string, title = `PR ${head}`, token = aliceToken, baseBranch = 'main', repoPath = P) {
  return server.api('POST', `${repoPath}/pulls`, { token, body: { head, base: baseBranch, title, body: `body of ${title}` } });
}

async function parents(sha: string): Promise<string[]> {
  return (await git(['rev-list', '--parents', '-n', '1', sha])).split(' ').slice(1);
}

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  carol = await server.user('carol');
  aliceToken = await server.token(alice, ['delete:repository', 'write:issue', 'read:user']);
  bobToken = await server.token(bob, ['write:repository', 'write:issue']);
  carolToken = await server.token(carol, ['write:repository', 'write:issue']);
  server.kernel.hooks.webhook.emit.tapPromise('pulls-test', async (e: ForgeEvent) => {
    events.push(e);
  });
  expect(
    (await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'proj', auto_init: true, default_branch: 'main' } }))
      .status,
  ).toBe(201);
  sandbox = gitSandbox();
  dir = path.join(sandbox.dir, 'alice');
  await git(['clone', '-q', cloneUrl(server.url, 'alice/proj.git', 'alice', aliceToken), dir], sandbox.dir);
}, 60000);
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

describe('create, get, list, edit', () => {
  let head: string;
  test('a pull request from a branch of the repository', async () => {
    head = await branch('feature', 'origin/main', [{ 'a.txt': 'a\n' }, { 'b.txt': 'b\n' }]);
    const res = await createPull('feature', 'Add a and b');
    expect(res.status).toBe(201);
    const pr = res.body;
    expect(pr).toMatchObject({
      number: 1,
      title: 'Add a and b',
      body: 'body of Add a and b',
      state: 'open',
      merged: false,
      mergeable: true,
      head: { ref: 'feature', label: 'feature', sha: head },
      base: { ref: 'main', label: 'main' },
      allow_maintainer_edit: false,
      requested_reviewers: [],
    });
    expect(pr.base.repo.full_name).toBe('alice/proj');
    expect(pr.merge_base).toBe(await git(['rev-parse', 'origin/main']));
    expect(pr.html_url).toMatch(/\/alice\/proj\/pulls\/1$/);
    expect(pr.diff_url).toMatch(/\/pulls\/1\.diff$/);
    const opened = events.find((e) => e.event === 'pull_request' && e.action === 'opened');
    expect(opened?.payload).toMatchObject({ action: 'opened', number: 1, pull_request: { number: 1 } });
    expect(opened?.payload.repository).toBeUndefined();
  });

  test('duplicates, unknown branches and same-branch pull requests are refused', async () => {
    expect((await createPull('feature')).status).toBe(409);
    expect((await createPull('nope')).status).toBe(404);
    expect((await createPull('feature', 'x', aliceToken, 'nope')).status).toBe(404);
    expect((await createPull('main')).status).toBe(422);
  });

  test('get, list with filters, the issues API sees a pull request', async () => {
    const got = await server.api('GET', `${P}/pulls/1`);
    expect(got.status).toBe(200);
    expect(got.body.head.sha).toBe(head);
    const listed = await server.api('GET', `${P}/pulls?state=open`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((p: any) => p.number)).toContain(1);
    expect(listed.headers.get('x-total-count')).toBeTruthy();
    expect((await server.api('GET', `${P}/pulls?state=closed`)).body).toEqual([]);
    expect((await server.api('GET', `${P}/pulls?milestone=12345`)).body).toEqual([]);
    for (const sort of ['oldest', 'recentupdate', 'leastupdate', 'mostcomment', 'leastcomment', 'priority']) {
      const sorted = await server.api('GET', `${P}/pulls?state=all&sort=${sort}&labels=1&labels=2`);
      expect(sorted.status).toBe(200);
    }
    expect((await server.api('GET', `${P}/pulls?state=all&sort=mostcomment`)).body.map((p: any) => p.number)).toContain(1);
    const issue = await server.api('GET', `${P}/issues/1`);
    expect(issue.status).toBe(200);
    expect(issue.body.pull_request).toMatchObject({ merged: false });
    expect((await server.api('GET', `${P}/pulls/99`)).status).toBe(404);
    // by base and head (Gitea 1.22)
    expect((await server.api('GET', `${P}/pulls/main/feature`)).body.number).toBe(1);
    expect((await server.api('GET', `${P}/pulls/main/alice:feature`)).body.number).toBe(1);
    expect((await server.api('GET', `${P}/pulls/main/nope`)).status).toBe(404);
  });

  test('refs/pull/1/head is fetchable with git', async () => {
    await git(['fetch', '-q', 'origin', 'refs/pull/1/head']);
    expect(await git(['rev-parse', 'FETCH_HEAD'])).toBe(head);
  });

  test('diff, patch, commits and files', async () => {
    const diff = await server.api('GET', `${P}/pulls/1.diff`);
    expect(diff.status).toBe(200);
    expect(diff.text).toContain('diff --git a/a.txt b/a.txt');
    expect(diff.text).toContain('+b');
    const patch = await server.api('GET', `${P}/pulls/1.patch`);
    expect(patch.status).toBe(200);
    expect(patch.text).toContain('Subject: [PATCH 1/2] feature commit 1');
    const commits = await server.api('GET', `${P}/pulls/1/commits`);
    expect(commits.status).toBe(200);
    expect(commits.body.map((c: any) => c.sha)[0]).toBe(head);
    expect(commits.body).toHaveLength(2);
    expect(commits.headers.get('x-total-count')).toBe('2');
    const files = await server.api('GET', `${P}/pulls/1/files`);
    expect(files.status).toBe(200);
    expect(files.body.map((f: any) => [f.filename, f.status, f.additions])).toEqual([
      ['a.txt', 'added', 1],
      ['b.txt', 'added', 1],
    ]);
    expect(files.headers.get('x-total-count')).toBe('2');
    expect(files.headers.get('link')).toBeNull();
  });

  test('edit: title, body, empty assignees, allow_maintainer_edit, close and reopen', async () => {
    const edited = await server.api('PATCH', `${P}/pulls/1`, {
      token: aliceToken,
      body: { title: 'Renamed', assignees: [], allow_maintainer_edit: true },
    });
    expect(edited.status).toBe(201);
    expect(edited.body).toMatchObject({ title: 'Renamed', allow_maintainer_edit: true });
    const ev = events.filter((e) => e.action === 'edited').pop();
    expect(ev?.payload).toMatchObject({ changes: { title: { from: 'Add a and b' } } });
    const closed = await server.api('PATCH', `${P}/pulls/1`, { token: aliceToken, body: { state: 'closed' } });
    expect(closed.body.state).toBe('closed');
    expect(events.filter((e) => e.event === 'pull_request').pop()?.action).toBe('closed');
    const reopened = await server.api('PATCH', `${P}/pulls/1`, { token: aliceToken, body: { state: 'open' } });
    expect(reopened.body.state).toBe('open');
    expect(events.filter((e) => e.event === 'pull_request').pop()?.action).toBe('reopened');
    // assignees: writers only; an empty list clears
    const assigned = await server.api('PATCH', `${P}/pulls/1`, { token: aliceToken, body: { assignees: ['alice'] } });
    expect(assigned.status).toBe(201);
    expect(assigned.body.assignees.map((u: any) => u.login)).toEqual(['alice']);
    expect(events.filter((e) => e.event === 'pull_request_assign').pop()?.action).toBe('assigned');
    expect((await server.api('PATCH', `${P}/pulls/1`, { token: aliceToken, body: { assignees: ['bob'] } })).status).toBe(422);
    const cleared = await server.api('PATCH', `${P}/pulls/1`, { token: aliceToken, body: { assignees: [] } });
    expect(cleared.body.assignees).toBeNull();
    // labels: pull_request_label events
    const label = await server.api('POST', `${P}/labels`, { token: aliceToken, body: { name: 'kind/bug', color: '#ee0701' } });
    expect(label.status).toBe(201);
    const labelled = await server.api('PATCH', `${P}/pulls/1`, { token: aliceToken, body: { labels: [label.body.id] } });
    expect(labelled.body.labels.map((l: any) => l.name)).toEqual(['kind/bug']);
    expect(events.filter((e) => e.event === 'pull_request_label').pop()?.action).toBe('label_updated');
    expect((await server.api('GET', `${P}/pulls?labels=${label.body.id}`)).body.map((p: any) => p.number)).toEqual([1]);
    // A label of another repository is refused, as on issues.
    expect((await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'elsewhere' } })).status).toBe(201);
    const foreign = await server.api('POST', '/repos/alice/elsewhere/labels', {
      token: aliceToken,
      body: { name: 'foreign', color: '#000000' },
    });
    const refused = await server.api('PATCH', `${P}/pulls/1`, { token: aliceToken, body: { labels: [foreign.body.id] } });
    expect([refused.status, refused.body.message]).toEqual([422, `label does not exist in this repository [id: ${foreign.body.id}]`]);
    // bob (a reader) may not edit someone else's pull request
    expect((await server.api('PATCH', `${P}/pulls/1`, { token: bobToken, body: { title: 'x' } })).status).toBe(403);
  });

  test('allow_maintainer_edit defaults from the repository setting', async () => {
    expect((await server.api('PATCH', P, { token: aliceToken, body: { default_allow_maintainer_edit: true } })).status).toBe(200);
    await branch('maint', 'origin/main', [{ 'm.txt': 'm\n' }]);
    const res = await createPull('maint');
    expect(res.body.allow_maintainer_edit).toBe(true);
    expect((await server.api('PATCH', P, { token: aliceToken, body: { default_allow_maintainer_edit: false } })).status).toBe(200);
    expect((await server.api('PATCH', `${P}/pulls/${res.body.number}`, { token: aliceToken, body: { state: 'closed' } })).status).toBe(201);
  });

  test('closing a pull request unpins it, as closing an issue does', async () => {
    await branch('pinned-pr', 'origin/main', [{ 'pin.txt': 'pin\n' }]);
    const res = await createPull('pinned-pr');
    expect((await server.api('POST', `${P}/issues/${res.body.number}/pin`, { token: aliceToken })).status).toBe(204);
    expect((await server.api('GET', `${P}/pulls/pinned`)).body.map((p: { number: number }) => p.number)).toContain(res.body.number);
    expect((await server.api('PATCH', `${P}/pulls/${res.body.number}`, { token: aliceToken, body: { state: 'closed' } })).status).toBe(201);
    expect((await server.api('GET', `${P}/pulls/pinned`)).body.map((p: { number: number }) => p.number)).not.toContain(res.body.number);
    const timeline = await server.api('GET', `${P}/issues/${res.body.number}/timeline`);
    expect(timeline.body.map((c: { type: string }) => c.type)).toEqual(expect.arrayContaining(['pin', 'close', 'unpin']));
  });

  test('a pull request body that names an issue leaves a pull_ref on it', async () => {
    const issue = await server.api('POST', `${P}/issues`, { token: aliceToken, body: { title: 'to be fixed' } });
    await branch('fixer', 'origin/main', [{ 'fix.txt': 'fix\n' }]);
    const res = await server.api('POST', `${P}/pulls`, {
      token: aliceToken,
      body: { head: 'fixer', base: 'main', title: 'A fix', body: `fixes #${issue.body.number}` },
    });
    expect(res.status).toBe(201);
    const timeline = await server.api('GET', `${P}/issues/${issue.body.number}/timeline`);
    expect(timeline.body.map((c: { type: string }) => c.type)).toEqual(['pull_ref']);
    expect(timeline.body[0].ref_issue.number).toBe(res.body.number);
  });

  test('deleting the issue of a pull request removes the pull request with it', async () => {
    await branch('to-delete', 'origin/main', [{ 'gone.txt': 'gone\n' }]);
    const res = await createPull('to-delete');
    expect(res.status).toBe(201);
    const admin = await server.token(alice, ['delete:issue'], 'issue-deleter');
    expect((await server.api('DELETE', `${P}/issues/${res.body.number}`, { token: admin })).status).toBe(204);
    expect((await server.api('GET', `${P}/pulls/${res.body.number}`)).status).toBe(404);
    expect(await server.kernel.db('pull_request').where('id', res.body.id)).toEqual([]);
  });

  test('a push to the head branch synchronizes the pull request', async () => {
    const before = events.length;
    const tip = await branch('feature', 'feature', [{ 'c.txt': 'c\n' }]);
    let pr: any;
    for (let i = 0; i < 50; i++) {
      pr = (await server.api('GET', `${P}/pulls/1`)).body;
      if (pr.head.sha === tip && events.slice(before).some((e) => e.action === 'synchronized')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(pr.head.sha).toBe(tip);
    const sync = events.slice(before).find((e) => e.event === 'pull_request' && e.action === 'synchronized');
    expect(sync?.payload).toMatchObject({ number: 1, pull_request: { head: { sha: tip } } });
    await git(['fetch', '-q', 'origin', 'refs/pull/1/head']);
    expect(await git(['rev-parse', 'FETCH_HEAD'])).toBe(tip);
  });
});

describe('merging', () => {
  /** A branch from the current main with its own commits, main then moved on by another commit. */
  async function divergedPull(name: string, files: Record<string, string>[]): Promise<{ index: number; head: string; mainBefore: string }> {
    const head = await branch(name, 'origin/main', files);
    await git(['fetch', '-q', 'origin']);
    await branch(`${name}-main-moves`, 'origin/main', [{ [`main-${name}.txt`]: `${name}\n` }]);
    const movedMain = await git(['rev-parse', 'HEAD']);
    await git(['push', '-q', 'origin', `${movedMain}:refs/heads/main`]);
    await git(['push', '-q', 'origin', `:refs/heads/${name}-main-moves`]);
    const res = await createPull(name, `Style ${name}`);
    expect(res.status).toBe(201);
    return { index: res.body.number, head, mainBefore: movedMain };
  }

  test('merge: a merge commit with the base and the head as parents', async () => {
    const { index, head, mainBefore } = await divergedPull('s-merge', [{ 'sm1.txt': '1\n' }, { 'sm2.txt': '2\n' }]);
    const res = await server.api('POST', `${P}/pulls/${index}/merge`, { token: aliceToken, body: { Do: 'merge' } });
    expect(res.status).toBe(200);
    const main = await fetchMain();
    expect(await parents(main)).toEqual([mainBefore, head]);
    expect(await git(['log', '-1', '--format=%s', main])).toBe(`Merge pull request 'Style s-merge' (#${index}) from s-merge into main`);
    const pr = (await server.api('GET', `${P}/pulls/${index}`)).body;
    expect(pr).toMatchObject({ merged: true, state: 'closed', merge_commit_sha: main, merged_by: { login: 'alice' } });
    expect((await server.api('GET', `${P}/pulls/${index}/merge`)).status).toBe(204);
    expect((await server.api('GET', `${P}/issues/${index}`)).body.pull_request.merged).toBe(true);
    const closed = events.filter((e) => e.event === 'pull_request' && e.action === 'closed').pop();
    expect(closed?.payload).toMatchObject({ number: index, pull_request: { merged: true } });
    const timeline = await server.kernel.db('comment').where({ type: 28 }).select('commit_sha');
    expect(timeline.map((c: any) => c.commit_sha)).toContain(main);
    // merging again: 405
    expect((await server.api('POST', `${P}/pulls/${index}/merge`, { token: aliceToken, body: { Do: 'merge' } })).status).toBe(405);
  });

  test('squash: a single commit on top of the base, authored by the poster', async () => {
    const { index, mainBefore } = await divergedPull('s-squash', [{ 'sq1.txt': '1\n' }, { 'sq2.txt': '2\n' }]);
    const res = await server.api('POST', `${P}/pulls/${index}/merge`, { token: aliceToken, body: { Do: 'squash' } });
    expect(res.status).toBe(200);
    const main = await fetchMain();
    expect(await parents(main)).toEqual([mainBefore]);
    expect(await git(['ls-tree', '--name-only', main])).toEqual(expect.stringContaining('sq2.txt'));
    expect(await git(['log', '-1', '--format=%s|%an', main])).toBe(`Style s-squash (#${index})|alice`);
  });

  test('rebase: the head commits replayed linearly on the base', async () => {
    const { index, head, mainBefore } = await divergedPull('s-rebase', [{ 'rb1.txt': '1\n' }, { 'rb2.txt': '2\n' }]);
    const res = await server.api('POST', `${P}/pulls/${index}/merge`, { token: aliceToken, body: { Do: 'rebase' } });
    expect(res.status).toBe(200);
    const main = await fetchMain();
    const log = (await git(['log', '--format=%s', `${mainBefore}..${main}`])).split('\n');
    expect(log).toEqual(['s-rebase commit 2', 's-rebase commit 1']);
    expect(await git(['rev-list', '--merges', `${mainBefore}..${main}`])).toBe('');
    expect(main).not.toBe(head);
    expect(await parents(await git(['rev-parse', `${main}~1`]))).toEqual([mainBefore]);
    // authors kept, the merger commits
    expect(await git(['log', '-1', '--format=%an|%cn', main])).toBe('Tester|alice');
  });

  test('rebase-merge: rebased commits joined by a merge commit', async () => {
    const { index, head, mainBefore } = await divergedPull('s-rbm', [{ 'rm1.txt': '1\n' }]);
    const res = await server.api('POST', `${P}/pulls/${index}/merge`, { token: aliceToken, body: { Do: 'rebase-merge' } });
    expect(res.status).toBe(200);
    const main = await fetchMain();
    const ps = await parents(main);
    expect(ps[0]).toBe(mainBefore);
    expect(ps[1]).not.toBe(head);
    expect(await parents(ps[1])).toEqual([mainBefore]);
  });

  test('fast-forward-only refuses a diverged branch and fast-forwards otherwise', async () => {
    const diverged = await divergedPull('s-ff1', [{ 'ff1.txt': '1\n' }]);
    const refused = await server.api('POST', `${P}/pulls/${diverged.index}/merge`, {
      token: aliceToken,
      body: { Do: 'fast-forward-only' },
    });
    expect(refused.status).toBe(405);
    expect((await server.api('PATCH', `${P}/pulls/${diverged.index}`, { token: aliceToken, body: { state: 'closed' } })).status).toBe(201);
    await git(['fetch', '-q', 'origin']);
    const head = await branch('s-ff2', 'origin/main', [{ 'ff2.txt': '2\n' }]);
    const pr = await createPull('s-ff2');
    const res = await server.api('POST', `${P}/pulls/${pr.body.number}/merge`, { token: aliceToken, body: { Do: 'fast-forward-only' } });
    expect(res.status).toBe(200);
    expect(await fetchMain()).toBe(head);
  });

  test('a style the repository does not allow is 405', async () => {
    await git(['fetch', '-q', 'origin']);
    await branch('s-na', 'origin/main', [{ 'na.txt': '1\n' }]);
    const pr = await createPull('s-na');
    expect((await server.api('PATCH', P, { token: aliceToken, body: { allow_squash_merge: false } })).status).toBe(200);
    expect((await server.api('POST', `${P}/pulls/${pr.body.number}/merge`, { token: aliceToken, body: { Do: 'squash' } })).status).toBe(
      405,
    );
    expect(
      (
        await server.api('POST', `${P}/pulls/${pr.body.number}/merge`, {
          token: aliceToken,
          body: { Do: 'manually-merged', MergeCommitID: '0'.repeat(40) },
        })
      ).status,
    ).toBe(405);
    expect((await server.api('PATCH', P, { token: aliceToken, body: { allow_squash_merge: true } })).status).toBe(200);
  });

  test('manually-merged records a commit already on the base, when the repository allows it', async () => {
    await git(['fetch', '-q', 'origin']);
    const head = await branch('manual', 'origin/main', [{ 'manual.txt': 'm\n' }]);
    const pr = await createPull('manual');
    const n = pr.body.number;
    expect(
      (await server.api('POST', `${P}/pulls/${n}/merge`, { token: aliceToken, body: { Do: 'manually-merged', MergeCommitID: head } }))
        .status,
    ).toBe(405);
    expect((await server.api('PATCH', P, { token: aliceToken, body: { allow_manual_merge: true } })).status).toBe(200);
    // not on main yet: 422
    expect(
      (await server.api('POST', `${P}/pulls/${n}/merge`, { token: aliceToken, body: { Do: 'manually-merged', MergeCommitID: head } }))
        .status,
    ).toBe(422);
    await git(['push', '-q', 'origin', `${head}:refs/heads/main`]);
    const res = await server.api('POST', `${P}/pulls/${n}/merge`, {
      token: aliceToken,
      body: { Do: 'manually-merged', MergeCommitID: head },
    });
    expect(res.status).toBe(200);
    expect((await server.api('GET', `${P}/pulls/${n}`)).body).toMatchObject({ merged: true, state: 'closed', merge_commit_sha: head });
    expect(await fetchMain()).toBe(head);
    expect((await server.api('PATCH', P, { token: aliceToken, body: { allow_manual_merge: false } })).status).toBe(200);
  });

  test('conflicts are reported and refuse to merge', async () => {
    await git(['fetch', '-q', 'origin']);
    await branch('conf-a', 'origin/main', [{ 'shared.txt': 'from a\n' }]);
    await branch('conf-b', 'origin/main', [{ 'shared.txt': 'from b\n' }]);
    const a = await createPull('conf-a');
    const b = await createPull('conf-b');
    expect(b.body.mergeable).toBe(true);
    expect((await server.api('POST', `${P}/pulls/${a.body.number}/merge`, { token: aliceToken, body: { Do: 'merge' } })).status).toBe(200);
    // the base moved: b now conflicts
    let pr: any;
    for (let i = 0; i < 50; i++) {
      pr = (await server.api('GET', `${P}/pulls/${b.body.number}`)).body;
      if (pr.mergeable === false) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(pr.mergeable).toBe(false);
    expect(pr.conflicted_files).toEqual(['shared.txt']);
    const res = await server.api('POST', `${P}/pulls/${b.body.number}/merge`, { token: aliceToken, body: { Do: 'merge' } });
    expect(res.status).toBe(405);
    expect(res.body.message).toContain('shared.txt');
  });

  test('the merge template: first line is the title, the rest the description', async () => {
    await git(['fetch', '-q', 'origin']);
    await branch('tpl', 'origin/main', [
      {
        '.gitea/default_merge_message/MERGE_TEMPLATE.md':
          'Merge #${PullRequestIndex}: ${PullRequestTitle}\n\nFrom ${HeadBranch} into ${BaseBranch}.\nSecond line.\n',
      },
    ]);
    await git(['push', '-q', 'origin', 'tpl:main']);
    await branch('tpl-user', 'origin/main', [{ 'tpl-user.txt': 'x\n' }]);
    await git(['fetch', '-q', 'origin']);
    const pr = await createPull('tpl-user', 'Templated');
    expect(pr.status).toBe(201);
    expect((await server.api('POST', `${P}/pulls/${pr.body.number}/merge`, { token: aliceToken, body: { Do: 'merge' } })).status).toBe(200);
    const main = await fetchMain();
    expect(await git(['log', '-1', '--format=%s', main])).toBe(`Merge #${pr.body.number}: Templated`);
    expect(await git(['log', '-1', '--format=%b', main])).toBe('From tpl-user into main.\nSecond line.');
    // MergeTitleField / MergeMessageField win over the template
    await branch('tpl-user2', 'origin/main', [{ 'tpl-user2.txt': 'x\n' }]);
    const pr2 = await createPull('tpl-user2', 'Templated 2');
    expect(
      (
        await server.api('POST', `${P}/pulls/${pr2.body.number}/merge`, {
          token: aliceToken,
          body: { Do: 'merge', MergeTitleField: 'Own title', MergeMessageField: 'Own body' },
        })
      ).status,
    ).toBe(200);
    const main2 = await fetchMain();
    expect(await git(['log', '-1', '--format=%s%n%b', main2])).toBe('Own title\nOwn body');
  });

  test('head_commit_id mismatch is 409; readers cannot merge; delete_branch_after_merge removes the head branch', async () => {
    await git(['fetch', '-q', 'origin']);
    const head = await branch('guard', 'origin/main', [{ 'guard.txt': 'g\n' }]);
    const pr = await createPull('guard');
    const n = pr.body.number;
    expect(
      (await server.api('POST', `${P}/pulls/${n}/merge`, { token: aliceToken, body: { Do: 'merge', head_commit_id: 'f'.repeat(40) } }))
        .status,
    ).toBe(409);
    expect((await server.api('POST', `${P}/pulls/${n}/merge`, { token: bobToken, body: { Do: 'merge' } })).status).toBe(403);
    expect(
      (
        await server.api('POST', `${P}/pulls/${n}/merge`, {
          token: aliceToken,
          body: { Do: 'merge', head_commit_id: head, delete_branch_after_merge: true },
        })
      ).status,
    ).toBe(200);
    expect((await server.api('GET', `${P}/branches/guard`)).status).toBe(404);
  });

  test('concurrent merges of one pull request: exactly one succeeds', async () => {
    await git(['fetch', '-q', 'origin']);
    await branch('race', 'origin/main', [{ 'race.txt': 'r\n' }]);
    const pr = await createPull('race');
    const n = pr.body.number;
    const styles = ['merge', 'squash', 'rebase', 'merge', 'rebase-merge'];
    const results = await Promise.all(styles.map((Do) => server.api('POST', `${P}/pulls/${n}/merge`, { token: aliceToken, body: { Do } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect([405, 409]).toContain(r.status);
  });

  test('update a pull request branch from its base (merge, then rebase)', async () => {
    await git(['fetch', '-q', 'origin']);
    const head = await branch('upd', 'origin/main', [{ 'upd.txt': 'u\n' }]);
    const pr = await createPull('upd');
    await branch('upd-main', 'origin/main', [{ 'upd-main.txt': 'm\n' }]);
    const main = await git(['rev-parse', 'HEAD']);
    await git(['push', '-q', 'origin', `${main}:refs/heads/main`]);
    expect((await server.api('POST', `${P}/pulls/${pr.body.number}/update?style=merge`, { token: aliceToken })).status).toBe(200);
    await git(['fetch', '-q', 'origin', 'upd']);
    const updated = await git(['rev-parse', 'FETCH_HEAD']);
    expect(await parents(updated)).toEqual([head, main]);
    // rebase onto a newer main
    await branch('upd-main2', 'origin/main', [{ 'upd-main2.txt': 'm\n' }]);
    const main2 = await git(['rev-parse', 'HEAD']);
    await git(['push', '-q', 'origin', `${main2}:refs/heads/main`]);
    expect((await server.api('POST', `${P}/pulls/${pr.body.number}/update?style=rebase`, { token: aliceToken })).status).toBe(200);
    await git(['fetch', '-q', 'origin', 'upd']);
    const rebased = await git(['rev-parse', 'FETCH_HEAD']);
    expect(await git(['merge-base', '--is-ancestor', main2, rebased]).then(() => true)).toBe(true);
    expect((await server.api('POST', `${P}/pulls/${pr.body.number}/update`, { token: bobToken })).status).toBe(403);
  });
});

describe('forks and big pull requests', () => {
  test('a pull request from a fork: created, fetchable at refs/pull/N/head, merged', async () => {
    const fork = await server.api('POST', `${P}/forks`, { token: carolToken, body: {} });
    expect(fork.status).toBe(202);
    const carolDir = path.join(sandbox.dir, 'carol');
    await git(['clone', '-q', cloneUrl(server.url, 'carol/proj.git', 'carol', carolToken), carolDir], sandbox.dir);
    const head = await branch('fix', 'origin/main', [{ 'fix.txt': 'fixed\n' }], carolDir);
    const pr = await createPull('carol:fix', 'Fix from a fork', carolToken);
    expect(pr.status).toBe(201);
    expect(pr.body.head).toMatchObject({ ref: 'fix', sha: head, repo: { full_name: 'carol/proj' } });
    expect(pr.body.mergeable).toBe(true);
    await git(['fetch', '-q', 'origin', `refs/pull/${pr.body.number}/head`]);
    expect(await git(['rev-parse', 'FETCH_HEAD'])).toBe(head);
    // carol has no write access to alice/proj
    expect((await server.api('POST', `${P}/pulls/${pr.body.number}/merge`, { token: carolToken, body: { Do: 'merge' } })).status).toBe(403);
    expect((await server.api('POST', `${P}/pulls/${pr.body.number}/merge`, { token: aliceToken, body: { Do: 'merge' } })).status).toBe(200);
    const main = await fetchMain();
    expect((await parents(main))[1]).toBe(head);
  });

  test('walking the files of a 5,000-file pull request with skip-to loses and repeats nothing', async () => {
    await git(['fetch', '-q', 'origin']);
    await git(['checkout', '-q', '-B', 'big', 'origin/main']);
    const names: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const name = `big/d${i % 50}/file-${i}.txt`;
      names.push(name);
      fs.mkdirSync(path.join(dir, path.dirname(name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), `${i}\n`);
    }
    await git(['add', '-A']);
    await git(['commit', '-q', '-m', 'five thousand files']);
    await git(['push', '-q', 'origin', 'big']);
    const pr = await createPull('big', 'Big');
    expect(pr.status).toBe(201);
    const seen: string[] = [];
    let next: string | null = `${P}/pulls/${pr.body.number}/files?limit=7&page=3`;
    let pages = 0;
    while (next) {
      const res: any = await server.api('GET', next);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe('5000');
      expect(res.body.length).toBeLessThanOrEqual(100);
      seen.push(...res.body.map((f: any) => f.filename));
      pages++;
      const link: string | null = res.headers.get('link');
      const m = link ? /<([^>]+)>; rel="next"/.exec(link) : null;
      next = m ? `//${new URL(m[1]).pathname.replace(/^\//, '')}${new URL(m[1]).search}` : null;
      if (m) expect(new URL(m[1]).searchParams.get('skip-to')).toBeTruthy();
    }
    expect(pages).toBe(50);
    expect(seen).toHaveLength(5000);
    expect(new Set(seen).size).toBe(5000);
    expect([...seen].sort()).toEqual([...names].sort());
    // a page starts at the named file
    const mid = seen[2345];
    const page = await server.api('GET', `${P}/pulls/${pr.body.number}/files?skip-to=${encodeURIComponent(mid)}`);
    expect(page.body[0].filename).toBe(mid);
    expect(page.body).toHaveLength(100);
  }, 120000);
});
