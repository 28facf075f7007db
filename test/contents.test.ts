import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { casUpdateRef } from '@hearth/core/dist/repos/contents-git';
import { globMatches, parseEditorConfig, propertiesFor } from '@hearth/core/dist/repos/contents-editorconfig';
import { languageOf } from '@hearth/core/dist/repos/contents-languages';

const PROBE = path.join(__dirname, 'fixtures/plugins/probe');
/** Small enough that a test file can exceed it; raw downloads above 1 MiB stream. */
const MAX_BLOB = 2 * 1024 * 1024;

let server: TestServer;
let alice: { name: string; password: string; id: number };
let token: string;
let sandbox: ReturnType<typeof gitSandbox>;
let cloned = 0;

beforeAll(async () => {
  server = await startServer({ plugins: { probe: { package: PROBE } }, api: { DEFAULT_MAX_BLOB_SIZE: MAX_BLOB } });
  alice = await server.user('alice');
  token = await server.token(alice, ['write:repository', 'delete:repository', 'read:user']);
  sandbox = gitSandbox();
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64');
const gitBlobSha = (data: string | Buffer) => {
  const buf = Buffer.from(data);
  return crypto.createHash('sha1').update(`blob ${buf.length}\0`).update(buf).digest('hex');
};
const api = (method: string, p: string, body?: unknown, t: string | undefined = token) => server.api(method, p, { token: t, body });

async function createRepo(name: string, autoInit = true, extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/user/repos', { name, auto_init: autoInit, ...extra });
  expect(res.status).toBe(201);
  return res.body;
}

/** Clone into a fresh folder and return its path. */
async function clone(repo: string, branch?: string): Promise<string> {
  const folder = `c${++cloned}`;
  const res = await sandbox.git([
    'clone',
    ...(branch ? ['-b', branch] : []),
    cloneUrl(server.url, `alice/${repo}.git`, alice.name, alice.password),
    folder,
  ]);
  expect(res.stderr).not.toMatch(/fatal/);
  expect(res.status).toBe(0);
  return path.join(sandbox.dir, folder);
}

async function gitIn(dir: string, ...args: string[]): Promise<string> {
  const res = await sandbox.git(args, dir);
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

async function head(repo: string, branch = 'main'): Promise<string | null> {
  const res = await sandbox.git([
    'ls-remote',
    cloneUrl(server.url, `alice/${repo}.git`, alice.name, alice.password),
    `refs/heads/${branch}`,
  ]);
  return res.stdout.trim().split(/\s+/)[0] || null;
}

async function pushEvents(repo: string) {
  const all = (await server.api('GET', '/probe/events')).body as Array<{ hook: string; detail: string }>;
  return all
    .filter((e) => e.hook === 'push.received')
    .map((e) => JSON.parse(e.detail))
    .filter((d) => d.repo === `alice/${repo}`);
}

const createFile = (repo: string, file: string, content: string | Buffer, extra: Record<string, unknown> = {}) =>
  api('POST', `/repos/alice/${repo}/contents/${file}`, { content: b64(content), ...extra });

describe('reading contents', () => {
  let readme: string;
  beforeAll(async () => {
    await createRepo('reader', true, { description: 'for reading' });
    readme = '# reader\n\nfor reading\n';
  });

  test('a file: Gitea ContentsResponse with base64 content, sha, last commit and links', async () => {
    const res = await api('GET', '/repos/alice/reader/contents/README.md');
    expect(res.status).toBe(200);
    const headId = await head('reader');
    const sha = gitBlobSha(readme);
    const base = `${server.url}api/v1/repos/alice/reader`;
    expect(res.body).toEqual({
      name: 'README.md',
      path: 'README.md',
      sha,
      last_commit_sha: headId,
      type: 'file',
      size: readme.length,
      encoding: 'base64',
      content: b64(readme),
      target: null,
      url: `${base}/contents/README.md?ref=main`,
      html_url: `${server.url}alice/reader/src/branch/main/README.md`,
      git_url: `${base}/git/blobs/${sha}`,
      download_url: `${server.url}alice/reader/raw/branch/main/README.md`,
      submodule_git_url: null,
      _links: {
        self: `${base}/contents/README.md?ref=main`,
        git: `${base}/git/blobs/${sha}`,
        html: `${server.url}alice/reader/src/branch/main/README.md`,
      },
    });
  });

  test('the root and directories list entries without content, each with its own last commit', async () => {
    const first = await createFile('reader', 'src/lib/a.go', 'package lib\n');
    expect(first.status).toBe(201);
    const second = await createFile('reader', 'src/main.go', 'package main\n');
    expect(second.status).toBe(201);

    const root = await api('GET', '/repos/alice/reader/contents');
    expect(root.status).toBe(200);
    expect(root.body.map((e: any) => [e.name, e.type])).toEqual([
      ['README.md', 'file'],
      ['src', 'dir'],
    ]);
    const src = root.body.find((e: any) => e.name === 'src');
    expect(src).toMatchObject({
      path: 'src',
      size: 0,
      content: null,
      encoding: null,
      download_url: null,
      last_commit_sha: second.body.commit.sha,
    });
    expect(src.git_url).toMatch(/\/git\/trees\/[0-9a-f]{40}$/);
    expect(root.body[0].content).toBeNull();

    const dir = await api('GET', '/repos/alice/reader/contents/src');
    expect(dir.status).toBe(200);
    expect(dir.body.map((e: any) => [e.path, e.type, e.last_commit_sha])).toEqual([
      ['src/lib', 'dir', first.body.commit.sha],
      ['src/main.go', 'file', second.body.commit.sha],
    ]);
    expect((await api('GET', '/repos/alice/reader/contents/src/')).body).toHaveLength(2);
  });

  test('ref: a branch, a tag, a full or short commit id; unknown refs and paths are 404', async () => {
    const dir = await clone('reader');
    const firstCommit = (await gitIn(dir, 'rev-list', '--max-parents=0', 'HEAD')).trim();
    await gitIn(dir, 'tag', 'v1', firstCommit);
    await gitIn(dir, 'tag', '-a', '-m', 'annotated', 'v1-annotated', firstCommit);
    await gitIn(dir, 'push', '--tags');
    for (const ref of ['v1', 'v1-annotated', firstCommit, firstCommit.slice(0, 7)]) {
      const res = await api('GET', `/repos/alice/reader/contents?ref=${ref}`);
      expect({ ref, status: res.status }).toEqual({ ref, status: 200 });
      expect(res.body.map((e: any) => e.name)).toEqual(['README.md']);
    }
    const tagged = await api('GET', '/repos/alice/reader/contents/README.md?ref=v1');
    expect(tagged.body.download_url).toBe(`${server.url}alice/reader/raw/tag/v1/README.md`);
    const byCommit = await api('GET', `/repos/alice/reader/contents/README.md?ref=${firstCommit.slice(0, 8)}`);
    expect(byCommit.body.download_url).toBe(`${server.url}alice/reader/raw/commit/${firstCommit}/README.md`);
    expect(byCommit.body.url).toContain(`?ref=${firstCommit.slice(0, 8)}`);

    for (const p of [
      '/contents?ref=nope',
      '/contents/README.md?ref=nope',
      '/contents/README.md?ref=..%2Fx',
      '/contents/missing.txt',
      '/contents/README.md/x',
      '/contents/src/nope/deeper',
    ]) {
      const res = await api('GET', `/repos/alice/reader${p}`);
      expect({ p, status: res.status }).toEqual({ p, status: 404 });
      expect(res.headers.get('content-type')).toContain('json');
    }
    expect((await api('GET', '/repos/alice/nope/contents')).status).toBe(404);
  });

  test('an empty repository has no contents (404), and a path with .git or .. is refused', async () => {
    await createRepo('empty-read', false);
    expect((await api('GET', '/repos/alice/empty-read/contents')).status).toBe(404);
    expect((await api('GET', '/repos/alice/empty-read/contents/README.md')).status).toBe(404);
    expect((await api('GET', '/repos/alice/reader/contents/.git%2Fconfig')).status).toBe(422);
    expect((await api('GET', '/repos/alice/reader/contents/a%2F..%2F..%2Fb')).status).toBe(422);
  });

  test('symlinks, submodules and executables', async () => {
    await createRepo('kinds');
    const dir = await clone('kinds');
    fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    fs.symlinkSync('README.md', path.join(dir, 'link'));
    fs.writeFileSync(path.join(dir, '.gitmodules'), '[submodule "lib"]\n\tpath = deps/lib\n\turl = https://example.com/lib.git\n');
    await gitIn(dir, 'add', 'run.sh', 'link', '.gitmodules');
    await gitIn(dir, 'update-index', '--add', '--cacheinfo', `160000,${'a'.repeat(40)},deps/lib`);
    await gitIn(dir, 'commit', '-q', '-m', 'kinds');
    await gitIn(dir, 'push', '-q', 'origin', 'main');

    const link = await api('GET', '/repos/alice/kinds/contents/link');
    expect(link.body).toMatchObject({ type: 'symlink', target: 'README.md', content: null, encoding: null });
    expect(link.body.download_url).toBeTruthy();
    const sub = await api('GET', '/repos/alice/kinds/contents/deps/lib');
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({
      type: 'submodule',
      sha: 'a'.repeat(40),
      submodule_git_url: 'https://example.com/lib.git',
      html_url: null,
      git_url: null,
      download_url: null,
      size: 0,
    });
    const deps = await api('GET', '/repos/alice/kinds/contents/deps');
    expect(deps.body).toEqual([
      expect.objectContaining({ name: 'lib', type: 'submodule', submodule_git_url: 'https://example.com/lib.git' }),
    ]);

    // An update keeps the executable bit; a rename too.
    const sh = await api('GET', '/repos/alice/kinds/contents/run.sh');
    const upd = await api('PUT', '/repos/alice/kinds/contents/run.sh', { sha: sh.body.sha, content: b64('#!/bin/sh\necho bye\n') });
    expect(upd.status).toBe(200);
    const moved = await api('PUT', '/repos/alice/kinds/contents/bin/run', {
      sha: upd.body.content.sha,
      from_path: 'run.sh',
      content: b64('#!/bin/sh\necho moved\n'),
    });
    expect(moved.status).toBe(200);
    const linkUpd = await api('PUT', '/repos/alice/kinds/contents/link', { sha: link.body.sha, content: b64('run.sh') });
    expect(linkUpd.status).toBe(200);
    expect(linkUpd.body.content).toMatchObject({ type: 'symlink', target: 'run.sh' });
    const after = await clone('kinds');
    expect(await gitIn(after, 'ls-tree', 'HEAD', 'bin/run', 'link')).toMatch(/^100755 blob \w+\tbin\/run\n120000 blob \w+\tlink\n$/);
    expect(fs.existsSync(path.join(after, 'run.sh'))).toBe(false);
    // The submodule entry cannot be edited as a file.
    expect((await api('PUT', '/repos/alice/kinds/contents/deps/lib', { sha: 'a'.repeat(40), content: b64('x') })).status).toBe(422);
  });
});

describe('changing files', () => {
  test('create: 201 FileResponse, the commit is in git with the caller as author, push.received fires', async () => {
    await createRepo('writer');
    const before = await head('writer');
    const res = await createFile('writer', 'docs/hello.txt', 'hello world\n');
    expect(res.status).toBe(201);
    const sha = gitBlobSha('hello world\n');
    expect(res.body.content).toMatchObject({
      name: 'hello.txt',
      path: 'docs/hello.txt',
      sha,
      type: 'file',
      size: 12,
      encoding: 'base64',
      content: b64('hello world\n'),
      last_commit_sha: res.body.commit.sha,
      url: `${server.url}api/v1/repos/alice/writer/contents/docs/hello.txt?ref=main`,
    });
    expect(res.body.commit).toMatchObject({
      sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      message: "Add 'docs/hello.txt'\n",
      author: { name: 'alice', email: 'alice@example.com' },
      committer: { name: 'alice', email: 'alice@example.com' },
      parents: [{ sha: before, url: `${server.url}api/v1/repos/alice/writer/git/commits/${before}` }],
      url: `${server.url}api/v1/repos/alice/writer/git/commits/${res.body.commit.sha}`,
      html_url: `${server.url}alice/writer/commit/${res.body.commit.sha}`,
      tree: { sha: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
    expect(res.body.commit.author.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(res.body.verification).toEqual({
      verified: false,
      reason: 'gpg.error.not_signed_commit',
      signature: '',
      signer: null,
      payload: '',
    });

    const dir = await clone('writer');
    expect(fs.readFileSync(path.join(dir, 'docs/hello.txt'), 'utf8')).toBe('hello world\n');
    expect((await gitIn(dir, 'log', '-1', '--format=%H|%an <%ae>|%cn <%ce>|%s')).trim()).toBe(
      `${res.body.commit.sha}|alice <alice@example.com>|alice <alice@example.com>|Add 'docs/hello.txt'`,
    );
    expect(await pushEvents('writer')).toContainEqual({
      repo: 'alice/writer',
      pusher: 'alice',
      updates: [{ ref: 'refs/heads/main', oldId: before, newId: res.body.commit.sha }],
    });
    const branches = await server.kernel.db('repo_branches').where({ name: 'main' }).select('commit_id');
    expect(branches.map((b: { commit_id: string }) => b.commit_id)).toContain(res.body.commit.sha);

    const again = await createFile('writer', 'docs/hello.txt', 'again');
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/repository file already exists/);
  });

  test('update with sha (and a custom message, author, committer, dates, signoff); mismatch is 422, missing file 404', async () => {
    await createRepo('updater');
    const created = await createFile('updater', 'a.txt', 'one\n');
    const sha = created.body.content.sha;
    const res = await api('PUT', '/repos/alice/updater/contents/a.txt', {
      sha,
      content: b64('two\n'),
      message: 'Second version',
      signoff: true,
      author: { name: 'Ann Author', email: 'ann@example.org' },
      committer: { name: 'Carl Committer', email: 'carl@example.org' },
      dates: { author: '2021-02-03T04:05:06+02:00', committer: '2022-03-04T05:06:07Z' },
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ path: 'a.txt', sha: gitBlobSha('two\n'), content: b64('two\n') });
    expect(res.body.commit).toMatchObject({
      author: { name: 'Ann Author', email: 'ann@example.org', date: '2021-02-03T02:05:06Z' },
      committer: { name: 'Carl Committer', email: 'carl@example.org', date: '2022-03-04T05:06:07Z' },
      message: 'Second version\n\nSigned-off-by: Carl Committer <carl@example.org>\n',
    });
    const dir = await clone('updater');
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('two\n');
    expect((await gitIn(dir, 'log', '-1', '--format=%an <%ae> %aI|%cn <%ce> %cI|%B')).trim()).toBe(
      'Ann Author <ann@example.org> 2021-02-03T04:05:06+02:00|Carl Committer <carl@example.org> ' +
        '2022-03-04T05:06:07+00:00|Second version\n\nSigned-off-by: Carl Committer ' +
        '<carl@example.org>',
    );

    // Only a committer given: it is the author too. Go's zero dates (as the Go SDK sends them) mean now.
    const third = await api('PUT', '/repos/alice/updater/contents/a.txt', {
      sha: res.body.content.sha,
      content: b64('three\n'),
      committer: { name: 'Only Me', email: 'only@example.org' },
      author: { name: '', email: '' },
      dates: { author: '0001-01-01T00:00:00Z', committer: '0001-01-01T00:00:00Z' },
    });
    expect(third.status).toBe(200);
    expect(third.body.commit.author).toMatchObject({ name: 'Only Me', email: 'only@example.org' });
    expect(third.body.commit.message).toBe("Update 'a.txt'\n");
    expect(new Date(third.body.commit.author.date).getFullYear()).toBeGreaterThan(2020);

    const stale = await api('PUT', '/repos/alice/updater/contents/a.txt', { sha, content: b64('lost?\n') });
    expect(stale.status).toBe(422);
    expect(stale.body.message).toMatch(/sha does not match/);
    expect((await api('PUT', '/repos/alice/updater/contents/nope.txt', { sha, content: b64('x') })).status).toBe(404);
    expect((await api('PUT', '/repos/alice/updater/contents/a.txt', { content: b64('x') })).status).toBe(422); // sha required
    expect((await api('PUT', '/repos/alice/updater/contents/a.txt', { sha: third.body.content.sha, content: 'not base64!' })).status).toBe(
      422,
    );
    const finalDir = await clone('updater');
    expect(fs.readFileSync(path.join(finalDir, 'a.txt'), 'utf8')).toBe('three\n');
  });

  test('rename with from_path; delete with sha (mismatch 400 as Gitea, missing 404)', async () => {
    await createRepo('mover');
    const created = await createFile('mover', 'old/name.txt', 'content\n');
    const renamed = await api('PUT', '/repos/alice/mover/contents/new/name.txt', {
      sha: created.body.content.sha,
      from_path: 'old/name.txt',
      content: b64('content\n'),
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.content).toMatchObject({ path: 'new/name.txt', sha: created.body.content.sha });
    let dir = await clone('mover');
    expect(fs.existsSync(path.join(dir, 'old'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'new/name.txt'), 'utf8')).toBe('content\n');

    const wrong = await server.api('DELETE', '/repos/alice/mover/contents/new/name.txt', { token, body: { sha: 'f'.repeat(40) } });
    expect(wrong.status).toBe(400);
    expect((await server.api('DELETE', '/repos/alice/mover/contents/nope.txt', { token, body: { sha: 'f'.repeat(40) } })).status).toBe(404);
    const del = await server.api('DELETE', '/repos/alice/mover/contents/new/name.txt', {
      token,
      body: { sha: created.body.content.sha, message: 'Remove it' },
    });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ content: null, commit: { message: 'Remove it\n' }, verification: { verified: false } });
    dir = await clone('mover');
    expect(fs.existsSync(path.join(dir, 'new'))).toBe(false);
    expect((await gitIn(dir, 'log', '--format=%s')).trim().split('\n')).toEqual([
      'Remove it',
      "Update 'new/name.txt'",
      "Add 'old/name.txt'",
      'Initial commit',
    ]);
    expect((await api('GET', '/repos/alice/mover/contents/new/name.txt')).status).toBe(404);
  });

  test('several files in one commit: create, update, rename and delete; files[] in order with null for deletes', async () => {
    await createRepo('multi');
    const a = await createFile('multi', 'a.txt', 'a\n');
    const b = await createFile('multi', 'b.txt', 'b\n');
    const c = await createFile('multi', 'c.txt', 'c\n');
    const before = await head('multi');
    const res = await api('POST', '/repos/alice/multi/contents', {
      files: [
        { operation: 'create', path: 'new/one.txt', content: b64('one\n') },
        { operation: 'update', path: 'a.txt', sha: a.body.content.sha, content: b64('A\n') },
        { operation: 'update', path: 'moved/b.txt', from_path: 'b.txt', sha: b.body.content.sha, content: b64('B\n') },
        { operation: 'delete', path: 'c.txt', sha: c.body.content.sha },
        { operation: 'create', path: 'empty.txt' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.files.map((f: any) => f && [f.path, Buffer.from(f.content, 'base64').toString()])).toEqual([
      ['new/one.txt', 'one\n'],
      ['a.txt', 'A\n'],
      ['moved/b.txt', 'B\n'],
      null,
      ['empty.txt', ''],
    ]);
    expect(res.body.commit.message).toBe("Add 'new/one.txt, empty.txt'\nUpdate 'a.txt, moved/b.txt'\nDelete 'c.txt'\n");
    expect(res.body.commit.parents).toEqual([expect.objectContaining({ sha: before })]);
    const dir = await clone('multi');
    expect((await gitIn(dir, 'rev-list', '--count', `${before}..HEAD`)).trim()).toBe('1');
    expect((await gitIn(dir, 'ls-files')).trim().split('\n').sort()).toEqual([
      'README.md',
      'a.txt',
      'empty.txt',
      'moved/b.txt',
      'new/one.txt',
    ]);
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('A\n');

    // One bad operation and nothing at all is written.
    const bad = await api('POST', '/repos/alice/multi/contents', {
      files: [
        { operation: 'create', path: 'fine.txt', content: b64('fine') },
        { operation: 'update', path: 'a.txt', sha: a.body.content.sha, content: b64('stale') },
      ],
    });
    expect(bad.status).toBe(422);
    expect(await head('multi')).toBe(res.body.commit.sha);
    for (const files of [
      [
        { operation: 'create', path: 'x', content: '' },
        { operation: 'create', path: 'x', content: '' },
      ],
      [{ operation: 'create', path: 'a.txt/inside', content: '' }],
      [{ operation: 'create', path: 'new', content: '' }],
      [
        { operation: 'create', path: 'd', content: '' },
        { operation: 'create', path: 'd/e', content: '' },
      ],
      [{ operation: 'delete', path: 'new', sha: 'f'.repeat(40) }],
      [{ operation: 'delete', path: 'a.txt' }],
      [{ operation: 'rename', path: 'a.txt' }],
      [],
    ]) {
      const r = await api('POST', '/repos/alice/multi/contents', { files });
      expect({ files, status: r.status }).toEqual({ files, status: 422 });
    }
    expect(await head('multi')).toBe(res.body.commit.sha);
  });

  test('branches: base branch, new_branch, a missing branch is 404, an existing new_branch 422', async () => {
    await createRepo('branchy');
    const onNew = await createFile('branchy', 'feature.txt', 'f\n', { new_branch: 'feature/x' });
    expect(onNew.status).toBe(201);
    expect(onNew.body.content.url).toContain('?ref=feature%2Fx');
    expect(await head('branchy', 'feature/x')).toBe(onNew.body.commit.sha);
    expect((await api('GET', '/repos/alice/branchy/contents/feature.txt')).status).toBe(404);
    expect((await api('GET', '/repos/alice/branchy/contents/feature.txt?ref=feature/x')).status).toBe(200);
    const onBranch = await createFile('branchy', 'more.txt', 'm\n', { branch: 'feature/x' });
    expect(onBranch.status).toBe(201);
    expect(onBranch.body.commit.parents[0].sha).toBe(onNew.body.commit.sha);
    expect((await createFile('branchy', 'x.txt', 'x', { branch: 'no-such' })).status).toBe(404);
    const taken = await createFile('branchy', 'x.txt', 'x', { new_branch: 'feature/x' });
    expect(taken.status).toBe(422);
    expect(taken.body.message).toMatch(/branch already exists/);
    expect((await createFile('branchy', 'x.txt', 'x', { new_branch: 'bad..name' })).status).toBe(422);
    expect(await pushEvents('branchy')).toContainEqual(
      expect.objectContaining({ updates: [{ ref: 'refs/heads/feature/x', oldId: '0'.repeat(40), newId: onNew.body.commit.sha }] }),
    );
  });

  test('an empty repository: the first file creates the default branch', async () => {
    const repo = await createRepo('blank', false);
    expect(repo.empty).toBe(true);
    expect((await api('PUT', '/repos/alice/blank/contents/a.txt', { sha: 'f'.repeat(40), content: b64('x') })).status).toBe(404);
    const res = await createFile('blank', 'first.txt', 'first\n');
    expect(res.status).toBe(201);
    expect(res.body.commit.parents).toEqual([]);
    const after = await api('GET', '/repos/alice/blank');
    expect(after.body).toMatchObject({ empty: false, default_branch: 'main' });
    const dir = await clone('blank');
    expect(fs.readFileSync(path.join(dir, 'first.txt'), 'utf8')).toBe('first\n');
    expect((await api('GET', '/repos/alice/blank/contents')).body.map((e: any) => e.name)).toEqual(['first.txt']);
  });

  test('path traversal and git-internal paths are 422 (400 on DELETE, as Gitea) and write nothing', async () => {
    await createRepo('safe');
    const before = await head('safe');
    const bad = [
      '../x',
      'a/../../b',
      '.git/config',
      '.git',
      'a/.git/hooks/pre-receive',
      '/etc/passwd',
      'a//b',
      './x',
      'a/./b',
      'x/..',
      'bad\u0001name',
      ':(glob)x',
      '.GIT/config',
      'a/.Git/x',
      '.git./x',
      '.git /x',
      'git~1/config',
      '.g\u200cit/config',
    ];
    for (const p of bad) {
      const multi = await api('POST', '/repos/alice/safe/contents', { files: [{ operation: 'create', path: p, content: b64('pwned') }] });
      expect({ p, status: multi.status }).toEqual({ p, status: 422 });
      const rename = await api('POST', '/repos/alice/safe/contents', {
        files: [{ operation: 'update', path: 'ok.txt', from_path: p, sha: 'f'.repeat(40), content: b64('pwned') }],
      });
      expect({ p, status: rename.status }).toEqual({ p, status: 422 });
    }
    for (const p of ['..%2Fx', 'a%2F..%2F..%2Fb', '.git%2Fconfig', '.git/config', 'a/.git/x', '%2Fetc%2Fpasswd', '.GIT/config']) {
      const single = await api('POST', `/repos/alice/safe/contents/${p}`, { content: b64('pwned') });
      expect({ p, status: single.status }).toEqual({ p, status: 422 });
      const upd = await api('PUT', `/repos/alice/safe/contents/${p}`, { sha: 'f'.repeat(40), content: b64('pwned') });
      expect({ p, status: upd.status }).toEqual({ p, status: 422 });
      const del = await server.api('DELETE', `/repos/alice/safe/contents/${p}`, { token, body: { sha: 'f'.repeat(40) } });
      expect({ p, status: del.status }).toEqual({ p, status: 400 });
    }
    expect(await head('safe')).toBe(before);
    const gitDir = path.join(server.dataDir, 'repositories', 'alice', 'safe.git');
    expect(fs.readFileSync(path.join(gitDir, 'config'), 'utf8')).not.toContain('pwned');
    expect(fs.existsSync(path.join(server.dataDir, 'repositories', 'alice', 'x'))).toBe(false);
    // A file literally named like a glob is only ever itself.
    expect((await createFile('safe', '*', 'star\n')).status).toBe(201);
    expect((await createFile('safe', 'b[1].txt', 'bracket\n')).status).toBe(201);
    expect((await api('GET', '/repos/alice/safe/contents/*')).body).toMatchObject({ type: 'file', content: b64('star\n') });
  });

  test('concurrent writers never lose a commit: they apply in turn, a stale one is refused', async () => {
    await createRepo('busy');
    const n = 8;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => createFile('busy', `f${i}.txt`, `file ${i}\n`)));
    expect(results.map((r) => r.status)).toEqual(Array(n).fill(201));
    const dir = await clone('busy');
    expect((await gitIn(dir, 'rev-list', '--count', 'HEAD')).trim()).toBe(String(n + 1));
    for (let i = 0; i < n; i++) expect(fs.readFileSync(path.join(dir, `f${i}.txt`), 'utf8')).toBe(`file ${i}\n`);
    const shas = new Set(results.map((r) => r.body.commit.sha));
    expect(shas.size).toBe(n);

    // Everyone updates the same file from the same version: exactly one wins, the others are told.
    const base = results[0].body.content.sha;
    const racers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => api('PUT', '/repos/alice/busy/contents/f0.txt', { sha: base, content: b64(`racer ${i}\n`) })),
    );
    expect(racers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(racers.filter((r) => r.status === 422 || r.status === 409)).toHaveLength(4);
    const winner = racers.find((r) => r.status === 200)!;
    const final = await api('GET', '/repos/alice/busy/contents/f0.txt');
    expect(final.body.sha).toBe(winner.body.content.sha);

    // Interleaved with git pushes: each push is either accepted or rejected as non-fast-forward,
    // each API write either lands or is a 409/422.
    const pushDir = await clone('busy');
    const jobs: Array<Promise<unknown>> = [];
    const apiWrites: Array<Promise<{ status: number; body: any }>> = [];
    for (let i = 0; i < 4; i++) apiWrites.push(createFile('busy', `api${i}.txt`, `api ${i}\n`));
    fs.writeFileSync(path.join(pushDir, 'pushed.txt'), 'pushed\n');
    await gitIn(pushDir, 'add', 'pushed.txt');
    await gitIn(pushDir, 'commit', '-q', '-m', 'pushed');
    const pushed = sandbox.git(['push', '-q', 'origin', 'main'], pushDir);
    jobs.push(pushed, ...apiWrites);
    await Promise.all(jobs);
    for (const r of await Promise.all(apiWrites)) expect([201, 409]).toContain(r.status);
    const landed = (await Promise.all(apiWrites)).filter((r) => r.status === 201).map((r) => r.body.commit.sha);
    const check = await clone('busy');
    const history = (await gitIn(check, 'log', '--format=%H')).trim().split('\n');
    for (const sha of landed) expect(history).toContain(sha);
    if ((await pushed).status === 0) expect(fs.existsSync(path.join(check, 'pushed.txt'))).toBe(true);
  });

  test('the compare-and-swap refuses a stale branch value with 409', async () => {
    await createRepo('cas');
    const gitDir = path.join(server.dataDir, 'repositories', 'alice', 'cas.git');
    const current = (await head('cas'))!;
    const next = await createFile('cas', 'x.txt', 'x');
    await expect(casUpdateRef(gitDir, 'refs/heads/main', current, current, 'test')).rejects.toMatchObject({ status: 409 });
    await expect(casUpdateRef(gitDir, 'refs/heads/main', current, '0'.repeat(40), 'test')).rejects.toMatchObject({ status: 409 });
    expect(await head('cas')).toBe(next.body.commit.sha);
  });

  test('permissions: read-only tokens, other users, anonymous callers, archived repositories, the code unit', async () => {
    await createRepo('guarded');
    const bob = await server.user('bob');
    const bobToken = await server.token(bob, ['write:repository']);
    const readOnly = await server.token(alice, ['read:repository']);
    expect((await api('POST', '/repos/alice/guarded/contents/x.txt', { content: b64('x') }, bobToken)).status).toBe(403);
    expect((await api('POST', '/repos/alice/guarded/contents/x.txt', { content: b64('x') }, readOnly)).status).toBe(403);
    expect((await server.api('POST', '/repos/alice/guarded/contents/x.txt', { body: { content: b64('x') } })).status).toBe(401);
    expect((await server.api('GET', '/repos/alice/guarded/contents/README.md')).status).toBe(200);
    const sha = (await api('GET', '/repos/alice/guarded/contents/README.md')).body.sha;
    // write:repository + delete:repository
    expect((await server.api('DELETE', '/repos/alice/guarded/contents/README.md', { token, body: { sha } })).status).toBe(200);

    await createRepo('secret', true, { private: true });
    expect((await server.api('GET', '/repos/alice/secret/contents/README.md')).status).toBe(404);
    expect((await server.api('GET', '/repos/alice/secret/raw/README.md')).status).toBe(404);
    expect((await api('GET', '/repos/alice/secret/contents/README.md', undefined, bobToken)).status).toBe(404);
    expect((await api('GET', '/repos/alice/secret/languages', undefined, bobToken)).status).toBe(404);

    expect((await api('PATCH', '/repos/alice/guarded', { has_code: false })).status).toBe(200);
    for (const p of ['/contents', '/contents/README.md', '/raw/README.md', '/media/README.md', '/languages', '/editorconfig/x.go']) {
      expect({ p, status: (await api('GET', `/repos/alice/guarded${p}`)).status }).toEqual({ p, status: 404 });
    }
    expect((await api('POST', '/repos/alice/guarded/contents/x.txt', { content: b64('x') })).status).toBe(404);
    expect((await api('PATCH', '/repos/alice/guarded', { has_code: true, archived: true })).status).toBe(200);
    expect((await api('POST', '/repos/alice/guarded/contents/x.txt', { content: b64('x') })).status).toBe(403);
  });

  test('a user who keeps their email private commits with the no-reply address', async () => {
    const carol = await server.user('carol');
    await server.kernel.db('users').where({ lower_name: 'carol' }).update({ keep_email_private: true });
    const res = await server.api('POST', '/user/repos', { basic: [carol.name, carol.password], body: { name: 'quiet', auto_init: true } });
    expect(res.status).toBe(201);
    const file = await server.api('POST', '/repos/carol/quiet/contents/a.txt', {
      basic: [carol.name, carol.password],
      body: { content: b64('a') },
    });
    expect(file.status).toBe(201);
    expect(file.body.commit.author).toMatchObject({ name: 'carol', email: 'carol@noreply.localhost' });
  });
});

describe('raw and media', () => {
  let binary: Buffer;
  let big: Buffer;
  beforeAll(async () => {
    await createRepo('files');
    binary = crypto.randomBytes(64 * 1024);
    binary[10] = 0;
    big = crypto.randomBytes(MAX_BLOB + 1024);
    expect((await createFile('files', 'bin/data.bin', binary)).status).toBe(201);
    expect((await createFile('files', 'page.html', '<script>alert(document.cookie)</script>\n')).status).toBe(201);
    expect((await createFile('files', 'pic.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')).status).toBe(
      201,
    );
    expect((await createFile('files', 'noext', 'plain words\n')).status).toBe(201);
    expect((await createFile('files', 'big.bin', big)).status).toBe(201);
  });

  const rawGet = (p: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}api/v1/repos/alice/files${p}`, { headers: { Authorization: `token ${token}`, ...headers } });

  test('raw bytes equal what was written; binary round trip through contents, raw, media and clone', async () => {
    for (const p of ['/raw/bin/data.bin', '/media/bin/data.bin', '/raw/bin/data.bin?ref=main', '/raw/main/bin/data.bin']) {
      const res = await rawGet(p);
      expect({ p, status: res.status }).toEqual({ p, status: 200 });
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="data.bin"/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await res.arrayBuffer()).equals(binary)).toBe(true);
    }
    const contents = await api('GET', '/repos/alice/files/contents/bin/data.bin');
    expect(Buffer.from(contents.body.content, 'base64').equals(binary)).toBe(true);
    expect(contents.body.sha).toBe(gitBlobSha(binary));
    const dir = await clone('files');
    expect(fs.readFileSync(path.join(dir, 'bin/data.bin')).equals(binary)).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'big.bin')).equals(big)).toBe(true);
  });

  test('a file above DEFAULT_MAX_BLOB_SIZE: contents without content, raw streams it whole', async () => {
    const contents = await api('GET', '/repos/alice/files/contents/big.bin');
    expect(contents.body).toMatchObject({ size: big.length, encoding: 'base64', content: '' });
    const res = await rawGet('/raw/big.bin');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(big.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  test('HTML and SVG cannot run on the forge origin', async () => {
    const html = await rawGet('/raw/page.html');
    expect(html.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(html.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html.headers.get('content-security-policy')).toContain('sandbox');
    expect(await html.text()).toBe('<script>alert(document.cookie)</script>\n');
    const svg = await rawGet('/raw/pic.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/);
    const text = await rawGet('/raw/noext');
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('content-disposition')).toMatch(/^inline/);
  });

  test('refs in the path (branch, tag, commit) or in ?ref=; ETag revalidation; 404s', async () => {
    const readme = Buffer.from((await api('GET', '/repos/alice/files/contents/README.md')).body.content, 'base64').toString();
    const dir = await clone('files');
    await gitIn(dir, 'tag', 'v2');
    await gitIn(dir, 'push', '-q', '--tags');
    const commit = (await gitIn(dir, 'rev-parse', 'HEAD')).trim();
    await createFile('files', 'later.txt', 'later\n', { new_branch: 'dev/next' });
    for (const p of [
      '/raw/README.md',
      '/raw/main/README.md',
      '/raw/v2/README.md',
      `/raw/${commit}/README.md`,
      '/raw/README.md?ref=v2',
      `/raw/README.md?ref=${commit.slice(0, 10)}`,
    ]) {
      const res = await rawGet(p);
      expect({ p, status: res.status }).toEqual({ p, status: 200 });
      expect(await res.text()).toBe(readme);
    }
    expect(await (await rawGet('/raw/dev/next/later.txt')).text()).toBe('later\n');
    expect(await (await rawGet('/raw/later.txt?ref=dev/next')).text()).toBe('later\n');
    const first = await rawGet('/raw/README.md');
    const etag = first.headers.get('etag')!;
    expect(etag).toBe(`"${gitBlobSha(readme)}"`);
    expect((await rawGet('/raw/README.md', { 'If-None-Match': etag })).status).toBe(304);
    for (const p of ['/raw/nope.txt', '/raw/bin', '/raw/README.md?ref=nope', '/raw/later.txt', '/raw/main/nope', '/media/nope']) {
      expect({ p, status: (await rawGet(p)).status }).toEqual({ p, status: 404 });
    }
    expect((await rawGet('/raw/.git%2Fconfig')).status).toBe(422);
    expect((await rawGet('/raw/..%2F..%2Fconfig')).status).toBe(422);
  });
});

describe('languages', () => {
  test('bytes per language of the default branch, without vendored, documentation and dotfiles; {} when empty', async () => {
    await createRepo('polyglot');
    const go = 'package main\n\nfunc main() {}\n';
    const ts = 'export const x: number = 1;\n';
    const res = await api('POST', '/repos/alice/polyglot/contents', {
      files: [
        ['main.go', go],
        ['pkg/util.go', go],
        ['web/app.ts', ts],
        ['web/style.css', 'a{}\n'],
        ['Makefile', 'all:\n'],
        ['node_modules/dep/index.js', 'x'.repeat(500)],
        ['vendor/lib/x.go', 'y'.repeat(500)],
        ['docs/guide.py', 'z'],
        ['.github/ci.js', 'w'],
        ['data.json', '{}'],
        ['notes.md', '# hi'],
        ['app.min.js', 'm'],
      ].map(([p, c]) => ({ operation: 'create', path: p, content: b64(c) })),
    });
    expect(res.status).toBe(201);
    const langs = await api('GET', '/repos/alice/polyglot/languages');
    expect(langs.status).toBe(200);
    expect(langs.body).toEqual({ CSS: 4, Go: 2 * go.length, Makefile: 5, TypeScript: ts.length });
    // Another branch does not count.
    await createFile('polyglot', 'other.rs', 'fn main() {}\n', { new_branch: 'side' });
    expect((await api('GET', '/repos/alice/polyglot/languages')).body).toEqual(langs.body);
    await createFile('polyglot', 'lib.rs', 'fn x() {}\n');
    expect((await api('GET', '/repos/alice/polyglot/languages')).body).toEqual({ ...langs.body, Rust: 10 });

    await createRepo('nothing', false);
    expect((await api('GET', '/repos/alice/nothing/languages')).body).toEqual({});
  });

  test('detection by name and extension', () => {
    expect(languageOf('src/a.go')).toBe('Go');
    expect(languageOf('Dockerfile')).toBe('Dockerfile');
    expect(languageOf('x/node_modules/y.js')).toBeNull();
    expect(languageOf('.eslintrc.js')).toBeNull();
    expect(languageOf('README.md')).toBeNull();
    expect(languageOf('noext')).toBeNull();
  });
});

describe('editorconfig', () => {
  const config = [
    '# top comment',
    'root = true',
    '',
    '[*]',
    'indent_style = space',
    'indent_size = 2',
    'end_of_line = LF',
    'charset = utf-8',
    'insert_final_newline = true',
    '',
    '[*.go]',
    'indent_style = tab',
    'indent_size = unset',
    '',
    '[{Makefile,*.mk}]',
    'indent_style = tab',
    '',
    '[lib/**.js]',
    'indent_size = 4',
    '',
    '[/docs/*.md]',
    'trim_trailing_whitespace = false',
    '',
    '[file{1..3}.txt]',
    'indent_size = 8',
  ].join('\n');

  beforeAll(async () => {
    await createRepo('styled');
    expect((await createFile('styled', '.editorconfig', config)).status).toBe(201);
  });

  test('definitions applying to a path, Gitea fields plus the booleans and tab_width', async () => {
    const get = async (p: string) => (await api('GET', `/repos/alice/styled/editorconfig/${p}`)).body;
    expect(await get('main.go')).toEqual({
      charset: 'utf-8',
      indent_style: 'tab',
      indent_size: 'tab',
      end_of_line: 'lf',
      insert_final_newline: true,
    });
    expect(await get('src/app.ts')).toEqual({
      charset: 'utf-8',
      indent_style: 'space',
      indent_size: '2',
      tab_width: 2,
      end_of_line: 'lf',
      insert_final_newline: true,
    });
    expect(await get('sub/Makefile')).toMatchObject({ indent_style: 'tab' });
    expect(await get('lib/deep/x.js')).toMatchObject({ indent_size: '4' });
    expect(await get('other/lib/x.js')).toMatchObject({ indent_size: '2' });
    expect(await get('docs/a.md')).toMatchObject({ trim_trailing_whitespace: false });
    expect(await get('sub/docs/a.md')).not.toHaveProperty('trim_trailing_whitespace');
    expect(await get('file2.txt')).toMatchObject({ indent_size: '8' });
    expect(await get('file4.txt')).toMatchObject({ indent_size: '2' });
    expect((await api('GET', '/repos/alice/styled/editorconfig/x.go?ref=nope')).status).toBe(404);
    await createRepo('unstyled');
    expect((await api('GET', '/repos/alice/unstyled/editorconfig/main.go')).status).toBe(404);
  });

  test('globs', () => {
    const cases: Array<[string, string, boolean]> = [
      ['*', 'a/b/c.txt', true],
      ['*.js', 'lib/x.js', true],
      ['*.js', 'lib/x.jsx', false],
      ['lib/*.js', 'lib/x.js', true],
      ['lib/*.js', 'lib/a/x.js', false],
      ['lib/**.js', 'lib/a/b/x.js', true],
      ['**/test/*.ts', 'test/a.ts', true],
      ['**/test/*.ts', 'a/test/a.ts', true],
      ['?.c', 'a.c', true],
      ['?.c', 'ab.c', false],
      ['[abc].md', 'b.md', true],
      ['[!abc].md', 'b.md', false],
      ['[!abc].md', 'd.md', true],
      ['{a,b/c}.txt', 'b/c.txt', true],
      ['{a,b/c}.txt', 'x/a.txt', false],
      ['*.{js,{ts,tsx}}', 'x.tsx', true],
      ['f{-1..1}', 'f0', true],
      ['f{-1..1}', 'f2', false],
      ['\\*.txt', '*.txt', true],
      ['\\*.txt', 'a.txt', false],
      ['/root.txt', 'root.txt', true],
      ['/root.txt', 'a/root.txt', false],
      ['a{b', 'a{b', true],
      ['{single}', '{single}', true],
    ];
    for (const [glob, p, expected] of cases) expect({ glob, p, m: globMatches(glob, p) }).toEqual({ glob, p, m: expected });
    const parsed = parseEditorConfig('[*]\n__proto__ = x\nindent_size=3\n');
    expect(propertiesFor(parsed, 'a')).toMatchObject({ indent_size: '3', tab_width: '3' });
    expect(({} as any).x).toBeUndefined();
  });
});

describe('the API surface', () => {
  test('operations are in the OpenAPI document with Gitea operation ids and schemas; other methods are 405', async () => {
    const doc = (await server.api('GET', '//swagger.v1.json')).body;
    const ids = (p: string) => Object.fromEntries(Object.entries(doc.paths[p] ?? {}).map(([m, op]: [string, any]) => [m, op.operationId]));
    expect(ids('/repos/{owner}/{repo}/contents')).toEqual({ get: 'repoGetContentsList', post: 'repoChangeFiles' });
    expect(ids('/repos/{owner}/{repo}/contents/{filepath}')).toEqual({
      get: 'repoGetContents',
      post: 'repoCreateFile',
      put: 'repoUpdateFile',
      delete: 'repoDeleteFile',
    });
    expect(ids('/repos/{owner}/{repo}/raw/{filepath}')).toEqual({ get: 'repoGetRawFile' });
    expect(ids('/repos/{owner}/{repo}/media/{filepath}')).toEqual({ get: 'repoGetRawFileOrLFS' });
    expect(ids('/repos/{owner}/{repo}/languages')).toEqual({ get: 'repoGetLanguages' });
    expect(ids('/repos/{owner}/{repo}/editorconfig/{filepath}')).toEqual({ get: 'repoGetEditorConfig' });
    for (const name of [
      'ChangeFilesOptions',
      'ChangeFileOperation',
      'CreateFileOptions',
      'UpdateFileOptions',
      'DeleteFileOptions',
      'FilesResponse',
      'FileResponse',
      'FileDeleteResponse',
      'ContentsResponse',
      'FileCommitResponse',
    ]) {
      expect(doc.definitions[name]).toBeDefined();
    }
    const patch = await api('PATCH', '/repos/alice/reader/contents/README.md', {});
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, POST, PUT, DELETE, HEAD');
  });

  test('HEAD on raw answers the headers without a body', async () => {
    const res = await fetch(`${server.url}api/v1/repos/alice/reader/raw/README.md`, {
      method: 'HEAD',
      headers: { Authorization: `token ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });
});

describe('the site raw links (download_url)', () => {
  const follow = (url: string, t: string | undefined = token) => fetch(url, { headers: t ? { Authorization: `token ${t}` } : {} });

  test('download_url of a branch, a branch with a slash, a tag and a commit answers the bytes', async () => {
    await createRepo('linked');
    const onBranch = await createFile('linked', 'deep/file.txt', 'on a branch\n', { new_branch: 'feature/y' });
    const dir = await clone('linked');
    await gitIn(dir, 'tag', 'v9');
    await gitIn(dir, 'push', '-q', '--tags');
    const readme = await api('GET', '/repos/alice/linked/contents/README.md');
    const expected = Buffer.from(readme.body.content, 'base64').toString();
    const commit = (await gitIn(dir, 'rev-parse', 'HEAD')).trim();
    for (const ref of ['main', 'v9', commit]) {
      const entry = (await api('GET', `/repos/alice/linked/contents/README.md?ref=${ref}`)).body;
      const res = await follow(entry.download_url);
      expect({ url: entry.download_url, status: res.status }).toEqual({ url: entry.download_url, status: 200 });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe(expected);
    }
    expect(onBranch.body.content.download_url).toBe(`${server.url}alice/linked/raw/branch/feature/y/deep/file.txt`);
    expect(await (await follow(onBranch.body.content.download_url)).text()).toBe('on a branch\n');
    expect(await (await follow(`${server.url}alice/linked/raw/README.md`)).text()).toBe(expected);
    for (const p of [
      'raw/branch/nope/README.md',
      'raw/tag/main/README.md',
      'raw/commit/0123456/README.md',
      'raw/branch/main/nope',
      'raw/branch/main/deep',
    ]) {
      expect({ p, status: (await follow(`${server.url}alice/linked/${p}`)).status }).toEqual({ p, status: 404 });
    }
    expect((await follow(`${server.url}alice/linked/raw/branch/main/..%2F..%2Fconfig`)).status).toBe(422);
  });

  test('private repositories need a credential with read:repository', async () => {
    await createRepo('hidden-links', true, { private: true });
    const entry = (await api('GET', '/repos/alice/hidden-links/contents/README.md')).body;
    expect((await follow(entry.download_url)).status).toBe(200);
    expect((await follow(entry.download_url, '')).status).toBe(404);
    const userOnly = await server.token(alice, ['read:user']);
    expect((await follow(entry.download_url, userOnly)).status).toBe(403);
  });
});
