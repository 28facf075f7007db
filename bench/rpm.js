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
 *   4. serve      GET primary.xml.gz of the 1,000-package group (by its content-addressed name, as
 *                 repomd.xml names it), anonymous and with a token, vs nginx serving the same bytes
 *                 from disk (lib.compareWithNginx: 16 connections, req/s and CPU per request).
 *                 Verdict: ≥ 0.8× for the anonymous read (dnf on a public repository).
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

async function run() {
  const dir = lib.makeTempDir('hearth-bench-rpm-');
  const t0 = Date.now();
  const rpms = buildPackages(dir, FILL + SAMPLES * 2 + WARMUP);
  const buildSeconds = (Date.now() - t0) / 1000;
  const server = await lib.startServer({ ...lib.hearthSpec(path.join(dir, 'data'), ['rpm']), logFile: path.join(dir, 'hearth.log') });
  const owner = lib.HEARTH_ADMIN.username;
  const base = `${server.url}/api/packages/${owner}/rpm`;
  const result = { fill: FILL, samples: SAMPLES, buildSeconds };
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
    result.p50PerHundredMs = lib.p50PerHundred(fill);
    await call(`${base}/big/repodata/repomd.xml`, 'GET', token);

    const first = { upload: [], visible: [] };
    const later = { upload: [], visible: [] };
    const publish = async (group, into) => {
      const up = await call(`${base}/${group}/upload`, 'PUT', token, rpms[next++]);
      const md = await call(`${base}/${group}/repodata/repomd.xml`, 'GET', token);
      into.upload.push(up.ms);
      into.visible.push(up.ms + md.ms);
    };
    await lib.alternatingPairs(
      SAMPLES,
      (k) => publish(`fresh-${k}`, first),
      () => publish('big', later),
    );
    result.p50FirstUploadMs = lib.median(first.upload);
    result.p50LaterUploadMs = lib.median(later.upload);
    result.p50FirstVisibleMs = lib.median(first.visible);
    result.p50LaterVisibleMs = lib.median(later.visible);
    result.publishRatio = result.p50LaterUploadMs / result.p50FirstUploadMs;
    result.visibleRatio = result.p50LaterVisibleMs / result.p50FirstVisibleMs;

    // The current primary.xml.gz of `big`, by the name repomd.xml gives it.
    const repomd = (await call(`${base}/big/repodata/repomd.xml`, 'GET', token)).body.toString();
    const href = /<data type="primary">[\s\S]*?<location href="repodata\/([^"]+)"/.exec(repomd)[1];
    const primary = (await call(`${base}/big/repodata/${href}`, 'GET', token)).body;
    result.primaryBytes = primary.length;
    result.packagesInPrimary = Number(/packages="(\d+)"/.exec(require('node:zlib').gunzipSync(primary).toString())[1]);
    const url = `${base}/big/repodata/${href}`;
    result.serving = await lib.compareWithNginx(
      server,
      [
        { label: 'primary.xml.gz, anonymous', url },
        { label: 'primary.xml.gz, with a token', url, headers: { authorization: `token ${token}` } },
      ],
      { dir },
    );
  } finally {
    agent.destroy();
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
    `\nupload + regenerated repomd.xml, 1,001st ÷ 1st (p50): ${result.visibleRatio.toFixed(2)} ` +
      `(informational: the first read after a change regenerates the group's metadata)`,
  );
  const serving = lib.servingReport(
    result.serving,
    TARGET_SERVE_RATIO,
    `serving primary.xml.gz (${result.packagesInPrimary} packages), 16 connections:`,
  );
  // The verdict is the anonymous read (dnf on a public repository); the token row shows what authentication adds.
  const verdicts = [
    lib.atMost('1,001st-package upload ÷ 1st (p50)', result.publishRatio, TARGET_PUBLISH_RATIO),
    ...serving.verdicts.slice(0, 1),
  ];
  console.log('');
  lib.printVerdicts(verdicts, serving.warnings);
  result.met = verdicts.every((v) => v.met);
  return result;
}

module.exports = { name: 'rpm', run };
