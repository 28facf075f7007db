'use strict';
/**
 * Branch protection benchmark: what protection rules cost where they are checked, ratios in one
 * run on one SQLite Hearth server (no plugins). Two repositories with the same history: `open`
 * without rules and `guarded` with 50 glob rules (none matching the pushed branches) plus one
 * protecting main.
 *
 *   push     `git push` of one new commit to a fresh unprotected branch, alternating between the
 *            two repositories (the pre-receive hook reads the pusher's rules and matches every
 *            pushed branch against them in one awk). 5 warm-up + 30 measured each; p50 ratio.
 *            Target: guarded ≤ 1.25 × open.
 *   branches `GET /branches?limit=50` (50 branches; each matched against the rules for
 *            protected/user_can_push/user_can_merge), sequential keep-alive, interleaved:
 *            20 warm-up + 200 measured each; p50 ratio. Target: guarded ≤ 1.25 × open.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const lib = require('./lib');
const fx = require('./git-fixtures');

const RULES = 50;
const BRANCHES = 50;
const PUSH_RUNS = { warmup: 5, measured: 30 };
const LIST_RUNS = { warmup: 20, measured: 200 };
const TARGET = 1.25;

async function run() {
  const work = lib.makeTempDir('hearth-bench-protection-');
  const dataDir = path.join(work, 'data');
  const home = path.join(work, 'home');
  fs.mkdirSync(home);
  fs.mkdirSync(dataDir);
  const env = fx.gitEnv(home);
  const git = (args, opts = {}) => fx.git(args, { env, ...opts });
  let server;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(dataDir, []), logFile: path.join(work, 'server.log') });
    const token = await lib.hearthToken(server, ['write:repository']);
    const auth = { authorization: `token ${token}` };
    const owner = lib.HEARTH_ADMIN.username;
    const api = async (method, route, body, expected) => {
      const res = await lib.request(`${server.url}/api/v1${route}`, { method, headers: auth, body, timeoutMs: 60000 });
      if (res.status !== expected) throw new Error(`${method} ${route} answered ${res.status} (expected ${expected}): ${res.body}`);
      return res.body ? JSON.parse(res.body) : null;
    };
    const { host } = new URL(server.url);
    const clone = path.join(work, 'clone');
    await git(['init', '-q', '--initial-branch=main', clone]);
    fs.writeFileSync(path.join(clone, 'README'), 'bench\n');
    await git(['-C', clone, 'add', 'README']);
    await git(['-C', clone, 'commit', '-q', '-m', 'initial']);
    const remotes = {};
    for (const name of ['open', 'guarded']) {
      await api('POST', '/user/repos', { name }, 201);
      remotes[name] = `http://${owner}:${token}@${host}/${owner}/${name}.git`;
      const refspecs = ['main:refs/heads/main'];
      for (let b = 0; b < BRANCHES; b++) refspecs.push(`main:refs/heads/topic/b${b}`);
      await git(['-C', clone, 'push', '-q', remotes[name], ...refspecs], { timeoutMs: 120000 });
    }
    for (let r = 0; r < RULES; r++) await api('POST', `/repos/${owner}/guarded/branch_protections`, { rule_name: `release-${r}/**` }, 201);
    await api('POST', `/repos/${owner}/guarded/branch_protections`, { rule_name: 'main', required_approvals: 1 }, 201);

    // --- push ---
    const pushMs = { open: [], guarded: [] };
    for (let i = 0; i < PUSH_RUNS.warmup + PUSH_RUNS.measured; i++) {
      fs.writeFileSync(path.join(clone, 'n.txt'), `${i}\n`);
      await git(['-C', clone, 'add', 'n.txt']);
      await git(['-C', clone, 'commit', '-q', '-m', `change ${i}`]);
      for (const name of i % 2 ? ['open', 'guarded'] : ['guarded', 'open']) {
        const t = process.hrtime.bigint();
        await git(['-C', clone, 'push', '-q', remotes[name], `HEAD:refs/heads/work/p${i}`]);
        const ms = Number(process.hrtime.bigint() - t) / 1e6;
        if (i >= PUSH_RUNS.warmup) pushMs[name].push(ms);
      }
    }

    // --- branch list ---
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (url) =>
      new Promise((resolve, reject) => {
        const t = process.hrtime.bigint();
        const req = http.get(url, { agent, headers: auth, timeout: 60000 }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t) / 1e6 }));
          res.on('error', reject);
        });
        req.on('error', reject);
      });
    const listMs = { open: [], guarded: [] };
    try {
      for (let i = 0; i < LIST_RUNS.warmup + LIST_RUNS.measured; i++) {
        for (const name of ['open', 'guarded']) {
          const r = await get(`${server.url}/api/v1/repos/${owner}/${name}/branches?limit=50`);
          if (r.status !== 200) throw new Error(`branch list of ${name} answered ${r.status}`);
          if (i >= LIST_RUNS.warmup) listMs[name].push(r.ms);
        }
      }
    } finally {
      agent.destroy();
    }
    const main = await api('GET', `/repos/${owner}/guarded/branches/main`, undefined, 200);
    const warnings = main.protected ? [] : ['main of the guarded repository is not reported as protected'];

    const s = {
      push: { open: lib.latencySummary(pushMs.open), guarded: lib.latencySummary(pushMs.guarded) },
      list: { open: lib.latencySummary(listMs.open), guarded: lib.latencySummary(listMs.guarded) },
    };
    const f = (n) => n.toFixed(2);
    console.log(
      lib.table([
        ['measure', 'p50 ms', 'p99 ms', 'mean ms'],
        ['git push, no rules', f(s.push.open.p50), f(s.push.open.p99), f(s.push.open.mean)],
        [`git push, ${RULES + 1} rules`, f(s.push.guarded.p50), f(s.push.guarded.p99), f(s.push.guarded.mean)],
        [`GET /branches (${BRANCHES + 1}), no rules`, f(s.list.open.p50), f(s.list.open.p99), f(s.list.open.mean)],
        [`GET /branches (${BRANCHES + 1}), ${RULES + 1} rules`, f(s.list.guarded.p50), f(s.list.guarded.p99), f(s.list.guarded.mean)],
      ]),
    );
    for (const w of warnings) console.log(`WARNING: ${w}`);
    const pushRatio = s.push.guarded.p50 / s.push.open.p50;
    const listRatio = s.list.guarded.p50 / s.list.open.p50;
    const verdicts = [
      {
        name: 'push with rules',
        met: pushRatio <= TARGET,
        line: `git push with ${RULES + 1} rules vs none: p50 ${f(pushRatio)}x — target ≤ ${TARGET}x`,
      },
      {
        name: 'branch list with rules',
        met: listRatio <= TARGET,
        line: `branch list with ${RULES + 1} rules vs none: p50 ${f(listRatio)}x — target ≤ ${TARGET}x`,
      },
    ];
    console.log('');
    lib.printVerdicts(verdicts);
    const stop = await lib.stopServer(server);
    server = null;
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    return {
      rules: RULES + 1,
      branches: BRANCHES + 1,
      runs: { push: PUSH_RUNS, list: LIST_RUNS },
      ms: s,
      ratios: { push: pushRatio, list: listRatio },
      warnings,
      verdicts,
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { name: 'branch-protection', run };
