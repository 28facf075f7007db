'use strict';
/**
 * Wiki page lookup benchmark: what reading a page costs by its sub_url (the direct path: the
 * file name follows from the name) and by its title as written with dashes (`a-b c`: the web
 * path's title `a b c` has no page, so the lookup tries the title itself), on one SQLite Hearth
 * server with a 20-page wiki. Baseline in the same run: git itself reading the same blob
 * (`git cat-file -p HEAD:<file>` in a clone of the wiki), the floor any page read pays.
 *
 *   GET /wiki/page/{sub_url} and /wiki/page/{title}, sequential keep-alive, interleaved:
 *   5 warm-up + 60 measured each; p50 ratio title ÷ sub_url. Target ≤ 1.25.
 */
const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');
const fx = require('./git-fixtures');

const PAGES = 20;
const RUNS = { warmup: 5, requests: 60 };
const GIT_RUNS = 30;
const TARGET = 1.25;

async function run() {
  const work = lib.makeTempDir('hearth-bench-wiki-');
  const dataDir = path.join(work, 'data');
  const home = path.join(work, 'home');
  fs.mkdirSync(home);
  fs.mkdirSync(dataDir);
  const env = fx.gitEnv(home);
  let server;
  try {
    server = await lib.startServer({ ...lib.hearthSpec(dataDir, []), logFile: path.join(work, 'server.log') });
    const token = await lib.hearthToken(server, ['write:repository']);
    const headers = { authorization: `token ${token}` };
    const owner = lib.HEARTH_ADMIN.username;
    const api = async (method, route, body, expected) => {
      const res = await lib.request(`${server.url}/api/v1${route}`, { method, headers, body, timeoutMs: 60000 });
      if (res.status !== expected) throw new Error(`${method} ${route} answered ${res.status} (expected ${expected}): ${res.body}`);
      return res.body ? JSON.parse(res.body) : null;
    };
    await api('POST', '/user/repos', { name: 'docs' }, 201);
    const content = Buffer.from('# A page\n\nSome text.\n'.repeat(20)).toString('base64');
    for (let p = 0; p < PAGES; p++) {
      await api('POST', `/repos/${owner}/docs/wiki/new`, { title: `guide-${p} part two`, content_base64: content }, 201);
    }
    const title = `guide-${PAGES - 1} part two`;
    const page = await api('GET', `/repos/${owner}/docs/wiki/page/${encodeURIComponent(title)}`, undefined, 200);
    const base = `${server.url}/api/v1/repos/${owner}/docs/wiki/page/`;
    const { stats } = await lib.sequentialGets(
      [
        { url: base + page.sub_url, headers },
        { url: base + encodeURIComponent(title), headers },
      ],
      RUNS,
    );
    const [bySubUrl, byTitle] = stats;

    // git itself reading the same page blob from a clone of the wiki.
    const { host } = new URL(server.url);
    const clone = path.join(work, 'wiki.git');
    await fx.git(['clone', '-q', '--bare', `http://${owner}:${token}@${host}/${owner}/docs.wiki.git`, clone], { env, timeoutMs: 60000 });
    const file = `${title}.-.md`;
    const gitMs = [];
    for (let i = 0; i < GIT_RUNS; i++) {
      const t = process.hrtime.bigint();
      await fx.git(['-C', clone, 'cat-file', '-p', `HEAD:${file}`], { env });
      gitMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const gitStats = lib.latencySummary(gitMs);

    const f = (n) => n.toFixed(2);
    console.log(
      lib.table([
        ['measure', 'p50 ms', 'p99 ms', 'mean ms'],
        ['GET wiki page by sub_url', f(bySubUrl.p50), f(bySubUrl.p99), f(bySubUrl.mean)],
        ['GET wiki page by title with dashes', f(byTitle.p50), f(byTitle.p99), f(byTitle.mean)],
        ['baseline: git cat-file of the page', f(gitStats.p50), f(gitStats.p99), f(gitStats.mean)],
      ]),
    );
    const ratio = byTitle.p50 / bySubUrl.p50;
    const verdicts = [lib.atMost('page by title ÷ page by sub_url (p50)', ratio, TARGET)];
    console.log(`page by sub_url ÷ git cat-file (p50): ${f(bySubUrl.p50 / gitStats.p50)}x (information)`);
    console.log('');
    lib.printVerdicts(verdicts);
    await lib.stopServer(server);
    server = null;
    return {
      pages: PAGES,
      runs: RUNS,
      ms: { bySubUrl, byTitle, gitCatFile: gitStats },
      ratios: { titleVsSubUrl: ratio, subUrlVsGit: bySubUrl.p50 / gitStats.p50 },
      verdicts,
    };
  } finally {
    if (server) await lib.stopServer(server, 2000);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { name: 'wiki-names', run };
