import { startServer, type TestServer } from './helpers/server';

// Release assets follow repository.release.ALLOWED_TYPES (empty: any type), issue attachments
// attachment.ALLOWED_TYPES, as in Gitea 1.20.
let server: TestServer;
let token: string;
let releaseId: number;

async function upload(apiPath: string, filename: string, type: string) {
  const form = new FormData();
  form.append('attachment', new Blob([Buffer.from('MZ binary')], { type }), filename);
  const headers = { Authorization: `token ${token}` };
  const res = await fetch(new URL(`api/v1${apiPath}`, server.url), { method: 'POST', headers, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  server = await startServer();
  const alice = await server.user('alice');
  token = await server.token(alice, ['write:repository', 'write:issue']);
  expect((await server.api('POST', '/user/repos', { token, body: { name: 'proj', auto_init: true } })).status).toBe(201);
  const rel = await server.api('POST', '/repos/alice/proj/releases', { token, body: { tag_name: 'v1', name: 'one' } });
  expect(rel.status).toBe(201);
  releaseId = rel.body.id;
  expect((await server.api('POST', '/repos/alice/proj/issues', { token, body: { title: 'bug' } })).status).toBe(201);
});
afterAll(() => server.close());

afterEach(() => {
  server.kernel.config.repository.release.ALLOWED_TYPES = '';
});

test('by default a release takes any type; issue attachments keep their list', async () => {
  expect(server.kernel.config.repository.release.ALLOWED_TYPES).toBe('');
  const exe = await upload(`/repos/alice/proj/releases/${releaseId}/assets`, 'tool.exe', 'application/x-msdownload');
  expect(exe.status).toBe(201);
  expect(exe.body.name).toBe('tool.exe');
  const odd = await upload(`/repos/alice/proj/releases/${releaseId}/assets`, 'image.qcow2.weird', 'application/octet-stream');
  expect(odd.status).toBe(201);
  const issueExe = await upload('/repos/alice/proj/issues/1/assets', 'tool.exe', 'application/x-msdownload');
  expect(issueExe.status).toBe(422);
  expect(issueExe.body.message).toContain('attachment.ALLOWED_TYPES');
  expect((await upload('/repos/alice/proj/issues/1/assets', 'notes.txt', 'text/plain')).status).toBe(201);
});

test('repository.release.ALLOWED_TYPES limits release assets only', async () => {
  server.kernel.config.repository.release.ALLOWED_TYPES = '.zip, application/gzip';
  const exe = await upload(`/repos/alice/proj/releases/${releaseId}/assets`, 'tool2.exe', 'application/x-msdownload');
  expect(exe.status).toBe(422);
  expect(exe.body).toEqual({ message: expect.stringContaining('repository.release.ALLOWED_TYPES'), url: expect.any(String) });
  expect((await upload(`/repos/alice/proj/releases/${releaseId}/assets`, 'dist.zip', 'application/zip')).status).toBe(201);
  expect((await upload(`/repos/alice/proj/releases/${releaseId}/assets`, 'dist.tar.gz', 'application/gzip')).status).toBe(201);
  const assets = await server.api('GET', `/repos/alice/proj/releases/${releaseId}/assets`, { token });
  expect(assets.body.map((a: { name: string }) => a.name).sort()).toEqual(['dist.tar.gz', 'dist.zip', 'image.qcow2.weird', 'tool.exe']);
  // Issue attachments still follow attachment.ALLOWED_TYPES (.txt allowed there, not in the release list).
  expect((await upload('/repos/alice/proj/issues/1/assets', 'more.txt', 'text/plain')).status).toBe(201);
});
