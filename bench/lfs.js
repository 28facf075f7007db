'use strict';
/**
 * Git LFS download benchmark: Hearth's LFS server (plugin `lfs`) streaming a 32 MB object from
 * its blob store, compared with a bare Express static server (bench/baseline-static.js) serving
 * the same bytes from disk, in the same run on the same machine.
 *
 *   1. fixture    32 MB of random bytes, uploaded once through the batch API (`POST
 *                 objects/batch`, `PUT` to the upload href, `POST verify`; time reported).
 *   2. download   the batch API's download href fetched by 1 and by 4 concurrent clients, each
 *                 ROUNDS[c] times back to back (anonymous, public repository: the access check
 *                 runs on every request); throughput = bytes / wall time. The same for the
 *                 baseline. Target hearth/baseline ≥ 0.7.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const lib = require('./lib');

const FILE_MB = 32;
const ROUNDS = { 1: 4, 4: 2 };
const TARGET_RATIO = 0.7;
const LFS = 'application/vnd.git-lfs+json';

/** PUT a file's bytes (streamed). */
function put(url, file, headers) {
  return new Promise((resolve, reject) => {
    const size = fs.statSync(file).size;
    const req = http.request(url, { method: 'PUT', headers: { ...headers, 'Content-Length': String(size) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`upload answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    fs.createReadStream(file).pipe(req);
  });
}

async function lfsJson(url, authorization, body) {
  const res = await lib.request(url, { method: 'POST', headers: { authorization, accept: LFS, 'content-type': LFS }, body });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body);
}

/** Upload the object through the batch API as git-lfs does; returns the download href. */
async function uploadObject(server, file, oid, size) {
  const authorization = 'Basic ' + Buffer.from(`${lib.HEARTH_ADMIN.username}:${lib.HEARTH_ADMIN.password}`).toString('base64');
  const created = await lib.request(`${server.url}/api/v1/user/repos`, {
    method: 'POST',
    headers: { authorization },
    body: { name: 'assets', auto_init: true },
  });
  if (created.status !== 201) throw new Error(`creating the repository answered ${created.status}: ${created.body}`);
  const lfsUrl = `${server.url}/${lib.HEARTH_ADMIN.username}/assets.git/info/lfs`;
  const up = await lfsJson(`${lfsUrl}/objects/batch`, authorization, { operation: 'upload', objects: [{ oid, size }] });
  const { upload, verify } = up.objects[0].actions;
  await put(upload.href.replace('://localhost:', '://127.0.0.1:'), file, upload.header);
  await lfsJson(verify.href.replace('://localhost:', '://127.0.0.1:'), authorization, { oid, size });
  const down = await lfsJson(`${lfsUrl}/objects/batch`, authorization, { operation: 'download', objects: [{ oid, size }] });
  return down.objects[0].actions.download.href.replace('://localhost:', '://127.0.0.1:');
}

async function run() {
  const dir = lib.makeTempDir('hearth-bench-lfs-');
  const wwwRoot = path.join(dir, 'www');
  fs.mkdirSync(wwwRoot);
  const file = path.join(wwwRoot, 'object.bin');
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'w');
  for (let i = 0; i < FILE_MB; i++) {
    const block = crypto.randomBytes(1024 * 1024);
    hash.update(block);
    fs.writeSync(fd, block);
  }
  fs.closeSync(fd);
  const oid = hash.digest('hex');
  const size = FILE_MB * 1024 * 1024;

  const server = await lib.startServer({ ...lib.hearthSpec(path.join(dir, 'data'), ['lfs']), logFile: path.join(dir, 'hearth.log') });
  let baseline = null;
  const result = { fileMb: FILE_MB, hearth: {}, baseline: {}, ratios: {} };
  try {
    const t0 = Date.now();
    const href = await uploadObject(server, file, oid, size);
    result.uploadSeconds = (Date.now() - t0) / 1000;
    baseline = await lib.startServer({
      name: 'baseline-static',
      args: [path.join(__dirname, 'baseline-static.js')],
      env: lib.cleanEnv({ ROOT: wwwRoot, PORT: '0' }),
      logFile: path.join(dir, 'baseline.log'),
      readyPath: '/object.bin',
    });
    for (const clients of [1, 4]) {
      result.hearth[clients] = await lib.downloadThroughput(href, clients, ROUNDS[clients], size);
      result.baseline[clients] = await lib.downloadThroughput(`${baseline.url}/object.bin`, clients, ROUNDS[clients], size);
      result.ratios[clients] = result.hearth[clients].mbPerSec / result.baseline[clients].mbPerSec;
    }
  } finally {
    if (baseline) await lib.stopServer(baseline);
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => n.toFixed(0);
  const rows = [['clients', 'hearth LFS MB/s', 'express.static MB/s', 'hearth/baseline', `target ≥ ${TARGET_RATIO}`]];
  for (const clients of [1, 4]) {
    const ratio = result.ratios[clients];
    rows.push([
      clients,
      fmt(result.hearth[clients].mbPerSec),
      fmt(result.baseline[clients].mbPerSec),
      ratio.toFixed(2),
      ratio >= TARGET_RATIO ? 'met' : 'NOT met',
    ]);
  }
  console.log(lib.table(rows));
  console.log(`upload of ${FILE_MB} MB through batch + PUT + verify: ${result.uploadSeconds.toFixed(2)} s`);
  return result;
}

module.exports = { name: 'lfs', run };
