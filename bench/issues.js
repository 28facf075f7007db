'use strict';
/**
 * Issues benchmark: listing open issues filtered by a label in a repository with 100,000 issues
 * and 1,000,000 comments, page 1 against page 1,000, and against the same listing in a repository
 * with 100 issues; plus the timeline (or, while that route does not exist, the comments) of an
 * issue with 1,000 events. All on one SQLite server in the same run: ratios, not absolute figures.
 *
 *   big    100,000 issues (80 % open), every other one labelled `bench/hit`; 1,000,000 comments:
 *          1,000 on issue #1, the rest spread ~10 per issue over the others.
 *   small  100 issues, the same pattern.
 *
 * Users, both repositories, the label and one issue with one comment each are created through the
 * API; the remaining rows are bulk-inserted straight into DATA_DIR/hearth.db with better-sqlite3
 * while the server is idle (as bench/orgs.js does), copying the API-created rows so every column
 * holds what the API writes. Target for the seed: under 3 minutes.
 *
 *   latency  sequential keep-alive GETs as the admin, interleaved: 20 warm-up + 200 measured each
 *            of  big page 1, big page 1,000, small page 1 (limit 30, state=open, labels=bench/hit),
 *            and the timeline of big #1 (1,000 events); then text search: big's open issues page 1
 *            without q against the same with q=needle (one issue in a hundred has the word; served
 *            by the database's full-text index), and q=needle across every repository; p50 / p99.
 *   Targets: big page 1,000 ≤ 2× big page 1; big page 1 ≤ 3× small page 1; q= ≤ 1.5× no q.
 *   Also printed: the SQLite query plan of the page query (no full scans of issue/comment).
 */
const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

const SIZES = { bigIssues: 100000, smallIssues: 100, comments: 1000000, timelineComments: 1000, openShare: 0.8 };
const LATENCY = { warmup: 20, requests: 200 };
const LIMIT = 30;
const FAR_PAGE = 1000;
const LABEL = 'bench/hit';
const TARGETS = { farVsFirst: 2, bigVsSmall: 3, searchVsPlain: 1.5, seedSeconds: 180 };
/** A word in the title of one issue in a hundred (open, labelled): what the `q=` searches look for. */
const NEEDLE = 'needle';

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

/** Per repository: the repository, its label, and issue #1 with one comment, made by the API (templates for the bulk rows). */
async function setUp(server) {
  const token = await lib.hearthToken(server, ['write:repository', 'write:issue', 'write:user']);
  const out = {};
  for (const name of ['big', 'small']) {
    const repo = await api(server, token, 'POST', '/user/repos', { name }, 201);
    const label = await api(
      server,
      token,
      'POST',
      `/repos/${lib.HEARTH_ADMIN.username}/${name}/labels`,
      { name: LABEL, color: '#ee0701' },
      201,
    );
    const issue = await api(
      server,
      token,
      'POST',
      `/repos/${lib.HEARTH_ADMIN.username}/${name}/issues`,
      { title: 'issue 1', body: 'the first issue', labels: [label.id] },
      201,
    );
    const comment = await api(
      server,
      token,
      'POST',
      `/repos/${lib.HEARTH_ADMIN.username}/${name}/issues/1/comments`,
      { body: 'comment 1' },
      201,
    );
    out[name] = { repoId: repo.id, labelId: label.id, issueId: issue.id, commentId: comment.id };
  }
  return { token, ids: out };
}

/**
 * Bulk rows: issues 2..n of each repository (issue i open unless i % 5 === 0, labelled when i is
 * odd, so #1 keeps its label), the issue_index counter, and the comments (big: issue #1 gets
 * timelineComments in all, the rest go round-robin over the other issues).
 */
function bulkInsert(dbFile, ids) {
  const Database = require('better-sqlite3');
  const db = new Database(dbFile);
  db.pragma('busy_timeout = 10000');
  const started = Date.now();
  const counts = { issues: 0, labels: 0, comments: 0 };
  try {
    const issueTpl = db.prepare('SELECT * FROM issue WHERE id = ?');
    const commentTpl = db.prepare('SELECT * FROM comment WHERE id = ?');
    const insertRow = (table, tpl) => {
      const cols = Object.keys(tpl).filter((c) => c !== 'id');
      const stmt = db.prepare(
        `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')})`,
      );
      return (overrides) => Number(stmt.run({ ...tpl, ...overrides }).lastInsertRowid);
    };
    const tagIssue = db.prepare('INSERT INTO issue_label (issue_id, label_id) VALUES (?, ?)');
    const setCounter = db.prepare('UPDATE issue_index SET max_index = ? WHERE repo_id = ?');
    const seedRepo = (key, n, comments) => {
      const t = ids[key];
      const tpl = issueTpl.get(t.issueId);
      const addIssue = insertRow('issue', tpl);
      const ctpl = commentTpl.get(t.commentId);
      const addComment = insertRow('comment', ctpl);
      const issueIds = [t.issueId];
      const base = tpl.created_unix - n;
      db.transaction(() => {
        for (let i = 2; i <= n; i++) {
          const closed = i % 5 === 0;
          const id = addIssue({
            index: i,
            name: i % 100 === 1 ? `issue ${i} ${NEEDLE}` : `issue ${i}`,
            content: `body of issue ${i}`,
            is_closed: closed ? 1 : 0,
            closed_unix: closed ? base + i : 0,
            created_unix: base + i,
            updated_unix: base + i,
          });
          issueIds.push(id);
          if (i % 2 === 1) {
            tagIssue.run(id, t.labelId);
            counts.labels++;
          }
          counts.issues++;
        }
        setCounter.run(n, t.repoId);
      })();
      // Comments in transactions of 100,000 rows.
      let made = 1;
      const first = Math.min(SIZES.timelineComments, comments);
      let k = 0;
      while (made < comments) {
        db.transaction(() => {
          for (let j = 0; j < 100000 && made < comments; j++, made++) {
            const onFirst = made < first;
            const issueId = onFirst ? t.issueId : issueIds[1 + (k++ % (issueIds.length - 1))];
            addComment({
              issue_id: issueId,
              content: `comment ${made + 1}`,
              created_unix: ctpl.created_unix + made,
              updated_unix: ctpl.created_unix + made,
            });
            counts.comments++;
          }
        })();
      }
    };
    seedRepo('big', SIZES.bigIssues, SIZES.comments);
    seedRepo('small', SIZES.smallIssues, SIZES.timelineComments);
    // No ANALYZE: the server never runs it, so the planner works as it would on a real installation.
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { ...counts, seconds: (Date.now() - started) / 1000 };
  } finally {
    db.close();
  }
}

/** The query plan of the label-filtered page query, as the listing route builds it (read-only). */
function queryPlan(dbFile, ids) {
  const Database = require('better-sqlite3');
  const db = new Database(dbFile, { readonly: true });
  try {
    // The SQL knex builds for the listing route (GET /repos/{owner}/{repo}/issues?state=open&type=issues&labels=…).
    const where =
      '`repo_id` = ? and `is_closed` = ? and `is_pull` = ? and exists (select 1 from ' +
      '`issue_label` as `il` where `il`.`issue_id` = `issue`.`id` and `il`.`label_id` = ?)';
    const args = [ids.big.repoId, 0, 0, ids.big.labelId];
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN select * from \`issue\` where ${where} order by \`index\` desc limit ? offset ?`)
      .all(...args, LIMIT, (FAR_PAGE - 1) * LIMIT)
      .map((r) => r.detail);
    const countPlan = db
      .prepare(`EXPLAIN QUERY PLAN select count(*) as \`n\` from \`issue\` where ${where}`)
      .all(...args)
      .map((r) => r.detail);
    return {
      page: plan,
      count: countPlan,
      fullScan: [...plan, ...countPlan].some((d) => /^SCAN /.test(d)),
      sort: plan.some((d) => /TEMP B-TREE/.test(d)),
    };
  } finally {
    db.close();
  }
}

async function run() {
  const dir = lib.makeTempDir('hearth-bench-issues-');
  let server;
  try {
    // No plugins: the bench measures the kernel's issue routes.
    server = await lib.startServer({ ...lib.hearthSpec(dir, []), logFile: path.join(dir, 'server.log') });
    const { token, ids } = await setUp(server);
    const seeded = bulkInsert(path.join(dir, 'hearth.db'), ids);
    const plan = queryPlan(path.join(dir, 'hearth.db'), ids);
    const headers = { authorization: `token ${token}` };
    const owner = lib.HEARTH_ADMIN.username;
    const list = (repo, page) =>
      `${server.url}/api/v1/repos/${owner}/${repo}/issues?state=open&type=issues&labels=` +
      `${encodeURIComponent(LABEL)}&limit=${LIMIT}&page=${page}`;
    const probe = await lib.request(`${server.url}/api/v1/repos/${owner}/big/issues/1/timeline?limit=1`, { headers });
    const hasTimeline = probe.status === 200;
    const eventsUrl = hasTimeline
      ? `${server.url}/api/v1/repos/${owner}/big/issues/1/timeline?limit=50`
      : `${server.url}/api/v1/repos/${owner}/big/issues/1/comments`;
    const targets = [
      { label: 'big, page 1', url: list('big', 1) },
      { label: `big, page ${FAR_PAGE.toLocaleString('en')}`, url: list('big', FAR_PAGE) },
      { label: 'small, page 1', url: list('small', 1) },
      {
        label: hasTimeline ? 'timeline of big #1 (1,000 events, page 1 of 50)' : 'comments of big #1 (1,000; no timeline route yet)',
        url: eventsUrl,
      },
      { label: 'big, open issues, page 1 (no q)', url: `${server.url}/api/v1/repos/${owner}/big/issues?state=open&limit=${LIMIT}` },
      {
        label: `big, open issues, q=${NEEDLE}, page 1`,
        url: `${server.url}/api/v1/repos/${owner}/big/issues?state=open&limit=${LIMIT}&q=${NEEDLE}`,
      },
      {
        label: `all repositories, q=${NEEDLE}, page 1`,
        url: `${server.url}/api/v1/repos/issues/search?state=open&limit=${LIMIT}&q=${NEEDLE}`,
      },
    ];
    const { stats, last } = await lib.sequentialGets(
      targets.map((t) => ({ url: t.url, headers })),
      { ...LATENCY, timeoutMs: 20000 },
    );
    const warnings = [];
    const bodies = last.map((r) => JSON.parse(r.body.toString()));
    if (bodies[0].length !== LIMIT || bodies[1].length !== LIMIT)
      warnings.push(`big pages returned ${bodies[0].length} and ${bodies[1].length} issues, expected ${LIMIT}`);
    const expectedOpenLabelled = Array.from({ length: SIZES.bigIssues }, (_, i) => i + 1).filter((i) => i % 5 !== 0 && i % 2 === 1).length;
    if (Number(last[0].total) !== expectedOpenLabelled)
      warnings.push(`X-Total-Count of big is ${last[0].total}, expected ${expectedOpenLabelled}`);
    if (!hasTimeline && bodies[3].length !== SIZES.timelineComments)
      warnings.push(`comments of #1: ${bodies[3].length}, expected ${SIZES.timelineComments}`);
    if (plan.sort) warnings.push(`the page query sorts: ${plan.page.join(' | ')}`);
    if (plan.fullScan) warnings.push(`full scan in the query plan: ${[...plan.page, ...plan.count].join(' | ')}`);
    const stop = await lib.stopServer(server);
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');

    const [first, far, small, events, plain, searched, searchedEverywhere] = stats;
    const needles = Array.from({ length: SIZES.bigIssues }, (_, i) => i + 1).filter((i) => i % 100 === 1 && i > 1).length;
    if (Number(last[5].total) !== needles) warnings.push(`X-Total-Count of q=${NEEDLE} is ${last[5].total}, expected ${needles}`);
    const ratios = {
      farVsFirstP50: far.p50 / first.p50,
      farVsFirstP99: far.p99 / first.p99,
      bigVsSmallP50: first.p50 / small.p50,
      bigVsSmallP99: first.p99 / small.p99,
      searchVsPlainP50: searched.p50 / plain.p50,
      searchVsPlainP99: searched.p99 / plain.p99,
      searchEverywhereVsPlainP50: searchedEverywhere.p50 / plain.p50,
    };
    const f = (n) => n.toFixed(2);
    const rows = [
      ['request', 'p50 ms', 'p99 ms', 'mean ms'],
      ...targets.map((t, i) => [t.label, f(stats[i].p50), f(stats[i].p99), f(stats[i].mean)]),
    ];
    const verdicts = [
      {
        name: 'seed',
        met: seeded.seconds <= TARGETS.seedSeconds,
        line:
          `seed (both repositories): ${seeded.issues + 2} issues, ${seeded.comments + 2} comments in ` +
          `${seeded.seconds.toFixed(1)} s — target ≤ ${TARGETS.seedSeconds} s`,
      },
      {
        name: 'page 1,000 vs page 1',
        met: ratios.farVsFirstP50 <= TARGETS.farVsFirst,
        line:
          `page ${FAR_PAGE} vs page 1 (big): p50 ${f(ratios.farVsFirstP50)}x, p99 ` +
          `${f(ratios.farVsFirstP99)}x — target ≤ ${TARGETS.farVsFirst}x (p50)`,
      },
      {
        name: '100,000 vs 100 issues',
        met: ratios.bigVsSmallP50 <= TARGETS.bigVsSmall,
        line:
          `big vs small page 1: p50 ${f(ratios.bigVsSmallP50)}x, p99 ${f(ratios.bigVsSmallP99)}x — ` +
          `target ≤ ${TARGETS.bigVsSmall}x (p50)`,
      },
      {
        name: 'q= vs no q',
        met: ratios.searchVsPlainP50 <= TARGETS.searchVsPlain,
        line:
          `q=${NEEDLE} vs no q (big, open, page 1): p50 ${f(ratios.searchVsPlainP50)}x, p99 ${f(ratios.searchVsPlainP99)}x; ` +
          `across repositories p50 ${f(ratios.searchEverywhereVsPlainP50)}x — target ≤ ${TARGETS.searchVsPlain}x (p50)`,
      },
      { name: 'no full scans', met: !plan.fullScan, line: 'query plan of the label-filtered page and count without full scans' },
    ];

    console.log(
      `big: ${SIZES.bigIssues.toLocaleString('en')} issues, ` +
        `${SIZES.comments.toLocaleString('en')} comments; small: ${SIZES.smallIssues} issues; ` +
        `seeded in ${seeded.seconds.toFixed(1)} s`,
    );
    console.log(
      `latency: ${LATENCY.warmup} warm-up + ${LATENCY.requests} sequential keep-alive requests ` +
        `each, interleaved; listing: state=open&type=issues&labels=${LABEL}&limit=${LIMIT}\n`,
    );
    console.log(lib.table(rows));
    console.log(`\nquery plan (page): ${plan.page.join(' | ')}\nquery plan (count): ${plan.count.join(' | ')}\n`);
    lib.printVerdicts(verdicts, warnings);
    return {
      sizes: SIZES,
      seeded,
      plan,
      hasTimeline,
      settings: { latency: LATENCY, limit: LIMIT, farPage: FAR_PAGE },
      targets: TARGETS,
      latencyMs: Object.fromEntries(targets.map((t, i) => [t.label, stats[i]])),
      ratios,
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
      events,
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { name: 'issues', run };
