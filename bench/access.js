'use strict';
/**
 * Access benchmark: what the access module (core/kernel/src/access/) costs per request and per
 * list, as ratios against a baseline measured on the same server (or a bare Express app) in the
 * same run.
 *
 *   1. resolution  GET /api/v1/repos/{owner}/{repo}, one signed-in caller (token), three paths
 *                  through AccessPolicy:
 *                  a  a public repository of a public user, the caller a stranger to it;
 *                  b  a public repository of a PRIVATE organization, the caller a member of it
 *                     (ownerVisible → org membership lookup, then its teams, none covering it);
 *                  c  a private repository of a public organization, reached through a team;
 *                  plus the bare Express baseline (bench/baseline-express.js) answering
 *                  GET /api/v1/user with a's exact body (same bytes, same Authorization header).
 *                  Sequential keep-alive GETs, the four interleaved: 30 warm-up + 300 measured
 *                  each, p50 / p99; then autocannon, 32 connections, 1 s warm-up + 5 s, each, in
 *                  two rounds (a b c express, then express c b a; the mean of the two).
 *                  Target: b/a and c/a ≤ 1.3× (p50, p99, throughput); a/express is reported.
 *   2. lists       GET /api/v1/repos/search?limit=50 over 10,000 repositories of 200 owners
 *                  (100 organizations, 100 users; visibility public / limited / private in turn;
 *                  every other batch of repositories private, so half are), as
 *                  x  the site admin (no filter);
 *                  y  a member of 5 organizations (public, limited and private; one team with all
 *                     repositories, two with 10 listed each, two with none) with 20 collaborations;
 *                  z  a restricted user with 10 collaborations;
 *                  w  anonymous.
 *                  Sequential keep-alive GETs, interleaved: 10 warm-up + 100 measured each.
 *                  Target: y/x, z/x and w/x ≤ 2× (p50, p99).
 *                  Also printed, to tell the SQL filter from the rest of the request: the time of
 *                  the list's two queries alone (page + X-Total-Count, built by the compiled
 *                  readableRepoIds, run in this process on the same file), and SQLite's plan of
 *                  the count for y and z.
 *
 * Users, organizations, teams, one repository per kind of owner and one collaboration are created
 * through the API; the rest of the list fixture is bulk-inserted straight into DATA_DIR/hearth.db
 * with better-sqlite3 while the server is idle (as bench/orgs.js does), copying the API-created
 * rows so every column holds what the API writes. GET /repos/{owner}/{repo} and /repos/search read
 * only the database, so the inserted repositories need no bare repository on disk.
 */
const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

const SIZES = { orgs: 100, users: 100, repos: 10000, memberOrgs: 5, memberTeamRepos: 10, memberCollabs: 20, restrictedCollabs: 10 };
const RESOLUTION_LATENCY = { warmup: 30, requests: 300 };
const LIST_LATENCY = { warmup: 10, requests: 100 };
const LIST_LIMIT = 50;
const SQL_RUNS = 30;
const THROUGHPUT = { connections: 32, warmup: 1, duration: 5 };
const TARGETS = { resolution: 1.3, list: 2 };
const BASELINE = path.join(__dirname, 'baseline-express.js');
const VIS = ['public', 'limited', 'private'];

const MEMBER = { username: 'member', password: 'member-password-1', email: 'member@example.com' };
const RESTRICTED = { username: 'restricted', password: 'restricted-password-1', email: 'restricted@example.com' };

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

/** A user made by the admin, and a read:repository token of theirs minted over basic auth. */
async function userWithToken(server, admin, user, extra = {}) {
  const row = await api(server, admin, 'POST', '/admin/users', { ...user, must_change_password: false, ...extra }, 201);
  const basic = 'Basic ' + Buffer.from(`${user.username}:${user.password}`).toString('base64');
  const tok = await lib.request(`${server.url}/api/v1/users/${user.username}/tokens`, {
    method: 'POST',
    headers: { authorization: basic },
    body: { name: 'bench', scopes: ['read:repository'] },
  });
  if (tok.status !== 201) throw new Error(`${user.username} token: ${tok.status} ${tok.body}`);
  return { id: row.id, token: JSON.parse(tok.body).sha1 };
}

/** Owner index i (0..199): organizations first, then users; visibility public, limited, private in turn. */
function ownerOf(i) {
  const isOrg = i < SIZES.orgs;
  const k = isOrg ? i : i - SIZES.orgs;
  return { name: `${isOrg ? 'lorg' : 'luser'}-${String(k).padStart(3, '0')}`, isOrg, visibility: k % 3 };
}
const OWNERS = SIZES.orgs + SIZES.users;
/** Repository j belongs to owner j % 200 (so ids interleave owners); batches of 200 alternate public / private. */
const repoName = (j) => `r-${String(j).padStart(5, '0')}`;
const repoPrivate = (j) => Math.floor(j / OWNERS) % 2 === 1;

/**
 * Everything made through the API: the admin's token, the member and restricted users with their
 * tokens, the three resolution targets, and the templates of the list fixture (lorg-000 with a
 * repository and the member's team, luser-000 with a repository the member collaborates on).
 */
async function setUp(server) {
  const admin = await lib.hearthToken(server, ['write:admin', 'write:organization', 'write:repository', 'write:user']);
  const adminId = (await api(server, admin, 'GET', '/user', undefined, 200)).id;
  const member = await userWithToken(server, admin, MEMBER);
  const restricted = await userWithToken(server, admin, RESTRICTED, { restricted: true });

  // --- resolution targets; owner names of one length so the three bodies are the same size ---
  await api(
    server,
    admin,
    'POST',
    '/admin/users',
    { username: 'pubuser', email: 'pubuser@example.com', password: 'pubuser-password-1', must_change_password: false },
    201,
  );
  await api(server, admin, 'POST', '/admin/users/pubuser/repos', { name: 'target', private: false }, 201);
  await api(server, admin, 'POST', '/orgs', { username: 'privorg', visibility: 'private' }, 201);
  await api(server, admin, 'POST', '/orgs/privorg/repos', { name: 'target', private: false }, 201);
  const staff = await api(
    server,
    admin,
    'POST',
    '/orgs/privorg/teams',
    { name: 'staff', permission: 'read', includes_all_repositories: false },
    201,
  );
  await api(server, admin, 'PUT', `/teams/${staff.id}/members/${MEMBER.username}`, undefined, 204);
  await api(server, admin, 'POST', '/orgs', { username: 'teamorg', visibility: 'public' }, 201);
  await api(server, admin, 'POST', '/orgs/teamorg/repos', { name: 'target', private: true }, 201);
  const readers = await api(
    server,
    admin,
    'POST',
    '/orgs/teamorg/teams',
    { name: 'readers', permission: 'read', includes_all_repositories: false },
    201,
  );
  await api(server, admin, 'PUT', `/teams/${readers.id}/members/${MEMBER.username}`, undefined, 204);
  await api(server, admin, 'PUT', `/teams/${readers.id}/repos/teamorg/target`, undefined, 204);

  // --- list templates ---
  const org0 = ownerOf(0);
  const user0 = ownerOf(SIZES.orgs);
  await api(server, admin, 'POST', '/orgs', { username: org0.name, visibility: VIS[org0.visibility] }, 201);
  const orgRepo = await api(server, admin, 'POST', `/orgs/${org0.name}/repos`, { name: repoName(0), private: repoPrivate(0) }, 201);
  const team = await api(
    server,
    admin,
    'POST',
    `/orgs/${org0.name}/teams`,
    { name: 'members', permission: 'read', includes_all_repositories: false },
    201,
  );
  await api(server, admin, 'PUT', `/teams/${team.id}/members/${MEMBER.username}`, undefined, 204);
  await api(server, admin, 'PUT', `/teams/${team.id}/repos/${org0.name}/${repoName(0)}`, undefined, 204);
  await api(
    server,
    admin,
    'POST',
    '/admin/users',
    {
      username: user0.name,
      email: `${user0.name}@example.com`,
      password: 'luser-password-1',
      must_change_password: false,
      visibility: VIS[user0.visibility],
    },
    201,
  );
  const userRepo = await api(
    server,
    admin,
    'POST',
    `/admin/users/${user0.name}/repos`,
    { name: repoName(SIZES.orgs), private: repoPrivate(SIZES.orgs) },
    201,
  );
  await api(
    server,
    admin,
    'PUT',
    `/repos/${user0.name}/${repoName(SIZES.orgs)}/collaborators/${MEMBER.username}`,
    { permission: 'read' },
    204,
  );
  return {
    admin,
    adminId,
    member,
    restricted,
    templates: { orgRepoId: orgRepo.id, userRepoId: userRepo.id, teamId: team.id, org: org0.name, user: user0.name },
  };
}

/**
 * Bulk rows of the list fixture: owners 1..99 and 101..199 (copies of lorg-000 / luser-000), the
 * 10,000 repositories but the two made by the API (copies of lorg-000's), the member's teams in
 * lorg-001 (limited), lorg-002 (private; all repositories), lorg-005 (private; 10 listed), lorg-008
 * (private; none) next to the API-made one in lorg-000 (1 + 9 listed), and the collaborations:
 * the member on 20 private repositories of private users, the restricted user on 10 repositories
 * of every kind of owner.
 */
function bulkInsert(dbFile, { member, restricted, templates }) {
  const Database = require('better-sqlite3');
  const db = new Database(dbFile);
  db.pragma('busy_timeout = 10000');
  const started = Date.now();
  try {
    const orgTpl = db.prepare('SELECT * FROM users WHERE lower_name = ?').get(templates.org);
    const userTpl = db.prepare('SELECT * FROM users WHERE lower_name = ?').get(templates.user);
    const repoTpl = db.prepare('SELECT * FROM repositories WHERE id = ?').get(templates.orgRepoId);
    const teamTpl = db.prepare('SELECT * FROM teams WHERE id = ?').get(templates.teamId);
    const collabTpl = db.prepare('SELECT * FROM collaborations WHERE repo_id = ? AND user_id = ?').get(templates.userRepoId, member.id);
    const settingsTpl = db.prepare('SELECT * FROM org_settings WHERE org_id = ?').get(orgTpl.id);
    const insertRow = (table, tpl) => lib.rowCopier(db, table, tpl);
    const addUser = insertRow('users', userTpl);
    const addOrg = insertRow('users', orgTpl);
    const addSettings = settingsTpl ? insertRow('org_settings', settingsTpl) : () => 0;
    const addRepo = insertRow('repositories', repoTpl);
    const addTeam = insertRow('teams', teamTpl);
    const addCollab = insertRow('collaborations', collabTpl);
    const { teamRepo, teamUser, orgUser } = lib.membershipInserts(db);
    const counts = {};
    db.transaction(() => {
      const ownerIds = [];
      for (let i = 0; i < OWNERS; i++) {
        const o = ownerOf(i);
        if (i === 0) ownerIds.push(orgTpl.id);
        else if (i === SIZES.orgs) ownerIds.push(userTpl.id);
        else if (o.isOrg) {
          const id = addOrg({ name: o.name, lower_name: o.name, email: '', full_name: '', visibility: o.visibility });
          addSettings({ org_id: id });
          ownerIds.push(id);
        } else
          ownerIds.push(
            addUser({ name: o.name, lower_name: o.name, email: `${o.name}@example.com`, full_name: '', visibility: o.visibility }),
          );
      }
      const repoIds = [];
      for (let j = 0; j < SIZES.repos; j++) {
        if (j === 0) repoIds.push(templates.orgRepoId);
        else if (j === SIZES.orgs) repoIds.push(templates.userRepoId);
        else
          repoIds.push(
            addRepo({ owner_id: ownerIds[j % OWNERS], name: repoName(j), lower_name: repoName(j), is_private: repoPrivate(j) ? 1 : 0 }),
          );
      }
      /** Repositories of owner i, in id order. */
      const reposOf = (i) => repoIds.filter((_, j) => j % OWNERS === i);

      // The member's teams: [owner index, includes all, listed repositories].
      let teams = 1;
      let links = 1;
      for (const [i, all, listed] of [
        [0, false, SIZES.memberTeamRepos],
        [1, false, 0],
        [2, true, 0],
        [5, false, SIZES.memberTeamRepos],
        [8, false, 0],
      ]) {
        const orgId = ownerIds[i];
        let teamId = templates.teamId;
        if (i !== 0) {
          teamId = addTeam({ org_id: orgId, includes_all_repositories: all ? 1 : 0 });
          teams++;
        }
        teamUser.run(orgId, teamId, member.id);
        orgUser.run(orgId, member.id);
        // Every other repository of the org, from the second (private ones included).
        for (const repoId of reposOf(i)
          .filter((_, k) => k % 2 === 1)
          .slice(0, listed - (i === 0 ? 1 : 0)))
          links += teamRepo.run(orgId, teamId, repoId).changes;
      }
      // The member collaborates on private repositories of private users (owner index ≡ 2 mod 3 among users).
      let memberCollabs = 1;
      for (let k = 0; memberCollabs < SIZES.memberCollabs; k++) {
        const i = SIZES.orgs + 2 + 3 * (k % 30);
        const privateRepos = reposOf(i).filter((_, n) => repoPrivate(i + n * OWNERS));
        addCollab({ repo_id: privateRepos[Math.floor(k / 30)], user_id: member.id });
        memberCollabs++;
      }
      // The restricted user: 10 repositories spread over every kind of owner, public and private.
      for (let k = 0; k < SIZES.restrictedCollabs; k++) {
        const j = 37 + k * 977; // owners 37, 14, 191, …: organizations and users of each visibility
        addCollab({ repo_id: repoIds[j], user_id: restricted.id });
      }
      Object.assign(counts, {
        owners: ownerIds.length,
        repositories: repoIds.length,
        memberTeams: teams,
        memberTeamRepos: links,
        memberCollabs,
        restrictedCollabs: SIZES.restrictedCollabs,
      });
    })();
    // No ANALYZE: the server never runs it, so the planner works as it would on a real installation.
    db.pragma('wal_checkpoint(PASSIVE)');
    const expect = {
      admin: db.prepare('SELECT count(*) AS n FROM repositories').get().n,
      anonymous: db
        .prepare('SELECT count(*) AS n FROM repositories r JOIN users u ON u.id = r.owner_id WHERE r.is_private = 0 AND u.visibility = 0')
        .get().n,
      restricted: SIZES.restrictedCollabs,
    };
    return { ...counts, expect, seconds: (Date.now() - started) / 1000 };
  } finally {
    db.close();
  }
}

/**
 * The list's two queries as the search route builds them (the page, and Objection's resultSize
 * count), from the compiled readableRepoIds, timed in this process on the same file with the same
 * driver; and SQLite's plan of the count. Tells the filter's cost from the rest of the request.
 */
async function sqlCost(dbFile, principals) {
  const { readableRepoIds } = require(path.join(lib.REPO_ROOT, 'core/kernel/dist/access/readable-repos.js'));
  const knex = require('knex')({
    client: 'better-sqlite3',
    connection: { filename: dbFile, readonly: true },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
  });
  const out = {};
  try {
    for (const [key, principal] of Object.entries(principals)) {
      const readable = readableRepoIds(knex, principal);
      const base = () =>
        readable
          ? knex('repositories').select('repositories.*').whereIn('repositories.id', readable)
          : knex('repositories').select('repositories.*');
      const page = base().orderBy('id', 'asc').orderBy('id', 'asc').limit(LIST_LIMIT);
      const count = knex.count('* as count').from((b) => {
        const inner = b.select('repositories.*').from('repositories');
        if (readable) inner.whereIn('repositories.id', readable);
        inner.as('temp');
      });
      const times = [];
      for (let i = 0; i < SQL_RUNS + 3; i++) {
        const t0 = process.hrtime.bigint();
        await Promise.all([page.clone(), count.clone()]);
        if (i >= 3) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      const c = count.toSQL();
      const plan = await knex.raw(`EXPLAIN QUERY PLAN ${c.sql}`, c.bindings);
      out[key] = { ms: lib.latencySummary(times), plan: plan.map((r) => r.detail), countSql: c.sql };
    }
  } finally {
    await knex.destroy();
  }
  return out;
}

async function run() {
  const plugins = lib.shippedPlugins();
  const dir = lib.makeTempDir('hearth-bench-access-');
  let server;
  let baseline;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(dir, plugins), logFile: path.join(dir, 'server.log') });
    const setup = await setUp(server);
    const seeded = bulkInsert(path.join(dir, 'hearth.db'), setup);
    const warnings = [];
    const memberHeaders = { authorization: `token ${setup.member.token}` };

    // --- 1. resolution: check each path answers what it should, then measure ---
    const resolution = [
      { key: 'a', label: 'a: public repo, public user (stranger)', path: '/api/v1/repos/pubuser/target', private: false },
      { key: 'b', label: 'b: public repo, private org (member)', path: '/api/v1/repos/privorg/target', private: false },
      { key: 'c', label: 'c: private repo via team', path: '/api/v1/repos/teamorg/target', private: true },
    ];
    const bodies = {};
    for (const t of resolution) {
      const res = await lib.request(server.url + t.path, { headers: memberHeaders });
      const body = res.status === 200 ? JSON.parse(res.body) : null;
      if (!body || body.private !== t.private || !body.permissions.pull || body.permissions.push)
        throw new Error(`${t.path} as the member: ${res.status} ${res.body}`);
      bodies[t.key] = res.body;
      if (t.key !== 'a') {
        const anon = await lib.request(server.url + t.path);
        if (anon.status !== 404) warnings.push(`${t.path} answered ${anon.status} to an anonymous caller, expected 404`);
      }
    }
    const sizes = Object.fromEntries(Object.entries(bodies).map(([k, b]) => [k, Buffer.byteLength(b)]));
    baseline = await lib.startServer({
      name: 'express baseline',
      args: [BASELINE],
      env: lib.cleanEnv({ PORT: '0', HOST: '127.0.0.1', BASELINE_USER_BODY: bodies.a }),
      readyPath: '/api/v1/version',
      logFile: path.join(dir, 'baseline.log'),
    });
    const baseRes = await lib.request(`${baseline.url}/api/v1/user`, { headers: memberHeaders });
    if (baseRes.body !== bodies.a) warnings.push("the baseline's body differs from a's");
    const resTargets = [
      ...resolution.map((t) => ({ url: server.url + t.path, headers: memberHeaders })),
      { url: `${baseline.url}/api/v1/user`, headers: memberHeaders },
    ];
    const resLat = (await lib.sequentialGets(resTargets, { ...RESOLUTION_LATENCY, timeoutMs: 5000 })).stats;
    // Throughput in two rounds, a b c express then express c b a, so drift in the machine's load
    // (other work on it, thermal) weighs on every target alike; each figure is the mean of its two runs.
    const tpRuns = resTargets.map(() => []);
    for (const round of [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
    ]) {
      for (const i of round) {
        const r = await lib.measureThroughput(resTargets[i], THROUGHPUT);
        if (r.non2xx || r.errors || r.timeouts)
          warnings.push(
            `${i < 3 ? resolution[i].label : 'express'}: ${r.non2xx} non-2xx, ${r.errors} errors, ` +
              `${r.timeouts} timeouts (status codes ${JSON.stringify(r.statusCodeStats)})`,
          );
        tpRuns[i].push(r);
      }
    }
    const resTp = tpRuns.map((runs) => ({
      requestsPerSec: runs.reduce((sum, r) => sum + r.requestsPerSec, 0) / runs.length,
      latencyMs: { p50: runs.map((r) => r.latencyMs.p50).join(' / '), p99: runs.map((r) => r.latencyMs.p99).join(' / ') },
      non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      errors: runs.reduce((sum, r) => sum + r.errors, 0),
      runs,
    }));
    const baselineStop = await lib.stopServer(baseline);
    if (!baselineStop.graceful) warnings.push('baseline did not exit within 5 s of SIGTERM (killed)');

    // --- 2. lists ---
    const search = `${server.url}/api/v1/repos/search?limit=${LIST_LIMIT}`;
    const lists = [
      { key: 'x', label: 'x: site admin', headers: { authorization: `token ${setup.admin}` } },
      { key: 'y', label: 'y: org member + collaborator', headers: memberHeaders },
      { key: 'z', label: 'z: restricted user', headers: { authorization: `token ${setup.restricted.token}` } },
      { key: 'w', label: 'w: anonymous', headers: {} },
    ];
    const listRun = await lib.sequentialGets(
      lists.map((l) => ({ url: search, headers: l.headers })),
      { ...LIST_LATENCY, timeoutMs: 20000 },
    );
    const listLat = listRun.stats;
    const totals = listRun.last.map((r) => Number(r.total));
    const items = listRun.last.map((r) => JSON.parse(r.body.toString()).data.length);
    const listBytes = listRun.last.map((r) => r.body.length);
    for (const [i, key] of [
      [0, 'admin'],
      [2, 'restricted'],
      [3, 'anonymous'],
    ]) {
      if (totals[i] !== seeded.expect[key]) warnings.push(`${lists[i].label}: X-Total-Count ${totals[i]}, expected ${seeded.expect[key]}`);
    }
    if (items[2] !== SIZES.restrictedCollabs)
      warnings.push(`the restricted user's page holds ${items[2]} repositories, expected ${SIZES.restrictedCollabs}`);

    const user = (id, extra = {}) => ({
      user: { id, isAdmin: false, isRestricted: false, ...extra },
      method: 'token',
      scopes: null,
      publicOnly: false,
    });
    const sql = await sqlCost(path.join(dir, 'hearth.db'), {
      x: { user: { id: setup.adminId, isAdmin: true, isRestricted: false }, method: 'token', scopes: null, publicOnly: false },
      y: user(setup.member.id),
      z: user(setup.restricted.id, { isRestricted: true }),
      w: null,
    });
    const stop = await lib.stopServer(server);
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');

    // --- report ---
    const f = (n) => n.toFixed(2);
    const [la, lb, lc, le] = resLat;
    const [ta, tb, tc, te] = resTp;
    const ratios = {
      resolution: {
        b: { p50: lb.p50 / la.p50, p99: lb.p99 / la.p99, throughput: ta.requestsPerSec / tb.requestsPerSec },
        c: { p50: lc.p50 / la.p50, p99: lc.p99 / la.p99, throughput: ta.requestsPerSec / tc.requestsPerSec },
        aVsExpress: { p50: la.p50 / le.p50, p99: la.p99 / le.p99, throughput: te.requestsPerSec / ta.requestsPerSec },
      },
      lists: Object.fromEntries(
        ['y', 'z', 'w'].map((k, n) => [k, { p50: listLat[n + 1].p50 / listLat[0].p50, p99: listLat[n + 1].p99 / listLat[0].p99 }]),
      ),
    };
    const rr = ratios.resolution;
    const resRows = [
      ['measure', 'a', 'b', 'c', 'express', 'b/a', 'c/a', 'a/express'],
      ['body, bytes', sizes.a, sizes.b, sizes.c, Buffer.byteLength(baseRes.body), '', '', ''],
      [
        `sequential p50, ms (n=${RESOLUTION_LATENCY.requests})`,
        f(la.p50),
        f(lb.p50),
        f(lc.p50),
        f(le.p50),
        `${f(rr.b.p50)}x`,
        `${f(rr.c.p50)}x`,
        `${f(rr.aVsExpress.p50)}x`,
      ],
      ['sequential p99, ms', f(la.p99), f(lb.p99), f(lc.p99), f(le.p99), `${f(rr.b.p99)}x`, `${f(rr.c.p99)}x`, `${f(rr.aVsExpress.p99)}x`],
      [
        'sequential mean, ms',
        f(la.mean),
        f(lb.mean),
        f(lc.mean),
        f(le.mean),
        `${f(lb.mean / la.mean)}x`,
        `${f(lc.mean / la.mean)}x`,
        `${f(la.mean / le.mean)}x`,
      ],
      [
        `throughput (${THROUGHPUT.connections} conn), req/s`,
        ...resTp.map((r) => Math.round(r.requestsPerSec)),
        `${f(rr.b.throughput)}x slower`,
        `${f(rr.c.throughput)}x slower`,
        `${f(rr.aVsExpress.throughput)}x slower`,
      ],
      ['  runs, req/s', ...resTp.map((r) => r.runs.map((x) => Math.round(x.requestsPerSec)).join(' / ')), '', '', ''],
      ['  latency p50, ms', ...resTp.map((r) => r.latencyMs.p50), '', '', ''],
      ['  latency p99, ms', ...resTp.map((r) => r.latencyMs.p99), '', '', ''],
      ['  non-2xx / errors', ...resTp.map((r) => `${r.non2xx} / ${r.errors}`), '', '', ''],
    ];
    const listRows = [
      ['measure', ...lists.map((l) => l.key), 'y/x', 'z/x', 'w/x'],
      ['X-Total-Count', ...totals, '', '', ''],
      ['repositories on the page / body KB', ...items.map((n, i) => `${n} / ${(listBytes[i] / 1024).toFixed(0)}`), '', '', ''],
      [
        `sequential p50, ms (n=${LIST_LATENCY.requests})`,
        ...listLat.map((s) => f(s.p50)),
        ...['y', 'z', 'w'].map((k) => `${f(ratios.lists[k].p50)}x`),
      ],
      ['sequential p99, ms', ...listLat.map((s) => f(s.p99)), ...['y', 'z', 'w'].map((k) => `${f(ratios.lists[k].p99)}x`)],
      ['sequential mean, ms', ...listLat.map((s) => f(s.mean)), ...[1, 2, 3].map((n) => `${f(listLat[n].mean / listLat[0].mean)}x`)],
      [
        `  SQL page + count alone, p50 ms (n=${SQL_RUNS})`,
        ...lists.map((l) => f(sql[l.key].ms.p50)),
        ...['y', 'z', 'w'].map((k) => `${f(sql[k].ms.p50 / sql.x.ms.p50)}x`),
      ],
      ['  rest of the request (p50 − SQL), ms', ...lists.map((l, i) => f(listLat[i].p50 - sql[l.key].ms.p50)), '', '', ''],
    ];
    const verdicts = [];
    for (const k of ['b', 'c']) {
      for (const m of ['p50', 'p99', 'throughput']) {
        const v = rr[k][m];
        verdicts.push({
          name: `resolution ${k}/a ${m}`,
          met: v <= TARGETS.resolution,
          line:
            `GET /repos/{owner}/{repo} ${k}/a ${m === 'throughput' ? 'throughput (slowdown)' : m}: ` +
            `${f(v)}x — target ≤ ${TARGETS.resolution}x`,
        });
      }
    }
    for (const k of ['y', 'z', 'w']) {
      for (const m of ['p50', 'p99']) {
        const v = ratios.lists[k][m];
        verdicts.push({
          name: `list ${k}/x ${m}`,
          met: v <= TARGETS.list,
          line: `GET /repos/search?limit=${LIST_LIMIT} ${k}/x ${m}: ${f(v)}x — target ≤ ${TARGETS.list}x`,
        });
      }
    }

    console.log(`plugins loaded: ${plugins.join(', ') || '(none)'}`);
    console.log(
      `lists: ${seeded.repositories} repositories of ${seeded.owners} owners (seeded in ` +
        `${seeded.seconds.toFixed(1)} s); member: ${seeded.memberTeams} teams in ` +
        `${SIZES.memberOrgs} organizations (${seeded.memberTeamRepos} listed repositories, one ` +
        `team with all), ${seeded.memberCollabs} collaborations; restricted: ` +
        `${seeded.restrictedCollabs} collaborations`,
    );
    console.log(
      `resolution: ${RESOLUTION_LATENCY.warmup} warm-up + ${RESOLUTION_LATENCY.requests} ` +
        `sequential keep-alive requests each, interleaved; throughput: ${THROUGHPUT.connections} ` +
        `connections, ${THROUGHPUT.warmup} s warm-up + ${THROUGHPUT.duration} s, two rounds (a b c ` +
        `express, express c b a), mean\n`,
    );
    console.log("1. GET /api/v1/repos/{owner}/{repo} as one member token; express: GET /api/v1/user with a's body");
    for (const t of resolution) console.log(`   ${t.label}  (${t.path})`);
    console.log('');
    console.log(lib.table(resRows));
    console.log(
      `\n2. GET /api/v1/repos/search?limit=${LIST_LIMIT}: ${lists.map((l) => l.label).join('; ')}` +
        `; ${LIST_LATENCY.warmup} warm-up + ${LIST_LATENCY.requests} each, interleaved\n`,
    );
    console.log(lib.table(listRows));
    for (const k of ['y', 'z']) {
      console.log(`\nquery plan of the count, ${lists.find((l) => l.key === k).label}:`);
      for (const d of sql[k].plan) console.log(`  ${d}`);
    }
    const scans = Object.fromEntries(Object.entries(sql).map(([k, v]) => [k, v.plan.filter((d) => /^SCAN /.test(d))]));
    console.log(
      `\nfull scans in the count's plan: ${Object.entries(scans)
        .map(([k, v]) => `${k}: ${v.length ? v.join(', ') : 'none'}`)
        .join('; ')}\n`,
    );
    lib.printVerdicts(verdicts, warnings);

    return {
      plugins,
      sizes: SIZES,
      seeded,
      settings: {
        resolutionLatency: RESOLUTION_LATENCY,
        listLatency: LIST_LATENCY,
        throughput: THROUGHPUT,
        listLimit: LIST_LIMIT,
        sqlRuns: SQL_RUNS,
      },
      targets: TARGETS,
      resolution: {
        bodyBytes: sizes,
        latencyMs: { a: la, b: lb, c: lc, express: le },
        throughput: { a: ta, b: tb, c: tc, express: te },
      },
      lists: {
        totals: Object.fromEntries(lists.map((l, i) => [l.key, totals[i]])),
        pageItems: Object.fromEntries(lists.map((l, i) => [l.key, items[i]])),
        latencyMs: Object.fromEntries(lists.map((l, i) => [l.key, listLat[i]])),
        sql: Object.fromEntries(Object.entries(sql).map(([k, v]) => [k, { ms: v.ms, plan: v.plan }])),
        fullScans: scans,
      },
      ratios,
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    if (baseline) await lib.stopServer(baseline, 2000);
    if (server) await lib.stopServer(server, 2000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { name: 'access', run };
