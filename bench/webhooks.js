'use strict';
/**
 * Webhooks benchmark, on one SQLite server (its own process) and a receiver in this process.
 *
 *   throughput  20 repository hooks (issues events) × 500 issues created through the API
 *               (8 at a time) = 10,000 deliveries to a local receiver answering 200 at once.
 *               Reported: deliveries/s from the first issue to the last delivery, and the lag
 *               from an issue's API answer (its rows are queued by then) to each delivery:
 *               p50 / p99 / max. Every delivery must arrive exactly once by X-Gitea-Delivery.
 *   push        a push of one new commit over smart HTTP to a repository with 10 push hooks
 *               against the same push to a repository with none, interleaved, 5 warm-up +
 *               30 measured each; target: median with hooks ≤ 1.05 × median without. The
 *               time is the git client's (until the push answered); the 10 deliveries a push
 *               causes are sent after that, and are awaited before the next push starts.
 *
 * Settings: webhook.WORKERS 16, POLL_INTERVAL 0.05 s, ALLOWED_HOST_LIST loopback.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const lib = require('./lib');

const SIZES = { hooks: 20, issues: 500, concurrency: 8, pushHooks: 10, pushWarmup: 5, pushes: 30 };
const TARGETS = { pushRatio: 1.05 };

async function api(server, token, method, route, body, expected) {
  const res = await lib.request(`${server.url}/api/v1${route}`, {
    method,
    headers: { authorization: `token ${token}` },
    body,
    timeoutMs: 20000,
  });
  if (res.status !== expected) throw new Error(`${method} ${route} answered ${res.status} (expected ${expected}): ${res.body}`);
  return res.body ? JSON.parse(res.body) : null;
}

function receiver() {
  const state = { arrivals: [], uuids: new Map(), onArrival: null };
  const server = http.createServer({ keepAliveTimeout: 1000 }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const uuid = String(req.headers['x-gitea-delivery']);
      state.uuids.set(uuid, (state.uuids.get(uuid) || 0) + 1);
      let number = null;
      if (req.headers['x-gitea-event'] === 'issues') number = JSON.parse(Buffer.concat(chunks).toString('utf8')).issue.number;
      state.arrivals.push({ at, number, event: req.headers['x-gitea-event'] });
      res.writeHead(200).end('ok');
      if (state.onArrival) state.onArrival();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ state, server, url: `http://127.0.0.1:${server.address().port}/hook` })),
  );
}

function git(args, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')}: ${err}`))));
  });
}

const median = (values) => lib.median(values);

async function run() {
  const dir = lib.makeTempDir('hearth-bench-webhooks-');
  const rx = await receiver();
  let server;
  try {
    const spec = lib.hearthSpec(path.join(dir, 'data'), []);
    spec.env = {
      ...spec.env,
      HEARTH__WEBHOOK__ALLOWED_HOST_LIST: 'loopback',
      HEARTH__WEBHOOK__WORKERS: '16',
      HEARTH__WEBHOOK__POLL_INTERVAL: '0.05',
    };
    server = await lib.startServer({ ...spec, logFile: path.join(dir, 'server.log') });
    const token = await lib.hearthToken(server, ['write:repository', 'write:issue', 'write:user']);
    const owner = lib.HEARTH_ADMIN.username;

    // --- throughput ------------------------------------------------------------------------------
    await api(server, token, 'POST', '/user/repos', { name: 'many', auto_init: true }, 201);
    for (let i = 0; i < SIZES.hooks; i++) {
      await api(
        server,
        token,
        'POST',
        `/repos/${owner}/many/hooks`,
        { type: 'gitea', active: true, events: ['issues'], config: { url: `${rx.url}?h=${i}`, content_type: 'json' } },
        201,
      );
    }
    const expected = SIZES.hooks * SIZES.issues;
    const answeredAt = new Map();
    const done = new Promise((resolve) => {
      rx.state.onArrival = () => {
        if (rx.state.arrivals.length >= expected) resolve();
      };
    });
    const started = performance.now();
    let next = 1;
    const worker = async () => {
      while (next <= SIZES.issues) {
        next++;
        const issue = await api(server, token, 'POST', `/repos/${owner}/many/issues`, { title: 'bench issue' }, 201);
        answeredAt.set(issue.number, performance.now());
      }
    };
    await Promise.all(Array.from({ length: SIZES.concurrency }, worker));
    const createdMs = performance.now() - started;
    const timeout = new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`only ${rx.state.arrivals.length} of ${expected} deliveries within 300 s`)), 300000),
    );
    await Promise.race([done, timeout]);
    const drainedMs = performance.now() - started;
    const lags = rx.state.arrivals
      .filter((a) => a.number !== null)
      .map((a) => a.at - answeredAt.get(a.number))
      .sort((a, b) => a - b);
    const duplicates = [...rx.state.uuids.values()].filter((n) => n > 1).length;
    const throughput = {
      deliveries: rx.state.arrivals.length,
      uniqueUuids: rx.state.uuids.size,
      duplicates,
      issuesCreatedMs: createdMs,
      drainedMs,
      deliveriesPerSecond: expected / (drainedMs / 1000),
      lagMs: { p50: lib.percentileOf(lags, 50), p99: lib.percentileOf(lags, 99), max: lags[lags.length - 1] },
    };
    rx.state.onArrival = null;

    // --- push with 10 hooks vs none --------------------------------------------------------------
    for (const name of ['hooked', 'plain'])
      await api(server, token, 'POST', '/user/repos', { name, auto_init: true, default_branch: 'main' }, 201);
    for (let i = 0; i < SIZES.pushHooks; i++) {
      await api(
        server,
        token,
        'POST',
        `/repos/${owner}/hooked/hooks`,
        { type: 'gitea', active: true, events: ['push'], config: { url: `${rx.url}?push=${i}`, content_type: 'json' } },
        201,
      );
    }
    const home = path.join(dir, 'home');
    fs.mkdirSync(home);
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Bench',
      GIT_AUTHOR_EMAIL: 'bench@example.com',
      GIT_COMMITTER_NAME: 'Bench',
      GIT_COMMITTER_EMAIL: 'bench@example.com',
    };
    const work = {};
    for (const name of ['hooked', 'plain']) {
      const url = new URL(`${server.url}/${owner}/${name}.git`);
      url.username = owner;
      url.password = token;
      work[name] = path.join(dir, name);
      await git(['clone', '-q', url.toString(), work[name]], dir, env);
    }
    const times = { hooked: [], plain: [] };
    for (let i = 0; i < SIZES.pushWarmup + SIZES.pushes; i++) {
      for (const name of i % 2 ? ['hooked', 'plain'] : ['plain', 'hooked']) {
        fs.writeFileSync(path.join(work[name], 'file.txt'), `change ${i}\n`);
        await git(['add', 'file.txt'], work[name], env);
        await git(['commit', '-q', '-m', `change ${i}`], work[name], env);
        const t0 = performance.now();
        await git(['push', '-q', 'origin', 'HEAD:main'], work[name], env);
        if (i >= SIZES.pushWarmup) times[name].push(performance.now() - t0);
        // The deliveries run after the push answered; let them finish so that they do not land in the next push's time.
        if (name === 'hooked') await waitForPushes(rx, SIZES.pushHooks * (i + 1));
        await lib.sleep(20);
      }
    }
    const pushDeliveries = await waitForPushes(rx, SIZES.pushHooks * (SIZES.pushWarmup + SIZES.pushes));
    const push = {
      hookedMedianMs: median(times.hooked),
      plainMedianMs: median(times.plain),
      hookedP99Ms: lib.percentileOf(
        [...times.hooked].sort((a, b) => a - b),
        99,
      ),
      plainP99Ms: lib.percentileOf(
        [...times.plain].sort((a, b) => a - b),
        99,
      ),
      deliveries: pushDeliveries,
    };
    push.ratio = push.hookedMedianMs / push.plainMedianMs;

    const stop = await lib.stopServer(server);
    const warnings = [];
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    if (duplicates) warnings.push(`${duplicates} deliveries arrived more than once`);
    if (push.deliveries < SIZES.pushHooks * (SIZES.pushWarmup + SIZES.pushes)) warnings.push(`push deliveries: ${push.deliveries}`);

    const f = (n) => n.toFixed(1);
    console.log(
      `throughput: ${SIZES.hooks} hooks × ${SIZES.issues} issues = ` +
        `${expected.toLocaleString('en')} deliveries; issues created ${SIZES.concurrency} at a ` +
        `time in ${f(createdMs)} ms`,
    );
    console.log(
      lib.table([
        ['figure', 'value'],
        ['deliveries/s (first issue → last delivery)', f(throughput.deliveriesPerSecond)],
        ['lag p50 ms (issue answered → delivered)', f(throughput.lagMs.p50)],
        ['lag p99 ms', f(throughput.lagMs.p99)],
        ['lag max ms', f(throughput.lagMs.max)],
        ['unique delivery UUIDs / deliveries', `${throughput.uniqueUuids} / ${throughput.deliveries}`],
      ]),
    );
    console.log(`\npush of one commit, ${SIZES.pushes} measured each, interleaved:`);
    console.log(
      lib.table([
        ['repository', 'median ms', 'p99 ms'],
        [`${SIZES.pushHooks} push hooks`, f(push.hookedMedianMs), f(push.hookedP99Ms)],
        ['no hooks', f(push.plainMedianMs), f(push.plainP99Ms)],
      ]),
    );
    for (const w of warnings) console.log(`WARNING: ${w}`);
    const verdicts = [
      {
        name: 'push with 10 hooks vs none',
        met: push.ratio <= TARGETS.pushRatio,
        line: `push with ${SIZES.pushHooks} hooks vs none: ${push.ratio.toFixed(3)}x (median) — target ≤ ${TARGETS.pushRatio}x`,
      },
      {
        name: 'exactly once',
        met: duplicates === 0 && throughput.uniqueUuids === expected,
        line: `${expected.toLocaleString('en')} deliveries, each exactly once by UUID`,
      },
    ];
    console.log('');
    lib.printVerdicts(verdicts);
    return { sizes: SIZES, targets: TARGETS, throughput, push, warnings, verdicts };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    const closed = new Promise((resolve) => rx.server.close(resolve));
    rx.server.closeAllConnections();
    await closed;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function waitForPushes(rx, n) {
  const deadline = Date.now() + 60000;
  const count = () => rx.state.arrivals.filter((a) => a.event === 'push').length;
  while (count() < n && Date.now() < deadline) await lib.sleep(50);
  return count();
}

module.exports = { name: 'webhooks', run };
