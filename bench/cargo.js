'use strict';
/**
 * Cargo publish benchmark: does publishing get slower as an owner's index grows? Every publish
 * updates the sparse index (computed from the database) and commits to the owner's git index
 * repository (/{owner}/_cargo-index.git); an update must touch only the changed file's path
 * (one blob, its trees, one commit), not rewrite the index.
 *
 *   1. warm-up   WARMUP publishes by another owner (JIT, connection pools), not measured.
 *   2. fill      versions 1–1000 of the bench owner through the cargo web API
 *                (PUT /api/packages/{owner}/cargo/api/v1/crates/new, small generated .crate
 *                bodies), sequentially over CRATES crates; each timed (p50 per 100 printed).
 *   3. measure   SAMPLES pairs, alternating which goes first: the 1st version of a fresh owner
 *                (creates its git index) and the next version (1,001st, 1,002nd, …) of the bench
 *                owner, both the first version of a new crate. Pairs run back to back, so load
 *                from elsewhere on the machine hits both sides alike.
 *   4. verdict   p50(1,001st…) ÷ p50(1st): target ≤ 1.5.
 *
 * The git index is then cloned once to check that it holds every crate.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const lib = require('./lib');

const FILL = 1000;
const SAMPLES = 11;
const CRATES = 100;
const WARMUP = 30;
const TARGET_RATIO = 1.5;

/** cargo's publish body: u32 LE JSON length, JSON, u32 LE crate length, a small .crate. */
function publishBody(name, vers) {
  const dir = `${name}-${vers}`;
  const crate = zlib.gzipSync(
    Buffer.concat([
      lib.tarEntry(`${dir}/Cargo.toml`, Buffer.from(`[package]\nname = "${name}"\nversion = "${vers}"\n`)),
      lib.tarEntry(`${dir}/src/lib.rs`, Buffer.from(`pub fn v() -> &'static str { "${vers}" }\n`)),
      Buffer.alloc(1024),
    ]),
  );
  const json = Buffer.from(
    JSON.stringify({
      name,
      vers,
      deps: [
        {
          name: 'serde',
          version_req: '^1',
          features: [],
          optional: false,
          default_features: true,
          target: null,
          kind: 'normal',
          registry: null,
        },
      ],
      features: { default: [] },
      authors: ['bench'],
      description: `bench crate ${name}`,
      license: 'MIT',
      links: null,
    }),
  );
  const a = Buffer.alloc(4);
  a.writeUInt32LE(json.length);
  const b = Buffer.alloc(4);
  b.writeUInt32LE(crate.length);
  return Buffer.concat([a, json, b, crate]);
}

async function run() {
  const dir = lib.makeTempDir('hearth-bench-cargo-');
  const dataDir = path.join(dir, 'data');
  const server = await lib.startServer({ ...lib.hearthSpec(dataDir, ['cargo']), logFile: path.join(dir, 'hearth.log') });
  const owner = lib.HEARTH_ADMIN.username;
  const result = { fill: FILL, samples: SAMPLES, crates: CRATES, firstMs: [], lastMs: [], p50FirstMs: null, p50LastMs: null, ratio: null };
  try {
    const token = await lib.hearthToken(server, ['write:package']);
    const basic = 'Basic ' + Buffer.from(`${lib.HEARTH_ADMIN.username}:${lib.HEARTH_ADMIN.password}`).toString('base64');
    const made = await lib.request(`${server.url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { authorization: basic },
      body: { username: 'warmup', email: 'warmup@example.com', password: 'warmup-password-1', must_change_password: false },
    });
    if (made.status !== 201) throw new Error(`creating the warm-up user answered ${made.status}: ${made.body}`);
    // The site admin may publish for any owner.
    for (let i = 0; i < WARMUP; i++)
      await lib.timedPut(`${server.url}/api/packages/warmup/cargo/api/v1/crates/new`, token, publishBody(`warm-${i % 5}`, `0.0.${i}`), 200);

    const fresh = [];
    for (let k = 0; k < SAMPLES; k++) {
      fresh.push(await lib.createUser(server, basic, `fresh-${k}`));
    }

    const url = (who) => `${server.url}/api/packages/${who}/cargo/api/v1/crates/new`;
    const fill = [];
    const t0 = Date.now();
    for (let i = 0; i < FILL; i++) {
      fill.push(await lib.timedPut(url(owner), token, publishBody(`bench-crate-${i % CRATES}`, `1.0.${Math.floor(i / CRATES)}`), 200));
      if ((i + 1) % 250 === 0) process.stdout.write(`  ${i + 1} versions published\n`);
    }
    result.fillSeconds = (Date.now() - t0) / 1000;
    result.p50PerHundredMs = [];
    for (let i = 0; i < FILL; i += 100) result.p50PerHundredMs.push(Math.round(lib.median(fill.slice(i, i + 100)) * 10) / 10);

    for (let k = 0; k < SAMPLES; k++) {
      const first = () => lib.timedPut(url(fresh[k]), token, publishBody(`new-crate-${k}`, '1.0.0'), 200);
      const later = () => lib.timedPut(url(owner), token, publishBody(`new-crate-${k}`, '1.0.0'), 200);
      if (k % 2 === 0) {
        result.firstMs.push(await first());
        result.lastMs.push(await later());
      } else {
        result.lastMs.push(await later());
        result.firstMs.push(await first());
      }
    }
    result.p50FirstMs = lib.median(result.firstMs);
    result.p50LastMs = lib.median(result.lastMs);
    result.ratio = result.p50LastMs / result.p50FirstMs;

    // The git index holds every crate, each with its versions.
    const clone = path.join(dir, 'clone');
    execFileSync('git', ['clone', '--quiet', `${server.url}/${owner}/_cargo-index.git`, clone], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: lib.cleanEnv({ GIT_TERMINAL_PROMPT: '0' }),
    });
    const commits = Number(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim());
    const lines = fs
      .readFileSync(path.join(clone, 'be', 'nc', 'bench-crate-7'), 'utf8')
      .trim()
      .split('\n').length;
    result.gitIndex = {
      commits,
      files: Number(execFileSync('git', ['ls-files'], { cwd: clone, encoding: 'utf8' }).trim().split('\n').length),
      linesOfBenchCrate7: lines,
    };
  } finally {
    lib.closeUploads();
    await lib.stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n) => n.toFixed(1);
  console.log(
    lib.table([
      ['publish (first version of a new crate)', 'p50 ms', 'each (ms)'],
      ["owner's 1st version (empty index)", fmt(result.p50FirstMs), result.firstMs.map(fmt).join(' ')],
      ["owner's 1,001st… version (1,000 in the index)", fmt(result.p50LastMs), result.lastMs.map(fmt).join(' ')],
    ]),
  );
  console.log(
    `\nfilling 1,000 versions: ${result.fillSeconds.toFixed(1)} s; p50 per 100 publishes (ms): ${result.p50PerHundredMs.join(' ')}`,
  );
  console.log(
    `git index of the bench owner: ${result.gitIndex.commits} commits, ${result.gitIndex.files}` +
      ` files, bench-crate-7 has ${result.gitIndex.linesOfBenchCrate7} versions`,
  );
  const met = result.ratio <= TARGET_RATIO;
  console.log(
    `1001st-version cost ÷ 1st-version cost (p50): ${result.ratio.toFixed(2)} (target ≤ ${TARGET_RATIO}): ${met ? 'met' : 'NOT met'}`,
  );
  result.met = met;
  return result;
}

module.exports = { name: 'cargo', run };
