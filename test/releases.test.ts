import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { removeRepoAttachments, deleteOrphanAttachmentBlobs } from '@hearth/core/dist/attachments/attachment-store';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let aliceToken: string;
let aliceReadOnly: string;
let bobToken: string;
let bobRead: string;
let sandbox: ReturnType<typeof gitSandbox>;

/** Browser downloads are served by the server itself at ROOT_URL/attachments/{uuid}. */
async function siteApp(srv: TestServer): Promise<{ url: string; close: () => Promise<void> }> {
  return { url: srv.url, close: async () => undefined };
}

async function upload(
  srv: TestServer,
  apiPath: string,
  token: string,
  content: Buffer,
  filename: string,
  type = 'text/plain',
  name?: string,
) {
  const form = new FormData();
  form.append('attachment', new Blob([content], { type }), filename);
  const url = new URL(`api/v1${apiPath}${name ? `?name=${encodeURIComponent(name)}` : ''}`, srv.url);
  const res = await fetch(url, { method: 'POST', headers: { Authorization: `token ${token}` }, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function blobFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'attachments', 'blobs');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(root, f)).isFile());
}

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  server = await startServer();
  alice = await server.user('alice');
  bob = await server.user('bob');
  aliceToken = await server.token(alice, ['delete:repository']);
  aliceReadOnly = await server.token(alice, ['read:repository']);
  bobToken = await server.token(bob, ['write:repository']);
  bobRead = await server.token(bob, ['read:repository']);
  sandbox = gitSandbox();
  await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'proj', auto_init: true, default_branch: 'main' } });
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

async function lsRemoteTags(repo: string): Promise<string> {
  const run = await sandbox.git(['ls-remote', '--tags', cloneUrl(server.url, `${repo}.git`)]);
  expect(run.status).toBe(0);
  return run.stdout;
}

describe('releases', () => {
  let stableId: number;

  test('creating a release creates its tag from the default branch and answers a Release', async () => {
    const res = await server.api('POST', '/repos/alice/proj/releases', {
      token: aliceToken,
      body: { tag_name: 'v1.0', name: 'First', body: 'notes' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tag_name: 'v1.0',
      target_commitish: 'main',
      name: 'First',
      body: 'notes',
      draft: false,
      prerelease: false,
      assets: [],
    });
    expect(res.body.author).toMatchObject({ login: 'alice' });
    expect(res.body.url).toBe(`${server.url}api/v1/repos/alice/proj/releases/${res.body.id}`);
    expect(res.body.html_url).toBe(`${server.url}alice/proj/releases/tag/v1.0`);
    expect(res.body.tarball_url).toBe(`${server.url}alice/proj/archive/v1.0.tar.gz`);
    expect(res.body.zipball_url).toBe(`${server.url}alice/proj/archive/v1.0.zip`);
    expect(res.body.upload_url).toBe(`${res.body.url}/assets`);
    expect(res.body.published_at).toBe(res.body.created_at);
    stableId = res.body.id;
    const main = await server.api('GET', '/repos/alice/proj/branches/main', { token: aliceToken });
    expect(await lsRemoteTags('alice/proj')).toContain(`${main.body.commit.id}\trefs/tags/v1.0`);
  });

  test('a second release for a tag is 409, an invalid tag name 422, an unknown target 404', async () => {
    expect((await server.api('POST', '/repos/alice/proj/releases', { token: aliceToken, body: { tag_name: 'v1.0' } })).status).toBe(409);
    expect((await server.api('POST', '/repos/alice/proj/releases', { token: aliceToken, body: { tag_name: 'bad..tag' } })).status).toBe(
      422,
    );
    expect((await server.api('POST', '/repos/alice/proj/releases', { token: aliceToken, body: { tag_name: 'x' } })).status).toBe(201);
    const unknown = await server.api('POST', '/repos/alice/proj/releases', {
      token: aliceToken,
      body: { tag_name: 'v9', target_commitish: 'no-such-branch' },
    });
    expect(unknown.status).toBe(404);
    expect(await lsRemoteTags('alice/proj')).not.toContain('refs/tags/v9');
    expect((await server.api('DELETE', '/repos/alice/proj/releases/tags/x', { token: aliceToken })).status).toBe(204);
  });

  test('a release on an existing tag uses it; by-tag lookups work for tags with slashes', async () => {
    const res = await server.api('POST', '/repos/alice/proj/releases', {
      token: aliceToken,
      body: { tag_name: 'nested/v0.9', prerelease: true },
    });
    expect(res.status).toBe(201);
    const got = await server.api('GET', '/repos/alice/proj/releases/tags/nested/v0.9');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: res.body.id, prerelease: true });
    expect((await server.api('GET', '/repos/alice/proj/releases/tags/nope')).status).toBe(404);
  });

  test('drafts: no tag until published, hidden from readers, publishing creates the tag', async () => {
    const draft = await server.api('POST', '/repos/alice/proj/releases', {
      token: aliceToken,
      body: { tag_name: 'v2.0', draft: true, name: 'Two' },
    });
    expect(draft.status).toBe(201);
    expect(draft.body.draft).toBe(true);
    expect(await lsRemoteTags('alice/proj')).not.toContain('refs/tags/v2.0');
    // Hidden from readers (anonymous and another user), visible to the owner.
    for (const token of [undefined, bobRead]) {
      expect((await server.api('GET', `/repos/alice/proj/releases/${draft.body.id}`, { token })).status).toBe(404);
      expect((await server.api('GET', '/repos/alice/proj/releases/tags/v2.0', { token })).status).toBe(404);
      const list = await server.api('GET', '/repos/alice/proj/releases', { token });
      expect(list.body.map((r: { tag_name: string }) => r.tag_name)).not.toContain('v2.0');
    }
    const own = await server.api('GET', '/repos/alice/proj/releases?draft=true', { token: aliceToken });
    expect(own.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['v2.0']);
    // The latest rule skips drafts and pre-releases.
    expect((await server.api('GET', '/repos/alice/proj/releases/latest')).body.id).toBe(stableId);

    const published = await server.api('PATCH', `/repos/alice/proj/releases/${draft.body.id}`, {
      token: aliceToken,
      body: { draft: false },
    });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ draft: false, name: 'Two', tag_name: 'v2.0' });
    expect(await lsRemoteTags('alice/proj')).toContain('refs/tags/v2.0');
    expect((await server.api('GET', '/repos/alice/proj/releases/latest')).body.tag_name).toBe('v2.0');
    expect((await server.api('GET', '/repos/alice/proj/releases/tags/v2.0', { token: bobRead })).status).toBe(200);
  });

  test('list: newest first, paged, filtered by pre-release', async () => {
    const all = await server.api('GET', '/repos/alice/proj/releases');
    expect(all.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['v2.0', 'nested/v0.9', 'v1.0']);
    expect(all.headers.get('x-total-count')).toBe('3');
    const page = await server.api('GET', '/repos/alice/proj/releases?limit=1&page=2');
    expect(page.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['nested/v0.9']);
    const pre = await server.api('GET', '/repos/alice/proj/releases?pre-release=true');
    expect(pre.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['nested/v0.9']);
  });

  test('edit: fields change; moving onto a tag another release has is 409', async () => {
    const edited = await server.api('PATCH', `/repos/alice/proj/releases/${stableId}`, {
      token: aliceToken,
      body: { name: 'First!', body: 'more', prerelease: true },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'First!', body: 'more', prerelease: true, tag_name: 'v1.0' });
    expect((await server.api('GET', '/repos/alice/proj/releases/latest')).body.tag_name).toBe('v2.0');
    expect(
      (await server.api('PATCH', `/repos/alice/proj/releases/${stableId}`, { token: aliceToken, body: { tag_name: 'v2.0' } })).status,
    ).toBe(409);
    expect(
      (await server.api('PATCH', `/repos/alice/proj/releases/${stableId}`, { token: aliceToken, body: { tag_name: 'bad..' } })).status,
    ).toBe(422);
    expect(
      (await server.api('PATCH', `/repos/alice/proj/releases/${stableId}`, { token: aliceToken, body: { prerelease: false } })).status,
    ).toBe(200);
  });

  test('permissions: a read-only token cannot create (403), another user cannot edit or delete (403)', async () => {
    expect((await server.api('POST', '/repos/alice/proj/releases', { token: aliceReadOnly, body: { tag_name: 'ro' } })).status).toBe(403);
    expect((await server.api('POST', '/repos/alice/proj/releases', { token: bobToken, body: { tag_name: 'ro' } })).status).toBe(403);
    expect(
      (await server.api('PATCH', `/repos/alice/proj/releases/${stableId}`, { token: bobToken, body: { name: 'hijack' } })).status,
    ).toBe(403);
    expect((await server.api('DELETE', `/repos/alice/proj/releases/${stableId}`, { token: bobToken })).status).toBe(403);
    expect((await server.api('POST', '/repos/alice/proj/releases', { body: { tag_name: 'anon' } })).status).toBe(401);
    expect((await server.api('GET', `/repos/alice/proj/releases/${stableId}`)).status).toBe(200);
  });

  test('delete by id and by tag removes the release and keeps the tag; no release left → latest 404', async () => {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'del', auto_init: true } });
    const a = await server.api('POST', '/repos/alice/del/releases', { token: aliceToken, body: { tag_name: 'a' } });
    await server.api('POST', '/repos/alice/del/releases', { token: aliceToken, body: { tag_name: 'b' } });
    expect((await server.api('DELETE', `/repos/alice/del/releases/${a.body.id}`, { token: aliceToken })).status).toBe(204);
    expect((await server.api('GET', `/repos/alice/del/releases/${a.body.id}`)).status).toBe(404);
    expect((await server.api('DELETE', '/repos/alice/del/releases/tags/b', { token: aliceToken })).status).toBe(204);
    expect((await server.api('DELETE', '/repos/alice/del/releases/tags/b', { token: aliceToken })).status).toBe(404);
    const tags = await lsRemoteTags('alice/del');
    expect(tags).toContain('refs/tags/a');
    expect(tags).toContain('refs/tags/b');
    expect((await server.api('GET', '/repos/alice/del/releases/latest')).status).toBe(404);
  });

  test('with the releases unit off every release route is 404', async () => {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'nounit', auto_init: true } });
    const rel = await server.api('POST', '/repos/alice/nounit/releases', { token: aliceToken, body: { tag_name: 'v1' } });
    expect((await server.api('PATCH', '/repos/alice/nounit', { token: aliceToken, body: { has_releases: false } })).status).toBe(200);
    expect((await server.api('GET', '/repos/alice/nounit/releases', { token: aliceToken })).status).toBe(404);
    expect((await server.api('GET', `/repos/alice/nounit/releases/${rel.body.id}`, { token: aliceToken })).status).toBe(404);
    expect((await server.api('GET', '/repos/alice/nounit/releases/latest', { token: aliceToken })).status).toBe(404);
    expect((await server.api('POST', '/repos/alice/nounit/releases', { token: aliceToken, body: { tag_name: 'v2' } })).status).toBe(404);
    expect((await upload(server, `/repos/alice/nounit/releases/${rel.body.id}/assets`, aliceToken, Buffer.from('x'), 'x.txt')).status).toBe(
      404,
    );
  });
});

describe('release attachments', () => {
  let relId: number;
  let site: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'files', auto_init: true } });
    relId = (await server.api('POST', '/repos/alice/files/releases', { token: aliceToken, body: { tag_name: 'v1' } })).body.id;
    site = await siteApp(server);
  });
  afterAll(() => site.close());

  test('upload, list, get, rename, download (same bytes, safe headers, counted), delete', async () => {
    const content = crypto.randomBytes(300 * 1024);
    const up = await upload(server, `/repos/alice/files/releases/${relId}/assets`, aliceToken, content, 'build.zip', 'application/zip');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ name: 'build.zip', size: content.length, download_count: 0 });
    expect(up.body.browser_download_url).toBe(`${server.url}attachments/${up.body.uuid}`);
    const list = await server.api('GET', `/repos/alice/files/releases/${relId}/assets`);
    expect(list.body.map((a: { id: number }) => a.id)).toEqual([up.body.id]);
    expect((await server.api('GET', `/repos/alice/files/releases/${relId}`)).body.assets).toHaveLength(1);
    expect((await server.api('GET', `/repos/alice/files/releases/${relId}/assets/${up.body.id}`)).body.uuid).toBe(up.body.uuid);
    const renamed = await server.api('PATCH', `/repos/alice/files/releases/${relId}/assets/${up.body.id}`, {
      token: aliceToken,
      body: { name: 'release "1".zip' },
    });
    expect(renamed.status).toBe(201);
    expect(renamed.body.name).toBe('release "1".zip');
    expect(
      (await server.api('PATCH', `/repos/alice/files/releases/${relId}/assets/${up.body.id}`, { token: bobToken, body: { name: 'x' } }))
        .status,
    ).toBe(403);

    const dl = await fetch(`${site.url}attachments/${up.body.uuid}`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-length')).toBe(String(content.length));
    expect(dl.headers.get('x-content-type-options')).toBe('nosniff');
    expect(dl.headers.get('content-disposition')).toBe(
      `attachment; filename="release _1_.zip"; filename*=UTF-8''${encodeURIComponent('release "1".zip')}`,
    );
    expect(sha256(Buffer.from(await dl.arrayBuffer()))).toBe(sha256(content));
    expect((await server.api('GET', `/repos/alice/files/releases/${relId}/assets/${up.body.id}`)).body.download_count).toBe(1);
    expect((await fetch(`${site.url}attachments/00000000-0000-0000-0000-000000000000`)).status).toBe(404);

    expect((await server.api('DELETE', `/repos/alice/files/releases/${relId}/assets/${up.body.id}`, { token: aliceToken })).status).toBe(
      204,
    );
    expect((await server.api('GET', `/repos/alice/files/releases/${relId}/assets/${up.body.id}`)).status).toBe(404);
    expect((await fetch(`${site.url}attachments/${up.body.uuid}`)).status).toBe(404);
    expect(blobFiles(server.dataDir)).toEqual([]);
  });

  test('the name query overrides the file name; a missing attachment field is 400; readers cannot upload', async () => {
    const up = await upload(
      server,
      `/repos/alice/files/releases/${relId}/assets`,
      aliceToken,
      Buffer.from('hello'),
      'a.txt',
      'text/plain',
      'notes.txt',
    );
    expect(up.body.name).toBe('notes.txt');
    const form = new FormData();
    form.append('other', 'value');
    const missing = await fetch(new URL(`api/v1/repos/alice/files/releases/${relId}/assets`, server.url), {
      method: 'POST',
      headers: { Authorization: `token ${aliceToken}` },
      body: form,
    });
    expect(missing.status).toBe(400);
    expect((await upload(server, `/repos/alice/files/releases/${relId}/assets`, aliceReadOnly, Buffer.from('x'), 'x.txt')).status).toBe(
      403,
    );
    await server.api('DELETE', `/repos/alice/files/releases/${relId}/assets/${up.body.id}`, { token: aliceToken });
  });

  test('blobs are shared by identical content and removed with the last reference (also when the release goes)', async () => {
    const content = Buffer.from('same bytes twice');
    const one = await upload(server, `/repos/alice/files/releases/${relId}/assets`, aliceToken, content, 'one.txt');
    const two = await upload(server, `/repos/alice/files/releases/${relId}/assets`, aliceToken, content, 'two.txt');
    expect(blobFiles(server.dataDir)).toEqual([expect.stringContaining(sha256(content))]);
    await server.api('DELETE', `/repos/alice/files/releases/${relId}/assets/${one.body.id}`, { token: aliceToken });
    expect(blobFiles(server.dataDir)).toHaveLength(1);
    const dl = await fetch(`${site.url}attachments/${two.body.uuid}`);
    expect(Buffer.from(await dl.arrayBuffer()).toString()).toBe('same bytes twice');

    const other = await server.api('POST', '/repos/alice/files/releases', { token: aliceToken, body: { tag_name: 'v2' } });
    await upload(server, `/repos/alice/files/releases/${other.body.id}/assets`, aliceToken, Buffer.from('other'), 'o.txt');
    expect(blobFiles(server.dataDir)).toHaveLength(2);
    expect((await server.api('DELETE', `/repos/alice/files/releases/${other.body.id}`, { token: aliceToken })).status).toBe(204);
    expect(blobFiles(server.dataDir)).toHaveLength(1);
    await server.api('DELETE', `/repos/alice/files/releases/${relId}/assets/${two.body.id}`, { token: aliceToken });
    expect(blobFiles(server.dataDir)).toEqual([]);
  });

  test('draft attachments are downloadable by writers only', async () => {
    const draft = await server.api('POST', '/repos/alice/files/releases', { token: aliceToken, body: { tag_name: 'v3', draft: true } });
    const up = await upload(server, `/repos/alice/files/releases/${draft.body.id}/assets`, aliceToken, Buffer.from('secret'), 's.txt');
    expect(up.status).toBe(201);
    expect((await fetch(`${site.url}attachments/${up.body.uuid}`)).status).toBe(404);
    expect((await server.api('GET', `/repos/alice/files/releases/${draft.body.id}/assets`, { token: bobRead })).status).toBe(404);
    const own = await fetch(`${site.url}attachments/${up.body.uuid}`, { headers: { Authorization: `token ${aliceToken}` } });
    expect(own.status).toBe(200);
    expect(await own.text()).toBe('secret');
    await server.api('DELETE', `/repos/alice/files/releases/${draft.body.id}`, { token: aliceToken });
  });

  test("a repository's releases and attachments are deleted in a transaction; orphaned blobs go after commit", async () => {
    await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'doomed', auto_init: true } });
    const rel = await server.api('POST', '/repos/alice/doomed/releases', { token: aliceToken, body: { tag_name: 'v1' } });
    await upload(server, `/repos/alice/doomed/releases/${rel.body.id}/assets`, aliceToken, Buffer.from('doomed bytes'), 'd.txt');
    const repoId = (await server.api('GET', '/repos/alice/doomed')).body.id;
    const db = server.kernel.db;
    // The releases plugin deletes its rows, the core the attachments (their repository.deleting taps).
    const shas = await db.transaction(async (trx) => {
      await trx('release').where('repo_id', repoId).delete();
      return removeRepoAttachments(trx, [repoId]);
    });
    expect(shas).toEqual([sha256(Buffer.from('doomed bytes'))]);
    expect(blobFiles(server.dataDir)).toHaveLength(1);
    await deleteOrphanAttachmentBlobs(db, server.kernel.config, shas);
    expect(blobFiles(server.dataDir)).toEqual([]);
    expect(await db('release').where('repo_id', repoId)).toEqual([]);
    expect(await db('attachment').where('repo_id', repoId)).toEqual([]);
  });
});

describe('attachment limits', () => {
  let limited: TestServer;
  let token: string;
  let relId: number;
  beforeAll(async () => {
    limited = await startServer({ attachment: { MAX_SIZE: 1 }, repository: { release: { ALLOWED_TYPES: '.txt,image/*' } } });
    const owner = await limited.user('owner');
    token = await limited.token(owner, ['write:repository']);
    await limited.api('POST', '/user/repos', { token, body: { name: 'r', auto_init: true } });
    relId = (await limited.api('POST', '/repos/owner/r/releases', { token, body: { tag_name: 'v1' } })).body.id;
  });
  afterAll(() => limited.close());

  const stored = async () => ({ rows: (await limited.kernel.db('attachment')).length, blobs: blobFiles(limited.dataDir).length });

  test('too large is 413 (announced or found while streaming); a type not allowed is 422; nothing is stored', async () => {
    const assets = `/repos/owner/r/releases/${relId}/assets`;
    expect((await upload(limited, assets, token, Buffer.alloc(3 * 1024 * 1024, 1), 'big.txt')).status).toBe(413);
    const justOver = await upload(limited, assets, token, Buffer.alloc(1024 * 1024 + 10, 1), 'over.txt');
    expect(justOver.status).toBe(413);
    expect(justOver.body.message).toContain('attachment.MAX_SIZE');
    expect((await upload(limited, assets, token, Buffer.from('MZ'), 'tool.exe', 'application/octet-stream')).status).toBe(422);
    expect(await stored()).toEqual({ rows: 0, blobs: 0 });
    expect(fs.readdirSync(path.join(limited.dataDir, 'attachments', 'tmp'))).toEqual([]);
    // Extension or mime type may allow a file.
    expect((await upload(limited, assets, token, Buffer.alloc(1024 * 1024, 2), 'exact.txt')).status).toBe(201);
    expect((await upload(limited, assets, token, Buffer.from('png'), 'pic.dat', 'image/png')).status).toBe(201);
    expect(await stored()).toEqual({ rows: 2, blobs: 2 });
  });

  test('attachments disabled: 422', async () => {
    const off = await startServer({ attachment: { ENABLED: false } });
    try {
      const owner = await off.user('owner');
      const t = await off.token(owner, ['write:repository']);
      await off.api('POST', '/user/repos', { token: t, body: { name: 'r', auto_init: true } });
      const rel = await off.api('POST', '/repos/owner/r/releases', { token: t, body: { tag_name: 'v1' } });
      expect((await upload(off, `/repos/owner/r/releases/${rel.body.id}/assets`, t, Buffer.from('x'), 'x.txt')).status).toBe(422);
      expect(blobFiles(off.dataDir)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
