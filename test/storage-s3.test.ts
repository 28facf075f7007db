import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { gitSandbox } from './helpers/git';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver');

// A real S3-compatible server (s3rver checks AWS Signature V4 with its S3RVER/S3RVER keys), so
// package files and attachments go through the same storage interface into a bucket.
let s3: { close(): Promise<void> };
let s3Dir: string;
let server: TestServer;
let token: string;
const sandbox = gitSandbox();

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');
const objects = (): string[] => {
  const root = path.join(s3Dir, 'forge-bucket');
  if (!fs.existsSync(root)) return [];
  // s3rver keeps an object's bytes in `<key>._S3rver_object`.
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith('._S3rver_object'))
    .map((f) => f.slice(0, -'._S3rver_object'.length).split(path.sep).join('/'));
};

beforeAll(async () => {
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-s3-'));
  const instance = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  const { port } = await instance.run();
  s3 = instance;
  server = await startServer({
    storage: {
      STORAGE_TYPE: 'minio',
      MINIO_ENDPOINT: `127.0.0.1:${port}`,
      MINIO_ACCESS_KEY_ID: 'S3RVER',
      MINIO_SECRET_ACCESS_KEY: 'S3RVER',
      MINIO_BUCKET: 'forge-bucket',
      MINIO_BASE_PATH: 'hearth/',
    },
  });
  token = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['write:package', 'delete:package', 'write:repository']);
});
afterAll(async () => {
  await server.close();
  await s3.close();
  sandbox.cleanup();
  fs.rmSync(s3Dir, { recursive: true, force: true });
});

const put = (p: string, body: Buffer, auth = token) =>
  fetch(new URL(`api/packages/${p}`, server.url), { method: 'PUT', headers: { Authorization: `token ${auth}` }, body });

test('a package file goes into the bucket (created on first write), streams back intact, and leaves with its last reference', async () => {
  const content = crypto.randomBytes(3 * 1024 * 1024 + 17);
  expect((await put(`${ADMIN.name}/generic/tool/1.0.0/tool.bin`, content)).status).toBe(201);
  const key = `hearth/packages/${sha256(content).slice(0, 2)}/${sha256(content).slice(2, 4)}/${sha256(content)}`;
  expect(objects()).toContain(key);
  // Nothing stays in the data directory but the (empty) temporary area.
  expect(fs.existsSync(path.join(server.dataDir, 'packages', 'blobs'))).toBe(false);
  expect(fs.readdirSync(path.join(server.dataDir, 'packages', 'tmp'))).toEqual([]);

  const got = await fetch(new URL(`api/packages/${ADMIN.name}/generic/tool/1.0.0/tool.bin`, server.url));
  expect(got.status).toBe(200);
  expect(got.headers.get('content-length')).toBe(String(content.length));
  expect(sha256(Buffer.from(await got.arrayBuffer()))).toBe(sha256(content));

  // Same bytes under another version: one object, two references.
  expect((await put(`${ADMIN.name}/generic/tool/1.0.1/tool.bin`, content)).status).toBe(201);
  expect(objects().filter((k) => k.startsWith('hearth/packages/'))).toHaveLength(1);
  expect((await server.api('DELETE', `/packages/${ADMIN.name}/generic/tool/1.0.0`, { token })).status).toBe(204);
  expect(objects()).toContain(key);
  expect((await server.api('DELETE', `/packages/${ADMIN.name}/generic/tool/1.0.1`, { token })).status).toBe(204);
  expect(objects()).not.toContain(key);
});

test('a refused upload stores nothing in the bucket', async () => {
  const before = objects().length;
  const res = await put(`${ADMIN.name}/generic/tool/2.0.0/huge.bin`, Buffer.alloc(10), 'not-a-token');
  expect(res.status).toBe(401);
  expect(objects().length).toBe(before);
});

test('release attachments use the same storage', async () => {
  expect((await server.api('POST', '/user/repos', { token, body: { name: 'rel', auto_init: true } })).status).toBe(201);
  const release = await server.api('POST', `/repos/${ADMIN.name}/rel/releases`, {
    token,
    body: { tag_name: 'v1', target_commitish: 'main' },
  });
  expect(release.status).toBe(201);
  const content = crypto.randomBytes(50_000);
  const form = new FormData();
  form.append('attachment', new Blob([content]), 'build.zip');
  const up = await fetch(new URL(`api/v1/repos/${ADMIN.name}/rel/releases/${release.body.id}/assets`, server.url), {
    method: 'POST',
    headers: { Authorization: `token ${token}` },
    body: form,
  });
  expect(up.status).toBe(201);
  const asset = (await up.json()) as { uuid: string; browser_download_url: string };
  expect(objects()).toContain(`hearth/attachments/${sha256(content).slice(0, 2)}/${sha256(content).slice(2, 4)}/${sha256(content)}`);
  const down = await fetch(asset.browser_download_url);
  expect(down.status).toBe(200);
  expect(sha256(Buffer.from(await down.arrayBuffer()))).toBe(sha256(content));
});

test('Git LFS objects (a plugin blob area, ctx.blobs) go into the bucket and stream back whole and in ranges', async () => {
  expect((await server.api('POST', '/user/repos', { token, body: { name: 'media', auto_init: true } })).status).toBe(201);
  const content = crypto.randomBytes(200_000);
  const oid = sha256(content);
  const base = new URL(`${ADMIN.name}/media.git/info/lfs/`, server.url);
  const headers = { Authorization: `token ${token}`, 'Content-Type': 'application/vnd.git-lfs+json' };
  const put = await fetch(new URL(`objects/${oid}/${content.length}`, base), { method: 'PUT', headers, body: content });
  expect(put.status).toBe(200);
  expect(objects()).toContain(`hearth/lfs/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}`);
  const whole = await fetch(new URL(`objects/${oid}`, base), { headers });
  expect(sha256(Buffer.from(await whole.arrayBuffer()))).toBe(oid);
  const part = await fetch(new URL(`objects/${oid}`, base), { headers: { ...headers, Range: 'bytes=1000-1999' } });
  expect(part.status).toBe(206);
  expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${content.length}`);
  expect(Buffer.from(await part.arrayBuffer()).equals(content.subarray(1000, 2000))).toBe(true);
});

test('storage that stops answering is a server error, not a crash; the server stays healthy', async () => {
  const content = Buffer.from('after the storage went away');
  await s3.close();
  const res = await put(`${ADMIN.name}/generic/gone/1.0.0/x.txt`, content);
  expect(res.status).toBe(500);
  expect((await res.json()) as object).toHaveProperty('message');
  expect((await fetch(new URL('api/healthz', server.url))).status).toBe(200);
  // The version was not recorded without its bytes.
  expect((await server.api('GET', `/packages/${ADMIN.name}/generic/gone/1.0.0`, { token })).status).toBe(404);
  // Re-open for afterAll.
  const again = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  await again.run();
  s3 = again;
});
