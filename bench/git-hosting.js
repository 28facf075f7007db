'use strict';
/**
 * Git hosting benchmark: Hearth serving a big repository over smart HTTP, compared with plain
 * git serving the same repository from a local path, in the same run on the same machine.
 *
 *   0. fixture     ≥ 20,000 commits, pack ≥ 50 MB, generated with git fast-import (each commit
 *                  rewrites one of 500 files with 2.6 KB of random bytes), then `git repack -adb`.
 *                  Loaded into Hearth by one push of every branch (time reported, informational).
 *   1. clone       `git clone --bare` from Hearth vs `git clone --bare --no-local` from a path.
 *                  1 warm-up + 3 runs each, median. Target hearth/git ≤ 1.15.
 *   2. fetch       100 new commits pushed to both, then `git fetch` in an existing clone of
 *                  each. 5 fresh sets, median. Target ≤ 1.2.
 *   3. push        1,000 new commits on a new branch, `git push` to Hearth vs to a bare path
 *                  (git's local transport). 5 fresh branches, median. Hearth's answer ends
 *                  only once it has recorded the push, so that is included. Target ≤ 1.3.
 *   4. concurrent  20 simultaneous clones from Hearth; the server process's RSS sampled every
 *                  25 ms; peak minus the reading just before. Target < 100 MB added. For
 *                  scale, the wall time of as many concurrent --no-local clones of the path.
 *   5. API         commits page 1 / page 200 (50 per page) and one file's contents: p50/p99 of
 *                  50 sequential requests; page 200 within 2× of page 1. Skipped (reported as
 *                  "not available yet") while those endpoints answer 404/405.
 *
 * Every git here runs with its own HOME and no system config (bench/git-fixtures.js).
 * Sub-second figures move with the machine's load: the load average is printed, and a busy
 * machine is flagged.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lib = require('./lib');
const fx = require('./git-fixtures');

const FIXTURE = { commits: 20_000, blobSize: 2600, minPackMb: 50 };
const RUNS = 3;
// Fetch and push take a fraction of a second each, so they get more (cheap) runs than clone.
const SHORT_RUNS = 5;
const FETCH_COMMITS = 100;
const PUSH_COMMITS = 1000;
const CONCURRENT = { clones: 20, sampleMs: 25, timeoutMs: 150_000 };
const API = { requests: 50, warmup: 3, budgetMs: 20_000 };
const TARGETS = { cloneRatio: 1.15, fetchRatio: 1.2, pushRatio: 1.3, concurrentRssMb: 100, commitsPageRatio: 2 };
const ADMIN = lib.HEARTH_ADMIN;
const REPO = 'big';
const BRANCH = 'main';

async function run() {
  const plugins = lib.shippedPlugins();
  const tempDirs = [];
  const servers = [];
  const warnings = [];
  const say = (text) => console.log(`  ${text}`);
  const loadBefore = os.loadavg()[0];
  if (loadBefore > os.cpus().length / 2)
    warnings.push(
      `machine busy at the start (1-min load ${loadBefore.toFixed(2)} on ${os.cpus().length} CPUs): the sub-second ratios are noisy`,
    );
  try {
    const work = lib.makeTempDir('hearth-bench-git-');
    const dataDir = lib.makeTempDir('hearth-bench-data-');
    tempDirs.push(work, dataDir);
    const home = path.join(work, 'home');
    fs.mkdirSync(home);
    const env = fx.gitEnv(home);
    const git = (args, opts = {}) => fx.git(args, { env, ...opts });
    const source = path.join(work, 'source.git');
    const baseline = path.join(work, 'baseline.git');
    const hearthGitDir = path.join(dataDir, 'repositories', ADMIN.username, `${REPO}.git`);

    // --- 0. The fixture: generated in a "source" bare repository, packed as a served one would be. ---
    let t = Date.now();
    await git(['init', '--bare', '--quiet', `--initial-branch=${BRANCH}`, source]);
    const tip = await fx.generateCommits({
      gitDir: source,
      env,
      ref: `refs/heads/${BRANCH}`,
      count: FIXTURE.commits,
      blobSize: FIXTURE.blobSize,
      seed: 1,
    });
    const importMs = Date.now() - t;
    t = Date.now();
    await git(['--git-dir', source, 'repack', '-adbq'], { timeoutMs: 180_000 });
    const repackMs = Date.now() - t;
    const sourcePack = fx.packStats(source);
    const commitCount = Number((await git(['--git-dir', source, 'rev-list', '--count', BRANCH])).stdout.trim());
    say(
      `fixture: ${commitCount} commits, pack ${lib.mb(sourcePack.bytes).toFixed(1)} MB (` +
        `${sourcePack.packs} pack), fast-import ${(importMs / 1000).toFixed(1)} s + repack -adb ` +
        `${(repackMs / 1000).toFixed(1)} s`,
    );
    if (commitCount < FIXTURE.commits || lib.mb(sourcePack.bytes) < FIXTURE.minPackMb) {
      warnings.push(`fixture smaller than asked: ${commitCount} commits, ${lib.mb(sourcePack.bytes).toFixed(1)} MB`);
    }

    // --- Hearth, a token, an empty repository. ---
    const hearth = await lib.startServer({ ...lib.hearthSpec(dataDir, plugins), logFile: path.join(work, 'server.log') });
    servers.push(hearth);
    const token = await lib.hearthToken(hearth, ['write:repository']);
    const auth = { authorization: `token ${token}` };
    const repoRes = await lib.request(`${hearth.url}/api/v1/user/repos`, { method: 'POST', headers: auth, body: { name: REPO } });
    if (repoRes.status !== 201) throw new Error(`creating the repository answered ${repoRes.status}: ${repoRes.body}`);
    const { host } = new URL(hearth.url);
    const hearthUrl = `http://${ADMIN.username}:${token}@${host}/${ADMIN.username}/${REPO}.git`;

    // --- Loading: one push of every branch into Hearth, timed; for comparison the same push
    // into an empty bare repository by path (thrown away afterwards). ---
    const loadHearth = await git(['--git-dir', source, 'push', '-q', hearthUrl, 'refs/heads/*:refs/heads/*'], { timeoutMs: 180_000 });
    const scratchTarget = path.join(work, 'load-target.git');
    await git(['init', '--bare', '--quiet', scratchTarget]);
    const loadGit = await git(['--git-dir', source, 'push', '-q', scratchTarget, 'refs/heads/*:refs/heads/*'], { timeoutMs: 180_000 });
    fs.rmSync(scratchTarget, { recursive: true, force: true });
    say(
      `initial push of ${commitCount} commits: hearth ${(loadHearth.ms / 1000).toFixed(1)} s, ` +
        `local path ${(loadGit.ms / 1000).toFixed(1)} s`,
    );

    // The baseline is a plain bare copy. Both it and Hearth's copy (in its data dir) are then
    // repacked the same way (`repack -adb`: one pack with bitmaps), so the two serve equally
    // packed repositories and the comparison is of the serving, not of the packing.
    await git(['clone', '--bare', '--quiet', '--no-local', source, baseline], { timeoutMs: 120_000 });
    if (!fs.existsSync(hearthGitDir)) throw new Error(`Hearth's repository is not at ${hearthGitDir}`);
    await git(['--git-dir', baseline, 'repack', '-adbq'], { timeoutMs: 180_000 });
    await git(['--git-dir', hearthGitDir, 'repack', '-adbq'], { timeoutMs: 180_000 });
    const packs = { hearth: fx.packStats(hearthGitDir), baseline: fx.packStats(baseline) };
    say(
      `served packs: hearth ${lib.mb(packs.hearth.bytes).toFixed(1)} MB in ${packs.hearth.packs}` +
        `, git ${lib.mb(packs.baseline.bytes).toFixed(1)} MB in ${packs.baseline.packs}`,
    );

    // --- 1. Clone: alternating, one unmeasured warm-up each (page cache, first-request costs). ---
    const cloneFrom = { hearth: hearthUrl, git: baseline };
    const cloneArgs = { hearth: [], git: ['--no-local'] };
    const clones = { hearth: [], git: [] };
    const keep = {};
    for (let i = 0; i <= RUNS; i++) {
      for (const side of i % 2 ? ['git', 'hearth'] : ['hearth', 'git']) {
        const dir = path.join(work, `clone-${side}-${i}.git`);
        const r = await git(['clone', '--bare', '-q', ...cloneArgs[side], cloneFrom[side], dir], { timeoutMs: 120_000 });
        if (i === 0) {
          const n = Number((await git(['--git-dir', dir, 'rev-list', '--count', BRANCH])).stdout.trim());
          if (n !== commitCount) throw new Error(`clone from ${side} has ${n} commits on ${BRANCH}, expected ${commitCount}`);
        } else clones[side].push(r.ms);
        if (i === RUNS)
          keep[side] = dir; // the last clones stay for the fetch test
        else fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    const clone = ratioOf(clones);
    say(`clone runs (s): hearth ${fmtMs(clones.hearth)}; git ${fmtMs(clones.git)}`);

    // --- 2. Fetch: 100 new commits on main, made in the source repository (our scratch clone),
    // pushed to both remotes untimed, then a timed `git fetch` in each existing clone. ---
    for (const dir of Object.values(keep))
      await git(['--git-dir', dir, 'config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
    const fetches = { hearth: [], git: [] };
    let head = tip;
    let next = commitCount;
    for (let i = 0; i < SHORT_RUNS; i++) {
      head = await fx.generateCommits({
        gitDir: source,
        env,
        ref: `refs/heads/${BRANCH}`,
        count: FETCH_COMMITS,
        first: next,
        from: head,
        blobSize: FIXTURE.blobSize,
        seed: 1000 + i,
      });
      next += FETCH_COMMITS;
      await git(['--git-dir', source, 'push', '-q', hearthUrl, BRANCH], { timeoutMs: 60_000 });
      await git(['--git-dir', source, 'push', '-q', baseline, BRANCH], { timeoutMs: 60_000 });
      for (const side of i % 2 ? ['git', 'hearth'] : ['hearth', 'git']) {
        const r = await git(['--git-dir', keep[side], 'fetch', '-q', 'origin'], { timeoutMs: 60_000 });
        fetches[side].push(r.ms);
        const got = (await git(['--git-dir', keep[side], 'rev-parse', `refs/remotes/origin/${BRANCH}`])).stdout.trim();
        if (got !== head) throw new Error(`fetch from ${side} ended at ${got}, expected ${head}`);
      }
    }
    const fetch = ratioOf(fetches);
    say(`fetch runs (s): hearth ${fmtMs(fetches.hearth)}; git ${fmtMs(fetches.git)}`);
    for (const dir of Object.values(keep)) fs.rmSync(dir, { recursive: true, force: true });

    // --- 3. Push: 1,000 commits on a fresh branch per run, pushed to Hearth and to the bare path. ---
    const pushes = { hearth: [], git: [] };
    for (let i = 0; i < SHORT_RUNS; i++) {
      const ref = `refs/heads/bench-push-${i}`;
      await fx.generateCommits({
        gitDir: source,
        env,
        ref,
        count: PUSH_COMMITS,
        first: next,
        from: head,
        blobSize: FIXTURE.blobSize,
        seed: 2000 + i,
      });
      next += PUSH_COMMITS;
      for (const side of i % 2 ? ['git', 'hearth'] : ['hearth', 'git']) {
        const r = await git(['--git-dir', source, 'push', '-q', cloneFrom[side], `${ref}:${ref}`], { timeoutMs: 120_000 });
        pushes[side].push(r.ms);
      }
    }
    const push = ratioOf(pushes);
    say(`push runs (s): hearth ${fmtMs(pushes.hearth)}; git ${fmtMs(pushes.git)}`);
    const branchRes = await lib
      .request(`${hearth.url}/api/v1/repos/${ADMIN.username}/${REPO}/branches/bench-push-0`, { headers: auth, timeoutMs: 5000 })
      .catch(() => null);
    if (branchRes && branchRes.status !== 200 && branchRes.status !== 404)
      warnings.push(`GET branches/bench-push-0 after the push answered ${branchRes.status}`);

    // --- 4. Concurrent clones from Hearth, with the server's memory sampled throughout. ---
    const concurrent = await concurrentClones({ git, work, url: hearthUrl, pid: hearth.pid, packBytes: packs.hearth.bytes, warnings, say });
    const concurrentGit = await concurrentClones({
      git,
      work,
      url: baseline,
      args: ['--no-local'],
      count: concurrent.clones,
      warnings,
      say: (text) => say(`git: ${text}`),
    });

    // --- 5. API latency on the big repository. ---
    const file = fx.filePath(7);
    const api = await apiLatency(hearth.url, auth, file, say);

    const hearthStop = await lib.stopServer(hearth);
    if (!hearthStop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    // The log goes with the temp dir: quote the lines that say a git process or a push record failed.
    const failures = fs
      .readFileSync(hearth.logFile, 'utf8')
      .split('\n')
      .filter((l) => /git transport process failed|recording a push failed/.test(l));
    if (failures.length)
      warnings.push(
        `server log: ${failures.length} failed git process / push record line(s), e.g. ${failures
          .slice(0, 2)
          .map((l) => l.slice(0, 300))
          .join(' || ')}`,
      );

    // --- Report. ---
    const s = (ms) => (ms / 1000).toFixed(3);
    const rows = [
      ['measure', 'hearth', 'git', 'hearth/git'],
      [`repository: ${commitCount} commits, pack MB`, lib.mb(packs.hearth.bytes).toFixed(1), lib.mb(packs.baseline.bytes).toFixed(1), ''],
      ['initial push of everything, s (info)', s(loadHearth.ms), s(loadGit.ms), (loadHearth.ms / loadGit.ms).toFixed(2)],
      [`clone --bare, s (median of ${RUNS})`, s(clone.hearth), s(clone.git), clone.ratio.toFixed(2)],
      [`fetch ${FETCH_COMMITS} commits, s (median of ${SHORT_RUNS})`, s(fetch.hearth), s(fetch.git), fetch.ratio.toFixed(2)],
      [`push ${PUSH_COMMITS} commits, s (median of ${SHORT_RUNS})`, s(push.hearth), s(push.git), push.ratio.toFixed(2)],
      [
        `${concurrent.clones} concurrent clones: wall, s`,
        s(concurrent.wallMs),
        s(concurrentGit.wallMs),
        (concurrent.wallMs / concurrentGit.wallMs).toFixed(2),
      ],
      [
        '  per clone median / max, s',
        `${s(concurrent.cloneMedianMs)} / ${s(concurrent.cloneMaxMs)}`,
        `${s(concurrentGit.cloneMedianMs)} / ${s(concurrentGit.cloneMaxMs)}`,
        '',
      ],
      ['  server RSS before → peak, MB', `${concurrent.rssBeforeMb.toFixed(0)} → ${concurrent.rssPeakMb.toFixed(0)}`, '', ''],
      ['  server RSS added, MB', concurrent.rssAddedMb.toFixed(1), '', ''],
      ['  its git processes, peak RSS sum, MB', concurrent.childrenPeakMb.toFixed(0), '', ''],
    ];
    for (const e of api.endpoints) {
      rows.push(
        e.available
          ? [`GET ${e.label}, ms p50 / p99`, `${e.p50.toFixed(1)} / ${e.p99.toFixed(1)}`, '', '']
          : [`GET ${e.label}`, e.note, '', ''],
      );
    }

    console.log('');
    console.log(lib.table(rows));
    console.log('');
    // Only the reading from before our own work means anything: the concurrent clones load the machine themselves.
    console.log(`1-min load average at the start: ${loadBefore.toFixed(2)} (${os.cpus().length} CPUs)`);
    for (const w of warnings) console.log(`WARNING: ${w}`);
    console.log('');

    const targets = [
      {
        name: 'clone',
        met: clone.ratio <= TARGETS.cloneRatio,
        line: `clone: hearth ${s(clone.hearth)} s vs git ${s(clone.git)} s = ${clone.ratio.toFixed(2)} — target ≤ ${TARGETS.cloneRatio}`,
      },
      {
        name: 'fetch',
        met: fetch.ratio <= TARGETS.fetchRatio,
        line:
          `fetch of ${FETCH_COMMITS} commits: hearth ${s(fetch.hearth)} s vs git ${s(fetch.git)} s = ` +
          `${fetch.ratio.toFixed(2)} — target ≤ ${TARGETS.fetchRatio}`,
      },
      {
        name: 'push',
        met: push.ratio <= TARGETS.pushRatio,
        line:
          `push of ${PUSH_COMMITS} commits: hearth ${s(push.hearth)} s vs git (local path) ` +
          `${s(push.git)} s = ${push.ratio.toFixed(2)} — target ≤ ${TARGETS.pushRatio}`,
      },
      {
        name: 'concurrent clones RSS',
        met: concurrent.rssAddedMb < TARGETS.concurrentRssMb,
        line:
          `${concurrent.clones} concurrent clones: server RSS +${concurrent.rssAddedMb.toFixed(1)} ` +
          `MB (wall ${s(concurrent.wallMs)} s) — target < ${TARGETS.concurrentRssMb} MB`,
      },
    ];
    const [page1, page200] = api.endpoints;
    if (page1.available && page200.available) {
      const ratio = page200.p50 / page1.p50;
      api.page200Ratio = ratio;
      targets.push({
        name: 'commits page 200 vs 1',
        met: ratio <= TARGETS.commitsPageRatio,
        line:
          `commits page 200 vs page 1: p50 ${page200.p50.toFixed(1)} ms vs ${page1.p50.toFixed(1)} ` +
          `ms = ${ratio.toFixed(2)}x — target ≤ ${TARGETS.commitsPageRatio}x`,
      });
    }
    for (const t of targets) console.log(`${t.line}: ${t.met ? 'met' : 'NOT met'}`);
    if (!(page1.available && page200.available))
      console.log(
        `commits page 200 vs page 1 — target ≤ ${TARGETS.commitsPageRatio}x: not measured (${page1.available ? page200.note : page1.note})`,
      );

    return {
      plugins,
      loadAverageAtStart: loadBefore,
      settings: {
        ...FIXTURE,
        runs: RUNS,
        shortRuns: SHORT_RUNS,
        fetchCommits: FETCH_COMMITS,
        pushCommits: PUSH_COMMITS,
        concurrent: CONCURRENT,
        api: API,
      },
      targets: TARGETS,
      fixture: {
        commits: commitCount,
        sourcePackBytes: sourcePack.bytes,
        importMs,
        repackMs,
        servedPackBytes: { hearth: packs.hearth.bytes, git: packs.baseline.bytes },
      },
      initialPush: { hearthMs: loadHearth.ms, gitMs: loadGit.ms },
      clone: { ...clone, unit: 'ms', runs: clones },
      fetch: { ...fetch, unit: 'ms', runs: fetches },
      push: { ...push, unit: 'ms', runs: pushes },
      concurrent,
      concurrentGit,
      api,
      warnings,
      verdicts: targets.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    // Whatever happened, leave no server running and no temp dir behind.
    for (const server of servers) await lib.stopServer(server, 2000);
    for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function ratioOf(runs) {
  const hearth = lib.median(runs.hearth);
  const git = lib.median(runs.git);
  return { hearth, git, ratio: hearth / git };
}

function fmtMs(list) {
  return list.map((ms) => (ms / 1000).toFixed(3)).join(' ');
}

/** Processes below pid (children, grandchildren...) via /proc/<pid>/task/<tid>/children. */
function descendants(pid, out = []) {
  let tasks = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    let text = '';
    try {
      text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of text.split(' ').filter(Boolean).map(Number)) {
      if (out.length > 500) return out;
      out.push(child);
      descendants(child, out);
    }
  }
  return out;
}

/**
 * `count` simultaneous `git clone --bare` (CONCURRENT.clones unless given). With a server pid,
 * its RSS is read every sampleMs from just before the first spawn until the last clone exits;
 * its git children are summed separately (separate processes, so not in the target, but worth
 * seeing). With packBytes, fewer clones, with a note, when the disk cannot hold them all.
 */
async function concurrentClones({ git, work, url, args = [], pid, packBytes, count = CONCURRENT.clones, warnings, say }) {
  const { bavail, bsize } = fs.statfsSync(work);
  const free = bavail * bsize;
  const perClone = (packBytes ?? 0) * 1.2;
  const reserve = 1024 ** 3;
  if (packBytes && free - reserve < count * perClone) {
    count = Math.max(1, Math.floor((free - reserve) / perClone));
    const note =
      `only ${count} concurrent clones instead of ${CONCURRENT.clones}: ` +
      `${lib.mb(free).toFixed(0)} MB free on ${work}'s disk, ~${lib.mb(perClone).toFixed(0)} MB ` +
      `per clone plus 1 GB reserve`;
    warnings.push(note);
    say(`NOTE: ${note}`);
  }
  const dirs = Array.from({ length: count }, (_, i) => path.join(work, `concurrent-${i}.git`));
  let peak = 0;
  let childrenPeak = 0;
  let samples = 0;
  const sample = () => {
    if (!pid) return;
    const rss = lib.readRss(pid);
    if (rss != null && rss > peak) peak = rss;
    let sum = 0;
    for (const child of descendants(pid)) sum += lib.readRss(child) ?? 0;
    if (sum > childrenPeak) childrenPeak = sum;
    samples++;
  };
  const before = pid ? lib.readRss(pid) : null;
  peak = before ?? 0;
  const timer = setInterval(sample, CONCURRENT.sampleMs);
  const started = Date.now();
  let results;
  try {
    results = await Promise.allSettled(
      dirs.map((dir) => git(['clone', '--bare', '-q', ...args, url, dir], { timeoutMs: CONCURRENT.timeoutMs })),
    );
  } finally {
    clearInterval(timer);
  }
  sample();
  const wallMs = Date.now() - started;
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length)
    warnings.push(`${failed.length} of ${count} concurrent clones failed: ${String(failed[0].reason).split('\n').slice(0, 3).join(' | ')}`);
  const times = results.filter((r) => r.status === 'fulfilled').map((r) => r.value.ms);
  say(
    `${count} concurrent clones: ${times.length} succeeded in ${(wallMs / 1000).toFixed(1)} s wall${pid ? `, ${samples} RSS samples` : ''}`,
  );
  return {
    clones: count,
    succeeded: times.length,
    wallMs,
    cloneMedianMs: times.length ? lib.median(times) : NaN,
    cloneMaxMs: times.length ? Math.max(...times) : NaN,
    samples,
    ...(pid
      ? { rssBeforeMb: lib.mb(before), rssPeakMb: lib.mb(peak), rssAddedMb: lib.mb(peak - before), childrenPeakMb: lib.mb(childrenPeak) }
      : {}),
  };
}

/**
 * API.requests sequential GETs per endpoint after API.warmup unmeasured ones, each bounded by
 * API.budgetMs. An endpoint answering 404/405 is not written yet: reported and skipped.
 */
async function apiLatency(baseUrl, headers, file, say) {
  const repoPath = `/api/v1/repos/${ADMIN.username}/${REPO}`;
  const endpoints = [
    { label: 'commits?limit=50 (page 1)', path: `${repoPath}/commits?limit=50&page=1` },
    { label: 'commits?limit=50&page=200', path: `${repoPath}/commits?limit=50&page=200` },
    { label: `contents/${file}`, path: `${repoPath}/contents/${file}` },
  ];
  for (const e of endpoints) {
    const first = await lib
      .request(baseUrl + e.path, { headers, timeoutMs: 10_000 })
      .catch((err) => ({ status: 0, body: String(err.message) }));
    if (first.status === 404 || first.status === 405) {
      Object.assign(e, { available: false, status: first.status, note: 'not available yet' });
      say(`GET ${e.label}: answered ${first.status} — not available yet, skipped`);
      continue;
    }
    if (first.status !== 200) {
      Object.assign(e, { available: false, status: first.status, note: `answered ${first.status}` });
      say(`GET ${e.label}: answered ${first.status}: ${first.body.slice(0, 200)} — skipped`);
      continue;
    }
    if (e.path.includes('/commits')) {
      const n = JSON.parse(first.body).length;
      if (n !== 50) say(`GET ${e.label}: ${n} commits in the answer (expected 50)`);
      e.items = n;
    }
    const deadline = Date.now() + API.budgetMs;
    const times = [];
    let errors = 0;
    for (let i = 0; i < API.warmup + API.requests && Date.now() < deadline; i++) {
      const started = process.hrtime.bigint();
      const res = await lib.request(baseUrl + e.path, { headers, timeoutMs: 10_000 }).catch(() => null);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (!res || res.status !== 200) errors++;
      else if (i >= API.warmup) times.push(ms);
    }
    if (times.length === 0) {
      Object.assign(e, { available: false, note: `no successful request (${errors} errors)` });
      continue;
    }
    const { p50, p99 } = lib.latencySummary(times);
    Object.assign(e, { available: true, requests: times.length, errors, p50, p99 });
    if (times.length < API.requests) say(`GET ${e.label}: only ${times.length} requests within ${API.budgetMs / 1000} s`);
  }
  return { endpoints };
}

module.exports = { name: 'git-hosting', run };
