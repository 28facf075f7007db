'use strict';
/**
 * Web interface benchmark: server-rendered pages against the API call that carries the same data,
 * in the same run, on one SQLite server. A repository (README, a dozen files) with 200 issues is
 * made through the API; a browser session comes from the sign-in form.
 *
 *   latency  sequential keep-alive GETs, interleaved: 20 warm-up + 200 measured each of
 *            repository home page (signed in)  vs  GET /api/v1/repos/{owner}/{repo}/contents (token): the
 *              root listing with last commits, the page's main content (the repository JSON alone is
 *              printed too)
 *            issue list page (signed in)       vs  GET /api/v1/repos/{owner}/{repo}/issues (token)
 *            repository home page (anonymous, public repository)
 *            source archive page /{owner}/{repo}/archive/main.zip (signed in; the API's operation
 *              streamed in-process)  vs  GET /api/v1/repos/{owner}/{repo}/archive/main.zip (token)
 *   Target (issue 19): each page's p50 ≤ 2× its API call's p50; the archive page's (issue 20) ≤ 1.5×.
 */
const path = require('node:path');
const lib = require('./lib');

const LATENCY = { warmup: 20, requests: 200 };
const ISSUES = 200;
const TARGET = 2;
const ARCHIVE_TARGET = 1.5;

async function run() {
  const work = lib.makeTempDir('hearth-bench-web-');
  const warnings = [];
  let server;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(path.join(work, 'data'), ['web']), logFile: path.join(work, 'server.log') });
    const token = await lib.hearthToken(server, ['write:repository', 'write:issue', 'write:user']);
    const owner = lib.HEARTH_ADMIN.username;
    const api = async (method, route, body, expected) => {
      const res = await lib.request(`${server.url}/api/v1${route}`, { method, headers: { authorization: `token ${token}` }, body });
      if (res.status !== expected) throw new Error(`${method} ${route} answered ${res.status} (expected ${expected}): ${res.body}`);
      return res.body ? JSON.parse(res.body) : null;
    };
    await api('POST', '/user/repos', { name: 'site', auto_init: true, readme: 'Default', gitignores: 'Node', license: 'MIT' }, 201);
    for (let i = 1; i <= 10; i++) {
      const content = Buffer.from(`// file ${i}\nexport const value${i} = ${i};\n`).toString('base64');
      await api('POST', `/repos/${owner}/site/contents/src/file${i}.js`, { content, message: `add file ${i}` }, 201);
    }
    for (let i = 1; i <= ISSUES; i++) await api('POST', `/repos/${owner}/site/issues`, { title: `issue ${i}`, body: `body ${i}` }, 201);

    const cookie = await lib.webSignIn(server);
    const page = (p, headers = {}) => ({ url: `${server.url}${p}`, headers: { accept: 'text/html', ...headers } });
    const targets = [
      { label: 'repository home page', ...page(`/${owner}/site`, { cookie }) },
      {
        label: 'GET /repos/{owner}/{repo}/contents',
        url: `${server.url}/api/v1/repos/${owner}/site/contents`,
        headers: { authorization: `token ${token}` },
      },
      { label: 'GET /repos/{owner}/{repo}', url: `${server.url}/api/v1/repos/${owner}/site`, headers: { authorization: `token ${token}` } },
      { label: 'issue list page', ...page(`/${owner}/site/issues`, { cookie }) },
      {
        label: 'GET /repos/{owner}/{repo}/issues',
        url: `${server.url}/api/v1/repos/${owner}/site/issues?type=issues&state=open`,
        headers: { authorization: `token ${token}` },
      },
      { label: 'repository home page, anonymous', ...page(`/${owner}/site`) },
      { label: 'source archive page (zip)', url: `${server.url}/${owner}/site/archive/main.zip`, headers: { cookie } },
      {
        label: 'GET /repos/{owner}/{repo}/archive/main.zip',
        url: `${server.url}/api/v1/repos/${owner}/site/archive/main.zip`,
        headers: { authorization: `token ${token}` },
      },
    ];
    const { stats } = await lib.sequentialGets(targets, LATENCY);
    const f = (x) => x.toFixed(2);
    console.log(
      lib.table([
        ['request', 'p50 ms', 'p99 ms', 'mean ms'],
        ...targets.map((t, i) => [t.label, f(stats[i].p50), f(stats[i].p99), f(stats[i].mean)]),
      ]),
    );
    // The home page's main content is the root listing (entries with their last commits) and the README:
    // the contents API answers the same question; the repository JSON alone is printed for reference.
    const homeRatio = stats[0].p50 / stats[1].p50;
    const homeVsRepoJson = stats[0].p50 / stats[2].p50;
    const issuesRatio = stats[3].p50 / stats[4].p50;
    const archiveRatio = stats[6].p50 / stats[7].p50;
    const verdicts = [
      {
        name: 'home-vs-api',
        met: homeRatio <= TARGET,
        line:
          `repository home page p50 / GET /repos/{owner}/{repo}/contents p50: ${f(homeRatio)}x — target ≤ ${TARGET}x ` +
          `(${f(homeVsRepoJson)}x the repository JSON alone)`,
      },
      {
        name: 'issues-vs-api',
        met: issuesRatio <= TARGET,
        line: `issue list page p50 / GET /repos/{owner}/{repo}/issues p50: ${f(issuesRatio)}x — target ≤ ${TARGET}x`,
      },
      {
        name: 'archive-vs-api',
        met: archiveRatio <= ARCHIVE_TARGET,
        line: `source archive page p50 / GET …/archive/main.zip p50: ${f(archiveRatio)}x — target ≤ ${ARCHIVE_TARGET}x`,
      },
    ];
    console.log('');
    lib.printVerdicts(verdicts, warnings);
    const stop = await lib.stopServer(server);
    server = null;
    if (!stop.graceful) warnings.push('hearth did not exit within 5 s of SIGTERM (killed)');
    return {
      latency: LATENCY,
      issues: ISSUES,
      ms: Object.fromEntries(targets.map((t, i) => [t.label, stats[i]])),
      ratios: { home: homeRatio, homeVsRepoJson, issues: issuesRatio, archive: archiveRatio },
      warnings,
      verdicts: verdicts.map(({ name, met, line }) => ({ name, met, line })),
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    require('node:fs').rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { name: 'web', run };
