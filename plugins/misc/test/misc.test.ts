import { startServer, type TestServer } from '@hearth/testing';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    api: { MAX_RESPONSE_ITEMS: 40 },
    ui: { REACTIONS: ['+1', 'tada'] },
    repository: { DISABLE_STARS: true },
    attachment: { MAX_FILES: 9 },
  });
});
afterAll(() => server.close());

test('GET /version reports the Gitea API version spoken, with Hearth as build metadata', async () => {
  const res = await server.api('GET', '/version');
  expect(res.status).toBe(200);
  expect(res.body.version).toMatch(/^1\.20\.\d+\+hearth-\d+\.\d+\.\d+$/);
});

test('settings endpoints reflect the configuration', async () => {
  expect((await server.api('GET', '/settings/api')).body).toEqual({
    max_response_items: 40,
    default_paging_num: 30,
    default_git_trees_per_page: 1000,
    default_max_blob_size: 10485760,
  });
  expect((await server.api('GET', '/settings/ui')).body).toEqual({
    default_theme: 'gitea-auto',
    allowed_reactions: ['+1', 'tada'],
    custom_emojis: ['git', 'gitea', 'codeberg', 'gitlab', 'github', 'gogs'],
  });
  expect((await server.api('GET', '/settings/repository')).body).toEqual({
    mirrors_disabled: false,
    http_git_disabled: false,
    migrations_disabled: false,
    stars_disabled: true,
    time_tracking_disabled: false,
    lfs_disabled: true,
  });
  const attachment = (await server.api('GET', '/settings/attachment')).body;
  expect(attachment).toMatchObject({ enabled: true, max_size: 4, max_files: 9 });
  expect(attachment.allowed_types).toContain('.zip');
});

test('POST /markdown renders HTML without raw HTML or script links', async () => {
  const res = await server.api('POST', '/markdown', {
    body: { Text: '# Title\n\n<script>alert(1)</script> [x](javascript:alert(1)) **bold**', Mode: 'markdown' },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  expect(res.text).toContain('<h1>Title</h1>');
  expect(res.text).toContain('<strong>bold</strong>');
  expect(res.text).toContain('&lt;script&gt;');
  expect(res.text).not.toContain('href="javascript:');
});

test('markdown modes: comment breaks lines; Context resolves relative links; wiki links into the wiki', async () => {
  const comment = await server.api('POST', '/markdown', { body: { Text: 'one\ntwo', Mode: 'comment' } });
  expect(comment.text).toContain('one<br>');
  const plain = await server.api('POST', '/markdown', { body: { Text: 'one\ntwo', Mode: 'markdown' } });
  expect(plain.text).not.toContain('<br>');
  const rel = await server.api('POST', '/markdown', {
    body: { Text: '[doc](docs/a.md) [abs](https://example.com/x) [top](#top)', Context: '/owner/repo' },
  });
  expect(rel.text).toContain(`href="${server.url}owner/repo/docs/a.md"`);
  expect(rel.text).toContain('href="https://example.com/x"');
  expect(rel.text).toContain('href="#top"');
  const wiki = await server.api('POST', '/markdown', { body: { Text: '[Home](Home)', Context: '/owner/repo', Wiki: true } });
  expect(wiki.text).toContain(`href="${server.url}owner/repo/wiki/Home"`);
});

test('POST /markdown validates its body; /markdown/raw takes plain text', async () => {
  const bad = await server.api('POST', '/markdown', { body: { Text: 5 } });
  expect(bad.status).toBe(422);
  expect(bad.body.message).toBe('body.Text = 5: must be string');
  const badMode = await server.api('POST', '/markdown', { body: { Text: 'x', Mode: 'latex' } });
  expect(badMode.status).toBe(422);
  const rawRes = await server.api('POST', '/markdown/raw', { rawBody: '*hi*', headers: { 'Content-Type': 'text/plain' } });
  expect(rawRes.status).toBe(200);
  expect(rawRes.text.trim()).toBe('<p><em>hi</em></p>');
});

test('GET /nodeinfo describes the instance and counts users', async () => {
  await server.api('GET', '/user', { basic: ['forge-admin', 'admin-password-1'] }); // a sign-in counts as activity
  const res = await server.api('GET', '/nodeinfo');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    version: '2.1',
    software: { name: 'hearth' },
    protocols: ['activitypub'],
    openRegistrations: false,
    usage: { users: { total: 1, activeMonth: 1, activeHalfyear: 1 } },
  });
});

test('nodeinfo can be switched off in the plugin settings', async () => {
  const quiet = await startServer({ plugins: { misc: { settings: { nodeinfo: false } } } });
  try {
    expect((await quiet.api('GET', '/nodeinfo')).status).toBe(404);
    expect((await quiet.api('GET', '/version')).status).toBe(200);
  } finally {
    await quiet.close();
  }
});

test('POST /markup: a repository URL as Context resolves relative links and #123 references; file mode by extension', async () => {
  const res = await server.api('POST', '/markup', {
    body: {
      Text: 'See #12 and [doc](docs/a.md), not `#13` nor [#14](https://example.com/)',
      Mode: 'gfm',
      Context: `${server.url}owner/repo`,
    },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toContain(`<a href="${server.url}owner/repo/issues/12" class="ref-issue">#12</a>`);
  expect(res.text).toContain(`href="${server.url}owner/repo/docs/a.md"`);
  expect(res.text).toContain('<code>#13</code>');
  expect(res.text).toContain('<a href="https://example.com/">#14</a>');
  // Plain markdown mode leaves references as text, as Gitea's document mode does for a bare #.
  const plain = await server.api('POST', '/markup', { body: { Text: '#12 is text', Mode: 'markdown', Context: '/owner/repo' } });
  expect(plain.text).not.toContain('ref-issue');
  const file = await server.api('POST', '/markup', { body: { Text: 'one\ntwo', Mode: 'file', FilePath: 'docs/README.md' } });
  expect(file.status).toBe(200);
  expect(file.text).toBe('<p>one\ntwo</p>\n');
  const unknown = await server.api('POST', '/markup', { body: { Text: 'x', Mode: 'file', FilePath: 'a.adoc' } });
  expect(unknown.status).toBe(422);
  expect(unknown.body).toMatchObject({ message: expect.stringContaining('.adoc') });
  expect((await server.api('POST', '/markup', { body: { Text: 'x', Mode: 'latex' } })).status).toBe(422);
});
