import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

let server: TestServer;
let aliceToken: string;
let bobToken: string;
let sandbox: ReturnType<typeof gitSandbox>;
let repoId: number;
let mainHead: string;
let featureHead: string;

interface Download {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** A binary GET (or HEAD) of a site path under /api/v1. */
async function download(
  apiPath: string,
  options: { token?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<Download> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.Authorization = `token ${options.token}`;
  const res = await fetch(new URL(`api/v1${apiPath}`, server.url), { method: options.method ?? 'GET', headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Names and contents of the files in a zip, read from its central directory. */
function unzip(zip: Buffer): Map<string, string> {
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  expect(eocd).toBeGreaterThanOrEqual(0);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const files = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (!name.endsWith('/')) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      files.set(name, (method === 8 ? zlib.inflateRawSync(data) : data).toString('utf8'));
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

/** Names and contents of the regular files of a .tar.gz (ustar headers; pax headers skipped). */
function untar(tgz: Buffer): Map<string, string> {
  const tar = zlib.gunzipSync(tgz);
  const files = new Map<string, string>();
  const text = (from: number, length: number) =>
    tar
      .subarray(from, from + length)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length;) {
    if (tar.subarray(at, at + 512).every((b) => b === 0)) break;
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(tar[at + 156] || 0x30);
    const prefix = text(at + 257, 6) === 'ustar' ? text(at + 345, 155) : '';
    const name = prefix ? `${prefix}/${text(at, 100)}` : text(at, 100);
    if (type === '0') files.set(name, tar.subarray(at + 512, at + 512 + size).toString('utf8'));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

beforeAll(async () => {
  server = await startServer();
  const alice = await server.user('alice');
  const bob = await server.user('bob');
  aliceToken = await server.token(alice, ['write:repository']);
  bobToken = await server.token(bob, ['read:repository']);
  sandbox = gitSandbox();
  const res = await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'Arch', auto_init: true } });
  expect(res.status).toBe(201);
  repoId = res.body.id;
  expect(
    (await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'hidden', auto_init: true, private: true } })).status,
  ).toBe(201);
  expect((await server.api('POST', '/user/repos', { token: aliceToken, body: { name: 'empty' } })).status).toBe(201);
  const dir = path.join(sandbox.dir, 'arch');
  expect((await sandbox.git(['clone', '-q', cloneUrl(server.url, 'alice/Arch.git', 'alice', aliceToken), dir])).status).toBe(0);
  fs.mkdirSync(path.join(dir, 'src/deep'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/deep/code.txt'), 'line\n'.repeat(2000));
  // Incompressible content, so the archives are large enough for meaningful ranges.
  fs.writeFileSync(path.join(dir, 'noise.bin'), crypto.randomBytes(60000));
  await sandbox.git(['add', '.'], dir);
  expect((await sandbox.git(['commit', '-q', '-m', 'files'], dir)).status).toBe(0);
  mainHead = (await sandbox.git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  await sandbox.git(['checkout', '-q', '-b', 'feature/x'], dir);
  fs.writeFileSync(path.join(dir, 'feature.txt'), 'only on the feature branch\n');
  await sandbox.git(['add', '.'], dir);
  expect((await sandbox.git(['commit', '-q', '-m', 'feature'], dir)).status).toBe(0);
  featureHead = (await sandbox.git(['rev-parse', 'HEAD'], dir)).stdout.trim();
  await sandbox.git(['tag', 'v1.0', mainHead], dir);
  expect((await sandbox.git(['push', '-q', 'origin', 'main', 'feature/x', 'v1.0'], dir)).status).toBe(0);
});
afterAll(async () => {
  sandbox.cleanup();
  await server.close();
});

describe('archive formats', () => {
  test('zip: the tree under the repository name, with download headers', async () => {
    const res = await download('/repos/alice/Arch/archive/main.zip');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Arch-main.zip"');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(res.body.length));
    expect(res.headers.get('etag')).toContain(mainHead);
    const files = unzip(res.body);
    expect([...files.keys()].sort()).toEqual(['Arch/README.md', 'Arch/noise.bin', 'Arch/src/deep/code.txt']);
    expect(files.get('Arch/src/deep/code.txt')).toBe('line\n'.repeat(2000));
    expect(files.get('Arch/README.md')).toMatch(/^# Arch/);
  });

  test('tar.gz of a branch with a slash in its name', async () => {
    const res = await download('/repos/alice/Arch/archive/feature/x.tar.gz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Arch-feature-x.tar.gz"');
    expect(res.headers.get('etag')).toContain(featureHead);
    const files = untar(res.body);
    expect([...files.keys()].sort()).toEqual(['Arch/README.md', 'Arch/feature.txt', 'Arch/noise.bin', 'Arch/src/deep/code.txt']);
    expect(files.get('Arch/feature.txt')).toBe('only on the feature branch\n');
  });

  test('tags and commit ids (full or short) work too; the same commit is the same file', async () => {
    const byBranch = await download('/repos/alice/Arch/archive/main.tar.gz');
    for (const ref of ['v1.0', mainHead, mainHead.slice(0, 10)]) {
      const res = await download(`/repos/alice/Arch/archive/${ref}.tar.gz`);
      expect(res.status).toBe(200);
      expect(res.body.equals(byBranch.body)).toBe(true);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Arch-${ref}.tar.gz"`);
    }
  });

  test('bundle: verifies and clones to the commit', async () => {
    const res = await download('/repos/alice/Arch/archive/feature/x.bundle', { token: aliceToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Arch-feature-x.bundle"');
    const file = path.join(sandbox.dir, 'x.bundle');
    fs.writeFileSync(file, res.body);
    const verifyIn = path.join(sandbox.dir, 'verify');
    expect((await sandbox.git(['init', '-q', verifyIn])).status).toBe(0);
    const verify = await sandbox.git(['bundle', 'verify', file], verifyIn);
    expect(verify.status).toBe(0);
    const heads = await sandbox.git(['bundle', 'list-heads', file]);
    expect(heads.stdout).toContain(`${featureHead} refs/heads/bundle`);
    const clone = await sandbox.git(['clone', '-q', file, 'from-bundle']);
    expect(clone.status).toBe(0);
    expect((await sandbox.git(['rev-parse', 'HEAD'], path.join(sandbox.dir, 'from-bundle'))).stdout.trim()).toBe(featureHead);
    expect(fs.readFileSync(path.join(sandbox.dir, 'from-bundle', 'feature.txt'), 'utf8')).toBe('only on the feature branch\n');
  });
});

describe('ranges and conditional requests', () => {
  let full: Buffer;
  let etag: string;
  beforeAll(async () => {
    const res = await download('/repos/alice/Arch/archive/main.zip');
    full = res.body;
    etag = res.headers.get('etag')!;
    expect(full.length).toBeGreaterThan(50000);
  });
  const ranged = (range: string, extra: Record<string, string> = {}) =>
    download('/repos/alice/Arch/archive/main.zip', { headers: { Range: range, ...extra } });

  test('a single range is 206 with exactly those bytes', async () => {
    const size = full.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=1000-1999', 1000, 1999],
      [`bytes=${size - 10}-`, size - 10, size - 1],
      ['bytes=-500', size - 500, size - 1],
      [`bytes=100-${size + 1000}`, 100, size - 1], // the end is clamped
      [`bytes=-${size + 5}`, 0, size - 1], // a suffix longer than the file is the whole file
      [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await ranged(range);
      expect({ range, status: res.status }).toEqual({ range, status: 206 });
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers.get('content-length')).toBe(String(end - start + 1));
      expect(res.body.equals(full.subarray(start, end + 1))).toBe(true);
    }
  });

  test('a range beyond the end is 416 with the size; ignorable ranges get the whole file', async () => {
    const size = full.length;
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
      const res = await ranged(range);
      expect({ range, status: res.status }).toEqual({ range, status: 416 });
      expect(res.headers.get('content-range')).toBe(`bytes */${size}`);
    }
    for (const range of ['bytes=10-5', 'bytes=0-1,5-6', 'items=0-5', 'bytes=abc']) {
      const res = await ranged(range);
      expect({ range, status: res.status }).toEqual({ range, status: 200 });
      expect(res.body.equals(full)).toBe(true);
    }
  });

  test('If-Range, If-None-Match and HEAD', async () => {
    const same = await ranged('bytes=0-9', { 'If-Range': etag });
    expect(same.status).toBe(206);
    const other = await ranged('bytes=0-9', { 'If-Range': '"something-else"' });
    expect(other.status).toBe(200);
    expect(other.body.equals(full)).toBe(true);
    const cached = await download('/repos/alice/Arch/archive/main.zip', { headers: { 'If-None-Match': etag } });
    expect(cached.status).toBe(304);
    const head = await download('/repos/alice/Arch/archive/main.zip', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(full.length));
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect(head.body.length).toBe(0);
    const headRange = await download('/repos/alice/Arch/archive/main.zip', { method: 'HEAD', headers: { Range: 'bytes=5-14' } });
    expect(headRange.status).toBe(206);
    expect(headRange.headers.get('content-range')).toBe(`bytes 5-14/${full.length}`);
  });
});

describe('the archive cache', () => {
  const cacheDir = () => path.join(server.dataDir, 'archives', String(repoId));

  test('archives are cached per commit and served from the cache afterwards', async () => {
    const first = await download('/repos/alice/Arch/archive/v1.0.zip');
    expect(first.status).toBe(200);
    const file = path.join(cacheDir(), `${mainHead}.Arch.zip`);
    expect(fs.existsSync(file)).toBe(true);
    const before = fs.statSync(file).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await download('/repos/alice/Arch/archive/main.zip');
    expect(second.body.equals(first.body)).toBe(true);
    expect(fs.statSync(file).mtimeMs).toBe(before);
    // Prove the bytes come from the file: replace it, and the next answer is the replacement.
    fs.writeFileSync(file, 'from the cache');
    const mtime = fs.statSync(file).mtimeMs;
    expect((await download(`/repos/alice/Arch/archive/${mainHead}.zip`)).body.toString()).toBe('from the cache');
    expect((await download('/repos/alice/Arch/archive/main.zip')).body.toString()).toBe('from the cache');
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    fs.rmSync(file);
    // Gone from the cache: made again.
    const again = await download('/repos/alice/Arch/archive/main.zip');
    expect(again.body.equals(first.body)).toBe(true);
  });

  test('concurrent first requests all get the complete archive; no temporary files are left', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => download('/repos/alice/Arch/archive/feature/x.zip')));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    for (const r of results) {
      expect(r.body.equals(results[0].body)).toBe(true);
      expect(r.headers.get('content-length')).toBe(String(r.body.length));
    }
    expect(unzip(results[0].body).get('Arch/feature.txt')).toBe('only on the feature branch\n');
    expect(fs.readdirSync(cacheDir()).filter((f) => f.startsWith('.'))).toEqual([]);
  });
});

describe('errors and access', () => {
  test('unknown refs are 404, unknown formats 400, malformed refs 422, an empty repository 404', async () => {
    for (const name of ['nope.zip', 'feature/nope.tar.gz', `${'f'.repeat(40)}.zip`, 'v9.bundle']) {
      const res = await download(`/repos/alice/Arch/archive/${name}`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
      expect(JSON.parse(res.body.toString()).message).toMatch(/does not exist/);
    }
    expect((await download('/repos/alice/Arch/archive/main.rar')).status).toBe(400);
    expect((await download('/repos/alice/Arch/archive/main')).status).toBe(400);
    expect((await download('/repos/alice/Arch/archive/.zip')).status).toBe(400);
    expect((await download('/repos/alice/Arch/archive/a..b.zip')).status).toBe(422);
    expect((await download('/repos/alice/Arch/archive/-x.zip')).status).toBe(422);
    expect((await download('/repos/alice/empty/archive/main.zip')).status).toBe(404);
    expect((await download('/repos/alice/nope/archive/main.zip')).status).toBe(404);
  });

  test('a private repository needs a caller who may read it', async () => {
    expect((await download('/repos/alice/hidden/archive/main.zip')).status).toBe(404);
    expect((await download('/repos/alice/hidden/archive/main.zip', { token: bobToken })).status).toBe(404);
    const res = await download('/repos/alice/hidden/archive/main.zip', { token: aliceToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('private');
    expect([...unzip(res.body).keys()]).toEqual(['hidden/README.md']);
  });

  test('a token without the repository scope is refused', async () => {
    const alice = { name: 'alice', password: 'alice-password-1' };
    const userOnly = await server.token(alice, ['read:user']);
    const res = await download('/repos/alice/Arch/archive/main.zip', { token: userOnly });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body.toString()).message).toMatch(/read:repository/);
  });
});
