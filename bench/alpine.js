'use strict';
/**
 * Alpine registry benchmark (plugins/alpine).
 *
 *   1. publish   FILL small .apk files into one branch/repository of the bench owner
 *                (PUT /api/packages/{owner}/alpine/bench/main), then SAMPLES pairs, alternating
 *                which goes first: the 1st package of a fresh repository (fresh-k/main) and the
 *                1,001st… of bench/main. Timed twice: the upload alone (the verdict, target p50
 *                ratio ≤ 1.5), and the upload followed by GET APKINDEX.tar.gz (the index is built
 *                and signed on the first read after a change: the time until the package is visible).
 *   2. serve     APKINDEX.tar.gz of the 1,000-package repository through Hearth vs nginx serving
 *                the same bytes from disk (lib.compareWithNginx: Node's HTTP client, 16
 *                connections; req/s and CPU time per request of each server). Target ≥ 0.8.
 *
 * The .apk files are written here as abuild writes them: a gzip'd control segment (.PKGINFO, tar
 * without end-of-archive blocks), then a gzip'd data segment (a complete tar) whose SHA-256 is the
 * .PKGINFO datahash. They are unsigned: the index is what the owner's key signs.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const lib = require('./lib');

const FILL = 1000;
const SAMPLES = 11;
const WARMUP = 20;
const ARCH = 'x86_64';
const TARGET_PUBLISH_RATIO = 1.5;
const TARGET_SERVE_RATIO = 0.8;

function makeApk(name, version) {
  const data = zlib.gzipSync(Buffer.concat([lib.tarEntry(`usr/share/${name}/README`, crypto.randomBytes(256)), Buffer.alloc(1024)]));
  const pkginfo = [
    `pkgname = ${name}`,
    `pkgver = ${version}`,
    `pkgdesc = benchmark package ${name}`,
    'url = https://example.com/bench',
    'builddate = 1700000000',
    `size = 4096`,
    `arch = ${ARCH}`,
    `origin = ${name}`,
    'maintainer = Bench <bench@example.com>',
    'license = MIT',
    'depend = musl',
    `datahash = ${crypto.createHash('sha256').update(data).digest('hex')}`,
    '',
  ].join('\n');
  const control = zlib.gzipSync(lib.tarEntry('.PKGINFO', Buffer.from(pkginfo)));
  return Buffer.concat([control, data]);
}

async function run() {
  const dir = lib.makeTempDir('hearth-bench-alpine-');
  const server = await lib.startServer({ ...lib.hearthSpec(path.join(dir, 'data'), ['alpine']), logFile: path.join(dir, 'hearth.log') });
  const owner = lib.HEARTH_ADMIN.username;
  const base = `${server.url}/api/packages/${owner}/alpine`;
  const index = (repository) => `${base}/${repository}/${ARCH}/APKINDEX.tar.gz`;
  const result = { fill: FILL, samples: SAMPLES };
  try {
    const token = `token ${await lib.hearthToken(server, ['write:package'])}`;
    // Warm-up (JIT, the owner's RSA key made on the first index read) in a repository of its own.
    for (let i = 0; i < WARMUP; i++) {
      await lib.timedPut(`${base}/warmup/main`, token, makeApk(`warm-${i}`, '1.0-r0'));
      await lib.getBytes(index('warmup/main'));
    }
    const fill = [];
    const t0 = Date.now();
    for (let i = 0; i < FILL; i++) fill.push(await lib.timedPut(`${base}/bench/main`, token, makeApk(`bench-pkg-${i}`, '1.0-r0')));
    result.fillSeconds = (Date.now() - t0) / 1000;
    result.p50PerHundredMs = lib.p50PerHundred(fill);
    await lib.getBytes(index('bench/main'));

    // One publish, and the time until the package is in the served index.
    const visible = { first: [], later: [] };
    const publish = async (repository, name, into) => {
      const upload = await lib.timedPut(`${base}/${repository}`, token, makeApk(name, '1.0-r0'));
      const started = process.hrtime.bigint();
      const got = await lib.getBytes(index(repository));
      if (got.status !== 200) throw new Error(`APKINDEX of ${repository} answered ${got.status}`);
      into.push(upload + Number(process.hrtime.bigint() - started) / 1e6);
      return upload;
    };
    const pairs = await lib.alternatingPairs(
      SAMPLES,
      (k) => publish(`fresh-${k}/main`, `new-pkg-${k}`, visible.first),
      (k) => publish('bench/main', `new-pkg-${k}`, visible.later),
    );
    result.firstMs = pairs.a;
    result.lastMs = pairs.b;
    result.publishRatio = lib.median(result.lastMs) / lib.median(result.firstMs);
    result.visibleRatio = lib.median(visible.later) / lib.median(visible.first);
    result.p50FirstVisibleMs = lib.median(visible.first);
    result.p50LaterVisibleMs = lib.median(visible.later);

    const served = await lib.getBytes(index('bench/main'));
    // The index segment (the second gzip member) lists one `P:` line per package.
    result.indexEntries = (zlib.gunzipSync(served.body).toString('latin1').match(/^P:/gm) || []).length;
    result.serving = await lib.compareWithNginx(server, [{ label: 'APKINDEX.tar.gz', url: index('bench/main') }], { dir });
  } finally {
    lib.closeUploads();
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => n.toFixed(1);
  console.log(
    lib.table([
      ['publish one .apk into a branch/repository', 'upload p50 ms', 'upload + APKINDEX p50 ms', 'uploads (ms)'],
      ['1st package (fresh repository)', fmt(lib.median(result.firstMs)), fmt(result.p50FirstVisibleMs), result.firstMs.map(fmt).join(' ')],
      [
        '1,001st… package (1,000 in the index)',
        fmt(lib.median(result.lastMs)),
        fmt(result.p50LaterVisibleMs),
        result.lastMs.map(fmt).join(' '),
      ],
    ]),
  );
  console.log(
    `\nfilling ${FILL} packages: ${result.fillSeconds.toFixed(1)} s; p50 per 100 uploads (ms): ${result.p50PerHundredMs.join(' ')}`,
  );
  console.log(
    `upload + rebuilt APKINDEX.tar.gz, 1,001st ÷ 1st (p50): ${result.visibleRatio.toFixed(2)} ` +
      '(informational: the first read after a change rebuilds and signs the index)',
  );
  const serving = lib.servingReport(
    result.serving,
    TARGET_SERVE_RATIO,
    `serving APKINDEX.tar.gz (${result.indexEntries} packages), 16 connections:`,
  );
  const verdicts = [lib.atMost('1,001st-package upload ÷ 1st (p50)', result.publishRatio, TARGET_PUBLISH_RATIO), ...serving.verdicts];
  console.log('');
  lib.printVerdicts(verdicts, serving.warnings);
  result.met = verdicts.every((v) => v.met);
  return result;
}

module.exports = { name: 'alpine', run };
