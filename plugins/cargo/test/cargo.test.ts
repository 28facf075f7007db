import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ADMIN, startServer, type TestServer } from '@hearth/testing';
import { cargoAvailable, cargoSandbox, makeCrate, mustSucceed, publishBody, publishMeta, run, sha256, tarEntry } from './helpers';

describe('cargo registry (sparse index)', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let write: string;
  let read: string;
  let del: string;

  const url = (p: string) => new URL(`api/packages/${p}`, server.url);
  const req = (method: string, p: string, token?: string, body?: Buffer, headers: Record<string, string> = {}) =>
    fetch(url(p), { method, headers: { ...(token ? { Authorization: token } : {}), ...headers }, body });
  const publish = (owner: string, body: Buffer, token = write) => req('PUT', `${owner}/cargo/api/v1/crates/new`, token, body);
  const crateCount = async (owner: string) => (await server.api('GET', `/packages/${owner}?type=cargo`)).body.length;

  beforeAll(async () => {
    server = await startServer();
    alice = await server.user('alice');
    write = await server.token(alice, ['write:package']);
    read = await server.token(alice, ['read:package']);
    del = await server.token(alice, ['delete:package']);
  });
  afterAll(() => server.close());

  test('config.json points cargo at the download and API URLs', async () => {
    const res = await req('GET', 'alice/cargo/config.json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      dl: `${server.url}api/packages/alice/cargo/api/v1/crates`,
      api: `${server.url}api/packages/alice/cargo`,
      'auth-required': false,
    });
    const limited = await server.user('lim', { visibility: 'limited' });
    const token = await server.token(limited, ['read:package']);
    const lim = await req('GET', 'lim/cargo/config.json', token);
    expect(lim.status).toBe(200);
    expect(((await lim.json()) as any)['auth-required']).toBe(true);
  });

  test('malformed publish bodies are 400 with errors[].detail and store nothing', async () => {
    const good = makeCrate('bad', '1.0.0');
    const json = Buffer.from(JSON.stringify(publishMeta('bad', '1.0.0')));
    const lengthsDisagree = publishBody(null, good, json);
    lengthsDisagree.writeUInt32LE(good.length + 5, 4 + json.length);
    const cases: [string, Buffer, RegExp][] = [
      ['empty', Buffer.alloc(0), /too short/],
      ['short', Buffer.from([1, 0]), /too short/],
      ['json longer than body', Buffer.from([200, 0, 0, 0, 1, 2, 3]), /exceeds/],
      ['lengths disagree', lengthsDisagree, /lengths/],
      ['trailing bytes', Buffer.concat([publishBody(publishMeta('bad', '1.0.0'), good), Buffer.from('x')]), /lengths/],
      ['bad json', publishBody(null, good, Buffer.from('{"name": ')), /metadata/],
      ['json not an object', publishBody(null, good, Buffer.from('[1]')), /not a JSON object/],
      ['bad name', publishBody(publishMeta('1bad', '1.0.0'), makeCrate('1bad', '1.0.0')), /invalid crate name/],
      ['name with a dot', publishBody(publishMeta('ba.d', '1.0.0'), makeCrate('ba.d', '1.0.0')), /invalid crate name/],
      ['name too long', publishBody(publishMeta(`a${'b'.repeat(64)}`, '1.0.0'), good), /invalid crate name/],
      ['bad semver', publishBody(publishMeta('bad', '1.0'), makeCrate('bad', '1.0')), /SemVer/],
      ['v-prefixed semver', publishBody(publishMeta('bad', 'v1.0.0'), good), /SemVer/],
      ['not gzip', publishBody(publishMeta('bad', '1.0.0'), Buffer.from('plain text, not a crate')), /not a gzip/],
      ['gzip but not tar', publishBody(publishMeta('bad', '1.0.0'), zlib.gzipSync(Buffer.alloc(2048, 'x'))), /not a tar/],
      ['truncated gzip', publishBody(publishMeta('bad', '1.0.0'), good.subarray(0, good.length - 10)), /invalid crate file/],
      [
        'wrong directory',
        publishBody(publishMeta('bad', '1.0.0'), makeCrate('bad', '1.0.0', 'other-1.0.0')),
        /outside the directory "bad-1.0.0\/"/,
      ],
      ['bad deps', publishBody(publishMeta('bad', '1.0.0', { deps: [{ name: 'x' }] }), good), /version_req/],
    ];
    for (const [what, body, detail] of cases) {
      const res = await publish('alice', body);
      const json: any = await res.json();
      expect([what, res.status]).toEqual([what, 400]);
      expect([what, json.errors[0].detail]).toEqual([what, expect.stringMatching(detail)]);
    }
    expect(await crateCount('alice')).toBe(0);
    expect((await req('GET', 'alice/cargo/3/b/bad')).status).toBe(404);
  });

  test('long entry names (GNU and pax headers) are checked against the crate directory', async () => {
    const deep = (dir: string) => `${dir}/${'d'.repeat(80)}/${'f'.repeat(60)}.rs`;
    const pax = (p: string) => {
      const rec = (len: number) => `${len} path=${p}\n`;
      let len = rec(0).length;
      while (rec(len).length !== len) len = rec(len).length;
      return Buffer.from(rec(len));
    };
    const crateWith = (entries: Buffer[]) => zlib.gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));
    const gnu = (p: string) => [tarEntry('././@LongLink', Buffer.from(`${p}\0`), 'L'), tarEntry(p.slice(0, 99), Buffer.from('x'))];
    const paxed = (p: string) => [tarEntry('PaxHeader/x', pax(p), 'x'), tarEntry(p.slice(0, 99), Buffer.from('x'))];
    expect((await publish('alice', publishBody(publishMeta('longname', '1.0.0'), crateWith(gnu(deep('longname-1.0.0')))))).status).toBe(
      200,
    );
    expect((await publish('alice', publishBody(publishMeta('longname', '1.0.1'), crateWith(paxed(deep('longname-1.0.1')))))).status).toBe(
      200,
    );
    // A truncated tar: the entry announces 4 KiB, the archive ends after 512 bytes of it.
    const truncated = zlib.gzipSync(tarEntry('longname-1.0.4/big.rs', Buffer.alloc(4096, 'x')).subarray(0, 1024));
    const bad: [string, Buffer, RegExp][] = [
      ['1.0.2', crateWith(gnu(deep('evil'))), /outside the directory/],
      ['1.0.3', crateWith(paxed(deep('evil'))), /outside the directory/],
      ['1.0.4', truncated, /truncated/],
    ];
    for (const [vers, crate, detail] of bad) {
      const res = await publish('alice', publishBody(publishMeta('longname', vers), crate));
      expect([vers, res.status]).toEqual([vers, 400]);
      expect(((await res.json()) as any).errors[0].detail).toMatch(detail);
    }
    const lines = (await (await req('GET', 'alice/cargo/lo/ng/longname')).text()).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).vers)).toEqual(['1.0.0', '1.0.1']);
    const deleted = await server.api('DELETE', '/packages/alice/cargo/longname/1.0.0', { token: del });
    expect(deleted.status).toBe(204);
    expect((await server.api('DELETE', '/packages/alice/cargo/longname/1.0.1', { token: del })).status).toBe(204);
  });

  test('publish, index line, download, duplicate version and name variants', async () => {
    const crate = makeCrate('Serde_Lite', '1.0.0');
    const meta = publishMeta('Serde_Lite', '1.0.0', {
      deps: [
        {
          name: 'core-dep',
          version_req: '^0.3',
          features: ['std'],
          optional: true,
          default_features: false,
          target: 'cfg(unix)',
          kind: 'normal',
          registry: null,
          explicit_name_in_toml: 'renamed',
        },
        {
          name: 'dev-dep',
          version_req: '=1.2.3',
          features: [],
          optional: false,
          default_features: true,
          target: null,
          kind: 'dev',
          registry: 'https://github.com/rust-lang/crates.io-index',
        },
      ],
      features: { default: ['std'], std: [], extra: ['dep:renamed', 'renamed?/std'] },
      links: 'z',
      rust_version: '1.70',
    });
    const res = await publish('alice', publishBody(meta, crate));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ warnings: { invalid_categories: [], invalid_badges: [], other: [] } });

    // A second version, then the index lists both in publish order.
    expect((await publish('alice', publishBody(publishMeta('Serde_Lite', '0.9.0'), makeCrate('Serde_Lite', '0.9.0')))).status).toBe(200);

    const index = await req('GET', 'alice/cargo/se/rd/serde_lite');
    expect(index.status).toBe(200);
    const text = await index.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.vers)).toEqual(['1.0.0', '0.9.0']);
    expect(lines[0]).toEqual({
      name: 'Serde_Lite',
      vers: '1.0.0',
      deps: [
        {
          name: 'renamed',
          req: '^0.3',
          features: ['std'],
          optional: true,
          default_features: false,
          target: 'cfg(unix)',
          kind: 'normal',
          registry: null,
          package: 'core-dep',
        },
        {
          name: 'dev-dep',
          req: '=1.2.3',
          features: [],
          optional: false,
          default_features: true,
          target: null,
          kind: 'dev',
          registry: 'https://github.com/rust-lang/crates.io-index',
          package: null,
        },
      ],
      cksum: sha256(crate),
      features: { default: ['std'], std: [] },
      features2: { extra: ['dep:renamed', 'renamed?/std'] },
      yanked: false,
      links: 'z',
      v: 2,
      rust_version: '1.70',
      pubtime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(lines[1]).toMatchObject({ name: 'Serde_Lite', vers: '0.9.0', deps: [], features: {}, yanked: false, links: null, v: 2 });
    expect(lines[1]).not.toHaveProperty('features2');
    expect(lines[1]).not.toHaveProperty('rust_version');

    // ETag / If-None-Match.
    const etag = index.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect((await req('GET', 'alice/cargo/se/rd/serde_lite', undefined, undefined, { 'If-None-Match': etag })).status).toBe(304);

    // Wrong shard paths, upper case and unknown crates are 404.
    for (const p of [
      'alice/cargo/xx/rd/serde_lite',
      'alice/cargo/se/rd/Serde_Lite',
      'alice/cargo/3/s/serde_lite',
      'alice/cargo/no/ne/nonexistent',
      'alice/cargo/1/a',
      'alice/cargo/2/ab',
      'alice/cargo/3/a/abc',
    ]) {
      expect([p, (await req('GET', p)).status]).toEqual([p, 404]);
    }

    // Download returns the uploaded bytes; the API lists the versions.
    const dl = await req('GET', 'alice/cargo/api/v1/crates/Serde_Lite/1.0.0/download');
    expect(dl.status).toBe(200);
    expect(sha256(Buffer.from(await dl.arrayBuffer()))).toBe(sha256(crate));
    expect((await req('GET', 'alice/cargo/api/v1/crates/serde_lite/1.0.0/download')).status).toBe(200);
    expect((await req('GET', 'alice/cargo/api/v1/crates/Serde_Lite/7.0.0/download')).status).toBe(404);
    expect(await crateCount('alice')).toBe(2);

    // The same version again (also with other build metadata) is a 409.
    const dup = await publish('alice', publishBody(publishMeta('Serde_Lite', '1.0.0'), makeCrate('Serde_Lite', '1.0.0')));
    expect(dup.status).toBe(409);
    expect(((await dup.json()) as any).errors[0].detail).toMatch(/already uploaded/);
    expect(
      (await publish('alice', publishBody(publishMeta('Serde_Lite', '1.0.0+build.5'), makeCrate('Serde_Lite', '1.0.0+build.5')))).status,
    ).toBe(409);

    // Another spelling of the name (case, '-' vs '_') is refused.
    for (const variant of ['serde_lite', 'Serde-Lite', 'SERDE_LITE', 'serde-lite']) {
      const res = await publish('alice', publishBody(publishMeta(variant, '2.0.0'), makeCrate(variant, '2.0.0')));
      expect([variant, res.status]).toEqual([variant, 409]);
      expect(((await res.json()) as any).errors[0].detail).toMatch(/conflicts with the existing crate `Serde_Lite`/);
    }
    expect(await crateCount('alice')).toBe(2);
  });

  test('yank and unyank show in the index line', async () => {
    expect((await publish('alice', publishBody(publishMeta('yanker', '0.1.0'), makeCrate('yanker', '0.1.0')))).status).toBe(200);
    const yanked = async () => JSON.parse((await (await req('GET', 'alice/cargo/ya/nk/yanker')).text()).trim()).yanked;
    expect(await yanked()).toBe(false);
    // Yank is a write (it flips a flag), so write:package is enough; read:package is not.
    expect((await req('DELETE', 'alice/cargo/api/v1/crates/yanker/0.1.0/yank', read)).status).toBe(403);
    const y = await req('DELETE', 'alice/cargo/api/v1/crates/yanker/0.1.0/yank', write);
    expect(y.status).toBe(200);
    expect(await y.json()).toEqual({ ok: true });
    expect(await yanked()).toBe(true);
    expect((await req('DELETE', 'alice/cargo/api/v1/crates/yanker/0.1.0/yank', del)).status).toBe(200);
    expect(await yanked()).toBe(true);
    const u = await req('PUT', 'alice/cargo/api/v1/crates/yanker/0.1.0/unyank', write);
    expect(u.status).toBe(200);
    expect(await u.json()).toEqual({ ok: true });
    expect(await yanked()).toBe(false);
    expect((await req('DELETE', 'alice/cargo/api/v1/crates/yanker/9.9.9/yank', del)).status).toBe(404);
    expect((await req('PUT', 'alice/cargo/api/v1/crates/nothere/1.0.0/unyank', write)).status).toBe(404);
    // Yanked versions still download.
    expect((await req('DELETE', 'alice/cargo/api/v1/crates/yanker/0.1.0/yank', del)).status).toBe(200);
    expect((await req('GET', 'alice/cargo/api/v1/crates/yanker/0.1.0/download')).status).toBe(200);
  });

  test('search and owners', async () => {
    for (const v of ['0.1.0', '0.10.0', '0.2.0']) {
      expect(
        (await publish('alice', publishBody(publishMeta('search-me', v, { description: `search ${v}` }), makeCrate('search-me', v))))
          .status,
      ).toBe(200);
    }
    const all = await req('GET', 'alice/cargo/api/v1/crates?q=&per_page=100');
    expect(all.status).toBe(200);
    const body: any = await all.json();
    expect(body.meta.total).toBe(3);
    expect(body.crates.map((c: any) => c.name).sort()).toEqual(['Serde_Lite', 'search-me', 'yanker']);
    const found = await (await req('GET', 'alice/cargo/api/v1/crates?q=search_ME')).json();
    expect(found).toEqual({ crates: [{ name: 'search-me', max_version: '0.10.0', description: 'search 0.2.0' }], meta: { total: 1 } });
    const one: any = await (await req('GET', 'alice/cargo/api/v1/crates?per_page=1')).json();
    expect(one.crates).toHaveLength(1);
    expect(one.meta.total).toBe(3);
    expect(await (await req('GET', 'alice/cargo/api/v1/crates?q=zzz')).json()).toEqual({ crates: [], meta: { total: 0 } });

    const owners = await req('GET', 'alice/cargo/api/v1/crates/search-me/owners');
    expect(owners.status).toBe(200);
    expect(await owners.json()).toEqual({ users: [{ id: alice.id, login: 'alice', name: 'alice' }] });
    expect((await req('GET', 'alice/cargo/api/v1/crates/nope/owners')).status).toBe(404);

    // A crate deleted through /api/v1/packages leaves search and frees its name.
    const versions = ['0.1.0', '0.10.0', '0.2.0'];
    for (const v of versions) expect((await server.api('DELETE', `/packages/alice/cargo/search-me/${v}`, { token: del })).status).toBe(204);
    expect(((await (await req('GET', 'alice/cargo/api/v1/crates?q=search')).json()) as any).crates).toEqual([]);
    expect((await req('GET', 'alice/cargo/se/ar/search-me')).status).toBe(404);
    expect((await publish('alice', publishBody(publishMeta('search_me', '1.0.0'), makeCrate('search_me', '1.0.0')))).status).toBe(200);
  });

  test('authentication: anonymous 401, read token 403, bare and Bearer tokens accepted', async () => {
    const body = () => publishBody(publishMeta('authy', '1.0.0'), makeCrate('authy', '1.0.0'));
    const anon = await req('PUT', 'alice/cargo/api/v1/crates/new', undefined, body());
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBeTruthy();
    expect((await publish('alice', body(), read)).status).toBe(403);
    const bob = await server.user('bob');
    const bobToken = await server.token(bob, ['write:package']);
    expect((await publish('alice', body(), bobToken)).status).toBe(403);
    expect((await req('GET', 'alice/cargo/au/th/authy')).status).toBe(404);
    expect((await publish('alice', body(), `Bearer ${write}`)).status).toBe(200);
    expect((await publish('alice', publishBody(publishMeta('authy', '1.0.1'), makeCrate('authy', '1.0.1')), write)).status).toBe(200);
    // Reads of a public owner need no token; a read token works too.
    expect((await req('GET', 'alice/cargo/au/th/authy')).status).toBe(200);
    expect((await req('GET', 'alice/cargo/au/th/authy', read)).status).toBe(200);
  });
});

describe('cargo registry limits and owners', () => {
  test('a publish body over maxPublishSize is 413; a purged user takes the crate rows along', async () => {
    const server = await startServer({ plugins: { cargo: { settings: { maxPublishSize: 4096 } } } });
    try {
      const dora = await server.user('dora');
      const token = await server.token(dora, ['write:package']);
      const put = (body: Buffer) =>
        fetch(new URL('api/packages/dora/cargo/api/v1/crates/new', server.url), { method: 'PUT', headers: { Authorization: token }, body });
      const big = publishBody(publishMeta('big', '1.0.0'), crypto.randomBytes(5000));
      const res = await put(big);
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).errors[0].detail).toMatch(/larger than 4096/);
      expect((await put(publishBody(publishMeta('small', '1.0.0'), makeCrate('small', '1.0.0')))).status).toBe(200);
      const rows = () =>
        server.kernel
          .db('cargo_crate')
          .where({ owner_id: dora.id })
          .count({ n: '*' })
          .first()
          .then((r: any) => Number(r.n));
      expect(await rows()).toBe(1);
      expect((await server.api('DELETE', '/admin/users/dora?purge=true', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(204);
      expect(await rows()).toBe(0);
    } finally {
      await server.close();
    }
  });

  test('private owners: auth-required for the owner; invisible to anonymous callers', async () => {
    const server = await startServer();
    try {
      const priv = await server.user('priv', { visibility: 'private' });
      const token = await server.token(priv, ['write:package']);
      const body = publishBody(publishMeta('hidden', '1.0.0'), makeCrate('hidden', '1.0.0'));
      expect(
        (
          await fetch(new URL('api/packages/priv/cargo/api/v1/crates/new', server.url), {
            method: 'PUT',
            headers: { Authorization: token },
            body,
          })
        ).status,
      ).toBe(200);
      const config = await fetch(new URL('api/packages/priv/cargo/config.json', server.url), { headers: { Authorization: token } });
      expect(((await config.json()) as any)['auth-required']).toBe(true);
      expect((await fetch(new URL('api/packages/priv/cargo/hi/dd/hidden', server.url), { headers: { Authorization: token } })).status).toBe(
        200,
      );
      // Anonymous callers are challenged (cargo then retries with its token), unknown owners alike.
      for (const p of ['priv/cargo/config.json', 'priv/cargo/hi/dd/hidden', 'nobody-here/cargo/config.json']) {
        const anon = await fetch(new URL(`api/packages/${p}`, server.url));
        expect([p, anon.status]).toEqual([p, 401]);
        expect(anon.headers.get('www-authenticate')).toBe(`Cargo login_url="${server.url}user/settings/applications"`);
      }
      // Other formats keep answering 404.
      expect((await fetch(new URL('api/packages/priv/generic/x/1.0.0/x.bin', server.url))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The real cargo client
// ---------------------------------------------------------------------------------------------

describe('the real cargo client', () => {
  let server: TestServer;
  let dir: string;
  let available = false;

  beforeAll(async () => {
    available = await cargoAvailable();
    server = await startServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-cargo-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('cargo publish, then cargo build of a crate depending on it', async () => {
    if (!available) throw new Error('cargo is not installed (cargo --version failed)');
    const owner = await server.user('crafter');
    const token = await server.token(owner, ['write:package']);
    const env = cargoSandbox(
      dir,
      { name: 'hearth', index: `sparse+${server.url}api/packages/crafter/cargo/`, token: `Bearer ${token}` },
      {
        env: { HOME: process.env.HOME, CARGO_NET_OFFLINE: 'false' },
      },
    );

    mustSucceed(await run('cargo', ['new', '--lib', '--vcs', 'none', 'alpha'], { cwd: dir, env }), 'cargo new alpha');
    const alphaToml = path.join(dir, 'alpha', 'Cargo.toml');
    fs.writeFileSync(
      alphaToml,
      fs
        .readFileSync(alphaToml, 'utf8')
        .replace('[package]\n', '[package]\npublish = ["hearth"]\ndescription = "the alpha crate"\nlicense = "MIT"\n'),
    );
    fs.writeFileSync(path.join(dir, 'alpha', 'src', 'lib.rs'), 'pub fn greeting() -> &\'static str { "hello from alpha" }\n');
    mustSucceed(
      await run('cargo', ['publish', '--registry', 'hearth', '--allow-dirty', '--no-verify'], { cwd: path.join(dir, 'alpha'), env }),
      'cargo publish (Bearer token)',
    );

    const listed = await server.api('GET', '/packages/crafter?type=cargo');
    expect(listed.body.map((p: any) => `${p.name}@${p.version}`)).toEqual(['alpha@0.1.0']);

    // A second version with the bare token, as `cargo login` stores it by default.
    fs.writeFileSync(alphaToml, fs.readFileSync(alphaToml, 'utf8').replace('version = "0.1.0"', 'version = "0.1.1"'));
    mustSucceed(
      await run('cargo', ['publish', '--registry', 'hearth', '--allow-dirty', '--no-verify'], {
        cwd: path.join(dir, 'alpha'),
        env: { ...env, CARGO_REGISTRIES_HEARTH_TOKEN: token },
      }),
      'cargo publish (bare token)',
    );

    // Yank 0.1.1 with cargo: the build must then pick 0.1.0.
    const yank = await run('cargo', ['yank', '--registry', 'hearth', '--version', '0.1.1', 'alpha'], {
      cwd: dir,
      env: { ...env, CARGO_REGISTRIES_HEARTH_TOKEN: await server.token(owner, ['delete:package']) },
    });
    mustSucceed(yank, 'cargo yank');

    mustSucceed(await run('cargo', ['new', '--bin', '--vcs', 'none', 'beta'], { cwd: dir, env }), 'cargo new beta');
    const betaToml = path.join(dir, 'beta', 'Cargo.toml');
    fs.writeFileSync(
      betaToml,
      fs.readFileSync(betaToml, 'utf8').replace('[dependencies]', '[dependencies]\nalpha = { version = "0.1", registry = "hearth" }'),
    );
    fs.writeFileSync(path.join(dir, 'beta', 'src', 'main.rs'), 'fn main() { println!("{}", alpha::greeting()); }\n');
    mustSucceed(
      await run('cargo', ['build', '--target-dir', path.join(dir, 'target')], { cwd: path.join(dir, 'beta'), env }),
      'cargo build beta',
    );
    const lock = fs.readFileSync(path.join(dir, 'beta', 'Cargo.lock'), 'utf8');
    expect(lock).toContain('name = "alpha"\nversion = "0.1.0"');
    expect(lock).toContain(`source = "sparse+${server.url}api/packages/crafter/cargo/"`);
    const runBeta = await run(path.join(dir, 'target', 'debug', 'beta'), [], { cwd: dir, env });
    expect(runBeta.stdout.trim()).toBe('hello from alpha');
  }, 600_000);
});
