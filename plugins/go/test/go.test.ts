import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startServer, type TestServer } from '@hearth/testing';
import { writeZip, ZipFile } from '@hearth/package-kit';
import { readModuleZip } from '../src/module-zip';
import { MODULE_PREFIX, moduleRepository, moduleZip } from './helpers';

const GO_MOD = (p: string) => `// a comment the proxy must keep\nmodule   ${p} // trailing\n\ngo 1.18\n`;

describe('Go module proxy (GOPROXY protocol)', () => {
  let server: TestServer;
  let write: string;
  let del: string;

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const get = (p: string, token?: string) => fetch(url(p), { headers: token ? { Authorization: `token ${token}` } : {} });
  const upload = (owner: string, body: Buffer, token: string | null = write) =>
    fetch(url(`${owner}/go/upload`), { method: 'PUT', headers: token ? { Authorization: `token ${token}` } : {}, body });
  const expectText = async (res: Response, status: number, body?: string | RegExp) => {
    const text = await res.text();
    expect([res.status, text]).toEqual([
      status,
      body === undefined ? expect.anything() : typeof body === 'string' ? body : expect.stringMatching(body),
    ]);
    return text;
  };

  beforeAll(async () => {
    server = await startServer({ plugins: { go: { enabled: true, settings: { maxZipSize: 64 * 1024 } } } });
    const alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
    del = await server.token(alice, ['delete:package']);
  });
  afterAll(() => server.close());

  test('uploads that break the module zip rules are 400 with the reason, and store nothing', async () => {
    const m = 'example.com/bad';
    const ok = { 'go.mod': GO_MOD(m), 'bad.go': 'package bad\n' };
    const raw = (entries: { name: string; data?: string; unixMode?: number }[]) =>
      writeZip(entries.map((e) => ({ name: e.name, data: Buffer.from(e.data ?? 'x'), unixMode: e.unixMode })));
    const corruptCrc = moduleZip(m, 'v1.0.0', ok);
    corruptCrc[14] ^= 0xff; // local header CRC: irrelevant …
    const central = corruptCrc.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    corruptCrc[central + 16] ^= 0xff; // … the central directory's CRC is what counts
    const lyingSize = moduleZip(m, 'v1.0.0', ok);
    const c2 = lyingSize.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    lyingSize.writeUInt32LE(600 << 20, c2 + 24);
    const cases: [string, Buffer, RegExp][] = [
      ['not a zip', Buffer.from('just some text, not a zip archive at all'), /not a zip archive/],
      ['no module@version prefix', raw([{ name: 'go.mod' }]), /nothing under "module@version\/"/],
      ['no dot in the first element', moduleZip('example/bad', 'v1.0.0', { 'a.go': 'package a\n' }), /missing dot in first path element/],
      ['upper case host', moduleZip('Example.com/bad', 'v1.0.0', { 'a.go': 'package a\n' }), /first path element/],
      ['non-canonical version', moduleZip(m, 'v1.0', ok), /canonical semantic version/],
      ['build metadata', moduleZip(m, 'v1.0.0+build.1', ok), /canonical semantic version/],
      ['missing v', moduleZip(m, '1.0.0', ok), /canonical semantic version/],
      ['v2 without /v2', moduleZip(m, 'v2.0.0', ok), /no \/v2 suffix/],
      ['/v2 with v1', moduleZip(`${m}/v2`, 'v1.0.0', { 'go.mod': GO_MOD(`${m}/v2`) }), /needs major version v2/],
      ['/v1 suffix', moduleZip(`${m}/v1`, 'v1.0.0', { 'a.go': 'package a\n' }), /invalid major version suffix/],
      ['+incompatible with go.mod', moduleZip(m, 'v2.0.0+incompatible', ok), /\+incompatible is for modules without go.mod/],
      ['+incompatible below v2', moduleZip(m, 'v1.0.0+incompatible', { 'a.go': 'package a\n' }), /only for major versions 2 and above/],
      [
        'file outside the prefix',
        raw([{ name: `${m}@v1.0.0/a.go` }, { name: 'elsewhere/b.go' }]),
        /"elsewhere\/b.go" is not under "example.com\/bad@v1.0.0\/"/,
      ],
      ['other version in a path', raw([{ name: `${m}@v1.0.0/a.go` }, { name: `${m}@v1.0.1/b.go` }]), /is not under/],
      [
        'case-fold collision',
        moduleZip(m, 'v1.0.0', { ...ok, 'README.md': 'a', 'readme.md': 'b' }),
        /"readme.md" collides with "README.md"/,
      ],
      ['file and directory collide', moduleZip(m, 'v1.0.0', { ...ok, Docs: 'a', 'docs/x.md': 'b' }), /collides with "Docs"/],
      [
        'go.mod in a sub-directory',
        moduleZip(m, 'v1.0.0', { ...ok, 'sub/go.mod': 'module example.com/bad/sub\n' }),
        /go.mod only at the module root/,
      ],
      ['GO.MOD', moduleZip(m, 'v1.0.0', { 'GO.MOD': GO_MOD(m) }), /must be named exactly "go.mod"/],
      ['vendored package', moduleZip(m, 'v1.0.0', { ...ok, 'vendor/example.org/x/x.go': 'package x\n' }), /vendored packages/],
      ['windows reserved name', moduleZip(m, 'v1.0.0', { ...ok, 'aux.go': 'package bad\n' }), /reserved file name on Windows/],
      ['short name', moduleZip(m, 'v1.0.0', { ...ok, 'PROGRA~1.go': 'package bad\n' }), /Windows short name/],
      ['bad character', moduleZip(m, 'v1.0.0', { ...ok, 'a:b.go': 'package bad\n' }), /invalid character ":"/],
      ['unclean path', moduleZip(m, 'v1.0.0', { ...ok, 'a/../b.go': 'package bad\n' }), /path is not clean/],
      ['trailing dot', moduleZip(m, 'v1.0.0', { ...ok, 'dir./b.go': 'package bad\n' }), /trailing dot/],
      ['symbolic link', raw([{ name: `${m}@v1.0.0/link`, data: '/etc/passwd', unixMode: 0o120777 }]), /not a regular file/],
      ['CRC mismatch', corruptCrc, /CRC-32 mismatch/],
      ['declared size larger than 500 MiB in total', lyingSize, /uncompressed, more than 524288000/],
      [
        'go.mod declares another module',
        moduleZip(m, 'v1.0.0', { 'go.mod': GO_MOD('example.com/other') }),
        /declares the module path "example.com\/other"/,
      ],
      ['go.mod without module directive', moduleZip(m, 'v1.0.0', { 'go.mod': 'go 1.18\n' }), /no module directive/],
      [
        'LICENSE over 16 MiB',
        moduleZip(m, 'v1.0.0', { ...ok, LICENSE: Buffer.alloc((16 << 20) + 1, 0x20) }),
        /LICENSE is larger than 16777216 bytes/,
      ],
    ];
    for (const [what, body, message] of cases) {
      const res = await upload('alice', body);
      const json: any = await res.json();
      expect([what, res.status, json.message]).toEqual([what, 400, expect.stringMatching(message)]);
    }
    const big = await upload('alice', moduleZip(m, 'v1.0.0', { ...ok, 'noise.bin': crypto.randomBytes(70_000) }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as any).message).toMatch(/larger than 65536 bytes/);
    await expectText(await get(`alice/go/${m}/@v/list`), 404, /no such module/);
    expect((await server.api('GET', '/packages/alice?type=go')).body).toEqual([]);
  });

  test('serves list, info, mod, zip and latest for uploaded versions; case-encoded paths', async () => {
    const m = 'example.com/Hello';
    const files = (v: string) => ({ 'go.mod': GO_MOD(m), 'hello.go': `package hello\n\nconst Version = "${v}"\n`, LICENSE: 'MIT\n' });
    const zips: Record<string, Buffer> = {};
    for (const v of ['v1.0.0', 'v1.1.0', 'v1.2.0-rc.1', 'v1.1.1-0.20240102030405-abcdefabcdef', 'v0.9.0']) {
      zips[v] = moduleZip(m, v, files(v));
      const res = await upload('alice', zips[v]);
      expect([v, res.status]).toEqual([v, 201]);
      expect(await res.json()).toEqual({ module: m, version: v });
    }
    const base = 'alice/go/example.com/!hello';
    const list = await get(`${base}/@v/list`);
    expect(list.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    // Pseudo-versions are not listed; semver order.
    await expectText(list, 200, 'v0.9.0\nv1.0.0\nv1.1.0\nv1.2.0-rc.1\n');
    const latest = await get(`${base}/@latest`);
    expect(latest.status).toBe(200);
    expect(await latest.json()).toEqual({ Version: 'v1.1.0', Time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    const info = await get(`${base}/@v/v1.2.0-rc.1.info`);
    expect(info.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await info.json()) as any).Version).toBe('v1.2.0-rc.1');
    await expectText(await get(`${base}/@v/v1.0.0.mod`), 200, GO_MOD(m));
    const zip = await get(`${base}/@v/v1.0.0.zip`);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await zip.arrayBuffer()).equals(zips['v1.0.0'])).toBe(true);
    const etag = zip.headers.get('etag')!;
    expect((await fetch(url(`${base}/@v/v1.0.0.zip`), { headers: { 'If-None-Match': etag } })).status).toBe(304);
    // The pseudo-version is served, just not listed.
    expect((await get(`${base}/@v/v1.1.1-0.20240102030405-abcdefabcdef.info`)).status).toBe(200);

    // Module paths are case-sensitive: the lower-case path is another (absent) module; an
    // unescaped upper-case letter is not a valid proxy path.
    await expectText(await get('alice/go/example.com/hello/@v/list'), 404, /no such module/);
    await expectText(await get('alice/go/example.com/Hello/@v/list'), 404, /not a module proxy request/);
    await expectText(await get(`${base}/@v/v9.9.9.info`), 404, /unknown revision v9.9.9/);
    await expectText(await get(`${base}/@v/v1.0.0.tar`), 404);

    // Duplicates and case variants are 409.
    const dup = await upload('alice', zips['v1.0.0']);
    expect(dup.status).toBe(409);
    expect(((await dup.json()) as any).message).toMatch(/example.com\/Hello@v1.0.0 already exists/);
    const variant = await upload('alice', moduleZip('example.com/hello', 'v3.0.0+incompatible', { 'a.go': 'package hello\n' }));
    expect(variant.status).toBe(409);
    expect(((await variant.json()) as any).message).toMatch(/differs only in case from the stored module "example.com\/Hello"/);
    const rc = await upload('alice', moduleZip(m, 'v1.2.0-RC.1', files('x')));
    expect(rc.status).toBe(409);
  });

  test('a module without go.mod gets the synthesized module line; +incompatible v2', async () => {
    const m = 'example.com/legacy';
    expect((await upload('alice', moduleZip(m, 'v2.1.0+incompatible', { 'legacy.go': 'package legacy\n' }))).status).toBe(201);
    await expectText(await get(`alice/go/${m}/@v/v2.1.0+incompatible.mod`), 200, `module ${m}\n`);
    await expectText(await get(`alice/go/${m}/@v/list`), 200, 'v2.1.0+incompatible\n');
    const v2 = 'example.com/legacy/v3';
    expect((await upload('alice', moduleZip(v2, 'v3.0.0', { 'go.mod': `module ${v2}\n`, 'x.go': 'package legacy\n' }))).status).toBe(201);
    await expectText(await get(`alice/go/${v2}/@v/list`), 200, 'v3.0.0\n');
  });

  test('@latest falls back to pre-releases, then pseudo-versions', async () => {
    const pre = 'example.com/pre';
    for (const v of ['v0.1.0-alpha', 'v0.1.0-beta.2', 'v0.0.0-20240101000000-aaaaaaaaaaaa']) {
      expect((await upload('alice', moduleZip(pre, v, { 'go.mod': `module ${pre}\n` }))).status).toBe(201);
    }
    expect(((await (await get(`alice/go/${pre}/@latest`)).json()) as any).Version).toBe('v0.1.0-beta.2');
    const pseudo = 'example.com/pseudo';
    expect(
      (await upload('alice', moduleZip(pseudo, 'v0.0.0-20240101000000-aaaaaaaaaaaa', { 'go.mod': `module ${pseudo}\n` }))).status,
    ).toBe(201);
    await expectText(await get(`alice/go/${pseudo}/@v/list`), 200, '');
    expect(((await (await get(`alice/go/${pseudo}/@latest`)).json()) as any).Version).toBe('v0.0.0-20240101000000-aaaaaaaaaaaa');
  });

  test('non-module paths are plain-text 404 so that go can probe prefixes; no checksum database', async () => {
    for (const p of [
      'alice/go/example.com/@v/list',
      'alice/go/example.com/Hello/sub/@v/list',
      'alice/go/example.com/!hello/sub/pkg/@latest',
      'alice/go/sumdb/sum.golang.org/supported',
      'alice/go/sumdb/sum.golang.org/lookup/example.com/x@v1.0.0',
      'alice/go/whatever',
      'alice/go/example.com/x/@v/%zz.info',
    ]) {
      const res = await get(p);
      expect([p, res.status, res.headers.get('content-type')]).toEqual([p, 404, 'text/plain; charset=utf-8']);
    }
  });

  test('deletes through /api/v1/packages leave the proxy at once', async () => {
    const m = 'example.com/gone';
    for (const v of ['v1.0.0', 'v1.1.0']) expect((await upload('alice', moduleZip(m, v, { 'go.mod': `module ${m}\n` }))).status).toBe(201);
    await expectText(await get(`alice/go/${m}/@v/list`), 200, 'v1.0.0\nv1.1.0\n');
    expect(((await (await get(`alice/go/${m}/@latest`)).json()) as any).Version).toBe('v1.1.0');
    const pkg = await server.api('GET', `/packages/alice/go/${encodeURIComponent(m)}/v1.1.0/files`);
    expect(pkg.status).toBe(200);
    expect(pkg.body.map((f: any) => f.name).sort()).toEqual(['v1.1.0.mod', 'v1.1.0.zip']);

    expect((await server.api('DELETE', `/packages/alice/go/${encodeURIComponent(m)}/v1.1.0`, { token: del })).status).toBe(204);
    await expectText(await get(`alice/go/${m}/@v/list`), 200, 'v1.0.0\n');
    expect(((await (await get(`alice/go/${m}/@latest`)).json()) as any).Version).toBe('v1.0.0');
    await expectText(await get(`alice/go/${m}/@v/v1.1.0.zip`), 404);
    // The version can be uploaded again once deleted.
    expect((await upload('alice', moduleZip(m, 'v1.1.0', { 'go.mod': `module ${m}\n`, 'new.go': 'package gone\n' }))).status).toBe(201);
    expect((await server.api('DELETE', `/packages/alice/go/${encodeURIComponent(m)}/v1.0.0`, { token: del })).status).toBe(204);
    expect((await server.api('DELETE', `/packages/alice/go/${encodeURIComponent(m)}/v1.1.0`, { token: del })).status).toBe(204);
    await expectText(await get(`alice/go/${m}/@v/list`), 404, /no such module/);
  });

  test('private owners: anonymous callers get 404, a read:package token reads, writing needs write:package', async () => {
    const carol = await server.user('carol', { visibility: 'private' });
    const carolWrite = await server.token(carol, ['write:package']);
    const carolRead = await server.token(carol, ['read:package']);
    const m = 'example.com/secret';
    expect((await upload('carol', moduleZip(m, 'v1.0.0', { 'go.mod': `module ${m}\n` }), carolWrite)).status).toBe(201);
    for (const p of [`carol/go/${m}/@v/list`, `carol/go/${m}/@v/v1.0.0.zip`, `carol/go/${m}/@latest`]) {
      const anonymous = await get(p);
      expect([p, anonymous.status]).toEqual([p, 404]);
      // The package guard's refusal in go's shape: plain text, which go prints.
      expect([p, anonymous.headers.get('content-type')]).toEqual([p, 'text/plain; charset=utf-8']);
      expect(await anonymous.text()).toMatch(/\n$/);
      expect([p, (await get(p, carolRead)).status]).toEqual([p, 200]);
    }
    // Basic auth with the token as password (what go sends from a netrc file) works too.
    const basic = `Basic ${Buffer.from(`carol:${carolRead}`).toString('base64')}`;
    expect((await fetch(url(`carol/go/${m}/@v/list`), { headers: { Authorization: basic } })).status).toBe(200);
    // Another user sees nothing; a read token cannot publish; anonymous uploads are refused.
    const dave = await server.user('dave');
    expect((await get(`carol/go/${m}/@v/list`, await server.token(dave, ['read:package']))).status).toBe(404);
    expect((await upload('carol', moduleZip(m, 'v1.0.1', { 'go.mod': `module ${m}\n` }), carolRead)).status).toBe(403);
    expect([401, 404]).toContain((await upload('carol', moduleZip(m, 'v1.0.1', { 'go.mod': `module ${m}\n` }), null)).status);
    expect((await upload('alice', moduleZip(m, 'v1.0.1', { 'go.mod': `module ${m}\n` }), carolWrite)).status).toBe(403);
  });

  test('concurrent uploads of one version: one 201, the rest 409', async () => {
    const m = 'example.com/race';
    const body = moduleZip(m, 'v1.0.0', { 'go.mod': `module ${m}\n`, 'r.go': 'package race\n' });
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => upload('alice', body)))).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    const files = await server.api('GET', `/packages/alice/go/${encodeURIComponent(m)}/v1.0.0/files`);
    expect(files.body).toHaveLength(2);
  });

  test('deflated zips of the real go toolchain shape (data descriptors aside) round-trip byte for byte', async () => {
    const m = 'example.com/bytes';
    const payload = zlib.gzipSync(Buffer.from('binary payload'));
    const body = moduleZip(m, 'v1.0.0', { 'go.mod': `module ${m}\n`, 'data.bin': payload, 'ünïcode/名前.go': 'package bytes\n' });
    expect((await upload('alice', body)).status).toBe(201);
    const zip = Buffer.from(await (await get(`alice/go/${m}/@v/v1.0.0.zip`)).arrayBuffer());
    expect(zip.equals(body)).toBe(true);
  });
});

describe('Go modules served from repository tags', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  const repos: Array<{ cleanup(): void }> = [];
  const lib = `${MODULE_PREFIX}/alice/lib`;
  const goMod = (p: string) => `module ${p}\n\ngo 1.18\n`;

  const url = (p: string) => new URL(`api/packages/alice/go/${p}`, server.url);
  const get = (p: string, headers: Record<string, string> = {}) => fetch(url(p), { headers });
  const basic = () => ({ Authorization: `Basic ${Buffer.from(`${alice.name}:${alice.password}`).toString('base64')}` });
  const repository = async (name: string, options: { private?: boolean } = {}) => {
    const repo = await moduleRepository(server, alice, name, options);
    repos.push(repo);
    return repo;
  };
  /** The file names (without the module@version/ prefix) and contents of a served zip, checked by the plugin's own zip reader. */
  const zipFiles = async (zip: Buffer, prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-go-zip-'));
    const file = path.join(dir, 'm.zip');
    fs.writeFileSync(file, zip);
    try {
      await readModuleZip(file); // the upload rules: what go's own checks enforce
      const archive = await ZipFile.open(file);
      const files: Record<string, string> = {};
      try {
        for (const entry of archive.entries) {
          const chunks: Buffer[] = [];
          await archive.read(entry, (c) => chunks.push(c));
          expect(entry.name.startsWith(prefix)).toBe(true);
          files[entry.name.slice(prefix.length)] = Buffer.concat(chunks).toString();
        }
      } finally {
        await archive.close();
      }
      return files;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  beforeAll(async () => {
    server = await startServer({ plugins: { go: { enabled: true, settings: { modulePathPrefix: MODULE_PREFIX } } } });
    alice = await server.user('alice');
  });
  afterAll(async () => {
    for (const r of repos) r.cleanup();
    await server.close();
  });

  test("the zip of a tag applies Go's exclusions; .mod is the go.mod at the tag; .info has the commit date", async () => {
    const repo = await repository('lib');
    const kept = {
      'go.mod': goMod(lib),
      'lib.go': 'package lib\n',
      'vendor/modules.txt': '# modules\n',
      'vendor/README': 'kept\n',
      LICENSE: 'MIT\n',
    };
    await repo.commit(
      {
        ...kept,
        'vendor/example.com/dep/dep.go': 'package dep\n', // a vendored package
        'internal/vendor/x.go': 'package vendor\n', // so is this, by Go's historical offset for nested vendor directories
        'tools/go.mod': goMod(`${lib}/tools`),
        'tools/tool.go': 'package tools\n',
        'tools/deep/d.go': 'package deep\n', // a nested module
        '.hg_archival.txt': 'repo: x\n',
        'link.go': { link: 'lib.go' }, // a symbolic link
      },
      [],
    );
    // A submodule (gitlink) entry, added with plumbing.
    await repo.git(['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},third_party/sub`]);
    await repo.git(['commit', '-q', '-m', 'submodule']);
    await repo.git(['tag', 'v1.0.0']);
    await repo.git(['push', '-q', 'origin', 'HEAD:refs/heads/main', 'refs/tags/v1.0.0']);
    const commitTime = Number((await repo.git(['log', '-1', '--format=%ct', 'v1.0.0'])).trim());

    expect(await (await get(`${lib}/@v/list`)).text()).toBe('v1.0.0\n');
    const zipRes = await get(`${lib}/@v/v1.0.0.zip`);
    expect([zipRes.status, zipRes.headers.get('content-type')]).toEqual([200, 'application/zip']);
    const zip = Buffer.from(await zipRes.arrayBuffer());
    expect(await zipFiles(zip, `${lib}@v1.0.0/`)).toEqual(kept);
    expect(await (await get(`${lib}/@v/v1.0.0.mod`)).text()).toBe(goMod(lib));
    expect(JSON.parse(await (await get(`${lib}/@v/v1.0.0.info`)).text())).toEqual({
      Version: 'v1.0.0',
      Time: new Date(commitTime * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
    expect(JSON.parse(await (await get(`${lib}/@latest`)).text()).Version).toBe('v1.0.0');

    // Cached per repository and commit: the same bytes again (ETag answered 304), rebuilt identically after a push drops the cache.
    const etag = zipRes.headers.get('etag')!;
    expect((await get(`${lib}/@v/v1.0.0.zip`, { 'If-None-Match': etag })).status).toBe(304);
    const cacheDir = path.join(server.dataDir, 'go', 'tag-zips');
    expect(fs.readdirSync(cacheDir).length).toBe(1);
    await repo.commit({ 'go.mod': goMod(lib), 'lib.go': 'package lib\n\nconst Two = 2\n' }, ['v1.0.1']);
    expect(fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : []).toEqual([]);
    const again = Buffer.from(await (await get(`${lib}/@v/v1.0.0.zip`)).arrayBuffer());
    expect(again.equals(zip)).toBe(true);
    expect(await (await get(`${lib}/@v/list`)).text()).toBe('v1.0.0\nv1.0.1\n');
  });

  test('tags whose go.mod declares another module, or that do not fit the path, are not versions', async () => {
    const repo = await repository('mixed');
    const mixed = `${MODULE_PREFIX}/alice/mixed`;
    await repo.commit({ 'go.mod': goMod(mixed), 'm.go': 'package mixed\n' }, ['v1.0.0', '1.0.1', 'v1.0', 'v1.0.2+build', 'v2.0.0']);
    await repo.commit({ 'go.mod': goMod('example.com/elsewhere'), 'm.go': 'package mixed\n' }, ['v1.1.0']);
    await repo.commit({ 'm.go': 'package mixed\n' }, ['v1.2.0']); // no go.mod at all
    await repo.commit({ 'go.mod': goMod(`${mixed}/v3`), 'm.go': 'package mixed\n' }, ['v1.3.0', 'v3.0.0', 'v3.1.0-rc.1']);
    await repo.commit({ 'go.mod': goMod(mixed), 'bad:name.go': 'package mixed\n' }, ['v1.4.0']);
    expect(await (await get(`${mixed}/@v/list`)).text()).toBe('v1.0.0\nv1.4.0\n');
    for (const v of ['v1.1.0', 'v1.2.0', 'v1.3.0', 'v2.0.0']) {
      const res = await get(`${mixed}/@v/${v}.info`);
      expect([v, res.status, res.headers.get('content-type')]).toEqual([v, 404, 'text/plain; charset=utf-8']);
    }
    // The major version branch: its own module path, its own tags.
    expect(await (await get(`${mixed}/v3/@v/list`)).text()).toBe('v3.0.0\nv3.1.0-rc.1\n');
    expect(JSON.parse(await (await get(`${mixed}/v3/@latest`)).text()).Version).toBe('v3.0.0');
    // A tree Go cannot make a module zip of: listed (go would list it too) but its zip is a plain-text 404 saying why.
    const broken = await get(`${mixed}/@v/v1.4.0.zip`);
    expect([broken.status, await broken.text()]).toEqual([404, expect.stringMatching(/"bad:name.go": invalid character ":"/)]);
    // Paths that name no repository of this owner, or another owner's.
    for (const p of [`${MODULE_PREFIX}/alice/nothing`, `${MODULE_PREFIX}/bob/mixed`, `${MODULE_PREFIX}/alice/mixed/v1`]) {
      expect([p, (await get(`${p}/@v/list`)).status]).toEqual([p, 404]);
    }
  });

  test('a private repository is a plain-text 404 for anonymous callers and for users who may not read it', async () => {
    const repo = await repository('hidden', { private: true });
    const hidden = `${MODULE_PREFIX}/alice/hidden`;
    await repo.commit({ 'go.mod': goMod(hidden), 'h.go': 'package hidden\n' }, ['v0.1.0']);
    const bob = await server.user('bob');
    const bobRead = await server.token(bob, ['read:package', 'read:repository']);
    for (const p of ['@v/list', '@latest', '@v/v0.1.0.info', '@v/v0.1.0.mod', '@v/v0.1.0.zip'].map((s) => `${hidden}/${s}`)) {
      const refused: Array<Record<string, string>> = [{}, { Authorization: `token ${bobRead}` }];
      for (const headers of refused) {
        const res = await get(p, headers);
        expect([p, res.status, res.headers.get('content-type')]).toEqual([p, 404, 'text/plain; charset=utf-8']);
      }
      expect([p, (await get(p, basic())).status]).toEqual([p, 200]);
    }
  });

  test('an uploaded version wins over the tag of the same version; both kinds are listed', async () => {
    const repo = await repository('both');
    const both = `${MODULE_PREFIX}/alice/both`;
    await repo.commit({ 'go.mod': goMod(both), 'b.go': 'package both\n\nconst From = "tag"\n' }, ['v1.0.0', 'v1.1.0']);
    const write = await server.token(alice, ['write:package']);
    const uploaded = moduleZip(both, 'v1.0.0', { 'go.mod': goMod(both), 'b.go': 'package both\n\nconst From = "upload"\n' });
    const put = async (body: Buffer) =>
      (
        await fetch(new URL('api/packages/alice/go/upload', server.url), {
          method: 'PUT',
          headers: { Authorization: `token ${write}` },
          body,
        })
      ).status;
    expect(await put(uploaded)).toBe(201);
    expect(await put(moduleZip(both, 'v0.9.0', { 'go.mod': goMod(both) }))).toBe(201);
    expect(await (await get(`${both}/@v/list`)).text()).toBe('v0.9.0\nv1.0.0\nv1.1.0\n');
    const zip = Buffer.from(await (await get(`${both}/@v/v1.0.0.zip`)).arrayBuffer());
    expect(zip.equals(uploaded)).toBe(true);
    expect((await zipFiles(Buffer.from(await (await get(`${both}/@v/v1.1.0.zip`)).arrayBuffer()), `${both}@v1.1.0/`))['b.go']).toContain(
      '"tag"',
    );
    expect(JSON.parse(await (await get(`${both}/@latest`)).text()).Version).toBe('v1.1.0');
  });
});

describe('Go module proxy disabled', () => {
  test('no routes, and no go_* tables', async () => {
    const server = await startServer({ plugins: { go: { enabled: false } } });
    try {
      const res = await fetch(new URL('api/packages/forge-admin/go/example.com/x/@v/list', server.url));
      expect(res.status).toBe(404);
      const db = server.kernel.db;
      const client = String(db.client.config.client);
      const rows = client.includes('sqlite')
        ? await db('sqlite_master').where({ type: 'table' }).select({ name: 'name' })
        : await db('information_schema.tables')
            .where(client.includes('pg') ? { table_schema: 'public' } : { table_schema: db.raw('database()') })
            .select({ name: 'table_name' });
      const names = rows.map((r: { name: string }) => r.name);
      expect(names.length).toBeGreaterThan(5);
      expect(names.filter((n: string) => /^go_/i.test(n))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
