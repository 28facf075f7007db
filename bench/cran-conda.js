'use strict';
/**
 * CRAN and conda registry benchmark: publish cost as an owner's index grows, and serving the
 * generated indexes (PACKAGES, repodata.json) against a bare Node HTTP server sending the same
 * bytes from memory, measured in the same run.
 *
 *   1. fill      FILL source packages (cran) and FILL .tar.bz2 packages (conda) for the bench
 *                owner, each a different package, timed (p50 per 100 printed).
 *   2. publish   SAMPLES pairs, alternating which goes first: the 1st package of a fresh owner
 *                and the next (1,001st…) of the bench owner. Target: p50 ratio ≤ 1.5.
 *   3. serve     autocannon on src/contrib/PACKAGES and noarch/repodata.json (FILL records each:
 *                indexes are generated once, cached, and checked against the database per request)
 *                and on the baseline server holding the same bytes. Reported: requests/s ratio.
 */
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const lib = require('./lib');

const FILL = 1000;
const SAMPLES = 11;
const TARGET_RATIO = 1.5;
const DURATION = 5;

const tar = (files) => Buffer.concat([...Object.entries(files).map(([n, c]) => lib.tarEntry(n, Buffer.from(c))), Buffer.alloc(1024)]);

function cranPackage(name) {
  return zlib.gzipSync(
    tar({
      [`${name}/DESCRIPTION`]:
        `Package: ${name}\nVersion: 1.0.0\nTitle: Bench\nLicense: MIT\n` + `Imports: stats,\n    utils\nNeedsCompilation: no\n`,
      [`${name}/R/f.R`]: `f <- function() "${name}"\n`,
    }),
  );
}

function condaPackage(name) {
  const index = {
    name,
    version: '1.0',
    build: 'h0_0',
    build_number: 0,
    depends: ['python >=3.8'],
    subdir: 'noarch',
    noarch: 'generic',
    license: 'MIT',
  };
  const data = tar({ 'info/index.json': JSON.stringify(index), 'info/files': `share/${name}\n`, [`share/${name}`]: name });
  return { filename: `${name}-1.0-h0_0.tar.bz2`, body: execFileSync('bzip2', ['-c'], { input: data }) };
}

const BASELINE = `
const http = require('node:http');
const fs = require('node:fs');
const files = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const bodies = Object.fromEntries(Object.entries(files).map(([p, f]) => [p, { body: fs.readFileSync(f.file), type: f.type }]));
const server = http.createServer((req, res) => {
  const hit = bodies[req.url];
  if (req.url === '/ready') return res.end('ok');
  if (!hit) { res.statusCode = 404; return res.end(); }
  res.writeHead(200, { 'Content-Type': hit.type, 'Content-Length': hit.body.length, ETag: '"x"', 'Cache-Control': 'no-cache' });
  res.end(hit.body);
});
server.listen(0, '127.0.0.1', () => console.log('baseline static is listening on http://127.0.0.1:' + server.address().port + '/'));
process.once('SIGTERM', () => { server.close(() => process.exit(0)); server.closeIdleConnections(); });
`;

async function publishRatio(server, token, fresh, format, owner) {
  const uploads = {
    cran: (who, k) => lib.timedPut(`${server.url}/api/packages/${who}/cran/src`, `token ${token}`, cranPackage(`fresh${format}${k}`)),
    conda: (who, k) => {
      const p = condaPackage(`fresh-${k}`);
      return lib.timedPut(`${server.url}/api/packages/${who}/conda/${p.filename}`, `token ${token}`, p.body);
    },
  }[format];
  const first = [];
  const later = [];
  for (let k = 0; k < SAMPLES; k++) {
    if (k % 2 === 0) {
      first.push(await uploads(fresh[k], k));
      later.push(await uploads(owner, k));
    } else {
      later.push(await uploads(owner, k));
      first.push(await uploads(fresh[k], k));
    }
  }
  return {
    firstMs: first,
    laterMs: later,
    p50FirstMs: lib.median(first),
    p50LaterMs: lib.median(later),
    ratio: lib.median(later) / lib.median(first),
  };
}

async function run() {
  const dir = lib.makeTempDir('hearth-bench-cran-conda-');
  const server = await lib.startServer({
    ...lib.hearthSpec(path.join(dir, 'data'), ['cran', 'conda']),
    logFile: path.join(dir, 'hearth.log'),
  });
  const owner = lib.HEARTH_ADMIN.username;
  const result = { fill: FILL, samples: SAMPLES };
  let baseline;
  try {
    const token = await lib.hearthToken(server, ['write:package']);
    const basic = 'Basic ' + Buffer.from(`${lib.HEARTH_ADMIN.username}:${lib.HEARTH_ADMIN.password}`).toString('base64');
    const fresh = [];
    for (let k = 0; k < SAMPLES; k++) {
      await lib.createUser(server, basic, `fresh-${k}`, `fresh-${k}-password-1`);
      fresh.push(`fresh-${k}`);
    }
    await lib.createUser(server, basic, 'warmup', 'warmup-password-1');
    for (let i = 0; i < 30; i++) {
      await lib.timedPut(`${server.url}/api/packages/warmup/cran/src`, `token ${token}`, cranPackage(`warm${i}`));
      const p = condaPackage(`warm-${i}`);
      await lib.timedPut(`${server.url}/api/packages/warmup/conda/${p.filename}`, `token ${token}`, p.body);
    }

    for (const format of ['cran', 'conda']) {
      const times = [];
      const t0 = Date.now();
      for (let i = 0; i < FILL; i++) {
        if (format === 'cran')
          times.push(await lib.timedPut(`${server.url}/api/packages/${owner}/cran/src`, `token ${token}`, cranPackage(`bench${i}`)));
        else {
          const p = condaPackage(`bench-${i}`);
          times.push(await lib.timedPut(`${server.url}/api/packages/${owner}/conda/${p.filename}`, `token ${token}`, p.body));
        }
      }
      const perHundred = [];
      for (let i = 0; i < FILL; i += 100) perHundred.push(Math.round(lib.median(times.slice(i, i + 100)) * 10) / 10);
      result[format] = {
        fillSeconds: (Date.now() - t0) / 1000,
        p50PerHundredMs: perHundred,
        publish: await publishRatio(server, token, fresh, format, owner),
      };
      console.log(`  ${format}: ${FILL} packages published in ${result[format].fillSeconds.toFixed(1)} s`);
    }

    // The same bytes for the baseline, taken from Hearth's answers.
    const indexes = {
      cran: `/api/packages/${owner}/cran/src/contrib/PACKAGES`,
      conda: `/api/packages/${owner}/conda/noarch/repodata.json`,
    };
    const served = {};
    for (const [format, p] of Object.entries(indexes)) {
      const res = await lib.request(`${server.url}${p}`, { timeoutMs: 10000 });
      if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status}`);
      const file = path.join(dir, `${format}.index`);
      fs.writeFileSync(file, res.body);
      served[p] = { file, type: res.headers['content-type'] };
      result[format].indexBytes = Buffer.byteLength(res.body);
      result[format].indexSha256 = crypto.createHash('sha256').update(res.body).digest('hex').slice(0, 16);
    }
    const script = path.join(dir, 'baseline.js');
    fs.writeFileSync(script, BASELINE);
    fs.writeFileSync(path.join(dir, 'files.json'), JSON.stringify(served));
    baseline = await lib.startServer({
      name: 'baseline',
      args: [script, path.join(dir, 'files.json')],
      env: lib.cleanEnv({}),
      logFile: path.join(dir, 'baseline.log'),
      readyPath: '/ready',
    });
    for (const [format, p] of Object.entries(indexes)) {
      const hearth = await lib.measureThroughput({ url: `${server.url}${p}` }, { duration: DURATION, connections: 16 });
      const base = await lib.measureThroughput({ url: `${baseline.url}${p}` }, { duration: DURATION, connections: 16 });
      if (hearth.non2xx || base.non2xx) throw new Error(`${format}: non-2xx answers while serving the index`);
      result[format].serve = {
        hearthRps: hearth.requestsPerSec,
        baselineRps: base.requestsPerSec,
        hearthP50Ms: hearth.latencyMs.p50,
        baselineP50Ms: base.latencyMs.p50,
        ratio: hearth.requestsPerSec / base.requestsPerSec,
      };
    }
  } finally {
    lib.closeUploads();
    if (baseline) await lib.stopServer(baseline);
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => n.toFixed(1);
  const rows = [
    ['format', 'index size', 'publish p50 1st (ms)', 'publish p50 1,001st (ms)', 'ratio', 'index req/s', 'baseline req/s', 'req/s ratio'],
  ];
  for (const format of ['cran', 'conda']) {
    const r = result[format];
    rows.push([
      format,
      `${(r.indexBytes / 1024).toFixed(0)} KiB`,
      fmt(r.publish.p50FirstMs),
      fmt(r.publish.p50LaterMs),
      r.publish.ratio.toFixed(2),
      fmt(r.serve.hearthRps),
      fmt(r.serve.baselineRps),
      r.serve.ratio.toFixed(2),
    ]);
  }
  console.log(lib.table(rows));
  for (const format of ['cran', 'conda'])
    console.log(`${format}: p50 per 100 publishes while filling (ms): ${result[format].p50PerHundredMs.join(' ')}`);
  console.log('');
  lib.printVerdicts(
    ['cran', 'conda'].map((format) => ({
      line: `${format}: 1,001st publish p50 ≤ ${TARGET_RATIO} × 1st (${result[format].publish.ratio.toFixed(2)})`,
      met: result[format].publish.ratio <= TARGET_RATIO,
    })),
  );
  return result;
}

module.exports = { name: 'cran-conda', run };
