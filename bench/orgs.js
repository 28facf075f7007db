'use strict';
/**
 * Organizations benchmark: the cost of the access rule (AccessPolicy.permission → teamAccess, core/kernel/src/access/policy.ts) for a
 * member of a large organization, compared with the same call on a one-team organization, on the
 * same server in the same run (a ratio, not absolute figures).
 *
 *   big    1,000 teams, 10,000 private repositories, ~20,000 team_repos links, 2,000 other users
 *          spread over the teams (~5 seats each); the member sits in 20 teams.
 *   small  one team (read), one private repository, the same member.
 *
 * Users, both organizations, one repository and one team of each are created through the API; the
 * remaining rows of `big` are bulk-inserted straight into DATA_DIR/hearth.db with better-sqlite3
 * while the server runs (the server keeps the file in WAL mode with a busy timeout, and it is idle
 * during the insert, so one writer transaction there is safe; no cache sits in front of these
 * tables). The bulk rows are copies of the API-created rows (repositories, teams, users), so their
 * JSON columns are exactly what the API writes. GET /repos/{owner}/{repo} reads only the database
 * (no git directory is opened), so the inserted repositories need no bare repository on disk.
 *
 *   1. latency     sequential GET /api/v1/repos/{owner}/{repo} as the member (token), keep-alive,
 *                  big and small interleaved: 30 warm-up + 300 measured each; p50 / p99.
 *   2. throughput  autocannon, 32 connections, 1 s warm-up + 5 s measured, for each.
 *   Target: big/small ≤ 2× (p50 latency and throughput).
 */
const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

const SIZES = { teams: 1000, repos: 10000, memberTeams: 20, otherUsers: 2000, seatsPerUser: 5 };
const LATENCY = { warmup: 30, requests: 300 };
const THROUGHPUT = { connections: 32, warmup: 1, duration: 5 };
const TARGET_RATIO = 2;
const MEMBER = { username: 'member', password: 'member-password-1', email: 'member@example.com' };

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

/** Everything the API can make cheaply: the member, its token, both orgs, a repository and a team in each. */
async function setUp(server) {
  const admin = await lib.hearthToken(server, ['write:admin', 'write:organization', 'write:repository', 'write:user']);
  await api(server, admin, 'POST', '/admin/users', { ...MEMBER, must_change_password: false }, 201);
  const basic = 'Basic ' + Buffer.from(`${MEMBER.username}:${MEMBER.password}`).toString('base64');
  const tok = await lib.request(`${server.url}/api/v1/users/${MEMBER.username}/tokens`, {
    method: 'POST',
    headers: { authorization: basic },
    body: { name: 'bench', scopes: ['read:repository'] },
  });
  if (tok.status !== 201) throw new Error(`member token: ${tok.status} ${tok.body}`);
  const memberToken = JSON.parse(tok.body).sha1;
  const ids = {};
  for (const org of ['big', 'small']) {
    await api(server, admin, 'POST', '/orgs', { username: org, visibility: 'public' }, 201);
    const repo = await api(server, admin, 'POST', `/orgs/${org}/repos`, { name: 'repo-00000', private: true }, 201);
    const team = await api(
      server,
      admin,
      'POST',
      `/orgs/${org}/teams`,
      { name: 'team-0000', permission: 'read', includes_all_repositories: false },
      201,
    );
    ids[org] = { repoId: repo.id, teamId: team.id };
  }
  // small: the member reaches its one repository through its one team.
  await api(server, admin, 'PUT', `/teams/${ids.small.teamId}/members/${MEMBER.username}`, undefined, 204);
  await api(server, admin, 'PUT', `/teams/${ids.small.teamId}/repos/small/repo-00000`, undefined, 204);
  // big: the member is not in the template team; the bulk insert places it.
  return { memberToken, ids };
}

/**
 * Bulk rows for `big`. Repositories are numbered 0..repos-1 (index 0 is the API-created one);
 * repository j is linked to teams j % teams and (7j + 3) % teams (~20 links per team); the member
 * is in every team whose index is a multiple of teams/memberTeams; other user u sits in teams
 * (u * 37 + k * 211) % teams for k < seatsPerUser.
 */
function bulkInsert(dbFile, ids) {
  const Database = require('better-sqlite3');
  const db = new Database(dbFile);
  db.pragma('busy_timeout = 10000');
  const started = Date.now();
  try {
    const org = db.prepare("SELECT id FROM users WHERE lower_name = 'big'").get();
    const member = db.prepare('SELECT * FROM users WHERE lower_name = ?').get(MEMBER.username);
    const repoTpl = db.prepare('SELECT * FROM repositories WHERE id = ?').get(ids.big.repoId);
    const teamTpl = db.prepare('SELECT * FROM teams WHERE id = ?').get(ids.big.teamId);
    const insertRow = (table, tpl) => lib.rowCopier(db, table, tpl);
    const addRepo = insertRow('repositories', repoTpl);
    const addTeam = insertRow('teams', teamTpl);
    const addUser = insertRow('users', member);
    const { teamRepo, teamUser, orgUser } = lib.membershipInserts(db);
    const counts = {};
    db.transaction(() => {
      const repoIds = [ids.big.repoId];
      for (let j = 1; j < SIZES.repos; j++) {
        const name = `repo-${String(j).padStart(5, '0')}`;
        repoIds.push(addRepo({ name, lower_name: name }));
      }
      const teamIds = [ids.big.teamId];
      for (let i = 1; i < SIZES.teams; i++) {
        const name = `team-${String(i).padStart(4, '0')}`;
        teamIds.push(addTeam({ name, lower_name: name }));
      }
      let links = 0;
      for (let j = 0; j < SIZES.repos; j++) {
        for (const t of new Set([j % SIZES.teams, (7 * j + 3) % SIZES.teams])) {
          teamRepo.run(org.id, teamIds[t], repoIds[j]);
          links++;
        }
      }
      let seats = 0;
      const step = SIZES.teams / SIZES.memberTeams;
      for (let i = 0; i < SIZES.teams; i += step) seats += teamUser.run(org.id, teamIds[i], member.id).changes;
      orgUser.run(org.id, member.id);
      for (let u = 0; u < SIZES.otherUsers; u++) {
        const name = `user-${String(u).padStart(5, '0')}`;
        const uid = addUser({ name, lower_name: name, email: `${name}@example.com`, full_name: '' });
        for (let k = 0; k < SIZES.seatsPerUser; k++) seats += teamUser.run(org.id, teamIds[(u * 37 + k * 211) % SIZES.teams], uid).changes;
        orgUser.run(org.id, uid);
      }
      Object.assign(counts, {
        repositories: repoIds.length,
        teams: teamIds.length + 1 /* Owners */,
        teamRepos: links,
        teamUsers: seats + 1 /* bench in Owners */,
      });
    })();
    db.pragma('wal_checkpoint(PASSIVE)');
    // The repository the member reaches only through a team: repo-00000 is linked to team 0 (a member team) and team 3 (not).
    return { ...counts, seconds: (Date.now() - started) / 1000 };
  } finally {
    db.close();
  }
}

async function run() {
  const plugins = lib.shippedPlugins();
  const dir = lib.makeTempDir('hearth-bench-orgs-');
  let server;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(dir, plugins), logFile: path.join(dir, 'server.log') });
    const { memberToken, ids } = await setUp(server);
    const seeded = bulkInsert(path.join(dir, 'hearth.db'), ids);
    const headers = { authorization: `token ${memberToken}` };
    const targets = [
      { label: 'big (1,000 teams, 10,000 repos)', path: '/api/v1/repos/big/repo-00000' },
      { label: 'small (1 team, 1 repo)', path: '/api/v1/repos/small/repo-00000' },
    ];

    // The member must reach both through a team (private repositories), and a non-member must not.
    const warnings = [];
    for (const t of targets) {
      const res = await lib.request(server.url + t.path, { headers });
      const body = res.status === 200 ? JSON.parse(res.body) : null;
      if (!body || !body.private || !body.permissions.pull || body.permissions.push)
        throw new Error(`${t.path} as the member: ${res.status} ${res.body}`);
    }
    const outsider = await lib.request(server.url + '/api/v1/repos/big/repo-00001', { headers });
    if (outsider.status !== 404) warnings.push(`repo-00001 (teams 1 and 10, not the member's) answered ${outsider.status}, expected 404`);

    const [bigLat, smallLat] = await lib
      .sequentialGets(
        targets.map((t) => ({ url: server.url + t.path, headers })),
        { ...LATENCY, timeoutMs: 5000 },
      )
      .then((r) => r.stats);
    const throughput = [];
    for (const t of targets) {
      const r = await lib.measureThroughput({ url: server.url + t.path, headers }, THROUGHPUT);
      if (r.non2xx || r.errors || r.timeouts)
        warnings.push(
          `${t.label}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts (status codes ${JSON.stringify(r.statusCodeStats)})`,
        );
      throughput.push(r);
    }
    const stop = await lib.stopServer(server);
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');

    const ratios = {
      p50: bigLat.p50 / smallLat.p50,
      p99: bigLat.p99 / smallLat.p99,
      throughput: throughput[1].requestsPerSec / throughput[0].requestsPerSec,
    };
    const f = (n) => n.toFixed(2);
    const rows = [
      ['measure', 'big', 'small', 'big/small'],
      [`sequential latency p50, ms (n=${LATENCY.requests})`, f(bigLat.p50), f(smallLat.p50), `${f(ratios.p50)}x`],
      ['sequential latency p99, ms', f(bigLat.p99), f(smallLat.p99), `${f(ratios.p99)}x`],
      ['sequential latency mean, ms', f(bigLat.mean), f(smallLat.mean), `${f(bigLat.mean / smallLat.mean)}x`],
      [
        `throughput (${THROUGHPUT.connections} conn), req/s`,
        Math.round(throughput[0].requestsPerSec),
        Math.round(throughput[1].requestsPerSec),
        `${f(ratios.throughput)}x slower`,
      ],
      ['  latency p50, ms', throughput[0].latencyMs.p50, throughput[1].latencyMs.p50, ''],
      ['  latency p99, ms', throughput[0].latencyMs.p99, throughput[1].latencyMs.p99, ''],
      ['  non-2xx / errors', `${throughput[0].non2xx} / ${throughput[0].errors}`, `${throughput[1].non2xx} / ${throughput[1].errors}`, ''],
    ];
    const verdicts = [
      {
        name: 'latency p50',
        met: ratios.p50 <= TARGET_RATIO,
        line:
          `GET /repos/{owner}/{repo} p50: big ${f(bigLat.p50)} ms vs small ${f(smallLat.p50)} ms = ` +
          `${f(ratios.p50)}x — target ≤ ${TARGET_RATIO}x`,
      },
      {
        name: 'latency p99',
        met: ratios.p99 <= TARGET_RATIO,
        line:
          `GET /repos/{owner}/{repo} p99: big ${f(bigLat.p99)} ms vs small ${f(smallLat.p99)} ms = ` +
          `${f(ratios.p99)}x — target ≤ ${TARGET_RATIO}x`,
      },
      {
        name: 'throughput',
        met: ratios.throughput <= TARGET_RATIO,
        line:
          `throughput: big ${Math.round(throughput[0].requestsPerSec)} req/s vs small ` +
          `${Math.round(throughput[1].requestsPerSec)} req/s = ${f(ratios.throughput)}x slower — ` +
          `target ≤ ${TARGET_RATIO}x`,
      },
    ];

    console.log(
      `plugins loaded: ${plugins.join(', ') || '(none)'}; big: ${seeded.repositories} ` +
        `repositories, ${seeded.teams} teams, ${seeded.teamRepos} team_repos, ${seeded.teamUsers} ` +
        `team_users (seeded in ${seeded.seconds.toFixed(1)} s); member in ${SIZES.memberTeams} ` +
        `teams of big, 1 of small`,
    );
    console.log(
      `latency: ${LATENCY.warmup} warm-up + ${LATENCY.requests} sequential keep-alive requests ` +
        `each, interleaved; throughput: ${THROUGHPUT.connections} connections, ${THROUGHPUT.warmup}` +
        ` s warm-up + ${THROUGHPUT.duration} s\n`,
    );
    console.log(lib.table(rows));
    console.log('');
    lib.printVerdicts(verdicts, warnings);

    return {
      plugins,
      sizes: SIZES,
      seeded,
      settings: { latency: LATENCY, throughput: THROUGHPUT },
      target: { ratio: TARGET_RATIO },
      latencyMs: { big: bigLat, small: smallLat },
      throughput: { big: throughput[0], small: throughput[1] },
      ratios,
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { name: 'orgs', run };
