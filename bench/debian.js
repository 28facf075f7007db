'use strict';
/**
 * Debian registry benchmark (plugins/debian).
 *
 *   1. publish   FILL small .debs into one distribution/component of the bench owner
 *                (PUT /api/packages/{owner}/debian/pool/bench/main/upload), then SAMPLES pairs,
 *                alternating order: the 1st package of a fresh owner vs the next (1,001st…) of
 *                the bench owner. Each publish rebuilds that component/architecture's Packages
 *                and Packages.gz and signs Release/InRelease. Target p50 ratio ≤ 1.5.
 *   2. serve     Packages.gz of the 1,000-package index through Hearth vs nginx serving the same
 *                bytes from disk (autocannon, 16 connections). Packages.xz is not served (no
 *                pure-JS xz compressor), so Packages.gz is the file apt fetches. Target ≥ 0.8.
 *
 * The .debs are written here (ar + control.tar.gz + data.tar.gz), not with dpkg-deb.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
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
  const result = { fill: FILL, samples: SAMPLES, firstMs: [], lastMs: [] };
  let nginx = null;
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
    result.p50PerHundredMs = [];
    for (let i = 0; i < FILL; i += 100) result.p50PerHundredMs.push(Math.round(lib.median(fill.slice(i, i + 100)) * 10) / 10);
    // A fresh owner's first publish also makes its signing key (once per owner): take it out of the comparison.
    for (let k = 0; k < SAMPLES; k++)
      await lib.request(`${server.url}/api/packages/${fresh[k]}/debian/repository.key`, { timeoutMs: 60000 });
    for (let k = 0; k < SAMPLES; k++) {
      const first = () => lib.timedPut(url(fresh[k]), `token ${token}`, makeDeb(`new-pkg-${k}`, '1.0'));
      const later = () => lib.timedPut(url(owner), `token ${token}`, makeDeb(`new-pkg-${k}`, '1.0'));
      if (k % 2 === 0) {
        result.firstMs.push(await first());
        result.lastMs.push(await later());
      } else {
        result.lastMs.push(await later());
        result.firstMs.push(await first());
      }
    }
    result.publishRatio = lib.median(result.lastMs) / lib.median(result.firstMs);

    // Serving the 1,000-package Packages.gz vs nginx with the same bytes.
    const indexPath = `/api/packages/${owner}/debian/dists/bench/main/binary-amd64/Packages.gz`;
    const body = await new Promise((resolve, reject) =>
      http
        .get(`${server.url}${indexPath}`, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`Packages.gz answered ${res.statusCode}`)),
          );
        })
        .on('error', reject),
    );
    result.packagesGzBytes = body.length;
    result.packagesStanzas = zlib
      .gunzipSync(body)
      .toString()
      .split('\n\n')
      .filter((s) => s.trim()).length;
    result.hearth = await lib.measureThroughput({ url: `${server.url}${indexPath}` }, { connections: 16, duration: 5 });
    const binary = lib.findNginx();
    if (binary) {
      const www = path.join(dir, 'www');
      fs.mkdirSync(www);
      fs.writeFileSync(path.join(www, 'Packages.gz'), body);
      nginx = await lib.startNginx(binary, www, dir);
      result.nginx = await lib.measureThroughput({ url: `${nginx.url}/Packages.gz` }, { connections: 16, duration: 5 });
      result.serveRatio = result.hearth.requestsPerSec / result.nginx.requestsPerSec;
    }
  } finally {
    lib.closeUploads();
    if (nginx) nginx.child.kill('SIGTERM');
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
  console.log(
    `Packages.gz: ${result.packagesStanzas} stanzas, ${result.packagesGzBytes} bytes; hearth ` +
      `${Math.round(result.hearth.requestsPerSec)} req/s` +
      (result.nginx
        ? `, nginx ${Math.round(result.nginx.requestsPerSec)} req/s`
        : ' (nginx not installed: apt-get install -y nginx-light)'),
  );
  const verdicts = [
    {
      line: `1,001st publish ÷ 1st publish (p50): ${result.publishRatio.toFixed(2)} (target ≤ ${TARGET_PUBLISH_RATIO})`,
      met: result.publishRatio <= TARGET_PUBLISH_RATIO,
    },
  ];
  if (result.serveRatio !== undefined)
    verdicts.push({
      line: `Packages.gz hearth ÷ nginx (req/s): ${result.serveRatio.toFixed(2)} (target ≥ ${TARGET_SERVE_RATIO})`,
      met: result.serveRatio >= TARGET_SERVE_RATIO,
    });
  lib.printVerdicts(verdicts);
  result.met = verdicts.every((v) => v.met);
  return result;
}

module.exports = { name: 'debian', run };
