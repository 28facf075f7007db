'use strict';
/**
 * Swift and Chef registry benchmark, every ratio against a baseline measured in the same run.
 *
 *   1. signed requests  GET a cookbook version's JSON authenticated by Chef's signed headers
 *                       (protocol 1.1 = RSA public operation over the canonical string, 1.3 =
 *                       SHA-256 PKCS#1 v1.5) vs. the same GET with a token. Target p50 ratio ≤ 1.5.
 *   2. metadata         Swift release metadata (GET /{scope}/{name}/{version}) and the Chef universe
 *                       of COOKBOOKS cookbooks × VERSIONS versions (cached per owner) vs. a bare Node
 *                       http server answering the same bytes. Reported as ratios (Hearth's routing,
 *                       access check and JSON vs. no work at all); target for the cached universe ≤ 4.
 *
 * Sequential keep-alive GETs on one connection, the targets interleaved (lib.sequentialGets).
 */
const crypto = require('node:crypto');
const http = require('node:http');
const path = require('node:path');
const zlib = require('node:zlib');
const lib = require('./lib');

const REQUESTS = 1000;
const WARMUP = 200;
const COOKBOOKS = 50;
const VERSIONS = 4;
const TARGET_SIGNED = 1.5;
const TARGET_UNIVERSE = 4;

function cookbook(name, version, deps) {
  const metadata = { name, version, description: `bench ${name}`, maintainer: 'bench', license: 'MIT', dependencies: deps, platforms: {} };
  return zlib.gzipSync(Buffer.concat([lib.tarEntry(`${name}/metadata.json`, Buffer.from(JSON.stringify(metadata))), Buffer.alloc(1024)]));
}

/** A stored zip with `<name>/Package.swift` (written by @hearth/package-kit, built by `npx tsc -b`). */
function swiftArchive(name) {
  const { writeZip } = require('../core/package-kit/dist');
  const entries = [
    [`${name}/Package.swift`, `// swift-tools-version:5.7\nimport PackageDescription\nlet package = Package(name: "${name}")\n`],
    [`${name}/Sources/${name}/a.swift`, 'struct A {}\n'],
  ];
  return writeZip(entries.map(([file, text]) => ({ name: file, data: Buffer.from(text), store: true })));
}

function multipart(parts) {
  const boundary = `bench${crypto.randomBytes(6).toString('hex')}`;
  const chunks = [];
  for (const { name, filename, data } of parts) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n`),
      data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Chef signed headers, as mixlib-authentication computes them (empty body). */
function signHeaders(version, method, urlPath, userId, privateKey) {
  const algorithm = version === '1.3' ? 'sha256' : 'sha1';
  const b64 = (alg, data) => crypto.createHash(alg).update(data).digest('base64');
  const timestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const hash = b64(algorithm, '');
  const canonical =
    version === '1.3'
      ? [
          `Method:${method}`,
          `Path:${urlPath}`,
          `X-Ops-Content-Hash:${hash}`,
          'X-Ops-Sign:version=1.3',
          `X-Ops-Timestamp:${timestamp}`,
          `X-Ops-UserId:${userId}`,
          'X-Ops-Server-API-Version:0',
        ].join('\n')
      : [
          `Method:${method}`,
          `Hashed Path:${b64('sha1', urlPath)}`,
          `X-Ops-Content-Hash:${hash}`,
          `X-Ops-Timestamp:${timestamp}`,
          `X-Ops-UserId:${b64('sha1', userId)}`,
        ].join('\n');
  const signature =
    version === '1.3'
      ? crypto.sign('sha256', Buffer.from(canonical), privateKey)
      : crypto.privateEncrypt({ key: privateKey, padding: crypto.constants.RSA_PKCS1_PADDING }, Buffer.from(canonical));
  const headers = {
    'x-ops-sign': `algorithm=${algorithm};version=${version};`,
    'x-ops-userid': userId,
    'x-ops-timestamp': timestamp,
    'x-ops-content-hash': hash,
  };
  if (version === '1.3') headers['x-ops-server-api-version'] = '0';
  signature
    .toString('base64')
    .match(/.{1,60}/g)
    .forEach((line, i) => (headers[`x-ops-authorization-${i + 1}`] = line));
  return headers;
}

function staticServer(routes) {
  return new Promise((resolve) => {
    const srv = http.createServer((req, res) => {
      const body = routes[req.url];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json', 'content-length': body ? body.length : 0 });
      res.end(body);
    });
    srv.listen(0, '127.0.0.1', () => resolve({ srv, url: `http://127.0.0.1:${srv.address().port}` }));
  });
}

/** A request with a binary body (lib.request sends strings). */
function post(url, headers, body, method = 'POST') {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: false, headers: { ...headers, 'content-length': body.length } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function run() {
  const dir = lib.makeTempDir('hearth-bench-swift-chef-');
  const server = await lib.startServer({
    ...lib.hearthSpec(path.join(dir, 'data'), ['swift', 'chef']),
    logFile: path.join(dir, 'hearth.log'),
  });
  const owner = lib.HEARTH_ADMIN.username;
  const basic = 'Basic ' + Buffer.from(`${lib.HEARTH_ADMIN.username}:${lib.HEARTH_ADMIN.password}`).toString('base64');
  let baseline;
  try {
    const token = await lib.hearthToken(server, ['write:package']);
    const auth = { authorization: `token ${token}` };
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = await lib.request(`${server.url}/api/v1/user/chef/key`, {
      method: 'PUT',
      headers: { authorization: basic },
      body: { public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    });
    if (key.status !== 200) throw new Error(`registering the chef key answered ${key.status}: ${key.body}`);

    const chefBase = `${server.url}/api/packages/${owner}/chef`;
    for (let c = 0; c < COOKBOOKS; c++) {
      for (let v = 0; v < VERSIONS; v++) {
        const { body, contentType } = multipart([
          { name: 'cookbook', data: Buffer.from('{"category":"Other"}') },
          { name: 'tarball', filename: 'c.tgz', data: cookbook(`book${c}`, `1.${v}.0`, { [`book${(c + 1) % COOKBOOKS}`]: '>= 1.0' }) },
        ]);
        const res = await post(`${chefBase}/api/v1/cookbooks`, { ...auth, 'content-type': contentType }, body);
        if (res.status !== 201) throw new Error(`cookbook upload answered ${res.status}: ${res.body}`);
      }
    }
    const swiftBase = `${server.url}/api/packages/${owner}/swift`;
    const { body, contentType } = multipart([
      { name: 'source-archive', data: swiftArchive('Bench') },
      { name: 'metadata', data: Buffer.from(JSON.stringify({ description: 'bench', repositoryURLs: ['https://example.com/bench'] })) },
    ]);
    const published = await post(
      `${swiftBase}/bench/Bench/1.0.0`,
      { ...auth, 'content-type': contentType, accept: 'application/vnd.swift.registry.v1+json' },
      body,
      'PUT',
    );
    if (published.status !== 201) throw new Error(`swift publish answered ${published.status}: ${published.body}`);

    const versionPath = `/api/packages/${owner}/chef/api/v1/cookbooks/book1/versions/1.2.0`;
    const releaseUrl = `${swiftBase}/bench/Bench/1.0.0`;
    const universeUrl = `${chefBase}/universe`;
    const swiftAccept = { accept: 'application/vnd.swift.registry.v1+json' };
    const release = await lib.request(releaseUrl, { headers: swiftAccept });
    const universe = await lib.request(universeUrl);
    baseline = await staticServer({ '/release': Buffer.from(release.body), '/universe': Buffer.from(universe.body) });

    // Headers stay valid for the skew window (10 minutes); the run takes well under that.
    const signed = await lib.sequentialGets(
      [
        { url: `${server.url}${versionPath}`, headers: auth },
        { url: `${server.url}${versionPath}`, headers: signHeaders('1.1', 'GET', versionPath, owner, privateKey) },
        { url: `${server.url}${versionPath}`, headers: signHeaders('1.3', 'GET', versionPath, owner, privateKey) },
      ],
      { warmup: WARMUP, requests: REQUESTS },
    );
    const served = await lib.sequentialGets(
      [
        { url: releaseUrl, headers: swiftAccept },
        { url: `${baseline.url}/release`, headers: {} },
        { url: universeUrl, headers: {} },
        { url: `${baseline.url}/universe`, headers: {} },
      ],
      { warmup: WARMUP, requests: REQUESTS },
    );

    const [tokenStats, v11, v13] = signed.stats;
    const [rel, relBase, uni, uniBase] = served.stats;
    const ratio = (a, b) => Math.round((a.p50 / b.p50) * 100) / 100;
    const f = (n) => n.toFixed(3);
    console.log(
      lib.table([
        ['target', 'p50 ms', 'p99 ms', 'mean ms', 'ratio p50'],
        ['chef version JSON, token', f(tokenStats.p50), f(tokenStats.p99), f(tokenStats.mean), '1 (baseline)'],
        ['chef version JSON, signed 1.1', f(v11.p50), f(v11.p99), f(v11.mean), ratio(v11, tokenStats)],
        ['chef version JSON, signed 1.3', f(v13.p50), f(v13.p99), f(v13.mean), ratio(v13, tokenStats)],
        ['swift release metadata', f(rel.p50), f(rel.p99), f(rel.mean), ratio(rel, relBase)],
        ['  same bytes, bare node http', f(relBase.p50), f(relBase.p99), f(relBase.mean), '1 (baseline)'],
        [`chef universe (${COOKBOOKS}×${VERSIONS}, ${universe.body.length} B)`, f(uni.p50), f(uni.p99), f(uni.mean), ratio(uni, uniBase)],
        ['  same bytes, bare node http', f(uniBase.p50), f(uniBase.p99), f(uniBase.mean), '1 (baseline)'],
      ]),
    );
    const result = {
      requests: REQUESTS,
      signedVsToken: { v11: ratio(v11, tokenStats), v13: ratio(v13, tokenStats) },
      swiftReleaseVsStatic: ratio(rel, relBase),
      universeVsStatic: ratio(uni, uniBase),
      p50Ms: {
        token: tokenStats.p50,
        signed11: v11.p50,
        signed13: v13.p50,
        release: rel.p50,
        releaseStatic: relBase.p50,
        universe: uni.p50,
        universeStatic: uniBase.p50,
      },
    };
    lib.printVerdicts([
      {
        line: `signed 1.1 / token p50 = ${result.signedVsToken.v11} (target ≤ ${TARGET_SIGNED})`,
        met: result.signedVsToken.v11 <= TARGET_SIGNED,
      },
      {
        line: `signed 1.3 / token p50 = ${result.signedVsToken.v13} (target ≤ ${TARGET_SIGNED})`,
        met: result.signedVsToken.v13 <= TARGET_SIGNED,
      },
      {
        line: `universe / static p50 = ${result.universeVsStatic} (target ≤ ${TARGET_UNIVERSE})`,
        met: result.universeVsStatic <= TARGET_UNIVERSE,
      },
    ]);
    return result;
  } finally {
    if (baseline) baseline.srv.close();
    await lib.stopServer(server);
  }
}

module.exports = { name: 'swift-chef', run };
