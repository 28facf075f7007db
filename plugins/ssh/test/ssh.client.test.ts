import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { gitSandbox, runCommand, startServer, type GitRun, type TestServer } from '@hearth/testing';

/**
 * Git over the built-in SSH server with the real OpenSSH client and git: clone and push with a
 * user's key (protocol v0 and v2), deploy keys (read-only refused on push; another repository
 * invisible), a wrong key refused, protected branches as over HTTP, a private repository invisible
 * to a stranger, and a host key that survives a restart.
 */
for (const tool of ['ssh', 'ssh-keygen', 'git']) {
  if (spawnSync('which', [tool]).status !== 0) throw new Error(`${tool} is missing: apt-get install -y openssh-client git`);
}

let server: TestServer;
let sandbox: ReturnType<typeof gitSandbox>;
let port: number;
const tokens: Record<string, string> = {};

function makeKey(name: string): { file: string; pub: string } {
  const file = path.join(sandbox.dir, `key-${name}`);
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  return { file, pub: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
}

/** The ssh command git runs: only `key`, a temporary known_hosts file (never /dev/null as a file). */
function sshCommand(key: string): string {
  const knownHosts = path.join(sandbox.dir, 'known_hosts');
  return `ssh -i ${key} -p ${port} -o StrictHostKeyChecking=no -o UserKnownHostsFile=${knownHosts} -o IdentitiesOnly=yes -o BatchMode=yes`;
}

function gitWith(key: string, args: string[], cwd?: string): Promise<GitRun> {
  return sandbox.git(['-c', `core.sshCommand=${sshCommand(key)}`, ...args], cwd);
}

const url = (repo: string) => `ssh://git@127.0.0.1:${port}/${repo}.git`;
let alice: { file: string; pub: string };
let bob: { file: string; pub: string };
let stranger: { file: string; pub: string };

beforeAll(async () => {
  server = await startServer({ plugins: { ssh: { settings: { SSH_DOMAIN: '127.0.0.1' } } } });
  sandbox = gitSandbox();
  for (const name of ['alice', 'bob']) {
    const user = await server.user(name);
    tokens[name] = await server.token(user, ['write:repository', 'write:user']);
  }
  for (const [name, isPrivate] of [
    ['garden', false],
    ['secret', true],
  ] as const) {
    const made = await server.api('POST', '/user/repos', {
      token: tokens.alice,
      body: { name, auto_init: true, default_branch: 'main', private: isPrivate },
    });
    expect(made.status).toBe(201);
  }
  const repo = await server.api('GET', '/repos/alice/garden', { token: tokens.alice });
  port = Number(new URL(repo.body.ssh_url).port);
  expect(repo.body.ssh_url).toBe(`ssh://git@127.0.0.1:${port}/alice/garden.git`);
  alice = makeKey('alice');
  bob = makeKey('bob');
  stranger = makeKey('stranger');
  for (const [name, key] of [
    ['alice', alice],
    ['bob', bob],
  ] as const) {
    expect((await server.api('POST', '/user/keys', { token: tokens[name], body: { title: 'laptop', key: key.pub } })).status).toBe(201);
  }
});
afterAll(async () => {
  sandbox?.cleanup();
  await server?.close();
});

test('a user key clones and pushes with protocol v2 and v0; the push is recorded as over HTTP', async () => {
  for (const version of ['2', '0']) {
    const dir = `clone-v${version}`;
    const cloned = await gitWith(alice.file, ['-c', `protocol.version=${version}`, 'clone', url('alice/garden'), dir]);
    expect(cloned.stderr).not.toMatch(/fatal/);
    expect(cloned.status).toBe(0);
    const work = path.join(sandbox.dir, dir);
    fs.writeFileSync(path.join(work, `v${version}.txt`), version);
    expect((await sandbox.git(['add', '.'], work)).status).toBe(0);
    expect((await sandbox.git(['commit', '-m', `over ssh v${version}`], work)).status).toBe(0);
    const pushed = await gitWith(alice.file, ['-c', `protocol.version=${version}`, 'push', 'origin', `main:ssh-v${version}`], work);
    expect(pushed.status).toBe(0);
    const branch = await server.api('GET', `/repos/alice/garden/branches/ssh-v${version}`, { token: tokens.alice });
    expect(branch.status).toBe(200);
    expect(branch.body.commit.message.trim()).toBe(`over ssh v${version}`);
  }
});

test('protocol v2 is negotiated over SSH (GIT_PROTOCOL passed through), and the wiki is reachable as owner/repo.wiki.git', async () => {
  const traced = await runCommand('git', ['-c', 'protocol.version=2', 'ls-remote', url('alice/garden')], {
    env: {
      PATH: process.env.PATH,
      HOME: sandbox.dir,
      GIT_TRACE_PACKET: '1',
      GIT_SSH_COMMAND: sshCommand(alice.file),
    },
  });
  expect(traced.code).toBe(0);
  expect(traced.stderr).toMatch(/packet: +ls-remote< version 2/);
  expect(traced.stderr).toMatch(/command=ls-refs/);

  const wiki = path.join(sandbox.dir, 'wiki');
  await sandbox.git(['init', '-q', '-b', 'main', wiki]);
  fs.writeFileSync(path.join(wiki, 'Home.md'), '# Home over SSH');
  await sandbox.git(['add', '.'], wiki);
  await sandbox.git(['commit', '-qm', 'wiki page'], wiki);
  const pushed = await gitWith(alice.file, ['push', url('alice/garden.wiki'), 'main:master'], wiki);
  expect(pushed.status).toBe(0);
  const page = await server.api('GET', '/repos/alice/garden/wiki/page/Home', { token: tokens.alice });
  expect(page.status).toBe(200);
});

test('git upload-archive runs; other commands and a shell are refused with a message', async () => {
  // Asynchronously: the server under test runs in this process.
  const archive = await gitWith(alice.file, ['archive', `--remote=${url('alice/garden')}`, '--format=tar', 'main', 'README.md']);
  expect(archive.status).toBe(0);
  expect(archive.stdout).toContain('README.md');
  const ssh = (command: string) =>
    runCommand('ssh', [
      '-i',
      alice.file,
      '-p',
      String(port),
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      `UserKnownHostsFile=${path.join(sandbox.dir, 'known_hosts')}`,
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'BatchMode=yes',
      'git@127.0.0.1',
      command,
    ]);
  const other = await ssh('cat /etc/passwd');
  expect(other.code).toBe(1);
  expect(other.stderr).toMatch(/unknown command: only git-upload-pack/);
  const traversal = await ssh("git-upload-pack '../alice/garden.git'");
  expect(traversal.code).toBe(1);
});

test('a key nobody registered is refused, and so is a user other than git', async () => {
  const cloned = await gitWith(stranger.file, ['clone', url('alice/garden'), 'stranger-clone']);
  expect(cloned.status).not.toBe(0);
  expect(cloned.stderr).toMatch(/Permission denied \(publickey\)/);
  const wrongUser = await gitWith(alice.file, ['clone', `ssh://alice@127.0.0.1:${port}/alice/garden.git`, 'wrong-user']);
  expect(wrongUser.status).not.toBe(0);
  expect(wrongUser.stderr).toMatch(/Permission denied/);
});

test("a private repository is invisible to another user's key; public ones are read-only for them", async () => {
  const secret = await gitWith(bob.file, ['clone', url('alice/secret'), 'bob-secret']);
  expect(secret.status).not.toBe(0);
  expect(secret.stderr).toMatch(/repository does not exist/);
  expect((await gitWith(bob.file, ['clone', url('alice/garden'), 'bob-garden'])).status).toBe(0);
  const pushed = await gitWith(bob.file, ['push', 'origin', 'main:bob'], path.join(sandbox.dir, 'bob-garden'));
  expect(pushed.status).not.toBe(0);
  expect(pushed.stderr).toMatch(/write access/);
  expect((await gitWith(alice.file, ['clone', url('alice/secret'), 'alice-secret'])).status).toBe(0);
});

test('deploy keys: read-only clones but cannot push; a writable one pushes; neither opens another repository', async () => {
  const readKey = makeKey('deploy-read');
  const writeKey = makeKey('deploy-write');
  const add = (key: string, body: Record<string, unknown>) =>
    server.api('POST', '/repos/alice/secret/keys', { token: tokens.alice, body: { title: key, ...body } });
  expect((await add('reader', { key: readKey.pub })).body.read_only).toBe(true);
  expect((await add('writer', { key: writeKey.pub, read_only: false })).status).toBe(201);

  expect((await gitWith(readKey.file, ['clone', url('alice/secret'), 'deploy-read'])).status).toBe(0);
  const work = path.join(sandbox.dir, 'deploy-read');
  fs.writeFileSync(path.join(work, 'd.txt'), 'deploy');
  await sandbox.git(['add', '.'], work);
  await sandbox.git(['commit', '-m', 'by a deploy key'], work);
  const refused = await gitWith(readKey.file, ['push', 'origin', 'main:deployed'], work);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toMatch(/deploy key is read-only/);

  const pushed = await gitWith(writeKey.file, ['push', 'origin', 'main:deployed'], work);
  expect(pushed.status).toBe(0);
  expect((await server.api('GET', '/repos/alice/secret/branches/deployed', { token: tokens.alice })).status).toBe(200);

  const other = await gitWith(writeKey.file, ['clone', url('alice/garden'), 'deploy-other']);
  expect(other.status).not.toBe(0);
  expect(other.stderr).toMatch(/repository does not exist/);
});

test('a protected branch refuses an SSH push as it refuses one over HTTP', async () => {
  const rule = await server.api('POST', '/repos/alice/garden/branch_protections', {
    token: tokens.alice,
    body: { rule_name: 'main', enable_push: false },
  });
  expect(rule.status).toBe(201);
  const work = path.join(sandbox.dir, 'clone-v2');
  await sandbox.git(['fetch', 'origin'], work).catch(() => undefined);
  fs.writeFileSync(path.join(work, 'protected.txt'), 'no');
  await sandbox.git(['add', '.'], work);
  await sandbox.git(['commit', '-m', 'to a protected branch'], work);
  const pushed = await gitWith(alice.file, ['push', 'origin', 'HEAD:main'], work);
  expect(pushed.status).not.toBe(0);
  expect(pushed.stderr).toMatch(/hearth: branch main/);
});

test('a prohibited user is refused; the host key stays the same across a restart', async () => {
  const edited = await server.api('PATCH', '/admin/users/bob', {
    basic: ['forge-admin', 'admin-password-1'],
    body: { login_name: 'bob', source_id: 0, prohibit_login: true },
  });
  expect(edited.status).toBe(200);
  const refused = await gitWith(bob.file, ['clone', url('alice/garden'), 'bob-prohibited']);
  expect(refused.status).not.toBe(0);

  const keyFile = path.join(server.dataDir, 'ssh', 'ssh_host_ed25519_key');
  expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
  const scan = async (scanPort: number) => {
    const out = (await runCommand('ssh-keyscan', ['-t', 'ed25519', '-p', String(scanPort), '127.0.0.1'])).stdout;
    return out
      .split('\n')
      .find((line) => line.includes('ssh-ed25519'))!
      .split(' ')
      .slice(1)
      .join(' ');
  };
  const before = await scan(port);
  expect(before).toMatch(/^ssh-ed25519 /);
  // A second start on the same data directory (another database is fine: the host key is a file).
  const again = await startServer({ server: { DATA_DIR: server.dataDir } });
  try {
    const againRepo = await again.api('GET', '/repos/forge-admin/none');
    expect(againRepo.status).toBe(404);
    const made = await again.api('POST', '/user/repos', { basic: ['forge-admin', 'admin-password-1'], body: { name: 'probe' } });
    const againPort = Number(new URL(made.body.ssh_url).port);
    expect(againPort).not.toBe(port);
    expect(await scan(againPort)).toBe(before);
  } finally {
    await again.close();
  }
});

test('a port already taken leaves the forge serving HTTP without ssh_url, and says why in the log', async () => {
  const logLines: string[] = [];
  const busy = await startServer({ plugins: { ssh: { settings: { SSH_PORT: port } } } }, { logLines });
  try {
    const made = await busy.api('POST', '/user/repos', { basic: ['forge-admin', 'admin-password-1'], body: { name: 'plain' } });
    expect(made.status).toBe(201);
    expect(made.body.ssh_url).toBe('');
    expect(logLines.join('\n')).toMatch(/the SSH server could not listen/);
  } finally {
    await busy.close();
  }
});
