'use strict';
/**
 * Pull requests benchmark, two parts on one SQLite Hearth server (no plugins), ratios in one run.
 *
 *   merge   A repository of 20,000 commits (bench/git-fixtures.js), pushed to Hearth. Each run
 *           pushes a branch with one commit that forks from the original tip (so main has moved
 *           on and the merge is a real three-way merge), opens a pull request (not timed), then
 *           times `POST /pulls/{index}/merge` (Do=merge). The baseline does the same merge by hand
 *           in a bare copy of the same repository: `git merge-tree --write-tree` + `git commit-tree`
 *           + `git update-ref`, three processes, timed together. Target: Hearth p50 ≤ 1.5 × baseline p50.
 *   files   A pull request touching 5,000 files; `GET /pulls/{index}/files` for the first page,
 *           the middle page (skip-to the 2,501st file) and the last page (skip-to the 4,901st),
 *           sequential keep-alive, interleaved: 20 warm-up + 200 measured each; p50 / p99.
 *           Target: middle and last within 1.5 × the first page (p50): position-independent.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const lib = require('./lib');
const fx = require('./git-fixtures');

const FIXTURE = { commits: 20000, blobSize: 200 };
const MERGE_RUNS = { warmup: 2, measured: 15 };
const FILES = { count: 5000, warmup: 20, requests: 200 };
const TARGETS = { mergeRatio: 1.5, pagePosition: 1.5 };
const BRANCH = 'main';
const REPO = 'big';

/** A fast-import stream: one commit on `ref` from `from` writing `files` ({ path: content }). */
function oneCommit(ref, from, files, message, when) {
  let s = `commit ${ref}\nauthor Bench <bench@example.com> ${when} +0000\ncommitter Bench <bench@example.com> ${when} +0000\n`;
  s += `data ${Buffer.byteLength(message)}\n${message}\nfrom ${from}\n`;
  for (const [p, content] of Object.entries(files)) s += `M 100644 inline ${p}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  return `${s}done\n`;
}

async function run() {
  const work = lib.makeTempDir('hearth-bench-pulls-');
  const dataDir = path.join(work, 'data');
  const home = path.join(work, 'home');
  fs.mkdirSync(home);
  fs.mkdirSync(dataDir);
  const env = fx.gitEnv(home);
  const git = (args, opts = {}) => fx.git(args, { env, ...opts });
  const warnings = [];
  let server;
  try {
    // --- fixture: 20,000 commits in a source bare repository ---
    const source = path.join(work, 'source.git');
    await git(['init', '--bare', '--quiet', `--initial-branch=${BRANCH}`, source]);
    const t0 = Date.now();
    const tip = await fx.generateCommits({
      gitDir: source,
      env,
      ref: `refs/heads/${BRANCH}`,
      count: FIXTURE.commits,
      blobSize: FIXTURE.blobSize,
      seed: 7,
    });
    await git(['--git-dir', source, 'repack', '-adq'], { timeoutMs: 180_000 });
    console.log(
      `fixture: ${FIXTURE.commits.toLocaleString('en')} commits generated and packed in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );

    server = await lib.startServer({ ...lib.hearthSpec(dataDir, []), logFile: path.join(work, 'server.log') });
    const token = await lib.hearthToken(server, ['write:repository', 'write:issue']);
    const auth = { authorization: `token ${token}` };
    const owner = lib.HEARTH_ADMIN.username;
    const api = async (method, route, body, expected) => {
      const res = await lib.request(`${server.url}/api/v1${route}`, { method, headers: auth, body, timeoutMs: 120000 });
      if (res.status !== expected) throw new Error(`${method} ${route} answered ${res.status} (expected ${expected}): ${res.body}`);
      return res.body ? JSON.parse(res.body) : null;
    };
    await api('POST', '/user/repos', { name: REPO }, 201);
    const { host } = new URL(server.url);
    const hearthUrl = `http://${owner}:${token}@${host}/${owner}/${REPO}.git`;
    await git(['--git-dir', source, 'push', '-q', hearthUrl, `refs/heads/${BRANCH}:refs/heads/${BRANCH}`], { timeoutMs: 180_000 });
    const baseline = path.join(work, 'baseline.git');
    await git(['clone', '--bare', '--quiet', '--no-local', source, baseline], { timeoutMs: 180_000 });

    // --- merge: Hearth's merge API vs merge-tree + commit-tree + update-ref by hand ---
    const hearthMs = [];
    const plumbingMs = [];
    const total = MERGE_RUNS.warmup + MERGE_RUNS.measured;
    const baseWhen = 1_800_000_000;
    for (let i = 0; i < total; i++) {
      const name = `feature-${i}`;
      const input = oneCommit(`refs/heads/${name}`, tip, { [`features/f${i}.txt`]: `feature ${i}\n` }, `Feature ${i}`, baseWhen + i);
      await git(['--git-dir', source, 'fast-import', '--quiet', '--done'], { input });
      await git(['--git-dir', source, 'push', '-q', hearthUrl, `refs/heads/${name}:refs/heads/${name}`]);
      await git(['--git-dir', source, 'push', '-q', baseline, `refs/heads/${name}:refs/heads/${name}`]);
      const pr = await api('POST', `/repos/${owner}/${REPO}/pulls`, { head: name, base: BRANCH, title: `Feature ${i}` }, 201);
      if (!pr.mergeable) warnings.push(`pull request ${pr.number} not mergeable`);
      // Hearth
      let t = process.hrtime.bigint();
      await api('POST', `/repos/${owner}/${REPO}/pulls/${pr.number}/merge`, { Do: 'merge' }, 200);
      const h = Number(process.hrtime.bigint() - t) / 1e6;
      // by hand, same merge in the baseline copy
      t = process.hrtime.bigint();
      const base = (await git(['--git-dir', baseline, 'rev-parse', `refs/heads/${BRANCH}`])).stdout.trim();
      const tree = (await git(['--git-dir', baseline, 'merge-tree', '--write-tree', base, `refs/heads/${name}`])).stdout
        .split('\n')[0]
        .trim();
      const commit = (
        await git(['--git-dir', baseline, 'commit-tree', tree, '-p', base, '-p', `refs/heads/${name}`, '-m', `Merge ${name}`])
      ).stdout.trim();
      await git(['--git-dir', baseline, 'update-ref', `refs/heads/${BRANCH}`, commit, base]);
      const g = Number(process.hrtime.bigint() - t) / 1e6;
      if (i >= MERGE_RUNS.warmup) {
        hearthMs.push(h);
        plumbingMs.push(g);
      }
    }
    const merged = (await git(['--git-dir', source, 'ls-remote', hearthUrl, `refs/heads/${BRANCH}`])).stdout.split('\t')[0];
    const parents = (
      await git(['--git-dir', source, 'fetch', '-q', hearthUrl, `refs/heads/${BRANCH}`]).then(() =>
        git(['--git-dir', source, 'rev-list', '--parents', '-n', '1', 'FETCH_HEAD']),
      )
    ).stdout
      .trim()
      .split(' ');
    if (parents[0] !== merged || parents.length !== 3) warnings.push('the last merge on Hearth is not a two-parent merge commit');
    const hm = lib.latencySummary(hearthMs);
    const pm = lib.latencySummary(plumbingMs);

    // --- files: a pull request touching 5,000 files ---
    const bigFiles = {};
    const names = [];
    for (let i = 0; i < FILES.count; i++) {
      const p = `many/d${String(i % 50).padStart(2, '0')}/file-${String(i).padStart(4, '0')}.txt`;
      bigFiles[p] = `line ${i}\n`;
      names.push(p);
    }
    names.sort();
    await git(['--git-dir', source, 'fast-import', '--quiet', '--done'], {
      input: oneCommit('refs/heads/many', tip, bigFiles, 'Five thousand files', baseWhen + 1000),
    });
    await git(['--git-dir', source, 'push', '-q', hearthUrl, 'refs/heads/many:refs/heads/many']);
    const bigPr = await api('POST', `/repos/${owner}/${REPO}/pulls`, { head: 'many', base: BRANCH, title: 'Many files' }, 201);
    const filesUrl = `${server.url}/api/v1/repos/${owner}/${REPO}/pulls/${bigPr.number}/files`;
    const targets = [
      { label: 'first page (no skip-to)', url: filesUrl, first: names[0] },
      { label: 'middle page (skip-to file 2,501)', url: `${filesUrl}?skip-to=${encodeURIComponent(names[2500])}`, first: names[2500] },
      { label: 'last page (skip-to file 4,901)', url: `${filesUrl}?skip-to=${encodeURIComponent(names[4900])}`, first: names[4900] },
    ];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (url) =>
      new Promise((resolve, reject) => {
        const t = process.hrtime.bigint();
        const req = http.get(url, { agent, headers: auth, timeout: 60000 }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t) / 1e6, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
      });
    const samples = targets.map(() => []);
    try {
      for (let i = 0; i < FILES.warmup + FILES.requests; i++) {
        for (let u = 0; u < targets.length; u++) {
          const r = await get(targets[u].url);
          if (r.status !== 200) throw new Error(`GET ${targets[u].url} answered ${r.status}`);
          if (i === 0) {
            const body = JSON.parse(r.body.toString());
            if (body[0]?.filename !== targets[u].first)
              warnings.push(`${targets[u].label} starts at ${body[0]?.filename}, expected ${targets[u].first}`);
          }
          if (i >= FILES.warmup) samples[u].push(r.ms);
        }
      }
    } finally {
      agent.destroy();
    }
    const fs_ = samples.map(lib.latencySummary);

    const f = (n) => n.toFixed(2);
    const mergeRatio = hm.p50 / pm.p50;
    const midRatio = fs_[1].p50 / fs_[0].p50;
    const lastRatio = fs_[2].p50 / fs_[0].p50;
    console.log(
      lib.table([
        ['measure', 'p50 ms', 'p99 ms', 'mean ms'],
        ['merge API (Do=merge), 20,000-commit repository', f(hm.p50), f(hm.p99), f(hm.mean)],
        ['merge-tree + commit-tree + update-ref by hand', f(pm.p50), f(pm.p99), f(pm.mean)],
        ...targets.map((t, i) => [`files of a 5,000-file PR: ${t.label}`, f(fs_[i].p50), f(fs_[i].p99), f(fs_[i].mean)]),
      ]),
    );
    for (const w of warnings) console.log(`WARNING: ${w}`);
    const verdicts = [
      {
        name: 'merge vs plumbing',
        met: mergeRatio <= TARGETS.mergeRatio,
        line: `merge API vs plumbing by hand: p50 ${f(mergeRatio)}x — target ≤ ${TARGETS.mergeRatio}x`,
      },
      {
        name: 'files page position',
        met: midRatio <= TARGETS.pagePosition && lastRatio <= TARGETS.pagePosition,
        line:
          `files page p50, middle / last vs first: ${f(midRatio)}x / ${f(lastRatio)}x (p99 ` +
          `${f(fs_[1].p99 / fs_[0].p99)}x / ${f(fs_[2].p99 / fs_[0].p99)}x) — target ≤ ` +
          `${TARGETS.pagePosition}x`,
      },
    ];
    console.log('');
    lib.printVerdicts(verdicts);
    const stop = await lib.stopServer(server);
    server = null;
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    return {
      fixture: FIXTURE,
      runs: MERGE_RUNS,
      files: { count: FILES.count, warmup: FILES.warmup, requests: FILES.requests },
      targets: TARGETS,
      mergeMs: { hearth: hm, plumbing: pm },
      filesMs: Object.fromEntries(targets.map((t, i) => [t.label, fs_[i]])),
      ratios: { merge: mergeRatio, middleVsFirst: midRatio, lastVsFirst: lastRatio },
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { name: 'pulls', run };
