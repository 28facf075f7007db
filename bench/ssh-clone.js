'use strict';
/**
 * Git over SSH benchmark: `git clone` of one repository (2,000 commits, 200 files) over Hearth's
 * built-in SSH server with the OpenSSH client, against `git clone` of the bare repository's path
 * (no transport at all: git itself, the floor) and `git clone` over Hearth's smart HTTP, in the same
 * run; ROUNDS alternating rounds, median. ratio = ssh / bare path; HTTP shown for comparison.
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const lib = require('./lib');
const { gitEnv, git, generateCommits } = require('./git-fixtures');

const ROUNDS = 5;
const COMMITS = 2000;

async function run() {
  const dir = lib.makeTempDir('hearth-bench-ssh-');
  const sshPort = await lib.freePort();
  const spec = lib.hearthSpec(path.join(dir, 'data'), []);
  spec.env.HEARTH__PLUGINS__SSH__SETTINGS__SSH_PORT = String(sshPort);
  spec.env.HEARTH__PLUGINS__SSH__SETTINGS__SSH_LISTEN_HOST = '127.0.0.1';
  const server = await lib.startServer({ ...spec, logFile: path.join(dir, 'hearth.log') });
  try {
    const token = await lib.hearthToken(server, ['write:repository', 'write:user']);
    const auth = { authorization: `token ${token}` };
    const made = await lib.request(`${server.url}/api/v1/user/repos`, { method: 'POST', headers: auth, body: { name: 'bench' } });
    if (made.status !== 201) throw new Error(`creating the repository answered ${made.status}`);
    const key = path.join(dir, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    const pub = fs.readFileSync(`${key}.pub`, 'utf8');
    const added = await lib.request(`${server.url}/api/v1/user/keys`, {
      method: 'POST',
      headers: auth,
      body: { title: 'bench', key: pub },
    });
    if (added.status !== 201) throw new Error(`adding the key answered ${added.status}: ${added.body}`);

    const knownHosts = path.join(dir, 'known_hosts');
    const sshOptions = `-o StrictHostKeyChecking=no -o UserKnownHostsFile=${knownHosts} -o IdentitiesOnly=yes -o BatchMode=yes`;
    const env = gitEnv(dir, { GIT_SSH_COMMAND: `ssh -i ${key} ${sshOptions}` });
    const fixture = path.join(dir, 'fixture.git');
    await git(['init', '--bare', '-q', '-b', 'main', fixture], { env });
    await generateCommits({ gitDir: fixture, env, ref: 'refs/heads/main', count: COMMITS, blobSize: 2048, seed: 7 });
    const httpUrl = `${server.url.replace('://', `://bench:${token}@`)}/bench/bench.git`;
    await git(['--git-dir', fixture, 'push', '-q', httpUrl, 'main'], { env, timeoutMs: 120_000 });
    const sshUrl = `ssh://git@127.0.0.1:${sshPort}/bench/bench.git`;

    let n = 0;
    const clone = async (url) => {
      const target = path.join(dir, `clone-${++n}`);
      const { ms } = await git(['clone', '-q', '--bare', '--no-local', url, target], { env, timeoutMs: 120_000 });
      fs.rmSync(target, { recursive: true, force: true });
      return ms;
    };
    await clone(sshUrl); // warm-up: host key, caches
    const times = { bare: [], ssh: [], http: [] };
    for (let i = 0; i < ROUNDS; i++) {
      times.bare.push(await clone(fixture));
      times.ssh.push(await clone(sshUrl));
      times.http.push(await clone(httpUrl));
    }
    const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, lib.median(v)]));
    const ratio = med.ssh / med.bare;
    console.log(`git clone of ${COMMITS} commits, median of ${ROUNDS} (ms)`);
    console.log(
      lib.table([
        ['transport', 'median ms', 'vs bare path'],
        ['git clone of the bare path (--no-local)', med.bare.toFixed(0), '1.00'],
        ['hearth over SSH', med.ssh.toFixed(0), ratio.toFixed(2)],
        ['hearth over HTTP', med.http.toFixed(0), (med.http / med.bare).toFixed(2)],
      ]),
    );
    return { commits: COMMITS, rounds: ROUNDS, medianMs: med, sshVsBare: ratio, sshVsHttp: med.ssh / med.http };
  } finally {
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { name: 'ssh-clone', run };
