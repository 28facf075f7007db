import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

/**
 * The git data API against real history pushed with the git CLI: branches (one with '/'), an
 * annotated and a lightweight tag, a rename, a binary file, a commit by someone who is not a
 * Hearth user, and a git note.
 */

let server: TestServer;
let alice: { name: string; password: string; id: number };
let token: string;
let sandbox: ReturnType<typeof gitSandbox>;
let work: string;
let url: string;
/** Commit ids by name, oldest first: init (auto_init), c1 … c5 on main; c6 on feature/deep. */
const c: Record<string, string> = {};

const api = (method: string, p: string, body?: unknown, t: string | undefined = token) => server.api(method, p, { token: t, body });
const git = async (args: string[], cwd = work) => {
  const res = await sandbox.git(args, cwd);
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.trim();
};
const head = () => git(['rev-parse', 'HEAD']);

async function commit(files: Record<string, string | Buffer | null>, message: string, extra: string[] = []) {
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(work, file);
    if (content === null) await git(['rm', '-q', file]);
    else {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
      await git(['add', file]);
    }
  }
  await git(['commit', '-q', '-m', message, ...extra]);
  return head();
}

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  await server.user('tester'); // tester@example.com: the sandbox's commit identity
  token = await server.token(alice, ['write:repository', 'delete:repository', 'read:user']);
  sandbox = gitSandbox();
  expect((await api('POST', '/user/repos', { name: 'history', auto_init: true })).status).toBe(201);
  url = cloneUrl(server.url, 'alice/history.git', 'alice', token);
  await git(['clone', '-q', url, 'history'], sandbox.dir);
  work = path.join(sandbox.dir, 'history');
  c.init = await head();
  c.c1 = await commit({ 'src/app.js': '1\n2\n3\n' }, 'add app');
  c.c2 = await commit({ 'src/app.js': '1\ntwo\n3\n', 'docs/readme.txt': 'read me\n' }, 'change app, add docs\n\nwith a body');
  await git(['mv', 'docs/readme.txt', 'docs/guide.txt']);
  c.c3 = await commit({}, 'rename docs');
  c.c4 = await commit({ 'bin.dat': Buffer.from([0, 1, 2, 0, 255]) }, 'binary', ['--author', 'Stranger <stranger@example.org>']);
  c.c5 = await commit({ 'src/app.js': '1\ntwo\n3\n4\n', 'old.txt': 'x\n' }, 'more');
  await git(['checkout', '-q', '-b', 'feature/deep', c.c3]);
  c.c6 = await commit({ 'feature.txt': 'f\n' }, 'feature work');
  await git(['checkout', '-q', 'main']);
  await git(['tag', '-a', '-m', 'release one', 'v1.0', c.c2]);
  await git(['tag', 'v0.1', c.c1]);
  await git(['notes', 'add', '-m', 'reviewed by bob', c.c3]);
  await git(['push', '-q', 'origin', 'main', 'feature/deep', 'v1.0', 'v0.1']);
  await git(['push', '-q', 'origin', 'refs/notes/*']);
}, 60000);

afterAll(async () => {
  sandbox?.cleanup();
  await server?.close();
});

describe('branches', () => {
  test('list: Gitea Branch objects, newest commit first, paged with X-Total-Count and Link', async () => {
    const res = await api('GET', '/repos/alice/history/branches');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(res.body.map((b: { name: string }) => b.name).sort()).toEqual(['feature/deep', 'main']);
    const main = res.body.find((b: { name: string }) => b.name === 'main');
    expect(main).toMatchObject({
      name: 'main',
      protected: false,
      required_approvals: 0,
      enable_status_check: false,
      status_check_contexts: [],
      user_can_push: true,
      user_can_merge: true,
      effective_branch_protection_name: '',
      commit: {
        id: c.c5,
        message: 'more\n',
        url: `${server.url}alice/history/commit/${c.c5}`,
        author: { name: 'Tester', email: 'tester@example.com', username: 'tester' },
        committer: { name: 'Tester', email: 'tester@example.com', username: 'tester' },
        verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
      },
    });
    expect(main.commit.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
    const page = await api('GET', '/repos/alice/history/branches?limit=1&page=2');
    expect(page.body).toHaveLength(1);
    expect(page.headers.get('x-total-count')).toBe('2');
    expect(page.headers.get('link')).toContain('rel="first"');
    // Anonymous readers of a public repository see the branches but may not push.
    const anon = await server.api('GET', '/repos/alice/history/branches');
    expect(anon.body.every((b: { user_can_push: boolean }) => !b.user_can_push)).toBe(true);
  });

  test('get one: names with a slash work raw and encoded; unknown is a 404 JSON', async () => {
    for (const name of ['feature/deep', 'feature%2Fdeep']) {
      const res = await api('GET', `/repos/alice/history/branches/${name}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'feature/deep', commit: { id: c.c6 } });
    }
    const missing = await api('GET', '/repos/alice/history/branches/no/such');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/branch does not exist/);
    expect((await api('GET', '/repos/alice/history/branches/a..b')).status).toBe(404);
  });

  test('create from a tag, a short commit id, a branch (old_branch_name) and the default; git and the list see them', async () => {
    const fromTag = await api('POST', '/repos/alice/history/branches', { new_branch_name: 'release/1.x', old_ref_name: 'v1.0' });
    expect(fromTag.status).toBe(201);
    expect(fromTag.body).toMatchObject({ name: 'release/1.x', commit: { id: c.c2 }, user_can_push: true });
    const fromSha = await api('POST', '/repos/alice/history/branches', { new_branch_name: 'at-c1', old_ref_name: c.c1.slice(0, 10) });
    expect(fromSha.body.commit.id).toBe(c.c1);
    const fromBranch = await api('POST', '/repos/alice/history/branches', { new_branch_name: 'copy', old_branch_name: 'feature/deep' });
    expect(fromBranch.body.commit.id).toBe(c.c6);
    const fromDefault = await api('POST', '/repos/alice/history/branches', { new_branch_name: 'from-default' });
    expect(fromDefault.body.commit.id).toBe(c.c5);

    const remote = await git(['ls-remote', '--heads', url]);
    expect(remote).toContain(`${c.c2}\trefs/heads/release/1.x`);
    expect(remote).toContain(`${c.c1}\trefs/heads/at-c1`);
    const list = await api('GET', '/repos/alice/history/branches?limit=50');
    expect(list.headers.get('x-total-count')).toBe('6');
    expect(list.body.map((b: { name: string }) => b.name)).toEqual(
      expect.arrayContaining(['release/1.x', 'at-c1', 'copy', 'from-default']),
    );
    // The branch rows (and the push hook) are kept in step.
    const repo = (await api('GET', '/repos/alice/history')).body;
    const rows = await server.kernel.db('repo_branches').where('repo_id', repo.id).select('name', 'commit_id');
    expect(rows).toEqual(expect.arrayContaining([{ name: 'release/1.x', commit_id: c.c2 }]));
  });

  test('create refuses invalid names (422), existing names (409), unknown starts (404), and needs write access', async () => {
    for (const name of ['-x', 'a..b', 'has space', 'end/', 'x.lock', 'HEAD', '']) {
      const res = await api('POST', '/repos/alice/history/branches', { new_branch_name: name });
      expect({ name, status: res.status }).toEqual({ name, status: 422 });
    }
    const exists = await api('POST', '/repos/alice/history/branches', { new_branch_name: 'feature/deep' });
    expect(exists.status).toBe(409);
    expect(exists.body.message).toMatch(/already exists/);
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'v1.0' })).status).toBe(409);
    // feature/deep is in the way
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'feature' })).status).toBe(409);
    const unknown = await api('POST', '/repos/alice/history/branches', { new_branch_name: 'n1', old_ref_name: 'no-such-ref' });
    expect(unknown.status).toBe(404);
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'n2', old_ref_name: 'deadbeef' })).status).toBe(404);
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'n3', old_branch_name: 'v1.0' })).status).toBe(404);
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'n4', old_ref_name: '--output=/tmp/x' })).status).toBe(
      422,
    );
    expect((await server.api('POST', '/repos/alice/history/branches', { body: { new_branch_name: 'n5' } })).status).toBe(401);
    const bob = await server.user('bob');
    const bobToken = await server.token(bob, ['write:repository']);
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'n6' }, bobToken)).status).toBe(403);
    const readOnly = await server.token(alice, ['read:repository']);
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'n7' }, readOnly)).status).toBe(403);
    expect((await git(['ls-remote', '--heads', url])).match(/refs\/heads\/n\d/)).toBeNull();
  });

  test('delete: 204 and gone from git and the list; the default branch is refused with 403; unknown is 404', async () => {
    const refused = await api('DELETE', '/repos/alice/history/branches/main');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/can not delete default branch/);
    expect((await api('DELETE', '/repos/alice/history/branches/no/such')).status).toBe(404);
    expect((await api('DELETE', '/repos/alice/history/branches/release/1.x')).status).toBe(204);
    expect((await api('DELETE', '/repos/alice/history/branches/release/1.x')).status).toBe(404);
    expect(await git(['ls-remote', '--heads', url])).not.toContain('release/1.x');
    const list = await api('GET', '/repos/alice/history/branches?limit=50');
    expect(list.body.map((b: { name: string }) => b.name)).not.toContain('release/1.x');
    expect((await api('GET', '/repos/alice/history/branches/release/1.x')).status).toBe(404);
    const repo = (await api('GET', '/repos/alice/history')).body;
    expect(await server.kernel.db('repo_branches').where({ repo_id: repo.id, name: 'release/1.x' })).toEqual([]);
  });
});

describe('tags', () => {
  test('list and get: annotated tags carry the tag object id and message, lightweight ones the commit', async () => {
    const tagId = await git(['rev-parse', 'v1.0']);
    const res = await api('GET', '/repos/alice/history/tags');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('2');
    const v1 = res.body.find((t: { name: string }) => t.name === 'v1.0');
    expect(v1).toEqual({
      name: 'v1.0',
      message: 'release one',
      id: tagId,
      commit: { url: `${server.url}api/v1/repos/alice/history/git/commits/${c.c2}`, sha: c.c2, created: expect.any(String) },
      zipball_url: `${server.url}alice/history/archive/v1.0.zip`,
      tarball_url: `${server.url}alice/history/archive/v1.0.tar.gz`,
    });
    const light = (await api('GET', '/repos/alice/history/tags/v0.1')).body;
    expect(light).toMatchObject({ name: 'v0.1', id: c.c1, message: 'add app', commit: { sha: c.c1 } });
    expect((await api('GET', '/repos/alice/history/tags/v9')).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/tags?limit=1')).body).toHaveLength(1);
  });

  test('create: annotated with a message (tagged by the caller), lightweight without; git sees both', async () => {
    const annotated = await api('POST', '/repos/alice/history/tags', {
      tag_name: 'v2.0',
      target: 'feature/deep',
      message: 'second release',
    });
    expect(annotated.status).toBe(201);
    expect(annotated.body).toMatchObject({ name: 'v2.0', message: 'second release', commit: { sha: c.c6 } });
    expect(annotated.body.id).not.toBe(c.c6);
    const object = await api('GET', `/repos/alice/history/git/tags/${annotated.body.id}`);
    expect(object.status).toBe(200);
    expect(object.body).toMatchObject({
      tag: 'v2.0',
      sha: annotated.body.id,
      message: 'second release\n',
      url: `${server.url}api/v1/repos/alice/history/git/tags/${annotated.body.id}`,
      tagger: { name: 'alice', email: 'alice@example.com' },
      object: { sha: c.c6, type: 'commit', url: `${server.url}api/v1/repos/alice/history/git/commits/${c.c6}` },
      verification: { verified: false, reason: 'gpg.error.not_signed_commit' },
    });
    expect(object.body.tagger.date).toMatch(/Z$/);
    const light = await api('POST', '/repos/alice/history/tags', { tag_name: 'nightly/latest' });
    expect(light.status).toBe(201);
    expect(light.body).toMatchObject({ name: 'nightly/latest', id: c.c5, commit: { sha: c.c5 } });
    const remote = await git(['ls-remote', '--tags', url]);
    expect(remote).toContain(`${annotated.body.id}\trefs/tags/v2.0`);
    expect(remote).toContain(`${c.c6}\trefs/tags/v2.0^{}`);
    expect(remote).toContain(`${c.c5}\trefs/tags/nightly/latest`);
    expect((await api('GET', '/repos/alice/history/tags/nightly/latest')).body.id).toBe(c.c5);
  });

  test('create refuses existing (409), invalid (422) and unknown targets (404); delete is 204 then 404', async () => {
    const exists = await api('POST', '/repos/alice/history/tags', { tag_name: 'v1.0' });
    expect(exists.status).toBe(409);
    for (const tag_name of ['-x', 'a..b', 'bad^name'])
      expect((await api('POST', '/repos/alice/history/tags', { tag_name })).status).toBe(422);
    expect((await api('POST', '/repos/alice/history/tags', {})).status).toBe(422);
    expect((await api('POST', '/repos/alice/history/tags', { tag_name: 'v3', target: 'nope' })).status).toBe(404);
    expect((await api('DELETE', '/repos/alice/history/tags/nightly/latest')).status).toBe(204);
    expect((await api('DELETE', '/repos/alice/history/tags/nightly/latest')).status).toBe(404);
    expect(await git(['ls-remote', '--tags', url])).not.toContain('nightly/latest');
  });

  test('git/tags/{sha} is for annotated tag objects only', async () => {
    expect((await api('GET', `/repos/alice/history/git/tags/${c.c1}`)).status).toBe(404);
    expect((await api('GET', `/repos/alice/history/git/tags/${'0'.repeat(40)}`)).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/git/tags/v1.0')).status).toBe(422);
  });
});

describe('refs, trees and blobs', () => {
  test('git/refs lists every ref; a prefix filters; one exact match is an object; nothing is 404', async () => {
    const all = await api('GET', '/repos/alice/history/git/refs');
    expect(all.status).toBe(200);
    const names = all.body.map((r: { ref: string }) => r.ref);
    expect(names).toEqual(
      expect.arrayContaining(['refs/heads/main', 'refs/heads/feature/deep', 'refs/tags/v1.0', 'refs/tags/v0.1', 'refs/notes/commits']),
    );
    const v1 = all.body.find((r: { ref: string }) => r.ref === 'refs/tags/v1.0');
    expect(v1.object).toEqual({
      type: 'tag',
      sha: await git(['rev-parse', 'v1.0']),
      url: `${server.url}api/v1/repos/alice/history/git/tags/${v1.object.sha}`,
    });
    const main = await api('GET', '/repos/alice/history/git/refs/heads/main');
    expect(main.body).toEqual({
      ref: 'refs/heads/main',
      url: `${server.url}api/v1/repos/alice/history/git/refs/heads/main`,
      object: { type: 'commit', sha: c.c5, url: `${server.url}api/v1/repos/alice/history/git/commits/${c.c5}` },
    });
    const heads = await api('GET', '/repos/alice/history/git/refs/heads');
    expect(Array.isArray(heads.body)).toBe(true);
    expect(heads.body.every((r: { ref: string }) => r.ref.startsWith('refs/heads/'))).toBe(true);
    expect((await api('GET', '/repos/alice/history/git/refs/heads/ma')).body).toHaveLength(1); // a prefix stays a list
    expect((await api('GET', '/repos/alice/history/git/refs/heads/nope')).status).toBe(404);
  });

  test('git/trees by branch, commit, tree id; recursive; paged with truncated and total_count', async () => {
    const treeId = await git(['rev-parse', 'main^{tree}']);
    const res = await api('GET', '/repos/alice/history/git/trees/main');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      sha: treeId,
      url: `${server.url}api/v1/repos/alice/history/git/trees/${treeId}`,
      truncated: false,
      page: 1,
    });
    const paths = res.body.tree.map((e: { path: string }) => e.path);
    expect(paths).toEqual(['README.md', 'bin.dat', 'docs', 'old.txt', 'src']);
    const docs = res.body.tree.find((e: { path: string }) => e.path === 'docs');
    expect(docs).toMatchObject({
      mode: '040000',
      type: 'tree',
      size: 0,
      url: `${server.url}api/v1/repos/alice/history/git/trees/${docs.sha}`,
    });
    const bin = res.body.tree.find((e: { path: string }) => e.path === 'bin.dat');
    expect(bin).toMatchObject({
      mode: '100644',
      type: 'blob',
      size: 5,
      url: `${server.url}api/v1/repos/alice/history/git/blobs/${bin.sha}`,
    });
    for (const sha of [c.c5, treeId, c.c5.slice(0, 8), 'v1.0'])
      expect((await api('GET', `/repos/alice/history/git/trees/${sha}`)).status).toBe(200);
    const recursive = await api('GET', '/repos/alice/history/git/trees/main?recursive=true');
    const all = recursive.body.tree.map((e: { path: string }) => e.path);
    expect(all).toEqual(expect.arrayContaining(['src', 'src/app.js', 'docs/guide.txt']));
    expect(recursive.body.total_count).toBe(all.length);
    const paged = await api('GET', '/repos/alice/history/git/trees/main?recursive=true&per_page=2&page=2');
    expect(paged.body).toMatchObject({ page: 2, truncated: true, total_count: all.length });
    expect(paged.body.tree.map((e: { path: string }) => e.path)).toEqual(all.slice(2, 4));
    expect((await api('GET', '/repos/alice/history/git/trees/nope')).status).toBe(404);
    expect((await api('GET', `/repos/alice/history/git/trees/${'0'.repeat(40)}`)).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/git/trees/a..b')).status).toBe(422);
  });

  test('git/blobs returns base64 content; unknown is 404, non-ids are 422', async () => {
    const sha = await git(['rev-parse', 'main:src/app.js']);
    const res = await api('GET', `/repos/alice/history/git/blobs/${sha}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      content: Buffer.from('1\ntwo\n3\n4\n').toString('base64'),
      encoding: 'base64',
      url: `${server.url}api/v1/repos/alice/history/git/blobs/${sha}`,
      sha,
      size: 10,
    });
    const bin = await api('GET', `/repos/alice/history/git/blobs/${await git(['rev-parse', 'main:bin.dat'])}`);
    expect(Buffer.from(bin.body.content, 'base64')).toEqual(Buffer.from([0, 1, 2, 0, 255]));
    expect((await api('GET', `/repos/alice/history/git/blobs/${'0'.repeat(40)}`)).status).toBe(404);
    expect((await api('GET', `/repos/alice/history/git/blobs/${c.c1}`)).status).toBe(404); // a commit, not a blob
    expect((await api('GET', '/repos/alice/history/git/blobs/main')).status).toBe(422);
  });
});

describe('commits', () => {
  const mainLog = () => [c.c5, c.c4, c.c3, c.c2, c.c1, c.init];

  test('list: Gitea Commit objects, newest first, with stats, files, verification and Hearth users', async () => {
    const res = await api('GET', '/repos/alice/history/commits');
    expect(res.status).toBe(200);
    expect(res.body.map((x: { sha: string }) => x.sha)).toEqual(mainLog());
    expect(res.headers.get('x-total-count')).toBe('6');
    expect(res.headers.get('x-hasmore')).toBe('false');
    const c2 = res.body.find((x: { sha: string }) => x.sha === c.c2);
    const base = `${server.url}api/v1/repos/alice/history`;
    expect(c2).toMatchObject({
      url: `${base}/git/commits/${c.c2}`,
      sha: c.c2,
      html_url: `${server.url}alice/history/commit/${c.c2}`,
      commit: {
        url: `${base}/git/commits/${c.c2}`,
        author: { name: 'Tester', email: 'tester@example.com' },
        committer: { name: 'Tester', email: 'tester@example.com' },
        message: 'change app, add docs\n\nwith a body\n',
        tree: { sha: await git(['rev-parse', `${c.c2}^{tree}`]) },
        verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
      },
      author: { login: 'tester' },
      committer: { login: 'tester' },
      parents: [{ url: `${base}/git/commits/${c.c1}`, sha: c.c1 }],
      stats: { total: 3, additions: 2, deletions: 1 },
    });
    expect(c2.files).toEqual(
      expect.arrayContaining([
        { filename: 'docs/readme.txt', status: 'added' },
        { filename: 'src/app.js', status: 'modified' },
      ]),
    );
    expect(c2.files).toHaveLength(2);
    expect(c2.created).toBe(c2.commit.committer.date);
    // A rename is a removal and an addition with no changed lines; binary files count no lines.
    const c3 = res.body.find((x: { sha: string }) => x.sha === c.c3);
    expect(c3.files).toEqual(
      expect.arrayContaining([
        { filename: 'docs/readme.txt', status: 'removed' },
        { filename: 'docs/guide.txt', status: 'added' },
      ]),
    );
    expect(c3.stats).toEqual({ total: 0, additions: 0, deletions: 0 });
    const c4 = res.body.find((x: { sha: string }) => x.sha === c.c4);
    expect(c4).toMatchObject({
      author: null,
      committer: { login: 'tester' },
      commit: { author: { name: 'Stranger', email: 'stranger@example.org' } },
      stats: { total: 0 },
    });
    expect(c4.files).toEqual([{ filename: 'bin.dat', status: 'added' }]);
    const init = res.body.find((x: { sha: string }) => x.sha === c.init);
    expect(init).toMatchObject({ author: { login: 'alice' }, parents: [], files: [{ filename: 'README.md', status: 'added' }] });
  });

  test('paging: limit/page walk the history; X-Total-Count, Link and X-HasMore', async () => {
    const res = await api('GET', '/repos/alice/history/commits?limit=2&page=2&stat=false');
    expect(res.body.map((x: { sha: string }) => x.sha)).toEqual(mainLog().slice(2, 4));
    expect(res.headers.get('x-total-count')).toBe('6');
    expect(res.headers.get('x-hasmore')).toBe('true');
    expect(res.headers.get('link')).toContain('rel="next"');
    const last = await api('GET', '/repos/alice/history/commits?limit=2&page=3');
    expect(last.headers.get('x-hasmore')).toBe('false');
    expect((await api('GET', '/repos/alice/history/commits?limit=2&page=9')).body).toEqual([]);
  });

  test('stat=false drops stats and files; files=false only files; verification=false the verification', async () => {
    const noStat = (await api('GET', '/repos/alice/history/commits?stat=false&limit=1')).body[0];
    expect(noStat.stats).toBeNull();
    expect(noStat.files).toBeNull();
    expect(noStat.commit.verification).not.toBeNull();
    const noFiles = (await api('GET', '/repos/alice/history/commits?files=false&limit=1')).body[0];
    expect(noFiles.files).toBeNull();
    expect(noFiles.stats).toEqual({ total: 2, additions: 2, deletions: 0 });
    const noVerify = (await api('GET', '/repos/alice/history/commits?verification=false&limit=1')).body[0];
    expect(noVerify.commit.verification).toBeNull();
    expect(noVerify.files).toEqual(
      expect.arrayContaining([
        { filename: 'old.txt', status: 'added' },
        { filename: 'src/app.js', status: 'modified' },
      ]),
    );
  });

  test('sha, not and path select the history; X-Total-Count follows them', async () => {
    const deep = await api('GET', '/repos/alice/history/commits?sha=feature/deep&stat=false');
    expect(deep.body.map((x: { sha: string }) => x.sha)).toEqual([c.c6, c.c3, c.c2, c.c1, c.init]);
    const not = await api('GET', '/repos/alice/history/commits?not=v1.0&stat=false');
    expect(not.body.map((x: { sha: string }) => x.sha)).toEqual([c.c5, c.c4, c.c3]);
    expect(not.headers.get('x-total-count')).toBe('3');
    const both = await api('GET', `/repos/alice/history/commits?sha=feature/deep&not=main&stat=false`);
    expect(both.body.map((x: { sha: string }) => x.sha)).toEqual([c.c6]);
    expect(both.headers.get('x-total-count')).toBe('1');
    const file = await api('GET', '/repos/alice/history/commits?path=src/app.js&stat=false');
    expect(file.body.map((x: { sha: string }) => x.sha)).toEqual([c.c5, c.c2, c.c1]);
    expect(file.headers.get('x-total-count')).toBe('3');
    const dir = await api('GET', '/repos/alice/history/commits?path=docs&stat=false&not=v1.0');
    expect(dir.body.map((x: { sha: string }) => x.sha)).toEqual([c.c3]);
    expect((await api('GET', '/repos/alice/history/commits?path=nowhere.txt')).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/commits?path=../etc')).status).toBe(422);
    expect((await api('GET', '/repos/alice/history/commits?sha=nope')).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/commits?sha=a..b')).status).toBe(422);
    expect((await api('GET', '/repos/alice/history/commits?not=--all')).status).toBe(422);
    expect((await api('GET', '/repos/alice/history/commits?not=nope')).status).toBe(404);
  });

  test('git/commits/{sha} by id, short id, branch or tag; unknown 404; invalid 422', async () => {
    const res = await api('GET', `/repos/alice/history/git/commits/${c.c2}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sha: c.c2, stats: { additions: 2, deletions: 1 }, parents: [{ sha: c.c1 }] });
    expect((await api('GET', `/repos/alice/history/git/commits/${c.c2.slice(0, 7)}`)).body.sha).toBe(c.c2);
    expect((await api('GET', '/repos/alice/history/git/commits/main')).body.sha).toBe(c.c5);
    expect((await api('GET', '/repos/alice/history/git/commits/v1.0')).body.sha).toBe(c.c2);
    expect((await api('GET', '/repos/alice/history/git/commits/feature%2Fdeep')).body.sha).toBe(c.c6);
    const lean = await api('GET', `/repos/alice/history/git/commits/${c.c2}?stat=false&verification=false`);
    expect(lean.body).toMatchObject({ stats: null, files: null, commit: { verification: null } });
    expect((await api('GET', `/repos/alice/history/git/commits/${'0'.repeat(40)}`)).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/git/commits/nope')).status).toBe(404);
    const invalid = await api('GET', '/repos/alice/history/git/commits/a..b');
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toMatch(/no valid ref or sha/);
  });

  test('compare base...head lists the commits of head that base lacks', async () => {
    const res = await api('GET', '/repos/alice/history/compare/main...feature/deep');
    expect(res.status).toBe(200);
    expect(res.body.total_commits).toBe(1);
    expect(res.body.commits[0]).toMatchObject({ sha: c.c6, stats: { additions: 1 } });
    const twoDots = await api('GET', '/repos/alice/history/compare/v0.1..main?files=false');
    expect(twoDots.body.commits.map((x: { sha: string }) => x.sha)).toEqual([c.c5, c.c4, c.c3, c.c2]);
    expect(twoDots.body.commits[0].files).toBeNull();
    expect((await api('GET', '/repos/alice/history/compare/main...nope')).status).toBe(404);
  });

  test('git/notes/{sha}: the note and the notes commit that wrote it, by commit id or ref; none is 404', async () => {
    const res = await api('GET', `/repos/alice/history/git/notes/${c.c3}`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('reviewed by bob\n');
    const notesCommit = await git(['rev-parse', 'refs/notes/commits']);
    expect(res.body.commit).toMatchObject({ sha: notesCommit, files: [{ filename: c.c3, status: 'added' }] });
    expect(res.body.commit.commit.verification).not.toBeNull();
    // A ref resolves to its commit first.
    expect((await api('POST', '/repos/alice/history/branches', { new_branch_name: 'noted', old_ref_name: c.c3 })).status).toBe(201);
    const byRef = await api('GET', '/repos/alice/history/git/notes/noted?verification=false&files=false');
    expect(byRef.body.message).toBe('reviewed by bob\n');
    expect(byRef.body.commit.commit.verification).toBeNull();
    expect(byRef.body.commit.files).toBeNull();
    expect((await api('GET', `/repos/alice/history/git/notes/${c.c2}`)).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/git/notes/nope')).status).toBe(404);
    expect((await api('GET', '/repos/alice/history/git/notes/a..b')).status).toBe(422);
  });
});

describe('empty, private and code-less repositories', () => {
  test('an empty repository: no branches, commits are 409, creating a branch is 404 with a clear message', async () => {
    expect((await api('POST', '/user/repos', { name: 'blank' })).status).toBe(201);
    const branches = await api('GET', '/repos/alice/blank/branches');
    expect(branches.body).toEqual([]);
    expect(branches.headers.get('x-total-count')).toBe('0');
    const commits = await api('GET', '/repos/alice/blank/commits');
    expect(commits.status).toBe(409);
    expect(commits.body.message).toBe('Git Repository is empty.');
    const create = await api('POST', '/repos/alice/blank/branches', { new_branch_name: 'x' });
    expect(create.status).toBe(404);
    expect(create.body.message).toMatch(/empty/);
    expect((await api('GET', '/repos/alice/blank/tags')).body).toEqual([]);
    expect((await api('GET', '/repos/alice/blank/git/refs')).status).toBe(404);
    expect((await api('GET', '/repos/alice/blank/git/trees/main')).status).toBe(404);
    expect((await api('POST', '/repos/alice/blank/tags', { tag_name: 'v1' })).status).toBe(404);
  });

  test('private repositories are hidden from others; the code unit switched off hides the routes', async () => {
    expect((await api('POST', '/user/repos', { name: 'hidden', private: true, auto_init: true })).status).toBe(201);
    expect((await api('GET', '/repos/alice/hidden/branches')).status).toBe(200);
    expect((await server.api('GET', '/repos/alice/hidden/branches')).status).toBe(404);
    expect((await server.api('GET', '/repos/alice/hidden/commits')).status).toBe(404);
    expect((await api('PATCH', '/repos/alice/hidden', { has_code: false })).status).toBe(200);
    for (const p of ['branches', 'tags', 'commits', 'git/refs', 'git/trees/main', 'branches/main']) {
      expect({ p, status: (await api('GET', `/repos/alice/hidden/${p}`)).status }).toEqual({ p, status: 404 });
    }
  });
});
