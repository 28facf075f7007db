'use strict';
/**
 * Debian registry benchmark (plugins/debian).
 *
 *   1. publish   FILL small .debs into one distribution/component of the bench owner
 *                (PUT /api/packages/{owner}/debian/pool/bench/main/upload), then SAMPLES pairs,
 *                alternating order: the 1st package of a fresh owner vs the next (1,001st…) of
 *                the bench owner. A publish stores the file's row and raises the distribution's
 *                generation; the indexes are rebuilt and signed on the next read. Target p50 ratio ≤ 1.5.
 *   2. serve     the 1,000-package index through Hearth vs nginx serving the same bytes from disk
 *                (lib.compareWithNginx: Node's HTTP client, 16 connections; req/s and CPU time per
 *                request of each server): the file apt fetches (Packages.xz by hash, as the Release
 *                says Acquire-By-Hash) and Packages.gz by name. Target ≥ 0.8.
 *
 * The .debs are written here (ar + control.tar.gz + data.tar.gz), not with dpkg-deb.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const lib = require('./lib');

const FILL = 1000;
const SAMPLES = 11;
const TARGET_PUBLISH_RATIO = 1.5;
const TARGET_SERVE_RATIO = 0.8;

function arMember(name, data) {
  const header =
    `${name.padEnd(16)}${'0'.padEnd(12)}${'0'.padEnd(6)}${'0'.padEnd(6)}${'100644'.padEnd(8)}` + `${String(data.length).padEnd(10)}\`\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), data, data.length % 2 ? Buffer.from('\n') : Buffer.alloc(0)]);
}

function makeDeb(name, version) {
  const control =
    `Package: ${name}\nVersion: ${version}\nArchitecture: amd64\nMaintainer: Bench <bench@example.com>\nDepends: libc6 (>= 2.17)\n` +
    `Description: benchmark package ${name}\n A package of the Hearth Debian benchmark.\n`;
  const controlTar = zlib.gzipSync(Buffer.concat([lib.tarEntry('./control', Buffer.from(control)), Buffer.alloc(1024)]));
  const dataTar = zlib.gzipSync(Buffer.concat([lib.tarEntry(`./usr/share/${name}/README`, crypto.randomBytes(256)), Buffer.alloc(1024)]));
  return Buffer.concat([
    Buffer.from('!<arch>\n'),
    arMember('debian-binary', Buffer.from('2.0\n')),
    arMember('control.tar.gz', controlTar),
    arMember('data.tar.gz', dataTar),
  ]);
}

async function run() {
  const dir = lib.makeTempDir('hearth-bench-debian-');
  const server = await lib.startServer({ ...lib.hearthSpec(path.join(dir, 'data'), ['debian']), logFile: path.join(dir, 'hearth.log') });
  const owner = lib.HEARTH_ADMIN.username;
  const result = { fill: FILL, samples: SAMPLES };
  try {
    const token = await lib.hearthToken(server, ['write:package']);
    const basic = 'Basic ' + Buffer.from(`${lib.HEARTH_ADMIN.username}:${lib.HEARTH_ADMIN.password}`).toString('base64');
    const fresh = [];
    for (let k = 0; k < SAMPLES + 1; k++) {
      fresh.push(await lib.createUser(server, basic, `fresh-${k}`));
    }
    const url = (who) => `${server.url}/api/packages/${who}/debian/pool/bench/main/upload`;
    // Warm-up (JIT, key generation of the warm-up owner) on the spare fresh owner.
    for (let i = 0; i < 20; i++) await lib.timedPut(url(fresh[SAMPLES]), `token ${token}`, makeDeb(`warm-${i}`, '1.0'));

    const fill = [];
    const t0 = Date.now();
    for (let i = 0; i < FILL; i++) fill.push(await lib.timedPut(url(owner), `token ${token}`, makeDeb(`bench-pkg-${i}`, '1.0-1')));
    result.fillSeconds = (Date.now() - t0) / 1000;
    result.p50PerHundredMs = lib.p50PerHundred(fill);
    // A fresh owner's first publish also makes its signing key (once per owner): take it out of the comparison.
    for (let k = 0; k < SAMPLES; k++)
      await lib.request(`${server.url}/api/packages/${fresh[k]}/debian/repository.key`, { timeoutMs: 60000 });
    const pairs = await lib.alternatingPairs(
      SAMPLES,
      (k) => lib.timedPut(url(fresh[k]), `token ${token}`, makeDeb(`new-pkg-${k}`, '1.0')),
      (k) => lib.timedPut(url(owner), `token ${token}`, makeDeb(`new-pkg-${k}`, '1.0')),
    );
    result.firstMs = pairs.a;
    result.lastMs = pairs.b;
    result.publishRatio = lib.median(result.lastMs) / lib.median(result.firstMs);

    // Serving the 1,000-package indexes vs nginx with the same bytes: what apt fetches (Acquire-By-Hash: the
    // newest compression the Release lists, by its SHA256), and Packages.gz by name.
    const dists = `${server.url}/api/packages/${owner}/debian/dists/bench`;
    const release = (await lib.getBytes(`${dists}/Release`)).body.toString();
    const listed = (file) => new RegExp(`^ ([0-9a-f]{64}) +(\\d+) main/binary-amd64/${file.replace('.', '\\.')}$`, 'm').exec(release);
    const apt = listed('Packages.xz') ? 'Packages.xz' : 'Packages.gz';
    result.aptFetches = apt;
    const gz = await lib.getBytes(`${dists}/main/binary-amd64/Packages.gz`);
    result.packagesStanzas = zlib
      .gunzipSync(gz.body)
      .toString()
      .split('\n\n')
      .filter((s) => s.trim()).length;
    result.serving = await lib.compareWithNginx(
      server,
      [
        { label: `${apt} by hash`, url: `${dists}/main/binary-amd64/by-hash/SHA256/${listed(apt)[1]}` },
        { label: 'Packages.gz', url: `${dists}/main/binary-amd64/Packages.gz` },
      ],
      { dir },
    );
  } finally {
    lib.closeUploads();
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => n.toFixed(1);
  console.log(
    lib.table([
      ['publish (one .deb into bench/main)', 'p50 ms', 'each (ms)'],
      ["owner's 1st package (empty distribution)", fmt(lib.median(result.firstMs)), result.firstMs.map(fmt).join(' ')],
      ["owner's 1,001st… package (1,000 in the index)", fmt(lib.median(result.lastMs)), result.lastMs.map(fmt).join(' ')],
    ]),
  );
  console.log(
    `\nfilling ${FILL} packages: ${result.fillSeconds.toFixed(1)} s; p50 per 100 publishes (ms): ${result.p50PerHundredMs.join(' ')}`,
  );
  const serving = lib.servingReport(
    result.serving,
    TARGET_SERVE_RATIO,
    `serving the indexes of ${result.packagesStanzas} packages (apt fetches ${result.aptFetches}), 16 connections:`,
  );
  const verdicts = [lib.atMost('1,001st publish ÷ 1st publish (p50)', result.publishRatio, TARGET_PUBLISH_RATIO), ...serving.verdicts];
  console.log('');
  lib.printVerdicts(verdicts, serving.warnings);
  result.met = verdicts.every((v) => v.met);
  return result;
}

module.exports = { name: 'debian', run };
