import crypto from 'node:crypto';
import path from 'node:path';
import type { TestServer } from './helpers/server';
import { textOf, WebClient, webServer, signedInAll } from './helpers/web';
import { makeCrate, publishBody, publishMeta } from '../plugins/cargo/test/helpers';
// The built module: its views are TSX, which the tests' transform does not compile.
import { packageSetup } from '../plugins/web/dist/package-setup';

/**
 * Package pages over plain HTTP: the owner's list (grouping, type filter, search), a version with
 * files, hashes, downloads and its format's client setup, private owners, who may delete a version
 * (and who sees the control), CSRF and the typed confirmation, and escaping of stored names.
 */
const PACKAGE_PROBE = path.join(__dirname, 'fixtures/plugins/package-probe');
const XSS_NAME = '<img src=x onerror=alert(1)>';
const XSS_VERSION = '1.0.0"><script>alert(2)</script>';

type User = { name: string; password: string; id: number };
let server: TestServer;
const users: Record<string, User> = {};
const clients: Record<string, WebClient> = {};
const tokens: Record<string, string> = {};
const files = { bin: crypto.randomBytes(3000), readme: Buffer.from('hello package\n') };

const sha = (algo: string, data: Buffer) => crypto.createHash(algo).update(data).digest('hex');

async function put(owner: string, p: string, body: Buffer): Promise<void> {
  const res = await fetch(new URL(`api/packages/${owner}/${p}`, server.url), {
    method: 'PUT',
    headers: { Authorization: `token ${tokens[owner]}` },
    body: new Uint8Array(body),
  });
  if (res.status >= 300) throw new Error(`PUT ${p}: ${res.status} ${await res.text()}`);
}

function expectInert(html: string) {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toMatch(/<img[^>]*onerror/);
}

const suite = webServer({ plugins: { 'package-probe': { package: PACKAGE_PROBE } } });
beforeAll(async () => {
  server = suite.server;
  users.alice = await server.user('alice');
  users.bob = await server.user('bob');
  users.hidden = await server.user('hidden', { visibility: 'private' });
  for (const name of ['alice', 'hidden']) tokens[name] = await server.token(users[name], ['write:package', 'read:package']);
  await put('alice', 'generic/tool/1.0.0/tool.bin', files.bin);
  await put('alice', 'generic/tool/1.0.0/README.txt', files.readme);
  await put('alice', 'generic/tool/1.1.0/tool.bin', files.readme);
  await put('alice', 'generic/other/2.0/other.txt', files.readme);
  await put('alice', `probe-semver/${encodeURIComponent(XSS_NAME)}/${encodeURIComponent(XSS_VERSION)}`, files.readme);
  await put('hidden', 'generic/secret-tool/1.0.0/secret.bin', files.readme);
  const crate = await fetch(new URL('api/packages/alice/cargo/api/v1/crates/new', server.url), {
    method: 'PUT',
    headers: { Authorization: tokens.alice },
    body: new Uint8Array(publishBody(publishMeta('hearth-demo', '0.3.1'), makeCrate('hearth-demo', '0.3.1'))),
  });
  expect(crate.status).toBe(200);
  Object.assign(clients, await signedInAll(server, users));
}, 120000);

describe('the owner’s packages', () => {
  test('one row per package with its newest version; type filter and search; linked from the profile', async () => {
    const res = await new WebClient(server).get('/alice/-/packages');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('tool generic 1.1.0 · 2 versions');
    expect(text).toContain('other generic 2.0 · 1 version');
    expect(text).toContain('hearth-demo cargo 0.3.1');
    expect(res.html).toContain('href="/alice/-/packages/generic/tool/1.1.0"');
    const generic = textOf((await clients.bob.get('/alice/-/packages?type=generic')).html);
    expect(generic).toContain('tool');
    expect(generic).not.toContain('hearth-demo');
    const search = textOf((await clients.bob.get('/alice/-/packages?q=OTH')).html);
    expect(search).toContain('other generic');
    expect(search).not.toContain('tool generic');
    expect(textOf((await clients.bob.get('/alice/-/packages?q=nothing-like-it')).html)).toContain('No packages match.');
    const profile = await clients.bob.get('/alice');
    expect(profile.html).toContain('href="/alice/-/packages"');
    // A package's own URL opens its newest version.
    const latest = await clients.bob.get('/alice/-/packages/generic/tool');
    expect(latest.status).toBe(303);
    expect(latest.headers.get('location')).toBe('/alice/-/packages/generic/tool/1.1.0');
  });

  test('a version page lists files with sizes, hashes and downloads, the versions, and the generic setup', async () => {
    const res = await clients.bob.get('/alice/-/packages/generic/tool/1.0.0');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('tool 1.0.0');
    expect(text).toContain('Published');
    expect(text).toContain('tool.bin 2.9 KiB');
    expect(text).toContain('README.txt 14 B');
    expect(text).toContain(sha('sha256', files.bin));
    expect(text).toContain(sha('sha512', files.bin));
    expect(text).toContain(`curl -OJ ${server.url}api/packages/alice/generic/tool/1.0.0/tool.bin`);
    expect(res.html).toContain('href="/alice/-/packages/generic/tool/1.1.0"');
    expect(res.html).toMatch(/<a href="\/alice\/-\/packages\/generic\/tool\/1\.0\.0" aria-current="page">1\.0\.0<\/a>/);
    const link = /href="(\/alice\/-\/packages\/generic\/tool\/1\.0\.0\/files\/\d+)"[^>]*>tool\.bin</.exec(res.html);
    expect(link).not.toBeNull();
    const download = await fetch(new URL(link![1], server.url));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain("filename*=UTF-8''tool.bin");
    expect(Buffer.from(await download.arrayBuffer()).equals(files.bin)).toBe(true);
    // A file id of another version is no file of this one.
    const other = await clients.bob.get(link![1].replace('/1.0.0/', '/1.1.0/'));
    expect(other.status).toBe(404);
    expect((await clients.bob.get('/alice/-/packages/generic/tool/9.9.9')).status).toBe(404);
    expect((await clients.bob.get('/alice/-/packages/generic/nope')).status).toBe(404);
  });

  test('a cargo crate shows the sparse registry of this server and the owner', async () => {
    const res = await clients.bob.get('/alice/-/packages/cargo/hearth-demo/0.3.1');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain(`index = "sparse+${server.url}api/packages/alice/cargo/"`);
    expect(text).toContain('cargo add hearth-demo@0.3.1 --registry hearth');
    expect(res.html).toContain('data-copy="#setup-0"');
  });
});

describe('access', () => {
  test('a private owner’s packages are 404 pages for strangers and anonymous visitors', async () => {
    const anonymous = new WebClient(server);
    const own = await clients.hidden.get('/hidden/-/packages/generic/secret-tool/1.0.0');
    expect(own.status).toBe(200);
    const link = /href="(\/hidden\/-\/packages\/generic\/secret-tool\/1\.0\.0\/files\/\d+)"/.exec(own.html)![1];
    expect(textOf(own.html)).toContain('not public');
    for (const client of [anonymous, clients.bob]) {
      for (const p of [
        '/hidden/-/packages',
        '/hidden/-/packages/generic/secret-tool/1.0.0',
        link,
        '/hidden/-/packages/generic/secret-tool',
      ]) {
        const res = await client.get(p);
        expect(res.status).toBe(404);
        expect(textOf(res.html)).not.toContain('secret-tool');
      }
    }
    expect(textOf((await clients.hidden.get('/hidden/-/packages')).html)).toContain('secret-tool');
  });

  test('others see no delete control; their deletes are refused (403 page) and nothing is deleted', async () => {
    const page = await clients.bob.get('/alice/-/packages/generic/other/2.0');
    expect(textOf(page.html)).not.toContain('Delete this version');
    expect((await clients.bob.get('/alice/-/packages/generic/other/2.0/settings')).status).toBe(403);
    const refused = await clients.bob.post(
      '/alice/-/packages/generic/other/2.0/settings',
      { action: 'delete', confirm: '2.0' },
      { csrfFrom: '/alice/-/packages/generic/other/2.0' },
    );
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain('Not allowed');
    const wrongConfirm = await clients.bob.post('/alice/-/packages/generic/other/2.0/settings', { action: 'delete', confirm: 'x' });
    expect(wrongConfirm.status).toBe(403);
    const anonymous = new WebClient(server);
    const form = await anonymous.get('/alice/-/packages/generic/other/2.0/settings');
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);
    const anonymousPost = await anonymous.post(
      '/alice/-/packages/generic/other/2.0/settings',
      { action: 'delete', confirm: '2.0' },
      { csrfFrom: '/user/login' },
    );
    expect(anonymousPost.status).toBe(401);
    expect((await server.api('GET', '/packages/alice/generic/other/2.0')).status).toBe(200);
  });

  test('the owner deletes a version: CSRF and the typed version are required', async () => {
    const page = await clients.alice.get('/alice/-/packages/generic/other/2.0');
    expect(textOf(page.html)).toContain('Delete this version');
    expect((await clients.alice.get('/alice/-/packages/generic/other/2.0/settings')).status).toBe(200);
    const noCsrf = await clients.alice.post(
      '/alice/-/packages/generic/other/2.0/settings',
      { action: 'delete', confirm: '2.0' },
      { csrf: null },
    );
    expect(noCsrf.status).toBe(403);
    const wrong = await clients.alice.post('/alice/-/packages/generic/other/2.0/settings', { action: 'delete', confirm: '2' });
    expect(wrong.status).toBe(422);
    expect(textOf(wrong.html)).toContain('Type the version, 2.0, exactly to confirm.');
    expect((await server.api('GET', '/packages/alice/generic/other/2.0')).status).toBe(200);
    const done = await clients.alice.post('/alice/-/packages/generic/other/2.0/settings', { action: 'delete', confirm: '2.0' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/alice/-/packages?deleted=1');
    expect((await server.api('GET', '/packages/alice/generic/other/2.0')).status).toBe(404);
    const list = textOf((await clients.alice.get('/alice/-/packages?deleted=1')).html);
    expect(list).toContain('The package version was deleted.');
    expect(list).not.toContain('other generic');
  });
});

test('stored markup in package names and versions renders inert', async () => {
  const list = await clients.bob.get('/alice/-/packages');
  expect(list.status).toBe(200);
  expectInert(list.html);
  expect(textOf(list.html)).toContain(XSS_NAME);
  const href = `/alice/-/packages/probe-semver/${encodeURIComponent(XSS_NAME)}/${encodeURIComponent(XSS_VERSION)}`;
  expect(list.html).toContain(`href="${href.replace(/&/g, '&amp;')}"`);
  const page = await clients.alice.get(href);
  expect(page.status).toBe(200);
  expectInert(page.html);
  const text = textOf(page.html);
  expect(text).toContain(`${XSS_NAME} ${XSS_VERSION}`);
  expect(text).toContain('No client setup is known for this package type');
});

describe('client setup of each format', () => {
  // The registries other than generic and cargo ship disabled; their setup is checked on the function that writes it.
  const root = 'https://forge.example/';
  const setup = (type: string, name: string, version: string, files: Array<{ name: string; key: string }> = []) =>
    (packageSetup({ root, appName: 'Hearth', owner: 'alice', type, name, version, files }) ?? []).map((b) => b.code).join('\n');

  test('apt, dnf and apk name the distribution, group and branch of the files, with the owner’s key', () => {
    const apt = setup('debian', 'hello', '1.0-1', [{ name: 'hello_1.0-1_amd64.deb', key: 'bookworm|main' }]);
    expect(apt).toContain(
      'sudo curl -fsSL https://forge.example/api/packages/alice/debian/repository.key -o /etc/apt/keyrings/forge.example-alice.asc',
    );
    expect(apt).toContain(
      'echo "deb [signed-by=/etc/apt/keyrings/forge.example-alice.asc] https://forge.example/api/packages/alice/debian bookworm main"',
    );
    expect(apt).toContain('sudo apt-get install hello=1.0-1');
    const dnf = setup('rpm', 'hello', '1.0-1', [
      { name: 'hello-1.0-1.x86_64.rpm', key: 'el9/stable' },
      { name: 'hello-1.0-1.src.rpm', key: '' },
    ]);
    expect(dnf).toContain('sudo dnf config-manager --add-repo https://forge.example/api/packages/alice/rpm/el9/stable.repo');
    expect(dnf).toContain('sudo dnf config-manager --add-repo https://forge.example/api/packages/alice/rpm/.repo');
    const apk = setup('alpine', 'hello', '1.0.0-r0', [{ name: 'hello-1.0.0-r0.apk', key: 'v3.19|main|x86_64' }]);
    expect(apk).toContain('cd /etc/apk/keys && curl -JO https://forge.example/api/packages/alice/alpine/key');
    expect(apk).toContain('echo "https://forge.example/api/packages/alice/alpine/v3.19/main" >> /etc/apk/repositories');
    expect(apk).toContain('apk add hello=1.0.0-r0');
  });

  test('go, cran, conda, swift and chef point their clients at this server and owner', () => {
    expect(setup('go', 'example.com/hello', 'v1.2.3')).toBe(
      'export GOPROXY=https://forge.example/api/packages/alice/go GOSUMDB=off GOFLAGS=-mod=mod\ngo get example.com/hello@v1.2.3',
    );
    expect(setup('cran', 'mypkg', '1.0.0')).toContain('"hearth" = "https://forge.example/api/packages/alice/cran"');
    const conda = setup('conda', 'mytool', '1.0', [{ name: 'mytool-1.0-h0_0.conda', key: 'main|noarch' }]);
    expect(conda).toContain('conda install -c https://forge.example/api/packages/alice/conda/main mytool=1.0');
    expect(conda).toContain('  - https://forge.example/api/packages/alice/conda/main');
    expect(setup('swift', 'mona.LinkedList', '1.0.0')).toContain(
      'swift package-registry set https://forge.example/api/packages/alice/swift',
    );
    expect(setup('swift', 'mona.LinkedList', '1.0.0')).toContain('.package(id: "mona.LinkedList", from: "1.0.0")');
    expect(setup('chef', 'nginx', '1.2.0')).toContain("knife[:supermarket_site] = 'https://forge.example/api/packages/alice/chef'");
    expect(setup('chef', 'nginx', '1.2.0')).toContain("cookbook 'nginx', '1.2.0'");
    expect(packageSetup({ root, appName: 'Hearth', owner: 'alice', type: 'unknown', name: 'x', version: '1', files: [] })).toBeNull();
  });
});
