import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '@hearth/testing';
import { buildDeb } from './helpers';

/**
 * The real apt (Debian package `apt`) against the registry, with a throwaway configuration: its
 * own sources list, state, cache and keyring directories, `signed-by=` the served repository.key.
 */
interface AptResult {
  code: number;
  output: string;
}

function aptSandbox(sourcesLine: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-apt-'));
  for (const d of ['state/lists/partial', 'cache/archives/partial', 'trusted.gpg.d', 'download'])
    fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.writeFileSync(path.join(dir, 'status'), '');
  fs.writeFileSync(path.join(dir, 'sources.list'), `${sourcesLine}\n`);
  const options = [
    `Dir::Etc::sourcelist=${dir}/sources.list`,
    'Dir::Etc::sourceparts=-',
    `Dir::State=${dir}/state`,
    `Dir::State::status=${dir}/status`,
    `Dir::Cache=${dir}/cache`,
    `Dir::Etc::trusted=${dir}/trusted.gpg`,
    `Dir::Etc::trusted.gpg.d=${dir}/trusted.gpg.d`,
    'Dir::Etc::preferencesparts=-',
    `Dir::Etc::preferences=${dir}/preferences`,
    'APT::Architecture=amd64',
    'APT::Architectures=amd64',
    'Acquire::Languages=none',
    'APT::Sandbox::User=root',
    'Debug::NoLocking=1',
    'Acquire::Retries=0',
  ].flatMap((o) => ['-o', o]);
  const run = (args: string[], cwd = dir) =>
    new Promise<AptResult>((resolve, reject) => {
      execFile('apt-get', [...options, ...args], { cwd, env: { ...process.env, LC_ALL: 'C' } }, (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === 'ENOENT')
          reject(new Error('apt-get is missing: install the Debian package apt'));
        else resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` });
      });
    });
  return { dir, run, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

describe('apt against the Debian registry', () => {
  let server: TestServer;
  let write: string;
  const sandboxes: Array<{ cleanup(): void }> = [];
  const hello = buildDeb({ name: 'hello-hearth', version: '1.0-1', architecture: 'amd64' });
  const docs = buildDeb({ name: 'hello-docs', version: '1:2.0', architecture: 'all', compression: 'zstd' });

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const repo = () => url('alice/debian').toString();
  const withKey = (keyArmored: string) => {
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-apt-key-'));
    const keyFile = path.join(keyDir, 'repository.asc');
    fs.writeFileSync(keyFile, keyArmored);
    const sandbox = aptSandbox(`deb [signed-by=${keyFile}] ${repo()} stable main`);
    sandboxes.push(sandbox, { cleanup: () => fs.rmSync(keyDir, { recursive: true, force: true }) });
    return sandbox;
  };

  beforeAll(async () => {
    server = await startServer({ plugins: { debian: { enabled: true } } });
    const alice = await server.user('alice');
    await server.user('bob');
    write = await server.token(alice, ['write:package']);
    for (const deb of [hello, docs]) {
      const res = await fetch(url('alice/debian/pool/stable/main/upload'), {
        method: 'PUT',
        body: deb,
        headers: { Authorization: `token ${write}` },
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    for (const s of sandboxes) s.cleanup();
    await server.close();
  });

  test('apt-get update verifies InRelease with the served key; apt-get download fetches the uploaded bytes', async () => {
    const key = await (await fetch(url('alice/debian/repository.key'))).text();
    const apt = withKey(key);
    // Build the indexes now and let a second pass: InRelease then carries a Last-Modified apt revalidates with.
    expect((await fetch(url('alice/debian/dists/stable/Release'))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    // Debug::Acquire::http prints each request apt sends.
    const update = await apt.run(['-o', 'Debug::Acquire::http=true', 'update']);
    expect(update.output).not.toMatch(/^(W|E):/m);
    expect(update.code).toBe(0);
    expect(update.output).toMatch(/Get:\d+ \S+ stable InRelease/);
    // apt takes the Packages.xz the Release lists (its first choice), by hash, and verifies it.
    const release = await (await fetch(url('alice/debian/dists/stable/Release'))).text();
    const requested = [...update.output.matchAll(/^GET (\S+) HTTP/gm)].map((m) => m[1].replace(/^.*\/dists\/stable\//, ''));
    const xzHash = /^ ([0-9a-f]{64}) +\d+ main\/binary-amd64\/Packages\.xz$/m.exec(release)?.[1];
    expect(xzHash).toEqual(expect.any(String));
    expect(requested).toEqual(['InRelease', `main/binary-amd64/by-hash/SHA256/${xzHash}`]);
    // Nothing changed: the next update revalidates InRelease (If-Modified-Since → 304) and fetches nothing else.
    const again = await apt.run(['-o', 'Debug::Acquire::http=true', 'update']);
    expect(again.code).toBe(0);
    expect(again.output).toMatch(/If-Modified-Since: /);
    expect(again.output).toMatch(/Hit:\d+ \S+ stable InRelease/);
    expect([...again.output.matchAll(/^GET (\S+) HTTP/gm)].map((m) => m[1].replace(/^.*\/dists\/stable\//, ''))).toEqual(['InRelease']);

    const cwd = path.join(apt.dir, 'download');
    const download = await apt.run(['download', 'hello-hearth', 'hello-docs'], cwd);
    expect(download.code).toBe(0);
    expect(fs.readFileSync(path.join(cwd, 'hello-hearth_1.0-1_amd64.deb'))).toEqual(hello);
    // apt names a downloaded file with its epoch, URL-encoded.
    expect(fs.readFileSync(path.join(cwd, 'hello-docs_1%3a2.0_all.deb'))).toEqual(docs);

    const install = await apt.run(['install', '--download-only', '-y', 'hello-hearth=1.0-1']);
    expect(install.code).toBe(0);
    expect(fs.readFileSync(path.join(apt.dir, 'cache/archives/hello-hearth_1.0-1_amd64.deb'))).toEqual(hello);
  });

  test("another owner's key makes apt-get update fail", async () => {
    const bobKey = await (await fetch(url('bob/debian/repository.key'))).text();
    const apt = withKey(bobKey);
    const update = await apt.run(['update']);
    expect(update.output).toMatch(/NO_PUBKEY|not signed|signatures couldn't be verified/);
    expect(update.code).not.toBe(0);
  });

  test('a tampered InRelease makes apt-get update fail', async () => {
    const key = await (await fetch(url('alice/debian/repository.key'))).text();
    const db = server.kernel.db;
    const row = await db('debian_release').where({ distribution: 'stable' }).first();
    const tampered = row.in_release.replace(/^Components: main$/m, 'Components: main evil');
    expect(tampered).not.toBe(row.in_release);
    await db('debian_release').where({ id: row.id }).update({ in_release: tampered });
    try {
      const apt = withKey(key);
      const update = await apt.run(['update']);
      expect(update.output).toMatch(/BADSIG|signatures were invalid|not signed/);
      expect(update.code).not.toBe(0);
    } finally {
      await db('debian_release').where({ id: row.id }).update({ in_release: row.in_release });
    }
  });
});
