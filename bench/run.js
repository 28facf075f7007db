#!/usr/bin/env node
'use strict';
/**
 * Runs Hearth's benchmarks: `npm run bench` (builds first), or `node bench/run.js [name...]`
 * to run only some of them.
 *
 * A benchmark is a module in this folder listed in BENCHMARKS below, exporting
 * `{ name, run }` where `run()` prints its own table and verdicts and resolves with a
 * JSON-serialisable result; that result is written to bench/results/<name>-latest.json.
 * To add one: write bench/<name>.js (helpers in bench/lib.js) and add its name to the list.
 *
 * Benchmarks measure; they do not gate. A missed target prints "NOT met" but the exit code
 * stays 0. Only a benchmark that could not run (server did not start, ...) exits 1.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const BENCHMARKS = [
  'foundation',
  'git-hosting',
  'packages',
  'cargo',
  'orgs',
  'issues',
  'feeds',
  'webhooks',
  'pulls',
  'branch-protection',
  'push-mirrors',
  'access',
  'rpm',
  'cran-conda',
  'go',
  'swift-chef',
  'debian',
  'alpine',
  'web',
  'lfs',
  'activitypub',
  'two-factor',
  'wiki-names',
  'oauth2',
  'follows',
  'ssh-clone',
];
const RESULTS_DIR = path.join(__dirname, 'results');

function gitCommit() {
  try {
    const opts = { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] };
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], opts).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], opts).trim() !== '';
    return { sha, dirty };
  } catch {
    return null;
  }
}

async function main(args) {
  const unknown = args.filter((a) => !BENCHMARKS.includes(a));
  if (unknown.length) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}`);
    return 2;
  }
  const selected = args.length ? args : BENCHMARKS;
  // The machine is part of the result: ratios travel between machines, absolute figures do not.
  const environment = {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    totalMemMb: Math.round(os.totalmem() / 2 ** 20),
    loadAvg: os.loadavg(),
    commit: gitCommit(),
  };
  let failed = 0;
  for (const name of selected) {
    const bench = require(`./${name}`);
    console.log(`=== bench: ${bench.name} ===`);
    const started = Date.now();
    try {
      const result = await bench.run();
      const seconds = (Date.now() - started) / 1000;
      fs.mkdirSync(RESULTS_DIR, { recursive: true });
      const file = path.join(RESULTS_DIR, `${bench.name}-latest.json`);
      fs.writeFileSync(
        file,
        JSON.stringify({ bench: bench.name, date: new Date().toISOString(), seconds, environment, result }, null, 2) + '\n',
      );
      console.log(`\n(${seconds.toFixed(1)} s; raw results in ${path.relative(process.cwd(), file)})\n`);
    } catch (err) {
      failed++;
      console.error(`bench ${name} could not run: ${err.stack || err}`);
    }
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
