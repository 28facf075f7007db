import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '@hearth/testing';
import { GO_PACKAGE_HINT, goAvailable, goEnv, h1, moduleRepository, moduleZip, mustSucceed, run, MODULE_PREFIX, zipHash } from './helpers';

const GREET = 'example.com/Greet';
const LEGACY = 'example.com/legacy';
const SECRET = 'example.com/secret';

const greetFiles = (v: string, greeting: string) => ({
  'go.mod': `module ${GREET}\n\ngo 1.18\n`,
  'greet.go':
    `package greet\n\n// Version is the module version this file was published in.\nconst Version = "${v}"\n\nfunc ` +
    `Hello(name string) string { return "${greeting}, " + name }\n`,
  LICENSE: 'MIT\n',
});
const legacyFiles = { 'legacy.go': 'package legacy\n\nfunc Answer() int { return 42 }\n' };
const secretFiles = { 'go.mod': `module ${SECRET}\n\ngo 1.18\n`, 'secret.go': 'package secret\n\nconst Word = "swordfish"\n' };

/**
 * A TLS front for the test server: go 1.19 sends netrc credentials only over https. Its
 * certificate (for 127.0.0.1) comes from openssl; go trusts it through SSL_CERT_FILE.
 */
async function tlsFront(dir: string, target: string): Promise<{ url: string; certFile: string; close: () => Promise<void> }> {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  mustSucceed(
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { cwd: dir, env: { PATH: process.env.PATH } },
    ),
    'openssl (Debian package openssl) making a test certificate',
  );
  const upstream = new URL(target);
  const server = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) }, (req, res) => {
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/`, certFile, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the go command (golang-go) against the module proxy', () => {
  let server: TestServer;
  let tmp: string;
  let aliceProxy: string;
  let carolRead: string;

  beforeAll(async () => {
    if (!(await goAvailable())) throw new Error(GO_PACKAGE_HINT);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-go-client-'));
    server = await startServer({ plugins: { go: { enabled: true } } });
    const alice = await server.user('alice');
    const write = await server.token(alice, ['write:package']);
    const carol = await server.user('carol', { visibility: 'private' });
    const carolWrite = await server.token(carol, ['write:package']);
    carolRead = await server.token(carol, ['read:package']);
    const put = async (owner: string, token: string, body: Buffer) => {
      const res = await fetch(new URL(`api/packages/${owner}/go/upload`, server.url), {
        method: 'PUT',
        headers: { Authorization: `token ${token}` },
        body,
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    };
    await put('alice', write, moduleZip(GREET, 'v1.0.0', greetFiles('v1.0.0', 'Hello')));
    await put('alice', write, moduleZip(GREET, 'v1.1.0', greetFiles('v1.1.0', 'Howdy')));
    await put('alice', write, moduleZip(GREET, 'v1.2.0-beta.1', greetFiles('v1.2.0-beta.1', 'Yo')));
    await put('alice', write, moduleZip(LEGACY, 'v2.0.0+incompatible', legacyFiles));
    await put('carol', carolWrite, moduleZip(SECRET, 'v0.1.0', secretFiles));
    aliceProxy = `${server.url}api/packages/alice/go`;
  });
  afterAll(async () => {
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('go mod download -json: the h1 hashes match the uploaded files, and two fresh caches agree', async () => {
    const results = [];
    for (const cache of ['first', 'second']) {
      const env = goEnv(path.join(tmp, cache), aliceProxy);
      const r = mustSucceed(
        await run('go', ['mod', 'download', '-json', `${GREET}@v1.0.0`, `${LEGACY}@v2.0.0+incompatible`], { cwd: tmp, env }),
        'go mod download',
      );
      const docs = r.stdout
        .trim()
        .split(/\n(?=\{)/)
        .map((d) => JSON.parse(d));
      results.push(docs.map((d) => ({ Path: d.Path, Version: d.Version, Sum: d.Sum, GoModSum: d.GoModSum, Error: d.Error })));
      const greet = docs.find((d) => d.Path === GREET);
      // The case-encoded cache path shows the proxy URL space go used.
      expect(greet.Zip).toContain(path.join('cache', 'download', 'example.com', '!greet', '@v', 'v1.0.0.zip'));
      expect(fs.readFileSync(greet.GoMod, 'utf8')).toBe(greetFiles('v1.0.0', 'Hello')['go.mod']);
      expect(fs.existsSync(path.join(greet.Dir, 'greet.go'))).toBe(true);
    }
    expect(results[0]).toEqual(results[1]);
    expect(results[0]).toEqual([
      {
        Path: GREET,
        Version: 'v1.0.0',
        Sum: zipHash(GREET, 'v1.0.0', greetFiles('v1.0.0', 'Hello')),
        GoModSum: h1({ 'go.mod': greetFiles('v1.0.0', 'Hello')['go.mod'] }),
        Error: undefined,
      },
      {
        Path: LEGACY,
        Version: 'v2.0.0+incompatible',
        Sum: zipHash(LEGACY, 'v2.0.0+incompatible', legacyFiles),
        GoModSum: h1({ 'go.mod': `module ${LEGACY}\n` }),
        Error: undefined,
      },
    ]);
  });

  test('go list -m -versions lists releases and pre-releases; @latest picks the highest release', async () => {
    const env = goEnv(path.join(tmp, 'list'), aliceProxy);
    const r = mustSucceed(await run('go', ['list', '-m', '-versions', GREET], { cwd: tmp, env }), 'go list -m -versions');
    expect(r.stdout.trim()).toBe(`${GREET} v1.0.0 v1.1.0 v1.2.0-beta.1`);
    const latest = mustSucceed(await run('go', ['list', '-m', '-json', `${GREET}@latest`], { cwd: tmp, env }), 'go list -m @latest');
    expect(JSON.parse(latest.stdout).Version).toBe('v1.1.0');
  });

  test('go get and go build a program that uses uploaded modules, then run it', async () => {
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app, { recursive: true });
    fs.writeFileSync(path.join(app, 'go.mod'), 'module example.com/app\n\ngo 1.18\n');
    fs.writeFileSync(
      path.join(app, 'main.go'),
      [
        'package main',
        '',
        'import (',
        '\t"fmt"',
        '',
        `\t"${GREET}"`,
        `\t"${LEGACY}"`,
        ')',
        '',
        'func main() { fmt.Println(greet.Hello("gopher"), greet.Version, legacy.Answer()) }',
        '',
      ].join('\n'),
    );
    const env = goEnv(path.join(tmp, 'build'), aliceProxy);
    mustSucceed(await run('go', ['get', `${GREET}@latest`, `${LEGACY}@v2.0.0+incompatible`], { cwd: app, env }), 'go get');
    const goMod = fs.readFileSync(path.join(app, 'go.mod'), 'utf8');
    expect(goMod).toContain(`${GREET} v1.1.0`);
    expect(goMod).toContain(`${LEGACY} v2.0.0+incompatible`);
    expect(fs.readFileSync(path.join(app, 'go.sum'), 'utf8')).toContain(
      `${GREET} v1.1.0 ` + `${zipHash(GREET, 'v1.1.0', greetFiles('v1.1.0', 'Howdy'))}`,
    );
    mustSucceed(await run('go', ['build', '-o', 'app', '.'], { cwd: app, env }), 'go build');
    const out = mustSucceed(await run(path.join(app, 'app'), [], { cwd: app, env }), 'the built program');
    expect(out.stdout.trim()).toBe('Howdy, gopher v1.1.0 42');
  });

  test('a private owner: netrc credentials over https work; without them go sees 404', async () => {
    const front = await tlsFront(tmp, server.url);
    try {
      const netrc = path.join(tmp, 'netrc');
      fs.writeFileSync(netrc, `machine 127.0.0.1\nlogin carol\npassword ${carolRead}\n`, { mode: 0o600 });
      const env = goEnv(path.join(tmp, 'private'), `${front.url}api/packages/carol/go`, { NETRC: netrc, SSL_CERT_FILE: front.certFile });
      const r = mustSucceed(
        await run('go', ['mod', 'download', '-json', `${SECRET}@v0.1.0`], { cwd: tmp, env }),
        'go mod download with netrc',
      );
      expect(JSON.parse(r.stdout).Sum).toBe(zipHash(SECRET, 'v0.1.0', secretFiles));

      // go 1.19 never sends credentials over plain http (netrc is read for https only, userinfo is refused).
      const withUserinfo = new URL('api/packages/carol/go', server.url);
      withUserinfo.username = 'carol';
      withUserinfo.password = carolRead;
      const viaUrl = await run('go', ['list', '-m', '-versions', SECRET], {
        cwd: tmp,
        env: goEnv(path.join(tmp, 'private-url'), withUserinfo.toString()),
      });
      expect(viaUrl.stderr).toMatch(/refusing to pass credentials to insecure URL/);

      const anonymous = goEnv(path.join(tmp, 'private-anonymous'), `${front.url}api/packages/carol/go`, {
        NETRC: path.join(tmp, 'no-netrc'),
        SSL_CERT_FILE: front.certFile,
      });
      const denied = await run('go', ['mod', 'download', '-json', `${SECRET}@v0.1.0`], { cwd: tmp, env: anonymous });
      expect(denied.code).not.toBe(0);
      expect(denied.stdout + denied.stderr).toMatch(/404 Not Found/);
    } finally {
      await front.close();
    }
  });
});

describe('the go command (golang-go) against modules served from repository tags', () => {
  let server: TestServer;
  let tmp: string;
  let proxy: string;
  let lib: string;
  let repo: Awaited<ReturnType<typeof moduleRepository>>;

  const libFiles = (v: string) => ({
    'go.mod': `module ${lib}\n\ngo 1.18\n`,
    'lib.go':
      `package lib\n\n// Release is the tag this file was committed for.\nconst Release = "${v}"\n\n` +
      'func Twice(n int) int { return 2 * n }\n',
    'vendor/modules.txt': '# vendored module list: kept in module zips\n',
    'vendor/example.com/dep/dep.go': 'package dep\n',
    'tools/go.mod': `module ${lib}/tools\n`,
    'tools/tool.go': 'package tools\n',
    LICENSE: 'MIT\n',
  });
  /** What Go puts in the module zip of libFiles: no vendored package, no nested module. */
  const zipped = (v: string) => {
    const files: Record<string, string> = libFiles(v);
    delete files['vendor/example.com/dep/dep.go'];
    delete files['tools/go.mod'];
    delete files['tools/tool.go'];
    return files;
  };

  beforeAll(async () => {
    if (!(await goAvailable())) throw new Error(GO_PACKAGE_HINT);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-go-tags-'));
    server = await startServer({ plugins: { go: { enabled: true, settings: { modulePathPrefix: MODULE_PREFIX } } } });
    const alice = await server.user('alice');
    lib = `${MODULE_PREFIX}/alice/lib`;
    proxy = `${server.url}api/packages/alice/go`;
    repo = await moduleRepository(server, alice, 'lib');
    await repo.commit(libFiles('v1.0.0'), ['v1.0.0']);
    await repo.commit(libFiles('v1.1.0'), ['v1.1.0', 'not-a-version']);
  });
  afterAll(async () => {
    repo?.cleanup();
    await server?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('go list -m -versions lists the tags; go mod download -json verifies the zip built from the tree', async () => {
    const env = goEnv(path.join(tmp, 'download'), proxy);
    const listed = mustSucceed(await run('go', ['list', '-m', '-versions', lib], { cwd: tmp, env }), 'go list -m -versions');
    expect(listed.stdout.trim()).toBe(`${lib} v1.0.0 v1.1.0`);
    const r = mustSucceed(await run('go', ['mod', 'download', '-json', `${lib}@v1.1.0`], { cwd: tmp, env }), 'go mod download');
    const doc = JSON.parse(r.stdout);
    expect(doc.Error).toBeUndefined();
    expect(doc.Sum).toBe(zipHash(lib, 'v1.1.0', zipped('v1.1.0')));
    expect(doc.GoModSum).toBe(h1({ 'go.mod': libFiles('v1.1.0')['go.mod'] }));
    expect(fs.readFileSync(path.join(doc.Dir, 'lib.go'), 'utf8')).toContain('"v1.1.0"');
    expect(fs.existsSync(path.join(doc.Dir, 'tools'))).toBe(false);
    // A second, fresh cache gets the same (cached) zip.
    const again = mustSucceed(
      await run('go', ['mod', 'download', '-json', `${lib}@v1.1.0`], { cwd: tmp, env: goEnv(path.join(tmp, 'download-again'), proxy) }),
      'go mod download (again)',
    );
    expect(JSON.parse(again.stdout).Sum).toBe(doc.Sum);
  });

  test('go get and go build a program using the module; a tag pushed later appears', async () => {
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app, { recursive: true });
    fs.writeFileSync(path.join(app, 'go.mod'), 'module example.com/app\n\ngo 1.18\n');
    fs.writeFileSync(
      path.join(app, 'main.go'),
      `package main\n\nimport (\n\t"fmt"\n\n\t"${lib}"\n)\n\n` + 'func main() { fmt.Println(lib.Twice(21), lib.Release) }\n',
    );
    const env = goEnv(path.join(tmp, 'build'), proxy);
    mustSucceed(await run('go', ['get', `${lib}@latest`], { cwd: app, env }), 'go get');
    expect(fs.readFileSync(path.join(app, 'go.sum'), 'utf8')).toContain(`${lib} v1.1.0 ${zipHash(lib, 'v1.1.0', zipped('v1.1.0'))}`);
    mustSucceed(await run('go', ['build', '-o', 'app', '.'], { cwd: app, env }), 'go build');
    expect(mustSucceed(await run(path.join(app, 'app'), [], { cwd: app, env }), 'the program').stdout.trim()).toBe('42 v1.1.0');

    await repo.commit(libFiles('v1.2.0'), ['v1.2.0']);
    const later = goEnv(path.join(tmp, 'later'), proxy);
    const listed = mustSucceed(await run('go', ['list', '-m', '-versions', lib], { cwd: tmp, env: later }), 'go list after a push');
    expect(listed.stdout.trim()).toBe(`${lib} v1.0.0 v1.1.0 v1.2.0`);
    mustSucceed(await run('go', ['get', `${lib}@v1.2.0`], { cwd: app, env }), 'go get v1.2.0');
    mustSucceed(await run('go', ['build', '-o', 'app', '.'], { cwd: app, env }), 'go build v1.2.0');
    expect(mustSucceed(await run(path.join(app, 'app'), [], { cwd: app, env }), 'the program').stdout.trim()).toBe('42 v1.2.0');
  });
});
