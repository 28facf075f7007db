'use strict';
/**
 * Package download benchmark: Hearth's generic registry serving a 100 MB package file, compared
 * with nginx serving the same bytes from disk, in the same run on the same machine.
 *
 *   1. fixture    100 MB of random bytes, uploaded once to Hearth (PUT, streamed; time reported).
 *   2. download   GET the file with 1 and with 16 concurrent clients, each client downloading
 *                 ROUNDS[c] times back to back; throughput = bytes / wall time. Same for nginx
 *                 (one worker process, sendfile on, access log off). Target hearth/nginx ≥ 0.8.
 *   3. memory     Hearth's RSS sampled every 25 ms during its runs; peak minus the reading just
 *                 before. Downloads are streamed, so this should stay small (target < 64 MB).
 *
 * nginx comes from the system (`apt-get install -y nginx-light`); without it only the absolute
 * Hearth figures are reported.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const lib = require('./lib');

const FILE_MB = 100;
const ROUNDS = { 1: 5, 16: 2 };
const TARGET_RATIO = 0.8;
const TARGET_RSS_MB = 64;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function upload(url, file, auth) {
  const size = fs.statSync(file).size;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers: { Authorization: auth, 'Content-Length': String(size) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`upload answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    fs.createReadStream(file).pipe(req);
  });
}

async function run() {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'hearth-bench-packages-'));
  const wwwRoot = path.join(dir, 'www');
  fs.mkdirSync(wwwRoot);
  const file = path.join(wwwRoot, 'payload.bin');
  const fd = fs.openSync(file, 'w');
  const block = crypto.randomBytes(1024 * 1024);
  for (let i = 0; i < FILE_MB; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  // nginx started by root serves as `nobody`: let it read the file.
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(wwwRoot, 0o755);
  fs.chmodSync(file, 0o644);
  const size = FILE_MB * 1024 * 1024;

  const dataDir = path.join(dir, 'data');
  const server = await lib.startServer({ ...lib.hearthSpec(dataDir, ['generic']), logFile: path.join(dir, 'hearth.log') });
  const result = { fileMb: FILE_MB, hearth: {}, nginx: null, ratios: {}, rss: {} };
  let nginx = null;
  try {
    const auth = 'Basic ' + Buffer.from(`${lib.HEARTH_ADMIN.username}:${lib.HEARTH_ADMIN.password}`).toString('base64');
    const hearthUrl = `${server.url}/api/packages/${lib.HEARTH_ADMIN.username}/generic/bench/1.0.0/payload.bin`;
    const t0 = Date.now();
    await upload(hearthUrl, file, auth);
    result.uploadSeconds = (Date.now() - t0) / 1000;

    // RSS sampling across Hearth's download runs.
    const before = lib.readRss(server.pid);
    let peak = before;
    const sampler = setInterval(() => {
      const rss = lib.readRss(server.pid);
      if (rss != null && rss > peak) peak = rss;
    }, 25);
    try {
      for (const clients of [1, 16]) result.hearth[clients] = await lib.downloadThroughput(hearthUrl, clients, ROUNDS[clients], size);
    } finally {
      clearInterval(sampler);
    }
    result.rss = { beforeMb: lib.mb(before), peakMb: lib.mb(peak), growthMb: lib.mb(peak - before) };

    const binary = lib.findNginx();
    if (binary) {
      nginx = await lib.startNginx(binary, wwwRoot, dir);
      result.nginx = {};
      for (const clients of [1, 16]) {
        result.nginx[clients] = await lib.downloadThroughput(`${nginx.url}/payload.bin`, clients, ROUNDS[clients], size);
        result.ratios[clients] = result.hearth[clients].mbPerSec / result.nginx[clients].mbPerSec;
      }
    } else {
      result.nginxMissing = 'nginx is not installed (apt-get install -y nginx-light): absolute figures only';
    }
  } finally {
    if (nginx) {
      nginx.child.kill('SIGTERM');
      await Promise.race([new Promise((r) => nginx.child.once('exit', r)), sleep(3000)]);
    }
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => (n == null ? null : n.toFixed(0));
  const rows = [['clients', 'hearth MB/s', 'nginx MB/s', 'hearth/nginx', `target ≥ ${TARGET_RATIO}`]];
  for (const clients of [1, 16]) {
    const ratio = result.ratios[clients];
    rows.push([
      clients,
      fmt(result.hearth[clients].mbPerSec),
      result.nginx ? fmt(result.nginx[clients].mbPerSec) : null,
      ratio == null ? null : ratio.toFixed(2),
      ratio == null ? 'n/a' : ratio >= TARGET_RATIO ? 'met' : 'NOT met',
    ]);
  }
  console.log(lib.table(rows));
  console.log(`upload of ${FILE_MB} MB: ${result.uploadSeconds.toFixed(2)} s`);
  console.log(
    `hearth RSS: ${result.rss.beforeMb.toFixed(0)} MB before, +` +
      `${result.rss.growthMb.toFixed(0)} MB at peak (target < ${TARGET_RSS_MB} MB: ` +
      `${result.rss.growthMb < TARGET_RSS_MB ? 'met' : 'NOT met'})`,
  );
  if (result.nginxMissing) console.log(result.nginxMissing);
  return result;
}

module.exports = { name: 'packages', run };
