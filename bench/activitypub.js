'use strict';
/**
 * ActivityPub benchmark: the Person actor of a user against the user's API JSON, in the same run,
 * on one SQLite server with the activitypub plugin (anonymous callers, as remote servers are).
 *
 *   latency     sequential keep-alive GETs, interleaved: 20 warm-up + 300 measured each of
 *               GET /api/v1/activitypub/user-id/{id}  vs  GET /api/v1/users/{username}
 *               (and GET /.well-known/webfinger?resource=acct:… for reference)
 *   throughput  16 connections, two alternating rounds of 2 s each (after 1 s warm-up), the same two routes
 *   Target: the Person's p50 ≤ 1.5× and its throughput ≥ 0.5× the user JSON's. The Person reads
 *   the user three times through the plugin API (by id, for the access module's visibility check,
 *   for the avatar URL of its JSON) where the user JSON reads it once; its key is cached.
 */
const path = require('node:path');
const lib = require('./lib');

const LATENCY = { warmup: 20, requests: 300 };
const LOAD = { warmup: 1, duration: 2, connections: 16, rounds: 2 };
const TARGET = 1.5;
const THROUGHPUT_TARGET = 0.5;

async function run() {
  const work = lib.makeTempDir('hearth-bench-activitypub-');
  const warnings = [];
  let server;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(path.join(work, 'data'), ['activitypub']), logFile: path.join(work, 'server.log') });
    const owner = lib.HEARTH_ADMIN.username;
    const user = await lib.request(`${server.url}/api/v1/users/${owner}`);
    const id = JSON.parse(user.body).id;
    // WebFinger names the host of ROOT_URL (derived from the listening port here, e.g. localhost:PORT).
    const first = await lib.request(`${server.url}/api/v1/activitypub/user-id/${id}`);
    const host = new URL(JSON.parse(first.body).id).host;
    const targets = [
      { label: 'GET /activitypub/user-id/{id}', url: `${server.url}/api/v1/activitypub/user-id/${id}` },
      { label: 'GET /users/{username}', url: `${server.url}/api/v1/users/${owner}` },
      { label: 'GET /.well-known/webfinger', url: `${server.url}/.well-known/webfinger?resource=acct:${owner}@${host}` },
    ];
    const { stats } = await lib.sequentialGets(targets, LATENCY);
    // Alternating rounds, summed: the machine's load drifts alike over both routes.
    const rounds = { person: [], users: [] };
    for (let round = 0; round < LOAD.rounds; round++) {
      rounds.person.push(await lib.measureThroughput({ url: targets[0].url }, LOAD));
      rounds.users.push(await lib.measureThroughput({ url: targets[1].url }, LOAD));
    }
    const [person, users] = [rounds.person, rounds.users].map((runs) => ({
      requestsPerSec: Math.round(runs.reduce((sum, r) => sum + r.requestsPerSec, 0) / runs.length),
      non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      errors: runs.reduce((sum, r) => sum + r.errors, 0),
    }));
    for (const [label, r] of [
      ['person', person],
      ['users', users],
    ])
      if (r.non2xx || r.errors) warnings.push(`${label}: ${r.non2xx} non-2xx answers, ${r.errors} errors under load`);
    const f = (x) => x.toFixed(2);
    console.log(
      lib.table([
        ['request', 'p50 ms', 'p99 ms', 'mean ms', 'req/s (16 conn)'],
        ...targets.map((t, i) => [t.label, f(stats[i].p50), f(stats[i].p99), f(stats[i].mean), [person, users][i]?.requestsPerSec ?? null]),
      ]),
    );
    const latencyRatio = stats[0].p50 / stats[1].p50;
    const throughputRatio = person.requestsPerSec / users.requestsPerSec;
    const verdicts = [
      {
        name: 'person-latency',
        met: latencyRatio <= TARGET,
        line: `Person p50 / user JSON p50: ${f(latencyRatio)}x — target ≤ ${TARGET}x`,
      },
      {
        name: 'person-throughput',
        met: throughputRatio >= THROUGHPUT_TARGET,
        line: `Person req/s / user JSON req/s: ${f(throughputRatio)}x — target ≥ ${f(THROUGHPUT_TARGET)}x`,
      },
    ];
    console.log('');
    lib.printVerdicts(verdicts, warnings);
    const stop = await lib.stopServer(server);
    server = null;
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    return {
      latency: LATENCY,
      load: LOAD,
      ms: Object.fromEntries(targets.map((t, i) => [t.label, stats[i]])),
      requestsPerSec: { person: person.requestsPerSec, users: users.requestsPerSec },
      ratios: { latency: latencyRatio, throughput: throughputRatio },
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    require('node:fs').rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { name: 'activitypub', run };
