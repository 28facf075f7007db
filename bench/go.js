'use strict';
/**
 * Go module proxy benchmark: serving the GOPROXY files, and publishing as a module grows.
 *
 *   1. fill      FILL versions of one module (PUT /api/packages/{owner}/go/upload, module zips of
 *                ~40 KB: go.mod, a few .go files), sequentially; each timed.
 *   2. publish   SAMPLES pairs, alternating which goes first: the 1st version of a fresh module and
 *                the next version (FILL+1st, …) of the big module. Every upload validates the zip
 *                and reads the module's version list (duplicates, case collisions). Target: the
 *                FILL+1st costs ≤ 1.5× the 1st (p50). The same zip bytes through the generic
 *                registry (no validation) are timed too, as the framework's floor.
 *   3. serve     `@v/list` (FILL lines), `.info`, `.mod` and `.zip` of one version through Hearth,
 *                against a bare Express app in this process answering the same bytes from memory
 *                (the floor for any Node server): sequential keep-alive latency, interleaved,
 *                and autocannon throughput for `@v/list` and `.zip`. Ratios hearth ÷ bare.
 */
const path = require('node:path');
const crypto = require('node:crypto');
const express = require('express');
const lib = require('./lib');

const FILL = 1000;
const SAMPLES = 11;
const REQUESTS = 300;
const TARGET_PUBLISH_RATIO = 1.5;
const MODULE = 'example.com/bench/Proxy';

function loadZipWriter() {
  try {
    return require('../plugins/go/dist/zip-writer');
  } catch {
    throw new Error('plugins/go/dist is missing: run "npx tsc -b" first (npm run bench does)');
  }
}

/** A module zip of about 40 KB: go.mod and a few source files with some incompressible bytes. */
function moduleZipOf(writer, modulePath, version) {
  const files = { 'go.mod': `module ${modulePath}\n\ngo 1.18\n`, LICENSE: 'MIT\n' };
  for (let i = 0; i < 4; i++)
    files[`pkg${i}/file.go`] = `package pkg${i}\n\n// ` + `${crypto.randomBytes(7000).toString('base64')}\nconst V = "${version}"\n`;
  return writer.moduleZip(modulePath, version, files);
}

/** The bare baseline: Express answering fixed bytes with the same content types. */
async function bareServer(files) {
  const app = express();
  for (const [route, { type, body }] of Object.entries(files)) app.get(route, (_req, res) => res.type(type).send(body));
  const server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function publishPhase(server, token, writer, result) {
  const upload = `${server.url}/api/packages/${lib.HEARTH_ADMIN.username}/go/upload`;
  const fill = [];
  const t0 = Date.now();
  for (let i = 0; i < FILL; i++) {
    fill.push(await lib.timedPut(upload, `token ${token}`, moduleZipOf(writer, MODULE, `v1.${Math.floor(i / 100)}.${i % 100}`)));
    if ((i + 1) % 250 === 0) process.stdout.write(`  ${i + 1} versions published\n`);
  }
  result.fillSeconds = (Date.now() - t0) / 1000;
  result.p50PerHundredMs = [];
  for (let i = 0; i < FILL; i += 100) result.p50PerHundredMs.push(Math.round(lib.median(fill.slice(i, i + 100)) * 10) / 10);
  for (let k = 0; k < SAMPLES; k++) {
    const first = () => lib.timedPut(upload, `token ${token}`, moduleZipOf(writer, `example.com/fresh/m${k}`, 'v1.0.0'));
    const later = () => lib.timedPut(upload, `token ${token}`, moduleZipOf(writer, MODULE, `v1.99.${k}`));
    const generic = () =>
      lib.timedPut(
        `${server.url}/api/packages/${lib.HEARTH_ADMIN.username}/generic/bench-zip/1.0.${k}/m.zip`,
        `token ${token}`,
        moduleZipOf(writer, MODULE, 'v1.0.0'),
      );
    const order = k % 2 === 0 ? [first, later] : [later, first];
    const times = [];
    for (const f of order) times.push(await f());
    result.firstMs.push(k % 2 === 0 ? times[0] : times[1]);
    result.laterMs.push(k % 2 === 0 ? times[1] : times[0]);
    result.genericMs.push(await generic());
  }
  result.p50FirstMs = lib.median(result.firstMs);
  result.p50LaterMs = lib.median(result.laterMs);
  result.p50GenericMs = lib.median(result.genericMs);
  result.publishRatio = result.p50LaterMs / result.p50FirstMs;
}

async function servePhase(server, token, result) {
  const base = `${server.url}/api/packages/${lib.HEARTH_ADMIN.username}/go/example.com/bench/!proxy`;
  const headers = { authorization: `token ${token}` };
  const routes = { list: '@v/list', info: '@v/v1.5.5.info', mod: '@v/v1.5.5.mod', zip: '@v/v1.5.5.zip' };
  const types = { list: 'text/plain; charset=utf-8', info: 'application/json', mod: 'text/plain; charset=utf-8', zip: 'application/zip' };
  const fetched = await lib.sequentialGets(
    Object.values(routes).map((r) => ({ url: `${base}/${r}`, headers })),
    { warmup: 0, requests: 1 },
  );
  const bytes = Object.fromEntries(Object.keys(routes).map((k, i) => [k, fetched.last[i].body]));
  if (bytes.list.toString().trim().split('\n').length < FILL) throw new Error('@v/list does not hold every filled version');
  const bare = await bareServer(Object.fromEntries(Object.keys(routes).map((k) => [`/${routes[k]}`, { type: types[k], body: bytes[k] }])));
  try {
    const targets = [];
    for (const k of Object.keys(routes)) targets.push({ url: `${base}/${routes[k]}`, headers }, { url: `${bare.url}/${routes[k]}` });
    const { stats } = await lib.sequentialGets(targets, { warmup: 30, requests: REQUESTS });
    result.latency = {};
    Object.keys(routes).forEach((k, i) => {
      result.latency[k] = {
        bytes: bytes[k].length,
        hearthP50: stats[2 * i].p50,
        bareP50: stats[2 * i + 1].p50,
        ratio: stats[2 * i].p50 / stats[2 * i + 1].p50,
      };
    });
    result.throughput = {};
    for (const k of ['list', 'zip']) {
      const hearth = await lib.measureThroughput({ url: `${base}/${routes[k]}`, headers }, { duration: 4, connections: 16 });
      const baseline = await lib.measureThroughput({ url: `${bare.url}/${routes[k]}` }, { duration: 4, connections: 16 });
      if (hearth.non2xx || baseline.non2xx)
        throw new Error(`non-2xx answers under load (${k}): hearth ${hearth.non2xx}, bare ` + `${baseline.non2xx}`);
      result.throughput[k] = {
        hearthRps: hearth.requestsPerSec,
        bareRps: baseline.requestsPerSec,
        ratio: hearth.requestsPerSec / baseline.requestsPerSec,
      };
    }
  } finally {
    await bare.close();
  }
}

async function run() {
  const writer = loadZipWriter();
  const dir = lib.makeTempDir('hearth-bench-go-');
  const server = await lib.startServer({
    ...lib.hearthSpec(path.join(dir, 'data'), ['go', 'generic']),
    logFile: path.join(dir, 'hearth.log'),
  });
  const result = { fill: FILL, samples: SAMPLES, firstMs: [], laterMs: [], genericMs: [] };
  try {
    const token = await lib.hearthToken(server, ['write:package']);
    await publishPhase(server, token, writer, result);
    await servePhase(server, token, result);
  } finally {
    lib.closeUploads();
    await lib.stopServer(server);
    require('node:fs').rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => n.toFixed(2);
  console.log(
    lib.table([
      ['publish (module zip upload)', 'p50 ms'],
      ['1st version of a fresh module', fmt(result.p50FirstMs)],
      [`${FILL + 1}st… version of one module`, fmt(result.p50LaterMs)],
      ['same bytes through the generic registry', fmt(result.p50GenericMs)],
    ]),
  );
  console.log(
    `\nfilling ${FILL} versions: ${result.fillSeconds.toFixed(1)} s; p50 per 100 uploads (ms): ` + `${result.p50PerHundredMs.join(' ')}\n`,
  );
  console.log(
    lib.table([
      ['GET (keep-alive, sequential)', 'bytes', 'hearth p50 ms', 'bare express p50 ms', 'ratio'],
      ...Object.entries(result.latency).map(([k, v]) => [k, v.bytes, fmt(v.hearthP50), fmt(v.bareP50), fmt(v.ratio)]),
    ]),
  );
  console.log('');
  console.log(
    lib.table([
      ['throughput (16 connections)', 'hearth req/s', 'bare express req/s', 'ratio'],
      ...Object.entries(result.throughput).map(([k, v]) => [k, Math.round(v.hearthRps), Math.round(v.bareRps), fmt(v.ratio)]),
    ]),
  );
  console.log('');
  const met = result.publishRatio <= TARGET_PUBLISH_RATIO;
  lib.printVerdicts([
    {
      line:
        `${FILL + 1}st-version publish ÷ 1st-version publish (p50): ${fmt(result.publishRatio)} (target ≤ ` + `${TARGET_PUBLISH_RATIO})`,
      met,
    },
  ]);
  result.met = met;
  return result;
}

module.exports = { name: 'go', run };
