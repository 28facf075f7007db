'use strict';
/**
 * Helpers shared by the benchmarks: start a server as a child process and time it to ready,
 * read its memory, drive it with autocannon, and format the figures.
 *
 * Servers always run in their own process (never in the bench process) so that autocannon's
 * own CPU use and memory do not show up in the server's figures. Their stdout/stderr go
 * straight to a file, as they would in production, rather than through a pipe read by us.
 *
 * Every wait here is bounded by a deadline: a bench that hangs is worse than one that fails.
 */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');

const REPO_ROOT = path.resolve(__dirname, '..');
const LISTENING = /is listening on (http:\/\/\S+)/;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Children still running, so a crash or Ctrl-C in the bench does not leave servers behind. */
const live = new Set();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of live) child.kill('SIGKILL');
    process.exit(130);
  });
}

function makeTempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * The environment for a server: ours minus every HEARTH* variable, so an operator's
 * HEARTH_CONFIG or HEARTH_DATABASE_URL cannot silently change what is measured.
 */
function cleanEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^HEARTH/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Every shipped plugin, from plugins/<dir>/package.json named @hearth/plugin-<name>, so the
 * bench measures a fully loaded server without being edited as plugins are added.
 */
function shippedPlugins() {
  const dir = path.join(REPO_ROOT, 'plugins');
  const names = [];
  for (const entry of fs.readdirSync(dir).sort()) {
    const manifest = path.join(dir, entry, 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const m = /^@hearth\/plugin-(.+)$/.exec(JSON.parse(fs.readFileSync(manifest, 'utf8')).name || '');
    if (m) names.push(m[1]);
  }
  return names;
}

/** HEARTH__PLUGINS__<NAME>__ENABLED=true for each plugin ("registry-cargo" → REGISTRY_CARGO). */
function pluginEnv(names) {
  const env = {};
  for (const name of names) env[`HEARTH__PLUGINS__${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}__ENABLED`] = 'true';
  return env;
}

/**
 * One HTTP request with a fresh connection (agent: false): polling must not keep sockets open
 * that would linger in the server during the idle-memory reading. Resolves { status, body };
 * rejects on network errors or after timeoutMs.
 */
function request(url, { method = 'GET', headers = {}, body, timeoutMs = 2000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(url, {
      method,
      agent: false,
      headers:
        payload === undefined ? headers : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      timeout: timeoutMs,
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.end(payload);
  });
}

function tail(file, lines = 20) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Spawn `node <args>` and wait until it is ready: first the "is listening on URL" line in its
 * log (how a PORT=0 server tells us its port), then a 200 from readyPath. Both are polled every
 * pollMs; the whole thing gives up after timeoutMs, kills the child and throws with the log tail.
 *
 * Returns { name, child, pid, url, readyMs, logFile }; readyMs runs from just before spawn to the
 * first 200, so it includes Node's own start-up, module loading and (for Hearth) migrations.
 */
async function startServer({ name, args, env, cwd = REPO_ROOT, logFile, readyPath, pollMs = 10, timeoutMs = 15000 }) {
  const fd = fs.openSync(logFile, 'a');
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd); // the child has its own copy
  live.add(child);
  let exited = null;
  child.once('exit', (code, signal) => {
    exited = { code, signal };
    live.delete(child);
  });
  const deadline = Date.now() + timeoutMs;
  const fail = async (why) => {
    await stopServer({ child }, 2000);
    throw new Error(`${name}: ${why}\n--- last lines of ${logFile} ---\n${tail(logFile)}`);
  };

  let url = null;
  while (!url) {
    if (exited) return fail(`exited before listening (${JSON.stringify(exited)})`);
    if (Date.now() > deadline) return fail(`no "is listening" line within ${timeoutMs} ms`);
    const m = LISTENING.exec(fs.readFileSync(logFile, 'utf8'));
    if (m) url = m[1].replace(/\/$/, '').replace('://localhost:', '://127.0.0.1:');
    else await sleep(pollMs);
  }
  for (;;) {
    if (exited) return fail(`exited before ready (${JSON.stringify(exited)})`);
    if (Date.now() > deadline) return fail(`${readyPath} did not answer 200 within ${timeoutMs} ms`);
    const res = await request(url + readyPath, { timeoutMs: Math.max(100, deadline - Date.now()) }).catch(() => null);
    if (res && res.status === 200) break;
    await sleep(pollMs);
  }
  const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { name, child, pid: child.pid, url, readyMs, logFile };
}

/** SIGTERM (graceful), then SIGKILL if it has not exited within graceMs. Resolves once it is gone. */
async function stopServer({ child }, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return { graceful: true };
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const graceful = await Promise.race([gone.then(() => true), sleep(graceMs).then(() => false)]);
  if (!graceful) {
    child.kill('SIGKILL');
    await Promise.race([gone, sleep(2000)]);
  }
  return { graceful };
}

/** Resident set size in bytes of one process (Linux /proc; null elsewhere). */
function readRss(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * One autocannon run against a server in another process. Bounded: autocannon stops itself
 * after `duration` seconds, and we stop it ourselves if it has not finished 10 s after that.
 * Returns the figures we report plus the status-code breakdown for diagnosing non-2xx answers.
 */
function loadTest({ url, headers = {}, connections = 32, duration = 5 }) {
  return new Promise((resolve, reject) => {
    let guard;
    const instance = autocannon({ url, headers, connections, duration }, (err, result) => {
      clearTimeout(guard);
      if (err) return reject(err);
      resolve({
        connections,
        duration: result.duration,
        requestsPerSec: result.requests.average,
        totalRequests: result.requests.total,
        latencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average, max: result.latency.max },
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodeStats: result.statusCodeStats,
      });
    });
    guard = setTimeout(() => instance.stop(), (duration + 10) * 1000);
  });
}

/** A short warm-up run (results discarded: lets V8 optimise the hot paths), then the measured run. */
async function measureThroughput(target, { warmup = 1, duration = 5, connections = 32 } = {}) {
  await loadTest({ ...target, connections, duration: warmup });
  return loadTest({ ...target, connections, duration });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const mb = (bytes) => (bytes == null ? null : bytes / (1024 * 1024));

/** Nearest-rank percentile `p` (0–100) of an ascending list. */
const percentileOf = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/** Latency summary of a list of milliseconds: count, nearest-rank p50 and p99, mean, max. */
function latencySummary(ms) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentileOf(sorted, 50),
    p99: percentileOf(sorted, 99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    max: sorted[sorted.length - 1],
  };
}

/**
 * Sequential keep-alive GETs over one connection: `targets` ({ url, headers }) taken in turn
 * (interleaved, so load drift hits them alike), `warmup` unmeasured rounds then `requests`
 * measured ones. Any answer but 200 fails the run. Returns a latencySummary per target and the
 * last answer of each ({ status, ms, body, total: X-Total-Count }).
 */
async function sequentialGets(targets, { warmup, requests, timeoutMs = 10000 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = ({ url, headers }) =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = http.get(url, { agent, headers, timeout: timeoutMs }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            ms: Number(process.hrtime.bigint() - t0) / 1e6,
            body: Buffer.concat(chunks),
            total: res.headers['x-total-count'],
          }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs / 1000} s`)));
      req.on('error', reject);
    });
  const samples = targets.map(() => []);
  const last = [];
  try {
    for (let i = 0; i < warmup + requests; i++) {
      for (let t = 0; t < targets.length; t++) {
        const r = await get(targets[t]);
        if (r.status !== 200) throw new Error(`GET ${targets[t].url} answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
        if (i >= warmup) samples[t].push(r.ms);
        last[t] = r;
      }
    }
  } finally {
    agent.destroy();
  }
  return { stats: samples.map(latencySummary), last };
}

/** Plain-text table: first row is the header; columns sized to their widest cell, numbers right-aligned. */
function table(rows) {
  const cells = rows.map((row) => row.map((c) => (c == null ? '-' : String(c))));
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (row) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** The Hearth CLI the benchmarks start, and the site admin they create on first start. */
const HEARTH_CLI = path.join(REPO_ROOT, 'core/kernel/dist/cli.js');
const HEARTH_ADMIN = { username: 'bench', password: 'bench-password-1', email: 'bench@example.com' };

/** startServer options for Hearth on a fresh data dir, loopback only, with `plugins` enabled (add logFile). */
function hearthSpec(dataDir, plugins) {
  if (!fs.existsSync(HEARTH_CLI)) throw new Error(`${HEARTH_CLI} is missing: run "npx tsc -b" first (npm run bench does)`);
  return {
    name: 'hearth',
    args: [HEARTH_CLI, 'start'],
    env: cleanEnv({
      HEARTH_DATA_DIR: dataDir,
      HEARTH_HTTP_ADDR: '127.0.0.1',
      PORT: '0',
      HEARTH_ADMIN_USERNAME: HEARTH_ADMIN.username,
      HEARTH_ADMIN_PASSWORD: HEARTH_ADMIN.password,
      HEARTH_ADMIN_EMAIL: HEARTH_ADMIN.email,
      ...pluginEnv(plugins),
    }),
    readyPath: '/api/healthz',
  };
}

/** A token of the bench admin with `scopes`, minted over basic auth as a client would. */
async function hearthToken(server, scopes) {
  const basic = 'Basic ' + Buffer.from(`${HEARTH_ADMIN.username}:${HEARTH_ADMIN.password}`).toString('base64');
  const created = await request(`${server.url}/api/v1/users/${HEARTH_ADMIN.username}/tokens`, {
    method: 'POST',
    headers: { authorization: basic },
    body: { name: `bench-${scopes.join('-')}`, scopes },
  });
  if (created.status !== 201) throw new Error(`creating a token answered ${created.status}: ${created.body}`);
  return JSON.parse(created.body).sha1;
}

/**
 * A bulk inserter for a better-sqlite3 database: each call inserts a copy of the template row
 * `tpl` (an API-created row, so JSON columns are exactly what the server writes) with `overrides`,
 * and returns the new id.
 */
function rowCopier(db, table, tpl) {
  const cols = Object.keys(tpl).filter((c) => c !== 'id');
  const stmt = db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')})`);
  return (overrides) => Number(stmt.run({ ...tpl, ...overrides }).lastInsertRowid);
}

/** Prepared inserts for team and organization membership rows (duplicates ignored). */
function membershipInserts(db) {
  return {
    teamRepo: db.prepare('INSERT OR IGNORE INTO team_repos (org_id, team_id, repo_id) VALUES (?, ?, ?)'),
    teamUser: db.prepare('INSERT OR IGNORE INTO team_users (org_id, team_id, uid) VALUES (?, ?, ?)'),
    orgUser: db.prepare('INSERT OR IGNORE INTO org_users (org_id, uid, is_public) VALUES (?, ?, 0)'),
  };
}

/** Print a benchmark's warnings (each followed by a blank line when any) and its verdicts, met or not. */
function printVerdicts(verdicts, warnings = []) {
  for (const w of warnings) console.log(`WARNING: ${w}`);
  if (warnings.length) console.log('');
  for (const v of verdicts) console.log(`${v.line}: ${v.met ? 'met' : 'NOT met'}`);
}

// ---------------------------------------------------------------------------------------------
// Shared by the package registry benchmarks: fixtures, timed uploads, an nginx baseline.
// ---------------------------------------------------------------------------------------------

/** One ustar header block + the padded content (bench fixtures: .deb, cookbooks, crates, R packages). */
function tarEntry(name, content) {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return Buffer.concat([header, content, Buffer.alloc((512 - (content.length % 512)) % 512)]);
}

const uploadAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * PUT `body` to `url` over one kept-alive connection (uploads one after another, as a client
 * would); resolves with the milliseconds it took; any status but `expected` throws.
 */
function timedPut(url, authorization, body, expected = 201) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const headers = { authorization, 'content-length': body.length };
    const req = http.request(url, { method: 'PUT', agent: uploadAgent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (res.statusCode === expected) return resolve(ms);
        reject(new Error(`PUT ${url} answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Close the kept-alive upload connection (at the end of a bench, before stopping the server). */
function closeUploads() {
  uploadAgent.destroy();
}

/** Create a user through the admin API (`authorization`: the admin's Basic credentials). */
async function createUser(server, authorization, name, password = 'fresh-password-1') {
  const res = await request(`${server.url}/api/v1/admin/users`, {
    method: 'POST',
    headers: { authorization },
    body: { username: name, email: `${name}@example.com`, password, must_change_password: false },
  });
  if (res.status !== 201) throw new Error(`creating ${name} answered ${res.status}: ${res.body}`);
  return name;
}

function findNginx() {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** nginx serving `root` statically (the baseline for file serving), its files under `dir`; stop it with child.kill(). */
async function startNginx(binary, root, dir) {
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${path.join(dir, 'nginx.pid')};`,
      `error_log ${path.join(dir, 'error.log')} warn;`,
      'events { worker_connections 256; }',
      'http {',
      '  access_log off;',
      '  sendfile on;',
      '  tcp_nopush on;',
      `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi;` +
        ` scgi_temp_path ${dir}/scgi;`,
      '  default_type application/octet-stream;',
      `  server { listen 127.0.0.1:${port}; root ${root}; }`,
      '}',
    ].join('\n'),
  );
  const child = spawn(binary, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`nginx did not listen: ${stderr}`);
    await sleep(20);
  }
  return { child, url: `http://127.0.0.1:${port}` };
}

/** A verdict that `ratio` is at most `target`, e.g. the 1,001st publish ÷ the 1st. */
function atMost(label, ratio, target) {
  return { line: `${label}: ${ratio.toFixed(2)} (target ≤ ${target})`, met: ratio <= target };
}

/**
 * `count` pairs of timed operations, alternating which of the two goes first (so that drift in the
 * machine's load hits both alike): `a(k)` and `b(k)` resolve with milliseconds. Returns both lists.
 */
async function alternatingPairs(count, a, b) {
  const out = { a: [], b: [] };
  for (let k = 0; k < count; k++) {
    if (k % 2 === 0) {
      out.a.push(await a(k));
      out.b.push(await b(k));
    } else {
      out.b.push(await b(k));
      out.a.push(await a(k));
    }
  }
  return out;
}

/** The p50 of each run of 100 timings (ms, one decimal): how a fill's cost moves as the repository grows. */
function p50PerHundred(ms) {
  const out = [];
  for (let i = 0; i < ms.length; i += 100) out.push(Math.round(median(ms.slice(i, i + 100)) * 10) / 10);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Serving generated index files vs nginx serving the same bytes (debian, rpm and alpine benches).
// ---------------------------------------------------------------------------------------------

/** CPU time (user + system) in ms of process `pid` and all its descendants so far (Linux /proc; null elsewhere). */
function processTreeCpuMs(pid) {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  let total = 0;
  const visit = (p) => {
    const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * tick;
    for (const task of fs.readdirSync(`/proc/${p}/task`)) {
      const children = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
      for (const child of children ? children.split(' ') : []) visit(child);
    }
  };
  try {
    visit(pid);
    return total;
  } catch {
    return null;
  }
}

/**
 * Keep-alive GET load with Node's own HTTP client (llhttp, in C): `connections` loops of requests
 * for `duration` seconds, bodies read and dropped. autocannon parses responses in JavaScript
 * (http-parser-js) and tops out near 60 MB/s, so on index files of 100 KB and more it measures
 * itself, not the server (nginx and a bare Node server both stop at ~360 req/s under it for
 * 166 KB). Returns req/s, counts of non-200 answers and errors, and the latency percentiles.
 */
function httpLoad({ url, headers = {}, connections = 16, duration = 5 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const ms = [];
  let non2xx = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + duration * 1000;
  const one = () =>
    new Promise((resolve) => {
      const t0 = process.hrtime.bigint();
      const req = http.get(url, { agent, headers, timeout: 10_000 }, (res) => {
        if (res.statusCode !== 200) non2xx++;
        res.on('data', () => {});
        res.on('end', () => resolve(ms.push(Number(process.hrtime.bigint() - t0) / 1e6)));
        res.on('error', () => resolve(errors++));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(errors++));
    });
  const loop = async () => {
    while (Date.now() < deadline) await one();
  };
  return Promise.all(Array.from({ length: connections }, loop)).then(() => {
    agent.destroy();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      connections,
      seconds,
      requestsPerSec: ms.length / seconds,
      totalRequests: ms.length,
      non2xx,
      errors,
      latencyMs: latencySummary(ms),
    };
  });
}

/** Download `url` once, counting bytes (nothing kept). */
function downloadOnce(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url} answered ${res.statusCode}`));
        return;
      }
      let bytes = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    });
    req.setTimeout(120_000, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

/** `clients` concurrent clients, each downloading `rounds` times (after one warm-up download); returns MB/s over the wall time. */
async function downloadThroughput(url, clients, rounds, expectedBytes) {
  await downloadOnce(url); // warm-up: page cache, V8
  const started = process.hrtime.bigint();
  const totals = await Promise.all(
    Array.from({ length: clients }, async () => {
      let bytes = 0;
      for (let i = 0; i < rounds; i++) {
        const got = await downloadOnce(url);
        if (got !== expectedBytes) throw new Error(`short download: ${got} of ${expectedBytes} bytes`);
        bytes += got;
      }
      return bytes;
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const bytes = totals.reduce((a, b) => a + b, 0);
  return { clients, rounds, seconds, mbPerSec: bytes / (1024 * 1024) / seconds };
}

/** GET `url` (one fresh connection): { status, headers, body: Buffer }. */
function getBytes(url, headers = {}) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** One server under httpLoad: warm-up, then the measured run with its CPU time per request. */
async function servedLoad(target, pid, { connections, duration, warmup }) {
  await httpLoad({ ...target, connections, duration: warmup });
  const cpu0 = processTreeCpuMs(pid);
  const load = await httpLoad({ ...target, connections, duration });
  const cpu1 = processTreeCpuMs(pid);
  const cpuMs = cpu0 == null || cpu1 == null ? null : cpu1 - cpu0;
  return {
    ...load,
    cpuMsPerRequest: cpuMs == null || !load.totalRequests ? null : cpuMs / load.totalRequests,
    cpuShareOfCore: cpuMs == null ? null : cpuMs / (load.seconds * 1000),
  };
}

/**
 * Serve each of `files` ({ label, url, headers }: Hearth URLs) against nginx serving the same bytes
 * from disk. Each file is fetched from Hearth first (it must answer 200), written under a
 * world-readable root (nginx's workers run as nobody: a root under a 0700 temp dir answers 403,
 * which once made nginx look 250× faster) and fetched back from nginx, byte for byte, before any
 * load. Then Hearth and nginx in turn: req/s under httpLoad, any non-200 answer counted, and the
 * CPU time per request of each server's process tree (the fair figure when the load client, on the
 * same 2 cores, is what limits the faster server). Returns one result per file, or null without nginx.
 */
async function compareWithNginx(hearth, files, { dir, connections = 16, duration = 5, warmup = 1 } = {}) {
  const binary = findNginx();
  if (!binary) return null;
  const base = fs.mkdtempSync(path.join(dir, 'nginx-'));
  const root = path.join(base, 'www');
  fs.mkdirSync(root);
  for (const d of [dir, base, root]) fs.chmodSync(d, 0o755);
  const fetched = [];
  for (const [i, file] of files.entries()) {
    const got = await getBytes(file.url, file.headers);
    if (got.status !== 200) throw new Error(`${file.label}: Hearth answered ${got.status}: ${got.body.toString().slice(0, 200)}`);
    const name = `file-${i}`;
    fs.writeFileSync(path.join(root, name), got.body, { mode: 0o644 });
    fetched.push({ ...file, name, body: got.body });
  }
  const nginx = await startNginx(binary, root, base);
  try {
    const results = [];
    for (const file of fetched) {
      const back = await getBytes(`${nginx.url}/${file.name}`);
      if (back.status !== 200 || !back.body.equals(file.body)) {
        throw new Error(
          `${file.label}: nginx answered ${back.status} with ${back.body.length} bytes, not the ${file.body.length} Hearth served`,
        );
      }
      const options = { connections, duration, warmup };
      const h = await servedLoad({ url: file.url, headers: file.headers }, hearth.pid, options);
      const n = await servedLoad({ url: `${nginx.url}/${file.name}` }, nginx.child.pid, options);
      results.push({
        label: file.label,
        bytes: file.body.length,
        hearth: h,
        nginx: n,
        ratio: h.requestsPerSec / n.requestsPerSec,
        cpuRatio: h.cpuMsPerRequest && n.cpuMsPerRequest ? n.cpuMsPerRequest / h.cpuMsPerRequest : null,
      });
    }
    return results;
  } finally {
    nginx.child.kill('SIGTERM');
    await Promise.race([new Promise((r) => nginx.child.once('exit', r)), sleep(3000)]);
  }
}

/**
 * Print `heading` and the table of compareWithNginx results; return their verdicts (target:
 * Hearth's req/s ÷ nginx's) and warnings (only a warning when nginx is not installed).
 */
function servingReport(results, target, heading) {
  console.log(`\n${heading}`);
  if (!results) return { verdicts: [], warnings: ['nginx is not installed (apt-get install -y nginx-light): no serving comparison'] };
  const fmt = (n, d = 0) => (n == null ? null : n.toFixed(d));
  const rows = [['GET (same bytes)', 'bytes', 'server', 'req/s', 'p50 ms', 'p99 ms', 'non-200', 'CPU ms/req', 'CPU % of a core']];
  for (const r of results) {
    for (const [server, m] of [
      ['hearth', r.hearth],
      ['nginx', r.nginx],
    ]) {
      rows.push([
        server === 'hearth' ? r.label : '',
        server === 'hearth' ? r.bytes : '',
        server,
        fmt(m.requestsPerSec),
        fmt(m.latencyMs.p50, 1),
        fmt(m.latencyMs.p99, 1),
        m.non2xx + m.errors,
        fmt(m.cpuMsPerRequest, 3),
        fmt(m.cpuShareOfCore == null ? null : m.cpuShareOfCore * 100),
      ]);
    }
  }
  console.log(table(rows));
  const warnings = [];
  for (const r of results) {
    if (r.hearth.non2xx + r.hearth.errors + r.nginx.non2xx + r.nginx.errors > 0) warnings.push(`${r.label}: some answers were not 200`);
    if (r.nginx.cpuShareOfCore != null && r.nginx.cpuShareOfCore < 0.8) {
      warnings.push(
        `${r.label}: nginx used ${(r.nginx.cpuShareOfCore * 100).toFixed(0)}% of a core: the load client limits it, so the req/s ratio ` +
          `flatters Hearth; the CPU-per-request ratio (${fmt(r.cpuRatio, 2)}) is what a server-bound run would show`,
      );
    }
  }
  const verdicts = results.map((r) => ({
    line:
      `${r.label} hearth ÷ nginx (req/s): ${r.ratio.toFixed(2)} (target ≥ ${target}); ` +
      `CPU per request, nginx ÷ hearth: ${fmt(r.cpuRatio, 2)}`,
    met: r.ratio >= target && r.hearth.non2xx + r.hearth.errors === 0,
  }));
  return { verdicts, warnings };
}

/** A session cookie of the bench admin from the web interface's sign-in form, as a browser gets one. */
async function webSignIn(server) {
  const form = await fetch(`${server.url}/user/login`);
  const anonymous = form.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = /name="_csrf" value="([^"]*)"/.exec(await form.text())[1];
  const res = await fetch(`${server.url}/user/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: anonymous.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, user_name: HEARTH_ADMIN.username, password: HEARTH_ADMIN.password }),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('hearth_session='));
  if (res.status !== 303 || !session) throw new Error(`signing in answered ${res.status}`);
  return session.split(';')[0];
}

module.exports = {
  downloadOnce,
  downloadThroughput,
  webSignIn,
  atMost,
  alternatingPairs,
  p50PerHundred,
  processTreeCpuMs,
  httpLoad,
  getBytes,
  compareWithNginx,
  servingReport,
  tarEntry,
  timedPut,
  closeUploads,
  createUser,
  findNginx,
  freePort,
  startNginx,
  printVerdicts,
  rowCopier,
  membershipInserts,
  latencySummary,
  percentileOf,
  sequentialGets,
  HEARTH_ADMIN,
  hearthSpec,
  hearthToken,
  REPO_ROOT,
  sleep,
  makeTempDir,
  cleanEnv,
  shippedPlugins,
  pluginEnv,
  request,
  tail,
  startServer,
  stopServer,
  readRss,
  loadTest,
  measureThroughput,
  median,
  mb,
  table,
};
