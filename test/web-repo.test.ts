import childProcess from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import type { TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { WebClient, csrfToken, textOf, webServer, mustCall } from './helpers/web';

/**
 * The repository code pages over plain HTTP: creating a repository through the form, home, tree,
 * file, blame, commits, commit, branches and tags; access (a private repository is a 404 page for
 * strangers and anonymous visitors on every page), stored XSS in file names, branch names and the
 * README rendered inert, paths that cannot escape, and the git processes one page starts.
 */

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let sandbox: ReturnType<typeof gitSandbox>;
let secretSha = '';
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

const must = mustCall(
  () => server,
  () => alice,
);

async function commitFiles(repo: string, files: Record<string, string>, message = 'add files', branch?: string): Promise<string> {
  const list = Object.entries(files).map(([p, content]) => ({ operation: 'create', path: p, content: b64(content) }));
  const res = await must('POST', `/repos/alice/${repo}/contents`, { files: list, message, ...(branch ? { branch } : {}) });
  return res.commit.sha;
}

/** A GET sent exactly as written (fetch would normalise `..` and `%2e%2e` away before sending). */
function rawGet(target: string): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: target, headers: { Accept: 'text/html' } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const suite = webServer();
beforeAll(async () => {
  server = suite.server;
  alice = await server.user('alice');
  bob = await server.user('bob');
  sandbox = gitSandbox();
  await must('POST', '/user/repos', { name: 'secret', private: true, auto_init: true, description: 'hidden things' });
  secretSha = await commitFiles('secret', { 'src/app.js': 'const secret = 42;\n' });
  await must('POST', '/user/repos', { name: 'open', auto_init: true, description: 'open things' });
});
afterAll(async () => {
  sandbox.cleanup();
});

describe('private repositories', () => {
  const pages = () => [
    '/alice/secret',
    '/alice/secret/src/branch/main',
    '/alice/secret/src/branch/main/src/app.js',
    '/alice/secret/blame/branch/main/src/app.js',
    '/alice/secret/commits/branch/main',
    `/alice/secret/commit/${secretSha}`,
    `/alice/secret/commit/${secretSha}.diff`,
    '/alice/secret/branches',
    '/alice/secret/tags',
  ];

  test('are a 404 page for anonymous visitors and for strangers on every page, and shown to their owner', async () => {
    const anonymous = new WebClient(server);
    const stranger = new WebClient(server);
    await stranger.signIn(bob);
    const owner = new WebClient(server);
    await owner.signIn(alice);
    for (const page of pages()) {
      for (const visitor of [anonymous, stranger]) {
        const res = await visitor.get(page);
        expect([page, res.status]).toEqual([page, 404]);
        expect(textOf(res.html)).toContain('Page not found');
        expect(res.html).not.toContain('hidden things');
        expect(res.html).not.toContain('secret = 42');
      }
      expect([page, (await owner.get(page)).status]).toEqual([page, 200]);
    }
    const file = textOf((await owner.get('/alice/secret/src/branch/main/src/app.js')).html);
    expect(file.replace(/\s+/g, '')).toContain('constsecret=42;');
  });
});

describe('repository pages', () => {
  let web: WebClient;
  beforeAll(async () => {
    web = new WebClient(server);
    await web.signIn(alice);
  });

  test('home shows the header, tabs, clone URL with a copy button, files with their last commits and the README', async () => {
    await commitFiles(
      'open',
      { 'docs/guide.md': '# Guide\n\nRead *this*.\n', 'lib/util.ts': 'export const one = 1;\n' },
      'add docs and lib',
    );
    const res = await web.get('/alice/open');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('alice / open');
    expect(text).toContain('open things');
    expect(res.html).toMatch(/<a href="\/alice\/open" aria-current="page">Code<\/a>/);
    expect(text).toMatch(/Issues 0/);
    expect(res.html).toContain(`value="${server.url}alice/open.git"`);
    expect(res.html).toContain('data-copy="#clone-url"');
    expect(res.html).toContain('href="/alice/open/src/branch/main/docs"');
    expect(res.html).toContain('href="/alice/open/src/branch/main/README.md"');
    expect(text).toContain('add docs and lib');
    expect(text).toContain('Initial commit');
    // The README (the default template: "# open", then the description), rendered by the markdown renderer.
    expect(res.html).toMatch(/<h1>open<\/h1>/);
  });

  test('a file is highlighted in numbered lines with anchors, and links to raw, blame and history', async () => {
    const res = await web.get('/alice/open/src/branch/main/lib/util.ts');
    expect(res.status).toBe(200);
    expect(res.html).toContain('<a id="L1" href="#L1">1</a>');
    expect(res.html).toContain('<span class="hljs-keyword">export</span>');
    expect(res.html).toContain('href="/alice/open/raw/branch/main/lib/util.ts"');
    expect(res.html).toContain('href="/alice/open/blame/branch/main/lib/util.ts"');
    expect(res.html).toContain('href="/alice/open/commits/branch/main/lib/util.ts"');
    const raw = await web.get('/alice/open/raw/branch/main/lib/util.ts');
    expect(raw.html).toBe('export const one = 1;\n');
  });

  test('markdown files are rendered, with a link to their source', async () => {
    const res = await web.get('/alice/open/src/branch/main/docs/guide.md');
    expect(res.html).toContain('<em>this</em>');
    expect(res.html).toContain('href="/alice/open/src/branch/main/docs/guide.md?display=source"');
    const source = await web.get('/alice/open/src/branch/main/docs/guide.md?display=source');
    expect(textOf(source.html).replace(/\s+/g, '')).toContain('Read*this*.');
    expect(source.html).toContain('id="L3"');
  });

  test('binary files and files over 1 MiB are not shown inline but linked raw', async () => {
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 0]);
    await must('POST', '/repos/alice/open/contents/data.bin', { content: b64(binary), message: 'binary' });
    const big = ('y'.repeat(99) + '\n').repeat(11000); // 1.1 MB
    await must('POST', '/repos/alice/open/contents/huge.txt', { content: b64(big), message: 'huge' });
    const bin = await web.get('/alice/open/src/branch/main/data.bin');
    expect(textOf(bin.html)).toContain('This file is binary');
    expect(bin.html).toContain('href="/alice/open/raw/branch/main/data.bin"');
    const huge = await web.get('/alice/open/src/branch/main/huge.txt');
    expect(textOf(huge.html)).toContain('larger than 1 MiB');
    expect(huge.html).not.toContain('id="L1"');
    const blame = await web.get('/alice/open/blame/branch/main/huge.txt');
    expect(textOf(blame.html)).toContain('larger than 1 MiB');
  });

  test('branch names with slashes resolve to the branch and the path after it; tags and commits browse too', async () => {
    await must('POST', '/repos/alice/open/branches', { new_branch_name: 'feature/deep/work', old_ref_name: 'main' });
    await commitFiles('open', { 'only-on-deep.txt': 'deep\n' }, 'deep work', 'feature/deep/work');
    const deep = await web.get('/alice/open/src/branch/feature/deep/work/only-on-deep.txt');
    expect(deep.status).toBe(200);
    expect(textOf(deep.html)).toContain('Branch: feature/deep/work');
    expect(deep.html).toContain('href="/alice/open/raw/branch/feature/deep/work/only-on-deep.txt"');
    const dir = await web.get('/alice/open/src/branch/feature/deep/work');
    expect(textOf(dir.html)).toContain('only-on-deep.txt');
    expect((await web.get('/alice/open/src/branch/feature/deep')).status).toBe(404);
    expect((await web.get('/alice/open/src/branch/main/only-on-deep.txt')).status).toBe(404);
    await must('POST', '/repos/alice/open/tags', { tag_name: 'v1.0', target: 'main', message: 'first release' });
    const tag = await web.get('/alice/open/src/tag/v1.0/lib');
    expect(textOf(tag.html)).toContain('Tag: v1.0');
    expect(textOf(tag.html)).toContain('util.ts');
    const head = (await must('GET', '/repos/alice/open/branches/main')).commit.id as string;
    const byCommit = await web.get(`/alice/open/src/commit/${head.slice(0, 12)}/lib/util.ts`);
    expect(byCommit.status).toBe(200);
    expect(byCommit.html).toContain(`href="/alice/open/raw/commit/${head}/lib/util.ts"`);
    const branches = await web.get('/alice/open/branches');
    expect(textOf(branches.html)).toMatch(/2 branches/);
    expect(branches.html).toContain('href="/alice/open/src/branch/feature/deep/work"');
    const tags = await web.get('/alice/open/tags');
    expect(textOf(tags.html)).toContain('v1.0');
  });

  test('blame groups lines by the commit that last changed them', async () => {
    await commitFiles('open', { 'poem.txt': 'one\ntwo\nthree\n' }, 'first verse');
    const file = await must('GET', '/repos/alice/open/contents/poem.txt');
    await must('PUT', '/repos/alice/open/contents/poem.txt', { content: b64('one\nTWO\nthree\n'), sha: file.sha, message: 'shout two' });
    const res = await web.get('/alice/open/blame/branch/main/poem.txt');
    expect(res.status).toBe(200);
    const groups = [...res.html.matchAll(/class="summary">([^<]*)</g)].map((m) => m[1]);
    expect(groups).toEqual(['first verse', 'shout two', 'first verse']);
    expect(res.html).toContain('id="L2"');
  });

  test('commits are listed with paging, and a commit shows its message, parents and diff', async () => {
    const dir = path.join(sandbox.dir, 'pager');
    const url = cloneUrl(server.url, 'alice/open.git', alice.name, alice.password);
    expect((await sandbox.git(['clone', '--quiet', url, dir])).status).toBe(0);
    for (let i = 1; i <= 32; i++) expect((await sandbox.git(['commit', '--allow-empty', '-q', '-m', `step ${i}`], dir)).status).toBe(0);
    expect((await sandbox.git(['push', '--quiet', 'origin', 'main'], dir)).status).toBe(0);
    const first = await web.get('/alice/open/commits/branch/main');
    const text = textOf(first.html);
    expect(text).toContain('step 32');
    expect(text).not.toContain('step 2 ');
    expect(first.html).toContain('href="/alice/open/commits/branch/main?page=2"');
    const second = await web.get('/alice/open/commits/branch/main?page=2');
    expect(textOf(second.html)).toContain('step 1');
    const history = await web.get('/alice/open/commits/branch/main/poem.txt');
    expect(textOf(history.html)).toMatch(/2 commits/);

    const shout = (await must('GET', '/repos/alice/open/commits?path=poem.txt&limit=1'))[0];
    const commit = await web.get(`/alice/open/commit/${shout.sha}`);
    expect(commit.status).toBe(200);
    const shown = textOf(commit.html);
    expect(shown).toContain('shout two');
    expect(shown).toContain(shout.parents[0].sha.slice(0, 10));
    expect(commit.html).toContain('d2h-file-name');
    expect(commit.html).toMatch(/<del>two<\/del>|-two/);
    expect(commit.html).toMatch(/<ins>TWO<\/ins>|\+TWO/);
    expect(commit.html).toMatch(/\/assets\/diff\.[0-9a-f]+\.css/);
    const raw = await web.get(`/alice/open/commit/${shout.sha}.diff`);
    expect(raw.headers.get('content-type')).toMatch(/text\/plain/);
    expect(raw.html).toContain('-two\n+TWO');
  });

  test('an empty repository shows how to push a first commit', async () => {
    await must('POST', '/user/repos', { name: 'blank' });
    const res = await web.get('/alice/blank');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('This repository is empty');
    expect(text).toContain(`git remote add origin ${server.url}alice/blank.git`);
    expect(text).toContain('git push -u origin main');
    expect((await web.get('/alice/blank/src/branch/main')).status).toBe(404);
  });

  test('missing paths, refs and commits are 404 pages', async () => {
    // A tag named like a branch ref is no branch (git alone would find refs/tags/refs/heads/ghost for refs/heads/ghost).
    await must('POST', '/repos/alice/open/tags', { tag_name: 'refs/heads/ghost', target: 'main' });
    for (const page of [
      '/alice/open/src/branch/ghost',
      '/alice/open/src/branch/main~1',
      '/alice/open/src/branch/main%5E%7Btree%7D',
      '/alice/open/src/branch/main@%7B1%7D/README.md',
      '/alice/open/src/branch/main/no/such/file',
      '/alice/open/src/branch/nope',
      '/alice/open/src/tag/v9',
      '/alice/open/src/commit/0123456789abcdef0123456789abcdef01234567',
      '/alice/open/src/nonsense/main',
      '/alice/open/blame/branch/main/lib',
      '/alice/open/commits/branch/nope',
      '/alice/open/commit/0123456789abcdef0123456789abcdef01234567',
      '/alice/open/commit/not-a-sha',
      '/alice/nothing-here',
    ]) {
      const res = await web.get(page);
      expect([page, res.status]).toEqual([page, 404]);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(textOf(res.html)).toContain('Page not found');
    }
  });

  test('`..` and other escaping segments never leave the repository tree', async () => {
    for (const target of [
      '/alice/open/src/branch/main/../../../../etc/passwd',
      '/alice/open/src/branch/main/%2e%2e/%2e%2e/secret',
      '/alice/open/src/branch/main/lib/..%2f..%2fREADME.md',
      '/alice/open/src/branch/main/lib/%2e',
      '/alice/open/blame/branch/main/%2e%2e/README.md',
      '/alice/open/commits/branch/main/%2e%2e',
      '/alice/open/src/branch/main/%0a',
    ]) {
      const res = await rawGet(target);
      expect([target, res.status]).toEqual([target, 404]);
      expect(res.body).not.toContain('root:');
    }
  });
});

describe('stored XSS', () => {
  test('file names, branch names, README and file contents render inert', async () => {
    await must('POST', '/user/repos', { name: 'xss', auto_init: false });
    await commitFiles(
      'xss',
      {
        'README.md': '# Hi <script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[click](javascript:alert(3))\n',
        '<img src=x onerror=alert(4)>.txt': 'fine\n',
        'code.js': 'const s = "</code><script>alert(5)</script>";\n',
        'note.txt': '<script>alert(6)</script>\n',
      },
      'xss <script>alert(7)</script>',
    );
    await must('POST', '/repos/alice/xss/branches', { new_branch_name: '<svg/onload=alert(8)>', old_ref_name: 'main' });
    const web = new WebClient(server);
    const pages = [
      '/alice/xss',
      '/alice/xss/src/branch/main/code.js',
      '/alice/xss/src/branch/main/note.txt',
      '/alice/xss/blame/branch/main/code.js',
      '/alice/xss/src/branch/main/README.md',
      `/alice/xss/src/branch/${encodeURIComponent('<svg')}/${encodeURIComponent('onload=alert(8)>')}`,
      '/alice/xss/commits/branch/main',
      '/alice/xss/branches',
    ];
    const head = (await must('GET', '/repos/alice/xss/branches/main')).commit.id as string;
    pages.push(`/alice/xss/commit/${head}`);
    for (const page of pages) {
      const res = await web.get(page);
      expect([page, res.status]).toEqual([page, 200]);
      expect(res.html).not.toMatch(/<script>alert/);
      expect(res.html).not.toMatch(/<img src=x onerror/i);
      expect(res.html).not.toMatch(/<svg\/onload/i);
      expect(res.html).not.toMatch(/href="javascript:/i);
    }
    const home = await web.get('/alice/xss');
    expect(textOf(home.html)).toContain('<img src=x onerror=alert(4)>.txt');
    expect(textOf(home.html)).toContain('<svg/onload=alert(8)>');
    expect(textOf(home.html)).toContain('Hi <script>alert(1)</script>');
    const note = await web.get('/alice/xss/src/branch/main/note.txt');
    expect(textOf(note.html)).toContain('<script>alert(6)</script>');
    const evil = await web.get(`/alice/xss/src/branch/main/${encodeURIComponent('<img src=x onerror=alert(4)>.txt')}`);
    expect(evil.status).toBe(200);
  });
});

describe('creating a repository through the form', () => {
  test('the form lists templates and creates the repository, then redirects to it', async () => {
    const web = new WebClient(server);
    expect((await web.get('/repo/create')).headers.get('location')).toBe('/user/login?redirect_to=%2Frepo%2Fcreate');
    await web.signIn(alice);
    const form = await web.get('/repo/create');
    expect(form.status).toBe(200);
    const text = textOf(form.html);
    expect(text).toContain('New repository');
    expect(form.html).toContain('<option value="MIT"');
    expect(form.html).toContain('<option value="Node"');
    expect(form.html).toContain('<option value="Default"');
    expect(form.html).toMatch(/<label for="repo_name">/);
    const res = await web.post(
      '/repo/create',
      {
        uid: String(alice.id),
        repo_name: 'made-by-form',
        description: 'from the web',
        auto_init: 'on',
        readme: 'Default',
        gitignores: ['Node', 'Go'],
        license: 'MIT',
        issue_labels: 'Default',
        default_branch: 'trunk',
        private: 'on',
      },
      { csrf: csrfToken(form.html) },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/alice/made-by-form');
    const repo = await must('GET', '/repos/alice/made-by-form');
    expect(repo).toMatchObject({ private: true, default_branch: 'trunk', description: 'from the web' });
    const home = await web.get('/alice/made-by-form');
    const shown = textOf(home.html);
    expect(shown).toContain('LICENSE');
    expect(shown).toContain('.gitignore');
    expect(shown).toContain('Branch: trunk');
    expect(shown).toContain('Private');
    const labels = await must('GET', '/repos/alice/made-by-form/labels');
    expect(labels.length).toBeGreaterThan(0);
  });

  test('an error re-renders the form with the message and the values kept; CSRF is required', async () => {
    const web = new WebClient(server);
    await web.signIn(alice);
    const form = await web.get('/repo/create');
    const again = await web.post(
      '/repo/create',
      { uid: String(alice.id), repo_name: 'open', description: 'kept <b>text</b>', license: 'MIT', gitignores: 'Go' },
      { csrf: csrfToken(form.html) },
    );
    expect(again.status).toBe(409);
    expect(textOf(again.html)).toMatch(/already exists/i);
    expect(again.html).toContain('value="open"');
    expect(again.html).toContain('kept &lt;b>text&lt;/b>');
    expect(again.html).toMatch(/<option value="MIT" selected/);
    expect(again.html).toMatch(/<option value="Go" selected/);
    const invalid = await web.post('/repo/create', { uid: String(alice.id), repo_name: 'bad name!' }, { csrf: csrfToken(form.html) });
    expect(invalid.status).toBeGreaterThanOrEqual(400);
    expect(invalid.status).toBeLessThan(500);
    expect(invalid.html).toContain('value="bad name!"');
    const otherOwner = await web.post('/repo/create', { uid: String(bob.id), repo_name: 'for-bob' }, { csrf: csrfToken(form.html) });
    expect(otherOwner.status).toBe(403);
    const forged = await web.post('/repo/create', { uid: String(alice.id), repo_name: 'forged' }, { csrf: null });
    expect(forged.status).toBe(403);
    expect((await server.api('GET', '/repos/alice/forged', { basic: [alice.name, alice.password] })).status).toBe(404);
  });
});

describe('git processes per page', () => {
  /** The git subcommand of each process spawned while `run` is awaited (server and test share this process). */
  async function gitProcesses(run: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const original = childProcess.spawn;
    const spy = jest.spyOn(childProcess, 'spawn').mockImplementation(((command: string, args: string[], options: any) => {
      if (command === 'git') {
        let i = 0;
        while (i < args.length && (args[i] === '-c' || args[i] === '--git-dir')) i += 2;
        seen.push(`${args[i]}${args[i] === 'cat-file' ? ` ${args[i + 1]}` : ''}`);
      }
      return original(command, args, options);
    }) as typeof childProcess.spawn);
    try {
      await run();
    } finally {
      spy.mockRestore();
    }
    return seen;
  }

  test('home, directory and file pages read every tree and blob through one git process', async () => {
    const web = new WebClient(server);
    await web.signIn(alice);
    for (const page of ['/alice/open', '/alice/open/src/branch/main/docs', '/alice/open/src/branch/feature/deep/work/lib/util.ts']) {
      let status = 0;
      const processes = await gitProcesses(async () => (status = (await web.get(page)).status));
      expect([page, status]).toEqual([page, 200]);
      const treesAndBlobs = processes.filter((p) => p.startsWith('cat-file') || p.startsWith('ls-tree') || p.startsWith('show'));
      expect([page, treesAndBlobs]).toEqual([page, ['cat-file --batch']]);
      // The rest: the refs (one for-each-ref, for the switcher and the branch name) and one history walk.
      expect([page, processes.sort()]).toEqual([page, ['cat-file --batch', 'for-each-ref', 'log'].sort()]);
    }
  });
});
