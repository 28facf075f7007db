'use strict';
/**
 * Feeds and notifications benchmark: listing cost as the tables grow, compared with the same call
 * over a handful of rows, on the same server in the same run (ratios, not absolute figures).
 *
 *   big    the bench admin owns 1,000 repositories (every other one private) holding 100,000
 *          activity rows (push rows with PushCommits JSON); a non-admin viewer watches 200 of them
 *          and has 10,000 notification threads (half unread).
 *   small  user `quiet` owns one public repository with 10 activity rows; a second viewer has 10
 *          threads.
 *
 * One repository of each and the users are created through the API; the bulk rows are inserted
 * into DATA_DIR/hearth.db with better-sqlite3 while the server is idle (WAL, busy timeout; the
 * feeds read only the database, so the copied repositories need no git directory).
 *
 * Measured (sequential keep-alive GETs as the non-admin viewer, big and small interleaved,
 * 20 warm-up + 200 measured each; p50 / p99):
 *   repo feed     GET /repos/{owner}/{repo}/activities/feeds?limit=20 (a repository of 100 rows among 100,000)
 *   user feed     GET /users/{owner}/activities/feeds?limit=20 (100,000 rows, half in private repositories
 *                 the viewer may not read: the readable-repositories subquery does the filtering)
 *   own feed      GET /users/{viewer}/activities/feeds?limit=20 (the viewer's watched repositories)
 *   threads       GET /notifications?limit=20, and GET /notifications/new
 * Target: big/small ≤ 2× at p50 for the repository feed and the notification routes (they are
 * index-bound); the user feeds are reported (an OR over owner, actor and watched repositories).
 */
const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

const SIZES = { repos: 1000, activities: 100000, watched: 200, threads: 10000, smallActivities: 10, smallThreads: 10 };
const LATENCY = { warmup: 20, requests: 200 };
const TARGET_RATIO = 2;
const VIEWERS = ['viewer', 'viewer2'].map((u) => ({ username: u, password: `${u}-password-1`, email: `${u}@example.com` }));

async function api(server, token, method, route, body, expected) {
  const res = await lib.request(`${server.url}/api/v1${route}`, {
    method,
    headers: { authorization: `token ${token}` },
    body,
    timeoutMs: 10000,
  });
  if (res.status !== expected) throw new Error(`${method} ${route} answered ${res.status} (expected ${expected}): ${res.body}`);
  return res.body ? JSON.parse(res.body) : null;
}

async function userToken(server, user) {
  const basic = 'Basic ' + Buffer.from(`${user.username}:${user.password}`).toString('base64');
  const tok = await lib.request(`${server.url}/api/v1/users/${user.username}/tokens`, {
    method: 'POST',
    headers: { authorization: basic },
    body: { name: 'bench', scopes: ['read:repository', 'read:user', 'read:notification'] },
  });
  if (tok.status !== 201) throw new Error(`token for ${user.username}: ${tok.status} ${tok.body}`);
  return JSON.parse(tok.body).sha1;
}

async function setUp(server) {
  const admin = await lib.hearthToken(server, ['write:admin', 'write:repository', 'write:user', 'write:issue']);
  const quiet = { username: 'quiet', password: 'quiet-password-1', email: 'quiet@example.com' };
  for (const u of [...VIEWERS, quiet]) await api(server, admin, 'POST', '/admin/users', { ...u, must_change_password: false }, 201);
  const tokens = {};
  for (const u of [...VIEWERS, quiet]) tokens[u.username] = await userToken(server, u);
  const big = await api(server, admin, 'POST', '/user/repos', { name: 'repo-0000' }, 201);
  await api(server, admin, 'POST', '/repos/bench/repo-0000/issues', { title: 'an issue' }, 201);
  const quietTok = await (async () => {
    const basic = 'Basic ' + Buffer.from(`${quiet.username}:${quiet.password}`).toString('base64');
    const t = await lib.request(`${server.url}/api/v1/users/quiet/tokens`, {
      method: 'POST',
      headers: { authorization: basic },
      body: { name: 'write', scopes: ['write:repository', 'write:issue'] },
    });
    return JSON.parse(t.body).sha1;
  })();
  const small = await api(server, quietTok, 'POST', '/user/repos', { name: 'calm' }, 201);
  await api(server, quietTok, 'POST', '/repos/quiet/calm/issues', { title: 'a quiet issue' }, 201);
  return { tokens, bigRepoId: big.id, smallRepoId: small.id };
}

function bulkInsert(dbFile, ids) {
  const Database = require('better-sqlite3');
  const db = new Database(dbFile);
  db.pragma('busy_timeout = 10000');
  const started = Date.now();
  try {
    const repoTpl = db.prepare('SELECT * FROM repositories WHERE id = ?').get(ids.bigRepoId);
    const cols = Object.keys(repoTpl).filter((c) => c !== 'id');
    const addRepo = db.prepare(`INSERT INTO repositories (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')})`);
    const uid = (name) => db.prepare('SELECT id FROM users WHERE lower_name = ?').get(name).id;
    const [bench, viewer, viewer2, quiet] = ['bench', 'viewer', 'viewer2', 'quiet'].map(uid);
    const bigIssue = db.prepare('SELECT id FROM issue WHERE repo_id = ?').get(ids.bigRepoId).id;
    const smallIssue = db.prepare('SELECT id FROM issue WHERE repo_id = ?').get(ids.smallRepoId).id;
    const act = db.prepare(
      'INSERT INTO activities (op_type, act_user_id, repo_id, ref_name, is_private, content, ' +
        'created_unix, comment_id) VALUES (5, ?, ?, ?, ?, ?, ?, 0)',
    );
    const watch = db.prepare('INSERT OR IGNORE INTO watch (user_id, repo_id, mode, created_unix, updated_unix) VALUES (?, ?, 1, ?, ?)');
    const note = db.prepare(
      'INSERT INTO notification (user_id, repo_id, status, source, issue_id, commit_id, ' +
        "comment_id, updated_by, created_unix, updated_unix) VALUES (?, ?, ?, 1, ?, '', 0, ?, ?, ?)",
    );
    const now = Math.floor(Date.now() / 1000);
    const content = (i) =>
      JSON.stringify({
        Commits: [
          {
            Sha1: i.toString(16).padStart(40, '0'),
            Message: `commit ${i}`,
            AuthorName: 'Bench',
            AuthorEmail: 'bench@example.com',
            Timestamp: new Date((now - i) * 1000).toISOString(),
          },
        ],
        HeadCommit: null,
        CompareURL: '',
        Len: 1,
      });
    let repoIds;
    db.transaction(() => {
      repoIds = [ids.bigRepoId];
      for (let j = 1; j < SIZES.repos; j++) {
        const name = `repo-${String(j).padStart(4, '0')}`;
        repoIds.push(Number(addRepo.run({ ...repoTpl, name, lower_name: name, is_private: j % 2 }).lastInsertRowid));
      }
      for (let i = 0; i < SIZES.activities; i++) {
        const j = i % SIZES.repos;
        act.run(bench, repoIds[j], 'refs/heads/main', j % 2, content(i), now - SIZES.activities + i);
      }
      for (let i = 0; i < SIZES.smallActivities; i++)
        act.run(quiet, ids.smallRepoId, 'refs/heads/main', 0, content(i), now - SIZES.smallActivities + i);
      for (let j = 0; j < SIZES.watched * 2; j += 2) watch.run(viewer, repoIds[j], now, now);
      // Threads need distinct issue ids (one thread per user and issue); the newest points at the
      // real issue, the others at ids with no issue row (their subject stays empty on the page).
      for (let i = 0; i < SIZES.threads; i++)
        note.run(viewer, ids.bigRepoId, i % 2 ? 1 : 2, i === 0 ? bigIssue : 1000000 + i, bench, now - i, now - i);
      for (let i = 0; i < SIZES.smallThreads; i++)
        note.run(viewer2, ids.smallRepoId, i % 2 ? 1 : 2, i === 0 ? smallIssue : 2000000 + i, quiet, now - i, now - i);
    })();
    db.pragma('wal_checkpoint(PASSIVE)');
    return {
      repositories: repoIds.length,
      activities: SIZES.activities + SIZES.smallActivities,
      threads: SIZES.threads + SIZES.smallThreads,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    db.close();
  }
}

async function run() {
  const plugins = lib.shippedPlugins();
  const dir = lib.makeTempDir('hearth-bench-feeds-');
  let server;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(dir, plugins), logFile: path.join(dir, 'server.log') });
    const ids = await setUp(server);
    const seeded = bulkInsert(path.join(dir, 'hearth.db'), ids);
    const as = (who) => ({ authorization: `token ${ids.tokens[who]}` });
    const u = (p) => `${server.url}/api/v1${p}`;
    const pairs = [
      {
        name: 'repo feed',
        gated: true,
        big: { url: u('/repos/bench/repo-0000/activities/feeds?limit=20'), headers: as('viewer') },
        small: { url: u('/repos/quiet/calm/activities/feeds?limit=20'), headers: as('viewer') },
      },
      {
        name: 'user feed (owner)',
        gated: false,
        big: { url: u('/users/bench/activities/feeds?limit=20'), headers: as('viewer') },
        small: { url: u('/users/quiet/activities/feeds?limit=20'), headers: as('viewer') },
      },
      {
        name: 'user feed (watched)',
        gated: false,
        big: { url: u('/users/viewer/activities/feeds?limit=20'), headers: as('viewer') },
        small: { url: u('/users/viewer2/activities/feeds?limit=20'), headers: as('viewer2') },
      },
      {
        name: 'GET /notifications',
        gated: true,
        big: { url: u('/notifications?limit=20'), headers: as('viewer') },
        small: { url: u('/notifications?limit=20'), headers: as('viewer2') },
      },
      {
        name: 'GET /notifications/new',
        gated: true,
        big: { url: u('/notifications/new'), headers: as('viewer') },
        small: { url: u('/notifications/new'), headers: as('viewer2') },
      },
    ];
    // Sanity: the viewer sees only public repositories' rows of bench's feed.
    const check = await lib.request(pairs[1].big.url, { headers: pairs[1].big.headers, timeoutMs: 10000 });
    const rows = JSON.parse(check.body);
    const warnings = [];
    if (check.status !== 200 || rows.length !== 20 || rows.some((a) => a.repo.private))
      warnings.push(
        `user feed as viewer: ${check.status}, ${rows.length} rows, private rows: ${rows.filter((a) => a.repo.private).length}`,
      );
    const total = Number(check.headers['x-total-count']);
    if (!(total >= SIZES.activities / 2 && total < SIZES.activities))
      warnings.push(`user feed total ${total}: expected the public half of ${SIZES.activities}`);

    const results = [];
    for (const p of pairs) {
      const [big, small] = await lib.sequentialGets([p.big, p.small], LATENCY).then((r) => r.stats);
      results.push({ name: p.name, gated: p.gated, big, small, ratio: big.p50 / small.p50 });
    }
    const stop = await lib.stopServer(server);
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');

    const f = (n) => n.toFixed(2);
    const table = [['route', 'big p50 / p99, ms', 'small p50 / p99, ms', 'big/small p50']];
    for (const r of results)
      table.push([r.name, `${f(r.big.p50)} / ${f(r.big.p99)}`, `${f(r.small.p50)} / ${f(r.small.p99)}`, `${f(r.ratio)}x`]);
    const verdicts = results
      .filter((r) => r.gated)
      .map((r) => ({
        name: r.name,
        met: r.ratio <= TARGET_RATIO,
        line: `${r.name} p50: big ${f(r.big.p50)} ms vs small ${f(r.small.p50)} ms = ${f(r.ratio)}x — target ≤ ${TARGET_RATIO}x`,
      }));
    console.log(
      `plugins loaded: ${plugins.join(', ') || '(none)'}; seeded ${seeded.repositories} ` +
        `repositories, ${seeded.activities} activity rows, ${seeded.threads} threads in ` +
        `${seeded.seconds.toFixed(1)} s; user feed total for the viewer: ${total}`,
    );
    console.log(`${LATENCY.warmup} warm-up + ${LATENCY.requests} sequential keep-alive requests each, big and small interleaved\n`);
    console.log(lib.table(table));
    console.log('');
    lib.printVerdicts(verdicts, warnings);
    return { plugins, sizes: SIZES, seeded, settings: { latency: LATENCY }, target: { ratio: TARGET_RATIO }, results, warnings, verdicts };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { name: 'feeds', run };
