import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '@hearth/testing';
import { buildRpm, mustSucceed, requireTool, run } from './helpers';

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

/**
 * The real dnf and rpm against the served repository: the `.repo` file exactly as served
 * (gpgcheck=1, repo_gpgcheck=1, gpgkey = the served key), an isolated installroot, reposdir,
 * cachedir and config; makecache, download, install; rpmkeys --checksig on the download.
 */
describe('rpm registry with dnf and rpm', () => {
  let server: TestServer;
  let work: string;
  let write: string;
  const packages: Record<string, Buffer> = {};

  function sandbox(name: string, repoFile: string): { args: string[]; root: string } {
    const dir = path.join(work, name);
    const root = path.join(dir, 'root');
    const reposdir = path.join(dir, 'repos.d');
    fs.mkdirSync(root, { recursive: true });
    fs.mkdirSync(reposdir, { recursive: true });
    fs.writeFileSync(path.join(reposdir, 'hearth.repo'), repoFile);
    const config = path.join(dir, 'dnf.conf');
    fs.writeFileSync(config, '[main]\ngpgcheck=1\nrepo_gpgcheck=1\nskip_if_unavailable=False\ninstall_weak_deps=False\n');
    return {
      root,
      args: [
        `--config=${config}`,
        `--installroot=${root}`,
        '--releasever=1',
        `--setopt=reposdir=${reposdir}`,
        `--setopt=cachedir=${path.join(dir, 'cache')}`,
        '-y',
        '-q',
      ],
    };
  }

  const dnf = (args: string[]) => run('dnf', args, { env: { ...process.env, LANG: 'C.UTF-8' }, timeoutMs: 100_000 });

  beforeAll(async () => {
    await requireTool('dnf', 'dnf');
    await requireTool('rpmbuild', 'rpm');
    await requireTool('rpmkeys', 'rpm');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-dnf-'));
    server = await startServer({ plugins: { rpm: { enabled: true } } });
    const alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
    packages.hello = await buildRpm(work, { name: 'hello', version: '1.2', release: '3' });
    packages.other = await buildRpm(work, { name: 'other', version: '0.1', release: '1' });
    for (const body of Object.values(packages)) {
      const target = new URL('api/packages/alice/rpm/el9/upload', server.url);
      const res = await fetch(target, { method: 'PUT', headers: { Authorization: `token ${write}` }, body });
      expect(res.status).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('dnf verifies repomd.xml, downloads and installs a re-signed package; rpmkeys verifies its signature', async () => {
    const repoFile = await (await fetch(new URL('api/packages/alice/rpm/el9.repo', server.url))).text();
    const { args, root } = sandbox('good', repoFile);
    mustSucceed(await dnf([...args, 'makecache']), 'dnf makecache');
    const query = [...args, 'repoquery', '--qf', '%{name}-%{epoch}:%{version}-%{release}.%{arch}', 'hello', 'other'];
    const list = mustSucceed(await dnf(query), 'dnf repoquery');
    expect(list.stdout.trim().split('\n').sort()).toEqual(['hello-0:1.2-3.noarch', 'other-0:0.1-1.noarch']);

    const dest = path.join(work, 'downloads');
    mustSucceed(await dnf([...args, 'install', '--downloadonly', '--destdir', dest, 'hello']), 'dnf install --downloadonly');
    const downloaded = fs.readFileSync(path.join(dest, 'hello-1.2-3.noarch.rpm'));
    const servedRes = await fetch(new URL('api/packages/alice/rpm/el9/package/hello/1.2-3/noarch', server.url));
    const served = Buffer.from(await servedRes.arrayBuffer());
    expect(sha256(downloaded)).toBe(sha256(served));

    // rpm's own verifier: the header signature made with the owner's key.
    const dbpath = path.join(work, 'rpmdb');
    fs.mkdirSync(dbpath);
    const keyFile = path.join(work, 'repository.key');
    fs.writeFileSync(keyFile, await (await fetch(new URL('api/packages/alice/rpm/repository.key', server.url))).text());
    const unknownKey = await run('rpmkeys', ['--dbpath', dbpath, '--checksig', '-v', path.join(dest, 'hello-1.2-3.noarch.rpm')]);
    expect(unknownKey.stdout).toMatch(/Header V4 RSA\/SHA256 Signature, key ID [0-9a-f]+: NOKEY/);
    mustSucceed(await run('rpmkeys', ['--dbpath', dbpath, '--import', keyFile]), 'rpmkeys --import');
    const checkArgs = ['--dbpath', dbpath, '--checksig', '-v', path.join(dest, 'hello-1.2-3.noarch.rpm')];
    const checked = mustSucceed(await run('rpmkeys', checkArgs), 'rpmkeys --checksig');
    expect(checked.stdout).toMatch(/Header V4 RSA\/SHA256 Signature, key ID [0-9a-f]+: OK/);
    expect(checked.stdout).toMatch(/Header SHA256 digest: OK/);
    expect(checked.stdout).toMatch(/Payload SHA256 digest: OK/);

    // Installing runs rpm's signature check (gpgcheck=1) and puts the files into the installroot.
    mustSucceed(await dnf([...args, 'install', 'hello']), 'dnf install');
    expect(fs.readFileSync(path.join(root, 'usr/share/hello/README'), 'utf8')).toBe('hello 1.2-3\n');
  }, 110_000);

  test('dnf refuses the repository when repomd.xml is signed by another key', async () => {
    const bob = await server.user('bob');
    const bobKey = await fetch(new URL('api/packages/bob/rpm/repository.key', server.url));
    expect(bobKey.status).toBe(200);
    const repoFile = (await (await fetch(new URL('api/packages/alice/rpm/el9.repo', server.url))).text()).replace(
      /gpgkey=.*/,
      `gpgkey=${server.url}api/packages/${bob.name}/rpm/repository.key`,
    );
    const { args } = sandbox('wrong-key', repoFile);
    const result = await dnf([...args, 'makecache']);
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(/GPG|signature|gpg/i);
    const dest = path.join(work, 'refused');
    const download = await dnf([...args, 'install', '--downloadonly', '--destdir', dest, 'hello']);
    expect(download.code).not.toBe(0);
    expect(fs.existsSync(path.join(dest, 'hello-1.2-3.noarch.rpm'))).toBe(false);
  }, 110_000);
});
