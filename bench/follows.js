'use strict';
/**
 * Followers and tracked-times benchmark (issue 26): two of the new list operations against a bare
 * Express app answering the same bytes (bench/baseline-express.js), in the same run.
 *
 *   GET /api/v1/users/{user}/followers?limit=30   30 followers, each User JSON (visibility filter in SQL)
 *   GET /api/v1/repos/{o}/{r}/times?limit=30      30 tracked times on 3 issues, each with its Issue JSON
 *   baseline                                       GET /api/v1/user of the bare Express app, the
 *                                                  followers body verbatim
 *   Sequential keep-alive GETs, interleaved: 20 warm-up + 200 measured each; p50 / p99.
 *   Target: followers p50 ≤ 5× the bare Express p50 (reported with the times list's ratio).
 */
const path = require('node:path');
const lib = require('./lib');

const LATENCY = { warmup: 20, requests: 200 };
const FOLLOWERS = 30;
const TARGET = 5;
const BASELINE = path.join(__dirname, 'baseline-express.js');

async function run() {
  const work = lib.makeTempDir('hearth-bench-follows-');
  const warnings = [];
  let server;
  let baseline;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(path.join(work, 'data'), ['issues']), logFile: path.join(work, 'server.log') });
    const token = await lib.hearthToken(server, ['write:repository', 'write:issue', 'write:user', 'write:admin']);
    const auth = { authorization: `token ${token}` };
    const owner = lib.HEARTH_ADMIN.username;
    const call = async (method, route, body, expected, headers = auth) => {
      const res = await lib.request(`${server.url}/api/v1${route}`, { method, headers, body });
      if (res.status !== expected) throw new Error(`${method} ${route} answered ${res.status} (expected ${expected}): ${res.body}`);
      return res;
    };
    for (let i = 0; i < FOLLOWERS; i++) {
      const name = await lib.createUser(server, auth.authorization, `follower${i}`);
      const basic = `Basic ${Buffer.from(`${name}:fresh-password-1`).toString('base64')}`;
      await call('PUT', `/user/following/${owner}`, undefined, 204, { authorization: basic });
    }
    await call('POST', '/user/repos', { name: 'timed' }, 201);
    for (let i = 1; i <= 3; i++) await call('POST', `/repos/${owner}/timed/issues`, { title: `issue ${i}` }, 201);
    for (let i = 0; i < 30; i++) await call('POST', `/repos/${owner}/timed/issues/${(i % 3) + 1}/times`, { time: 60 * (i + 1) }, 200);

    const followersPath = `/api/v1/users/${owner}/followers?limit=30`;
    const body = (await lib.request(server.url + followersPath, { headers: auth })).body;
    baseline = await lib.startServer({
      name: 'express baseline',
      args: [BASELINE],
      env: lib.cleanEnv({ PORT: '0', HOST: '127.0.0.1', BASELINE_USER_BODY: body }),
      readyPath: '/api/v1/version',
      logFile: path.join(work, 'baseline.log'),
    });
    const targets = [
      { label: 'GET /users/{user}/followers', url: server.url + followersPath, headers: auth },
      { label: 'GET /repos/{o}/{r}/times', url: `${server.url}/api/v1/repos/${owner}/timed/times?limit=30`, headers: auth },
      { label: 'bare Express, same body', url: `${baseline.url}/api/v1/user`, headers: auth },
    ];
    const { stats } = await lib.sequentialGets(targets, LATENCY);
    const f = (x) => x.toFixed(2);
    console.log(
      lib.table([
        ['request', 'p50 ms', 'p99 ms', 'mean ms'],
        ...targets.map((t, i) => [t.label, f(stats[i].p50), f(stats[i].p99), f(stats[i].mean)]),
      ]),
    );
    const followers = stats[0].p50 / stats[2].p50;
    const times = stats[1].p50 / stats[2].p50;
    const verdicts = [
      {
        name: 'followers-vs-express',
        met: followers <= TARGET,
        line: `followers list p50 / bare Express p50: ${f(followers)}x — target ≤ ${TARGET}x (tracked times list: ${f(times)}x)`,
      },
    ];
    console.log('');
    lib.printVerdicts(verdicts, warnings);
    return {
      latency: LATENCY,
      ms: Object.fromEntries(targets.map((t, i) => [t.label, stats[i]])),
      ratios: { followers, times },
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    if (baseline) await lib.stopServer(baseline, 2000);
    if (server) await lib.stopServer(server, 2000);
    require('node:fs').rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { name: 'follows', run };
