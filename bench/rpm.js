'use strict';
/**
 * RPM repository benchmark: does publishing get slower as a repository grows, and how fast is
 * the generated metadata served compared with a static file server serving the same bytes?
 *
 *   1. fixture    one rpmbuild run makes FILL + SAMPLES + WARMUP small noarch packages (subpackages
 *                 of one spec, each with a file, a requirement and a changelog).
 *   2. fill       FILL packages published into group `big` (PUT …/rpm/big/upload), each timed.
 *   3. publish    SAMPLES pairs, alternating which goes first: the 1st package of a fresh group
 *                 and the 1,001st… package of `big`. Timed twice: the upload alone, and the
 *                 upload followed by GET repodata/repomd.xml (the metadata is regenerated on the
 *                 first read after a change: this is the time until the package is visible).
 *                 Verdict: p50(1,001st upload) ÷ p50(1st upload) ≤ 1.5.
 *   4. serve      GET primary.xml.gz of the 1,000-package group (cached after the first read),
 *                 32 connections, vs a bare Express `static` serving the same bytes from disk in
 *                 a child process (nginx is not assumed to be installed). Verdict: ≥ 0.8×.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const lib = require('./lib');

const FILL = 1000;
const SAMPLES = 11;
const WARMUP = 20;
const TARGET_PUBLISH_RATIO = 1.5;
const TARGET_SERVE_RATIO = 0.8;

/** One spec, many subpackages: rpmbuild writes one .rpm per subpackage in a single run. */
function buildPackages(dir, count) {
  const top = path.join(dir, 'rpmbuild');
  const lines = [
    'Name: bench',
    'Version: 1.0',
    'Release: 1',
    'Summary: bench',
    'License: MIT',
    'BuildArch: noarch',
    'AutoReqProv: no',
    '%description',
    'bench',
    '%install',
  ];
  lines.push('mkdir -p %{buildroot}/usr/share/bench');
  lines.push(`for i in $(seq 0 ${count - 1}); do echo $i > %{buildroot}/usr/share/bench/file-$i; done`);
  for (let i = 0; i < count; i++) {
    lines.push(
      `%package -n bench-pkg-${i}`,
      `Summary: bench package ${i}`,
      'Requires: bench-base >= 1.0',
      `%description -n bench-pkg-${i}`,
      `Bench package number ${i}.`,
    );
    lines.push(`%files -n bench-pkg-${i}`, `/usr/share/bench/file-${i}`);
  }
  lines.push('%changelog', '* Mon Jan 01 2024 Bench <bench@example.com> - 1.0-1', '- Bench build', '');
  const spec = path.join(dir, 'bench.spec');
  fs.writeFileSync(spec, lines.join('\n'));
  execFileSync('rpmbuild', ['--quiet', '--define', `_topdir ${top}`, '-bb', spec], { stdio: ['ignore', 'ignore', 'pipe'] });
  return Array.from({ length: count }, (_, i) => fs.readFileSync(path.join(top, 'RPMS/noarch', `bench-pkg-${i}-1.0-1.noarch.rpm`)));
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function call(url, method, token, body) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const headers = { authorization: `token ${token}` };
    if (body) headers['content-length'] = body.length;
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (res.statusCode >= 300) reject(new Error(`${method} ${url} answered ${res.statusCode}: ${Buffer.concat(chunks)}`));
        else resolve({ ms, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A bare Express app serving `dir` statically, as the baseline; prints the line lib.startServer waits for. */
const BASELINE = `
const express = require('express');
const app = express();
app.use('/files', express.static(process.env.BASELINE_DIR, { etag: true }));
app.get('/ready', (_req, res) => res.send('ok'));
const server = app.listen(0, '127.0.0.1', () => console.log('baseline static is listening on http://127.0.0.1:' + server.address().port + '/'));
process.once('SIGTERM', () => { server.close(() => process.exit(0)); server.closeIdleConnections(); });
`;

async function run() {
  const dir = lib.makeTempDir('hearth-bench-rpm-');
  const t0 = Date.now();
  const rpms = buildPackages(dir, FILL + SAMPLES * 2 + WARMUP);
  const buildSeconds = (Date.now() - t0) / 1000;
  const server = await lib.startServer({ ...lib.hearthSpec(path.join(dir, 'data'), ['rpm']), logFile: path.join(dir, 'hearth.log') });
  const owner = lib.HEARTH_ADMIN.username;
  const base = `${server.url}/api/packages/${owner}/rpm`;
  const result = { fill: FILL, samples: SAMPLES, buildSeconds };
  let baseline;
  try {
    const token = await lib.hearthToken(server, ['write:package']);
    let next = 0;
    for (let i = 0; i < WARMUP; i++) {
      await call(`${base}/warmup/upload`, 'PUT', token, rpms[next++]);
      await call(`${base}/warmup/repodata/repomd.xml`, 'GET', token);
    }
    const fill = [];
    const t1 = Date.now();
    for (let i = 0; i < FILL; i++) fill.push((await call(`${base}/big/upload`, 'PUT', token, rpms[next++])).ms);
    result.fillSeconds = (Date.now() - t1) / 1000;
    result.p50PerHundredMs = [];
    for (let i = 0; i < FILL; i += 100) result.p50PerHundredMs.push(Math.round(lib.median(fill.slice(i, i + 100)) * 10) / 10);
    await call(`${base}/big/repodata/repomd.xml`, 'GET', token);

    const first = { upload: [], visible: [] };
    const later = { upload: [], visible: [] };
    const publish = async (group, into) => {
      const up = await call(`${base}/${group}/upload`, 'PUT', token, rpms[next++]);
      const md = await call(`${base}/${group}/repodata/repomd.xml`, 'GET', token);
      into.upload.push(up.ms);
      into.visible.push(up.ms + md.ms);
    };
    for (let k = 0; k < SAMPLES; k++) {
      if (k % 2 === 0) {
        await publish(`fresh-${k}`, first);
        await publish('big', later);
      } else {
        await publish('big', later);
        await publish(`fresh-${k}`, first);
      }
    }
    result.p50FirstUploadMs = lib.median(first.upload);
    result.p50LaterUploadMs = lib.median(later.upload);
    result.p50FirstVisibleMs = lib.median(first.visible);
    result.p50LaterVisibleMs = lib.median(later.visible);
    result.publishRatio = result.p50LaterUploadMs / result.p50FirstUploadMs;
    result.visibleRatio = result.p50LaterVisibleMs / result.p50FirstVisibleMs;

    // The current primary.xml.gz of `big`, written to disk for the baseline.
    const repomd = (await call(`${base}/big/repodata/repomd.xml`, 'GET', token)).body.toString();
    const href = /<data type="primary">[\s\S]*?<location href="repodata\/([^"]+)"/.exec(repomd)[1];
    const primary = (await call(`${base}/big/repodata/${href}`, 'GET', token)).body;
    result.primaryBytes = primary.length;
    result.packagesInPrimary = Number(/packages="(\d+)"/.exec(require('node:zlib').gunzipSync(primary).toString())[1]);
    const staticDir = path.join(dir, 'static');
    fs.mkdirSync(staticDir);
    fs.writeFileSync(path.join(staticDir, href), primary);
    baseline = await lib.startServer({
      name: 'baseline',
      args: ['-e', BASELINE],
      env: lib.cleanEnv({ BASELINE_DIR: staticDir }),
      cwd: path.join(__dirname, '..'),
      logFile: path.join(dir, 'baseline.log'),
      readyPath: '/ready',
    });
    // Anonymous, as dnf reads a public owner's repository.
    result.hearthServe = await lib.measureThroughput({ url: `${base}/big/repodata/${href}` }, { duration: 5, connections: 32 });
    const headers = { authorization: `token ${token}` };
    result.hearthServeWithToken = await lib.measureThroughput(
      { url: `${base}/big/repodata/${href}`, headers },
      { duration: 5, connections: 32 },
    );
    result.baselineServe = await lib.measureThroughput({ url: `${baseline.url}/files/${href}` }, { duration: 5, connections: 32 });
    result.serveRatio = result.hearthServe.requestsPerSec / result.baselineServe.requestsPerSec;
  } finally {
    agent.destroy();
    if (baseline) await lib.stopServer(baseline);
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => n.toFixed(1);
  console.log(
    lib.table([
      ['publish one .rpm', 'upload p50 ms', 'upload + repomd.xml p50 ms'],
      ["a group's 1st package", fmt(result.p50FirstUploadMs), fmt(result.p50FirstVisibleMs)],
      ['the 1,001st… package of a group', fmt(result.p50LaterUploadMs), fmt(result.p50LaterVisibleMs)],
    ]),
  );
  console.log(
    `\nrpmbuild of ${FILL + SAMPLES * 2 + WARMUP} packages: ${buildSeconds.toFixed(1)} s; ` +
      `filling 1,000: ${result.fillSeconds.toFixed(1)} s; p50 per 100 uploads (ms): ` +
      `${result.p50PerHundredMs.join(' ')}`,
  );
  console.log(
    lib.table([
      [
        `GET primary.xml.gz (${result.packagesInPrimary} packages, ${result.primaryBytes} bytes), 32 connections`,
        'req/s',
        'p50 ms',
        'p99 ms',
        'non-2xx',
      ],
      [
        'hearth, anonymous',
        fmt(result.hearthServe.requestsPerSec),
        result.hearthServe.latencyMs.p50,
        result.hearthServe.latencyMs.p99,
        result.hearthServe.non2xx,
      ],
      [
        'hearth, with a token',
        fmt(result.hearthServeWithToken.requestsPerSec),
        result.hearthServeWithToken.latencyMs.p50,
        result.hearthServeWithToken.latencyMs.p99,
        result.hearthServeWithToken.non2xx,
      ],
      [
        'bare Express static, same bytes',
        fmt(result.baselineServe.requestsPerSec),
        result.baselineServe.latencyMs.p50,
        result.baselineServe.latencyMs.p99,
        result.baselineServe.non2xx,
      ],
    ]),
  );
  console.log(
    `\nupload + regenerated repomd.xml, 1,001st ÷ 1st (p50): ${result.visibleRatio.toFixed(2)} ` +
      `(informational: the first read after a change regenerates the group's metadata)`,
  );
  const verdicts = [
    {
      line: `1,001st-package upload ÷ 1st (p50): ${result.publishRatio.toFixed(2)} (target ≤ ${TARGET_PUBLISH_RATIO})`,
      met: result.publishRatio <= TARGET_PUBLISH_RATIO,
    },
    {
      line: `primary.xml.gz serving, hearth ÷ static baseline: ${result.serveRatio.toFixed(2)} (target ≥ ${TARGET_SERVE_RATIO})`,
      met: result.serveRatio >= TARGET_SERVE_RATIO,
    },
  ];
  lib.printVerdicts(verdicts);
  result.met = verdicts.every((v) => v.met);
  return result;
}

module.exports = { name: 'rpm', run };
