#!/usr/bin/env node
// `npm test`: run the whole jest suite once per database — SQLite always, MariaDB and PostgreSQL
// when their servers answer (HEARTH_TEST_MYSQL_URL / HEARTH_TEST_POSTGRES_URL, defaulting to this
// machine's 127.0.0.1 services) — and end with one line "N passed, N failed".
// Set HEARTH_TEST_DATABASES=sqlite (comma list) to choose; a database asked for by name must answer.
// Suites whose subject is a client protocol or the browser run once, on SQLite: the database layer
// under them is what the other suites cover. They are the real-client suites (`*.client.test.ts`:
// apt, dnf, go, R, cargo, git-lfs, ssh, chromium) and the web pages' suites (`test/web-*.test.ts`),
// whose pages read and change everything through the API operations the other suites run on every
// database.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const RESULTS = path.join(ROOT, 'test-results');
/** Path patterns of the suites that run on SQLite only (see above). */
const ONCE_ON_SQLITE = ['\\.client\\.test\\.ts$', '/test/web-[^/]*\\.test\\.ts$'].join('|');
const SUITES = {
  sqlite: '',
  mariadb: process.env.HEARTH_TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test',
  postgres: process.env.HEARTH_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test',
};

function reachable(url) {
  if (!url) return Promise.resolve(true);
  const { hostname, port, protocol } = new URL(url);
  const defaultPort = protocol.startsWith('postgres') ? 5432 : 3306;
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) || defaultPort });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * MariaDB's test server commits without an fsync per transaction while its suite runs
 * (innodb_flush_log_at_trx_commit = 2, restored afterwards): the suites test behaviour, not crash
 * durability, and waiting for the disk at every commit doubles their time. The switch is
 * server-wide, so the runner sets it around the MariaDB run rather than per test database (as
 * PostgreSQL's synchronous_commit is, in core/testing). Without the privilege the run goes on as is.
 */
async function relaxedDurability(url) {
  if (!url || !/^(mysql|mariadb):/.test(url)) return async () => undefined;
  const { hostname, port, username, password } = new URL(url);
  const mysql = require('mysql2/promise');
  let connection;
  try {
    connection = await mysql.createConnection({
      host: hostname,
      port: Number(port) || 3306,
      user: decodeURIComponent(username),
      password: decodeURIComponent(password),
    });
    const [[{ before }]] = await connection.query('SELECT @@GLOBAL.innodb_flush_log_at_trx_commit AS before');
    await connection.query('SET GLOBAL innodb_flush_log_at_trx_commit = 2');
    return async () => {
      await connection.query('SET GLOBAL innodb_flush_log_at_trx_commit = ?', [Number(before)]);
      await connection.end();
    };
  } catch (err) {
    console.log(`(MariaDB keeps its commit durability: ${err.message})`);
    if (connection) await connection.end().catch(() => undefined);
    return async () => undefined;
  }
}

async function main() {
  const chosen = process.env.HEARTH_TEST_DATABASES
    ? process.env.HEARTH_TEST_DATABASES.split(',').map((s) => s.trim())
    : Object.keys(SUITES);
  const extraArgs = process.argv.slice(2);
  fs.mkdirSync(RESULTS, { recursive: true });
  let passed = 0;
  let failed = 0;
  const lines = [];
  for (const name of chosen) {
    if (!(name in SUITES)) throw new Error(`unknown database "${name}"; choose from ${Object.keys(SUITES).join(', ')}`);
    const url = SUITES[name];
    if (!(await reachable(url))) {
      if (process.env.HEARTH_TEST_DATABASES) {
        failed++;
        lines.push(`${name}: asked for, but ${url} does not answer`);
        continue;
      }
      lines.push(`${name}: skipped, ${url} does not answer`);
      continue;
    }
    console.log(`\n=== test suite on ${name}${url ? ` (${url})` : ''} ===`);
    const output = path.join(RESULTS, `${name}.json`);
    fs.rmSync(output, { force: true });
    const sqliteOnlySuitesSkipped = name === 'sqlite' ? [] : [`--testPathIgnorePatterns=${ONCE_ON_SQLITE}`];
    const restore = await relaxedDurability(url);
    const run = spawnSync(
      process.execPath,
      [require.resolve('jest/bin/jest'), '--json', `--outputFile=${output}`, ...sqliteOnlySuitesSkipped, ...extraArgs],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, HEARTH_TEST_DATABASE_URL: url },
      },
    );
    await restore();
    if (!fs.existsSync(output)) {
      failed++;
      lines.push(`${name}: jest did not report (exit ${run.status})`);
      continue;
    }
    const report = JSON.parse(fs.readFileSync(output, 'utf8'));
    // A suite that fails to load counts as a failure even though none of its tests ran.
    const brokenSuites = report.numRuntimeErrorTestSuites || 0;
    passed += report.numPassedTests;
    failed += report.numFailedTests + brokenSuites;
    lines.push(
      `${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed` +
        `${brokenSuites ? `, ${brokenSuites} suites did not run` : ''}`,
    );
  }
  console.log('\n=== summary ===');
  for (const line of lines) console.log(line);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
