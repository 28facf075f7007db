import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, cloneUrl, gitSandbox, startServer, type TestServer } from '@hearth/testing';
import { cargoAvailable, cargoSandbox, makeCrate, mustSucceed, publishBody, publishMeta, run } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');

/** Every file of a work tree (without .git), path → content. */
function treeFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (p === '.git') continue;
      if (entry.isDirectory()) walk(p);
      else out[p] = fs.readFileSync(path.join(dir, p), 'utf8');
    }
  };
  walk('');
  return out;
}

describe('cargo git index repository', () => {
  let server: TestServer;
  let sandbox: ReturnType<typeof gitSandbox>;
  let alice: { name: string; password: string; id: number };
  let write: string;
  let clones = 0;

  const api = (p: string) => new URL(`api/packages/${p}`, server.url);
  const publish = (owner: string, name: string, vers: string, token = write) =>
    fetch(api(`${owner}/cargo/api/v1/crates/new`), {
      method: 'PUT',
      headers: { Authorization: token },
      body: publishBody(publishMeta(name, vers), makeCrate(name, vers)),
    });
  const sparse = async (owner: string, p: string, token?: string) =>
    (await fetch(api(`${owner}/cargo/${p}`), { headers: token ? { Authorization: token } : {} })).text();
  const infoRefs = (p: string, headers: Record<string, string> = {}) => fetch(new URL(p, server.url), { headers });
  /** Clone the owner's index into a fresh directory; returns it (throws with git's output on failure). */
  const clone = async (url: string): Promise<string> => {
    const target = path.join(sandbox.dir, `clone-${++clones}`);
    const r = await sandbox.git(['clone', '--quiet', url, target]);
    if (r.status !== 0) throw new Error(`git clone ${url} failed: ${r.stderr}`);
    return target;
  };
  const commits = async (dir: string) => Number((await sandbox.git(['rev-list', '--count', 'HEAD'], dir)).stdout.trim());

  beforeAll(async () => {
    server = await startServer();
    sandbox = gitSandbox();
    alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  test('created by the first publish; one commit per publish, yank and unyank; same files as the sparse index', async () => {
    const refs = 'alice/_cargo-index.git/info/refs?service=git-upload-pack';
    const gitDir = path.join(server.dataDir, 'cargo-index', `${alice.id}.git`);
    expect(fs.existsSync(gitDir)).toBe(false);
    expect((await publish('alice', 'Git_Crate', '1.0.0')).status).toBe(200);
    expect(fs.existsSync(path.join(gitDir, 'HEAD'))).toBe(true);
    expect((await publish('alice', 'ab', '0.1.0')).status).toBe(200);
    expect((await publish('alice', 'xyz', '0.1.0')).status).toBe(200);
    expect((await publish('alice', 'q', '0.1.0')).status).toBe(200);
    expect((await publish('alice', 'Git_Crate', '1.1.0')).status).toBe(200);
    const advertised = await infoRefs(refs);
    expect(advertised.status).toBe(200);
    expect(advertised.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');

    const url = cloneUrl(server.url, 'alice/_cargo-index.git');
    const dir = await clone(url);
    expect(await commits(dir)).toBe(5);
    expect((await sandbox.git(['symbolic-ref', 'HEAD'], dir)).stdout.trim()).toBe('refs/heads/master');
    const files = treeFiles(dir);
    expect(Object.keys(files).sort()).toEqual(['1/q', '2/ab', '3/x/xyz', 'config.json', 'gi/t_/git_crate']);
    expect(JSON.parse(files['config.json'])).toEqual({
      dl: `${server.url}api/packages/alice/cargo/api/v1/crates`,
      api: `${server.url}api/packages/alice/cargo`,
      'auth-required': false,
    });
    for (const [file, sparsePath] of [
      ['1/q', '1/q'],
      ['2/ab', '2/ab'],
      ['3/x/xyz', '3/x/xyz'],
      ['gi/t_/git_crate', 'gi/t_/git_crate'],
    ]) {
      expect([file, files[file]]).toEqual([file, await sparse('alice', sparsePath)]);
    }
    expect(
      files['gi/t_/git_crate']
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).vers),
    ).toEqual(['1.0.0', '1.1.0']);
    expect((await sandbox.git(['log', '-1', '--format=%s %an'], dir)).stdout.trim()).toBe('Publish Git_Crate 1.1.0 Hearth');

    // Yank, then unyank: each a commit; the clone follows with a plain pull.
    const yank = await fetch(api('alice/cargo/api/v1/crates/Git_Crate/1.0.0/yank'), {
      method: 'DELETE',
      headers: { Authorization: write },
    });
    expect(yank.status).toBe(200);
    expect((await sandbox.git(['pull', '--quiet', '--ff-only'], dir)).status).toBe(0);
    const yanked = fs.readFileSync(path.join(dir, 'gi/t_/git_crate'), 'utf8');
    expect(
      yanked
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).yanked),
    ).toEqual([true, false]);
    expect(yanked).toBe(await sparse('alice', 'gi/t_/git_crate'));
    expect(await commits(dir)).toBe(6);
    expect(
      (await fetch(api('alice/cargo/api/v1/crates/Git_Crate/1.0.0/unyank'), { method: 'PUT', headers: { Authorization: write } })).status,
    ).toBe(200);
    expect((await sandbox.git(['pull', '--quiet', '--ff-only'], dir)).status).toBe(0);
    expect(
      fs
        .readFileSync(path.join(dir, 'gi/t_/git_crate'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).yanked),
    ).toEqual([false, false]);
    expect(await commits(dir)).toBe(7);
    expect((await sandbox.git(['log', '--format=%s', '-2'], dir)).stdout.trim().split('\n')).toEqual([
      'Unyank Git_Crate 1.0.0',
      'Yank Git_Crate 1.0.0',
    ]);

    // A refused publish (duplicate) makes no commit.
    expect((await publish('alice', 'ab', '0.1.0')).status).toBe(409);
    expect((await sandbox.git(['pull', '--quiet', '--ff-only'], dir)).status).toBe(0);
    expect(await commits(dir)).toBe(7);

    // The repository is consistent for git itself, and also served without `.git`.
    const fsck = await sandbox.git(['fsck', '--strict'], dir);
    expect([fsck.status, fsck.stderr]).toEqual([0, '']);
    expect((await infoRefs('alice/_cargo-index/info/refs?service=git-upload-pack')).status).toBe(200);
  });

  test('a version deleted through /api/v1/packages leaves the git index too (package.deleted)', async () => {
    const del = await server.token(alice, ['delete:package'], 'cargo-delete');
    const dir = await clone(cloneUrl(server.url, 'alice/_cargo-index.git'));
    const before = await commits(dir);
    expect((await server.api('DELETE', '/packages/alice/cargo/Git_Crate/1.1.0', { token: del })).status).toBe(204);
    expect((await server.api('DELETE', '/packages/alice/cargo/q/0.1.0', { token: del })).status).toBe(204);
    expect((await sandbox.git(['pull', '--quiet', '--ff-only'], dir)).status).toBe(0);
    expect(await commits(dir)).toBe(before + 2);
    expect(
      fs
        .readFileSync(path.join(dir, 'gi/t_/git_crate'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).vers),
    ).toEqual(['1.0.0']);
    expect(fs.readFileSync(path.join(dir, 'gi/t_/git_crate'), 'utf8')).toBe(await sparse('alice', 'gi/t_/git_crate'));
    // The crate's last version gone: its index file goes.
    expect(fs.existsSync(path.join(dir, '1/q'))).toBe(false);
    expect((await sandbox.git(['log', '--format=%s', '-2'], dir)).stdout.trim().split('\n')).toEqual([
      'Delete q 0.1.0',
      'Delete Git_Crate 1.1.0',
    ]);
  });

  test('read-only: pushes are refused, dumb HTTP is not offered', async () => {
    const basic = { Authorization: `Basic ${Buffer.from(`alice:${write}`).toString('base64')}` };
    const receive = await infoRefs('alice/_cargo-index.git/info/refs?service=git-receive-pack', basic);
    expect(receive.status).toBe(403);
    expect(((await receive.json()) as any).message).toMatch(/read-only/);
    expect(
      (
        await fetch(new URL('alice/_cargo-index.git/git-receive-pack', server.url), {
          method: 'POST',
          headers: { ...basic, 'Content-Type': 'application/x-git-receive-pack-request' },
          body: '0000',
        })
      ).status,
    ).toBe(403);
    expect((await infoRefs('alice/_cargo-index.git/info/refs')).status).toBe(403);

    const dir = await clone(cloneUrl(server.url, 'alice/_cargo-index.git', 'alice', write));
    fs.writeFileSync(path.join(dir, 'evil'), 'x');
    await sandbox.git(['add', 'evil'], dir);
    await sandbox.git(['commit', '-q', '-m', 'evil'], dir);
    const push = await sandbox.git(['push', 'origin', 'HEAD:master'], dir);
    expect(push.status).not.toBe(0);
    const again = await clone(cloneUrl(server.url, 'alice/_cargo-index.git'));
    expect(fs.existsSync(path.join(again, 'evil'))).toBe(false);
  });

  test('a private owner: 401 with a Basic challenge, then readable with the owner token; others see 404', async () => {
    const priv = await server.user('hidden-owner', { visibility: 'private' });
    const token = await server.token(priv, ['write:package']);
    expect((await publish('hidden-owner', 'secret', '1.0.0', token)).status).toBe(200);
    const refs = 'hidden-owner/_cargo-index.git/info/refs?service=git-upload-pack';
    const anon = await infoRefs(refs);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Basic /);
    // Unknown owners look the same to anonymous callers.
    expect((await infoRefs('no-such-owner/_cargo-index.git/info/refs?service=git-upload-pack')).status).toBe(401);
    const bob = await server.user('bob');
    const bobToken = await server.token(bob, ['read:package']);
    expect((await infoRefs(refs, { Authorization: `Basic ${Buffer.from(`bob:${bobToken}`).toString('base64')}` })).status).toBe(404);
    // A token without the package scope is refused.
    const repoOnly = await server.token(priv, ['read:repository']);
    expect((await infoRefs(refs, { Authorization: `Basic ${Buffer.from(`hidden-owner:${repoOnly}`).toString('base64')}` })).status).toBe(
      403,
    );

    const anonClone = await sandbox.git([
      'clone',
      '--quiet',
      cloneUrl(server.url, 'hidden-owner/_cargo-index.git'),
      path.join(sandbox.dir, 'anon'),
    ]);
    expect(anonClone.status).not.toBe(0);
    const dir = await clone(cloneUrl(server.url, 'hidden-owner/_cargo-index.git', 'hidden-owner', token));
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'))['auth-required']).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'se/cr/secret'), 'utf8')).toBe(await sparse('hidden-owner', 'se/cr/secret', token));
  });

  test('an owner without crates: the first fetch creates an index with config.json only', async () => {
    const fresh = await server.user('fresh');
    const dir = await clone(cloneUrl(server.url, 'fresh/_cargo-index.git'));
    expect(Object.keys(treeFiles(dir))).toEqual(['config.json']);
    expect(await commits(dir)).toBe(1);
    expect(fs.existsSync(path.join(server.dataDir, 'cargo-index', `${fresh.id}.git`, 'HEAD'))).toBe(true);
    const token = await server.token(fresh, ['write:package']);
    expect((await publish('fresh', 'first', '1.0.0', token)).status).toBe(200);
    expect((await sandbox.git(['pull', '--quiet', '--ff-only'], dir)).status).toBe(0);
    expect(Object.keys(treeFiles(dir)).sort()).toEqual(['config.json', 'fi/rs/first']);
    expect(await commits(dir)).toBe(2);
    // An unknown owner has no index (signed in: 404; anonymous: challenged, see above).
    const basic = { Authorization: `Basic ${Buffer.from(`fresh:${token}`).toString('base64')}` };
    expect((await infoRefs('nobody-like-this/_cargo-index.git/info/refs?service=git-upload-pack', basic)).status).toBe(404);
  });

  test('concurrent publishes of one owner are serialized: one commit each, one winner per version', async () => {
    const owner = await server.user('busy');
    const token = await server.token(owner, ['write:package']);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => publish('busy', `par${i % 4}`, `1.0.${Math.floor(i / 4)}`, token)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    const dir = await clone(cloneUrl(server.url, 'busy/_cargo-index.git'));
    expect(await commits(dir)).toBe(12);
    const files = treeFiles(dir);
    for (let c = 0; c < 4; c++) {
      const lines = files[`pa/r${c}/par${c}`]
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).vers);
      expect(lines.sort()).toEqual(['1.0.0', '1.0.1', '1.0.2']);
      expect(files[`pa/r${c}/par${c}`]).toBe(await sparse('busy', `pa/r${c}/par${c}`));
    }
    expect((await sandbox.git(['fsck', '--strict'], dir)).status).toBe(0);
    // The same version (or another spelling of the name) published concurrently: exactly one wins.
    const racing = await Promise.all(['race-me', 'race-me', 'Race_Me', 'race_me'].map((name) => publish('busy', name, '1.0.0', token)));
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await sandbox.git(['pull', '--quiet', '--ff-only'], dir)).status).toBe(0);
    expect(await commits(dir)).toBe(13);
  });

  test('a renamed owner: config.json follows the new name, the index keeps its history', async () => {
    const owner = await server.user('old-name');
    const token = await server.token(owner, ['write:package']);
    expect((await publish('old-name', 'renamed-crate', '1.0.0', token)).status).toBe(200);
    const renamed = await server.api('POST', '/admin/users/old-name/rename', {
      basic: [ADMIN.name, ADMIN.password],
      body: { new_username: 'new-name' },
    });
    expect(renamed.status).toBe(204);
    const dir = await clone(cloneUrl(server.url, 'new-name/_cargo-index.git'));
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).api).toBe(`${server.url}api/packages/new-name/cargo`);
    expect(await commits(dir)).toBe(2);
  });

  test('lost index: `hearth plugins run cargo rebuild-index <owner>` recreates the same files', async () => {
    const before = treeFiles(await clone(cloneUrl(server.url, 'alice/_cargo-index.git')));
    const gitDir = path.join(server.dataDir, 'cargo-index', `${alice.id}.git`);
    expect(fs.existsSync(path.join(gitDir, 'HEAD'))).toBe(true);
    fs.rmSync(gitDir, { recursive: true, force: true });

    // The real command line, in its own process, on the same database and data directory.
    const config = server.kernel.config;
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HEARTH__DATABASE__URL: config.database.URL,
      HEARTH__SERVER__DATA_DIR: config.server.DATA_DIR,
      HEARTH__SERVER__ROOT_URL: server.url,
      HEARTH__LOG__LEVEL: 'warn',
    } as NodeJS.ProcessEnv;
    const cli = path.join(ROOT, 'core/kernel/dist/cli.js');
    const usage = await run(process.execPath, [cli, 'plugins', 'run', 'cargo'], { cwd: ROOT, env });
    expect([usage.code, usage.stdout]).toEqual([0, expect.stringContaining('rebuild-index <owner>')]);
    const missing = await run(process.execPath, [cli, 'plugins', 'run', 'cargo', 'rebuild-index', 'nobody-at-all'], { cwd: ROOT, env });
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('user does not exist')]);
    const rebuilt = await run(process.execPath, [cli, 'plugins', 'run', 'cargo', 'rebuild-index', 'alice'], { cwd: ROOT, env });
    expect([rebuilt.code, rebuilt.stderr]).toEqual([0, '']);
    expect(rebuilt.stdout).toMatch(/rebuilt the cargo index of alice: 3 crate file\(s\) and config.json/);

    const dir = await clone(cloneUrl(server.url, 'alice/_cargo-index.git'));
    expect(treeFiles(dir)).toEqual(before);
    expect(await commits(dir)).toBe(1);
    // And it keeps being maintained incrementally.
    expect((await publish('alice', 'after-rebuild', '1.0.0')).status).toBe(200);
    expect((await sandbox.git(['pull', '--quiet', '--ff-only'], dir)).status).toBe(0);
    expect(await commits(dir)).toBe(2);
    expect(Object.keys(treeFiles(dir))).toContain('af/te/after-rebuild');
  });

  test('a purged owner takes the index repository along', async () => {
    const owner = await server.user('purged');
    const token = await server.token(owner, ['write:package']);
    expect((await publish('purged', 'gone', '1.0.0', token)).status).toBe(200);
    const gitDir = path.join(server.dataDir, 'cargo-index', `${owner.id}.git`);
    expect(fs.existsSync(gitDir)).toBe(true);
    expect((await server.api('DELETE', '/admin/users/purged?purge=true', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(204);
    expect(fs.existsSync(gitDir)).toBe(false);
  });
});

describe('the real cargo client: git index, private owner', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-cargo-git-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('cargo publish, yank, then cargo build of a crate depending on it', async () => {
    if (!(await cargoAvailable())) throw new Error('cargo is not installed (cargo --version failed)');
    const owner = await server.user('gitcrafter');
    const token = await server.token(owner, ['write:package']);
    const index = `${server.url}gitcrafter/_cargo-index.git`;
    const env = cargoSandbox(
      dir,
      { name: 'hearthgit', index, token },
      {
        net: ['git-fetch-with-cli = true'],
        env: { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' },
      },
    );

    mustSucceed(await run('cargo', ['new', '--lib', '--vcs', 'none', 'gamma'], { cwd: dir, env }), 'cargo new gamma');
    const gammaToml = path.join(dir, 'gamma', 'Cargo.toml');
    fs.writeFileSync(
      gammaToml,
      fs
        .readFileSync(gammaToml, 'utf8')
        .replace('[package]\n', '[package]\npublish = ["hearthgit"]\ndescription = "the gamma crate"\nlicense = "MIT"\n'),
    );
    fs.writeFileSync(path.join(dir, 'gamma', 'src', 'lib.rs'), 'pub fn greeting() -> &\'static str { "hello from gamma via git" }\n');
    mustSucceed(
      await run('cargo', ['publish', '--registry', 'hearthgit', '--allow-dirty', '--no-verify'], { cwd: path.join(dir, 'gamma'), env }),
      'cargo publish 0.1.0',
    );
    fs.writeFileSync(gammaToml, fs.readFileSync(gammaToml, 'utf8').replace('version = "0.1.0"', 'version = "0.1.1"'));
    mustSucceed(
      await run('cargo', ['publish', '--registry', 'hearthgit', '--allow-dirty', '--no-verify'], { cwd: path.join(dir, 'gamma'), env }),
      'cargo publish 0.1.1',
    );
    mustSucceed(await run('cargo', ['yank', '--registry', 'hearthgit', '--version', '0.1.1', 'gamma'], { cwd: dir, env }), 'cargo yank');

    mustSucceed(await run('cargo', ['new', '--bin', '--vcs', 'none', 'delta'], { cwd: dir, env }), 'cargo new delta');
    const deltaToml = path.join(dir, 'delta', 'Cargo.toml');
    fs.writeFileSync(
      deltaToml,
      fs.readFileSync(deltaToml, 'utf8').replace('[dependencies]', '[dependencies]\ngamma = { version = "0.1", registry = "hearthgit" }'),
    );
    fs.writeFileSync(path.join(dir, 'delta', 'src', 'main.rs'), 'fn main() { println!("{}", gamma::greeting()); }\n');
    mustSucceed(await run('cargo', ['build'], { cwd: path.join(dir, 'delta'), env }), 'cargo build delta');
    const lock = fs.readFileSync(path.join(dir, 'delta', 'Cargo.lock'), 'utf8');
    // The yanked 0.1.1 is skipped: the git index carries the yank.
    expect(lock).toContain('name = "gamma"\nversion = "0.1.0"');
    expect(lock).toContain(`source = "registry+${index}"`);
    const delta = await run(path.join(dir, 'target', 'debug', 'delta'), [], { cwd: dir, env });
    expect(delta.stdout.trim()).toBe('hello from gamma via git');
  }, 600_000);

  test('a private owner through the sparse index: cargo is challenged (401), then sends its token', async () => {
    if (!(await cargoAvailable())) throw new Error('cargo is not installed (cargo --version failed)');
    const owner = await server.user('secretive', { visibility: 'private' });
    const token = await server.token(owner, ['write:package']);
    const home = path.join(dir, 'private');
    const env = cargoSandbox(home, { name: 'private', index: `sparse+${server.url}api/packages/secretive/cargo/`, token });
    mustSucceed(await run('cargo', ['new', '--lib', '--vcs', 'none', 'hush'], { cwd: home, env }), 'cargo new hush');
    const hushToml = path.join(home, 'hush', 'Cargo.toml');
    fs.writeFileSync(
      hushToml,
      fs.readFileSync(hushToml, 'utf8').replace('[package]\n', '[package]\npublish = ["private"]\ndescription = "hush"\nlicense = "MIT"\n'),
    );
    fs.writeFileSync(path.join(home, 'hush', 'src', 'lib.rs'), 'pub fn secret() -> u32 { 42 }\n');
    mustSucceed(
      await run('cargo', ['publish', '--registry', 'private', '--allow-dirty', '--no-verify'], { cwd: path.join(home, 'hush'), env }),
      'cargo publish (private owner)',
    );
    mustSucceed(await run('cargo', ['new', '--bin', '--vcs', 'none', 'user-of-hush'], { cwd: home, env }), 'cargo new user-of-hush');
    const userToml = path.join(home, 'user-of-hush', 'Cargo.toml');
    fs.writeFileSync(
      userToml,
      fs.readFileSync(userToml, 'utf8').replace('[dependencies]', '[dependencies]\nhush = { version = "0.1", registry = "private" }'),
    );
    fs.writeFileSync(path.join(home, 'user-of-hush', 'src', 'main.rs'), 'fn main() { println!("{}", hush::secret()); }\n');
    mustSucceed(await run('cargo', ['build'], { cwd: path.join(home, 'user-of-hush'), env }), 'cargo build user-of-hush');
    expect((await run(path.join(home, 'target', 'debug', 'user-of-hush'), [], { cwd: home, env })).stdout.trim()).toBe('42');
    // Without the token cargo cannot read the index.
    const denied = await run('cargo', ['update'], {
      cwd: path.join(home, 'user-of-hush'),
      env: { ...env, CARGO_REGISTRIES_PRIVATE_TOKEN: undefined },
    });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/401|token|authenticat/i);
  }, 600_000);
});
