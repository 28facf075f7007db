import crypto from 'node:crypto';
import { startServer, type TestServer } from '@hearth/testing';
import { cookbookTarball, keyPair, shareBody, signHeaders, tarEntry, type SignVersion } from './helpers';
import zlib from 'node:zlib';

type User = { name: string; password: string; id: number };

describe('chef registry (Supermarket API, signed requests)', () => {
  let server: TestServer;
  let alice: User;
  let bob: User;
  let aliceKey: ReturnType<typeof keyPair>;
  let write: string;

  const path = (owner: string, rest: string) => `/api/packages/${owner}/chef${rest}`;
  const call = (method: string, p: string, headers: Record<string, string> = {}, body?: Buffer) =>
    fetch(new URL(p, server.url), { method, headers, body });
  const signed = (
    user: string,
    key: crypto.KeyObject,
    method: string,
    p: string,
    options: { body?: Buffer; version?: SignVersion; hashOf?: Buffer; timestamp?: Date; headers?: Record<string, string> } = {},
  ) =>
    call(
      method,
      p,
      {
        ...signHeaders({
          method,
          path: p,
          userId: user,
          privateKey: key,
          body: options.hashOf ?? options.body,
          version: options.version,
          timestamp: options.timestamp,
        }),
        ...options.headers,
      },
      options.body,
    );
  const share = (
    owner: string,
    tarball: Buffer,
    auth: { token?: string; signedAs?: [string, crypto.KeyObject, SignVersion?] },
    category = 'Other',
  ) => {
    const { body, contentType } = shareBody(tarball, category);
    const p = path(owner, '/api/v1/cookbooks');
    if (auth.signedAs)
      return signed(auth.signedAs[0], auth.signedAs[1], 'POST', p, {
        body,
        hashOf: tarball,
        version: auth.signedAs[2],
        headers: { 'Content-Type': contentType },
      });
    return call('POST', p, { 'Content-Type': contentType, ...(auth.token ? { Authorization: `token ${auth.token}` } : {}) }, body);
  };
  const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
  const chefVersions = async (owner: string) =>
    (
      (await server.api('GET', `/packages/${owner}?type=chef`, { basic: [ownerCreds(owner).name, ownerCreds(owner).password] }))
        .body as any[]
    )
      .map((p) => `${p.name}@${p.version}`)
      .sort();
  const ownerCreds = (owner: string) => (owner === 'alice' ? alice : bob);

  beforeAll(async () => {
    server = await startServer({ plugins: { chef: { enabled: true, settings: { maxTarballSize: 64 * 1024 } } } });
    alice = await server.user('alice');
    bob = await server.user('bob');
    aliceKey = keyPair();
    write = await server.token(alice, ['write:package']);
    const res = await server.api('PUT', '/user/chef/key', {
      basic: [alice.name, alice.password],
      body: { public_key: aliceKey.publicPem },
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => server.close());

  test('users register, read, generate and remove their own Chef public key', async () => {
    const carol = await server.user('carol');
    const as = { basic: [carol.name, carol.password] as [string, string] };
    expect((await server.api('GET', '/user/chef/key', as)).status).toBe(404);
    const mine = keyPair();
    const put = await server.api('PUT', '/user/chef/key', { ...as, body: { public_key: mine.publicPem } });
    expect(put.status).toBe(200);
    expect(put.body.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect((await server.api('GET', '/user/chef/key', as)).body.public_key).toBe(mine.publicPem);
    // PKCS#1 "RSA PUBLIC KEY" PEM is accepted too.
    const pkcs1 = crypto.createPublicKey(mine.publicPem).export({ type: 'pkcs1', format: 'pem' }).toString();
    expect((await server.api('PUT', '/user/chef/key', { ...as, body: { public_key: pkcs1 } })).status).toBe(200);

    const small = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const bad: [string, unknown, RegExp][] = [
      ['garbage', 'not a key', /PEM/],
      ['private key', mine.privatePem, /private key/],
      ['1024 bits', small, /2048/],
      ['EC key', ec, /RSA/],
      ['broken PEM', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n', /valid PEM/],
    ];
    for (const [what, key, message] of bad) {
      const res = await server.api('PUT', '/user/chef/key', { ...as, body: { public_key: key } });
      expect([what, res.status]).toEqual([what, 422]);
      expect([what, res.body.message]).toEqual([what, expect.stringMatching(message)]);
    }
    expect((await server.api('PUT', '/user/chef/key', { ...as, body: {} })).status).toBe(422);
    expect((await server.api('PUT', '/user/chef/key', { body: { public_key: mine.publicPem } })).status).toBe(401);
    const readUser = await server.token(carol, ['read:user']);
    expect((await server.api('PUT', '/user/chef/key', { token: readUser, body: { public_key: mine.publicPem } })).status).toBe(403);

    // Gitea's "regenerate": the private half comes back once and signs requests.
    const generated = await server.api('POST', '/user/chef/key', as);
    expect(generated.status).toBe(201);
    const privateKey = crypto.createPrivateKey(generated.body.private_key);
    expect((await signed('carol', privateKey, 'GET', path('alice', '/api/v1/cookbooks'))).status).toBe(200);
    expect((await signed('carol', mine.privateKey, 'GET', path('alice', '/api/v1/cookbooks'))).status).toBe(401);
    expect((await server.api('DELETE', '/user/chef/key', as)).status).toBe(204);
    expect((await server.api('DELETE', '/user/chef/key', as)).status).toBe(404);
    expect((await signed('carol', privateKey, 'GET', path('alice', '/api/v1/cookbooks'))).status).toBe(401);
  });

  test('share, list, search, show, versions, download and universe', async () => {
    const nginx = cookbookTarball('nginx', '1.2.0', { dependencies: { apt: '~> 7.0' } });
    expect((await share('alice', cookbookTarball('nginx', '1.0.0'), { token: write }, 'Web Servers')).status).toBe(201);
    for (const version of ['1.0', '1.1', '1.3'] as SignVersion[]) {
      const res = await share('alice', cookbookTarball('apt', `7.${version.slice(2)}.0`), {
        signedAs: ['alice', aliceKey.privateKey, version],
      });
      expect([version, res.status]).toEqual([version, 201]);
    }
    const created = await json(await share('alice', nginx, { signedAs: ['alice', aliceKey.privateKey] }, 'Web Servers'));
    expect(created).toEqual({ status: 201, body: { uri: `${server.url}api/packages/alice/chef/api/v1/cookbooks/nginx/versions/1.2.0` } });

    const list = await json(await call('GET', path('alice', '/api/v1/cookbooks')));
    expect(list.body).toEqual({
      start: 0,
      total: 2,
      items: ['apt', 'nginx'].map((n) => ({
        cookbook_name: n,
        cookbook_maintainer: 'Alice',
        cookbook_description: `the ${n} cookbook`,
        cookbook: `${server.url}api/packages/alice/chef/api/v1/cookbooks/${n}`,
      })),
    });
    expect(
      (await json(await call('GET', path('alice', '/api/v1/cookbooks?start=1&items=1')))).body.items.map((i: any) => i.cookbook_name),
    ).toEqual(['nginx']);
    expect((await json(await call('GET', path('alice', '/api/v1/search?q=NGI')))).body).toMatchObject({
      total: 1,
      items: [{ cookbook_name: 'nginx' }],
    });
    expect((await json(await call('GET', path('alice', '/api/v1/search?q=%25')))).body.total).toBe(0);

    const shown = (await json(await call('GET', path('alice', '/api/v1/cookbooks/NGINX')))).body;
    const base = `${server.url}api/packages/alice/chef/api/v1/cookbooks/nginx`;
    expect(shown).toMatchObject({
      name: 'nginx',
      category: 'Web Servers',
      maintainer: 'Alice',
      latest_version: `${base}/versions/1.2.0`,
      versions: [`${base}/versions/1.2.0`, `${base}/versions/1.0.0`],
      deprecated: false,
    });
    const v = (await json(await call('GET', path('alice', '/api/v1/cookbooks/nginx/versions/1_2_0')))).body;
    expect(v).toMatchObject({
      version: '1.2.0',
      tarball_file_size: nginx.length,
      license: 'Apache-2.0',
      dependencies: { apt: '~> 7.0' },
      file: `${base}/versions/1.2.0/download`,
      cookbook: base,
    });
    expect((await json(await call('GET', path('alice', '/api/v1/cookbooks/nginx/versions/latest')))).body.version).toBe('1.2.0');

    const download = await signed('alice', aliceKey.privateKey, 'GET', path('alice', '/api/v1/cookbooks/nginx/versions/1.2.0/download'), {
      version: '1.3',
    });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(nginx)).toBe(true);

    const universe = (await json(await call('GET', path('alice', '/universe')))).body;
    expect(universe).toEqual((await json(await call('GET', path('alice', '/api/v1/universe')))).body);
    expect(Object.keys(universe)).toEqual(['apt', 'nginx']);
    expect(universe.nginx['1.2.0']).toEqual({
      location_type: 'opscode',
      location_path: `${server.url}api/packages/alice/chef/api/v1`,
      download_url: `${base}/versions/1.2.0/download`,
      dependencies: { apt: '~> 7.0' },
    });
    expect(Object.keys(universe.apt).sort()).toEqual(['7.0.0', '7.1.0', '7.3.0']);

    for (const p of [
      '/api/v1/cookbooks/none',
      '/api/v1/cookbooks/nginx/versions/9.9.9',
      '/api/v1/cookbooks/nginx/versions/9.9.9/download',
    ]) {
      const res = await json(await call('GET', path('alice', p)));
      expect([p, res.status, res.body.error_messages.length]).toEqual([p, 404, 1]);
    }
    expect((await call('GET', path('alice', '/api/v1/cookbooks/nginx/versions/x.y'))).status).toBe(400);
  });

  test('bad uploads are 4xx and store nothing', async () => {
    const before = await chefVersions('alice');
    const auth = { token: write };
    const cases: [string, Buffer, number, RegExp][] = [
      ['not gzip', Buffer.from('plain text'), 400, /gzip/],
      ['no metadata.json', cookbookTarball('bad', '1.0.0', {}, null), 400, /metadata\.json/],
      ['metadata not JSON', cookbookTarball('bad', '1.0.0', {}, Buffer.from('{"name": ')), 400, /metadata\.json/],
      ['bad name', cookbookTarball('bad', '1.0.0', { name: '../evil' }), 400, /cookbook name/],
      ['bad version', cookbookTarball('bad', '1.0.0', { version: '1.0.0-beta' }), 400, /version/],
      ['bad dependencies', cookbookTarball('bad', '1.0.0', { dependencies: { apt: 7 } }), 400, /dependencies/],
      ['metadata too deep', cookbookTarball('bad', '1.0.0', { platforms: JSON.parse('['.repeat(100) + ']'.repeat(100)) }), 400, /deeper/],
      ['truncated tar', zlib.gzipSync(tarEntry('bad/README.md', Buffer.alloc(4096)).subarray(0, 1024)), 400, /ends before/],
      ['too large', zlib.gzipSync(Buffer.concat([tarEntry('bad/blob', crypto.randomBytes(80 * 1024)), Buffer.alloc(1024)])), 413, /larger/],
    ];
    for (const [what, tarball, status, message] of cases) {
      const res = await json(await share('alice', tarball, auth));
      expect([what, res.status]).toEqual([what, status]);
      expect([what, res.body.error_messages[0]]).toEqual([what, expect.stringMatching(message)]);
    }
    const noFile = await json(
      await call(
        'POST',
        path('alice', '/api/v1/cookbooks'),
        { Authorization: `token ${write}`, 'Content-Type': 'multipart/form-data; boundary=x' },
        Buffer.from('--x\r\nContent-Disposition: form-data; name="cookbook"\r\n\r\n{}\r\n--x--\r\n'),
      ),
    );
    expect([noFile.status, noFile.body.error_messages[0]]).toEqual([400, expect.stringMatching(/tarball/)]);
    expect(
      (
        await call(
          'POST',
          path('alice', '/api/v1/cookbooks'),
          { Authorization: `token ${write}`, 'Content-Type': 'application/json' },
          Buffer.from('{}'),
        )
      ).status,
    ).toBe(400);

    expect((await share('alice', cookbookTarball('dup', '1.0'), auth)).status).toBe(201);
    for (const [name, version] of [
      ['dup', '1.0'],
      ['dup', '1.0.0'],
      ['DUP', '1.1.0'],
    ]) {
      const res = await json(await share('alice', cookbookTarball(name, version), auth));
      expect([name, version, res.status]).toEqual([name, version, 409]);
    }
    expect(await chefVersions('alice')).toEqual([...before, 'dup@1.0'].sort());
  });

  test('signed requests: tampering, clock skew, unknown users and keys are 401', async () => {
    const p = path('alice', '/api/v1/cookbooks');
    const other = keyPair();
    const ok = await signed('alice', aliceKey.privateKey, 'GET', p);
    expect(ok.status).toBe(200);
    const rejected: [string, Promise<Response>][] = [
      ['wrong key', signed('alice', other.privateKey, 'GET', p)],
      ['wrong key 1.3', signed('alice', other.privateKey, 'GET', p, { version: '1.3' })],
      ['old timestamp', signed('alice', aliceKey.privateKey, 'GET', p, { timestamp: new Date(Date.now() - 11 * 60_000) })],
      ['future timestamp', signed('alice', aliceKey.privateKey, 'GET', p, { timestamp: new Date(Date.now() + 11 * 60_000) })],
      ['unknown user', signed('nobody', aliceKey.privateKey, 'GET', p)],
      ['user without key', signed('bob', aliceKey.privateKey, 'GET', p)],
      [
        'body not hashed',
        call('GET', p, {
          ...signHeaders({
            method: 'DELETE',
            path: path('alice', '/api/v1/cookbooks/x'),
            userId: 'alice',
            privateKey: aliceKey.privateKey,
          }),
        }),
      ],
    ];
    for (const [what, pending] of rejected) {
      const res = await json(await pending);
      expect([what, res.status]).toEqual([what, 401]);
    }
    // One signature replayed on another path, method or body.
    for (const version of ['1.0', '1.1', '1.3'] as SignVersion[]) {
      const headers = signHeaders({
        method: 'GET',
        path: path('alice', '/api/v1/cookbooks/nginx'),
        userId: 'alice',
        privateKey: aliceKey.privateKey,
        version,
      });
      expect([version, (await call('GET', path('alice', '/api/v1/cookbooks/nginx'), headers)).status]).toEqual([version, 200]);
      expect([version, (await call('GET', path('alice', '/api/v1/cookbooks/apt'), headers)).status]).toEqual([version, 401]);
      expect([version, (await call('GET', path('bob', '/api/v1/cookbooks/nginx'), headers)).status]).toEqual([version, 401]);
      expect([version, (await call('DELETE', path('alice', '/api/v1/cookbooks/nginx'), headers)).status]).toEqual([version, 401]);
      const tampered = { ...headers, 'X-Ops-Timestamp': new Date(Date.now() - 5000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
      expect([version, (await call('GET', path('alice', '/api/v1/cookbooks/nginx'), tampered)).status]).toEqual([version, 401]);
    }
    // An upload whose body is not the one hashed and signed.
    const tarball = cookbookTarball('replayed', '1.0.0');
    const { body, contentType } = shareBody(cookbookTarball('replayed', '2.0.0'));
    for (const version of ['1.1', '1.3'] as SignVersion[]) {
      const res = await signed('alice', aliceKey.privateKey, 'POST', p, {
        body,
        hashOf: tarball,
        version,
        headers: { 'Content-Type': contentType },
      });
      expect([version, res.status]).toEqual([version, 401]);
    }
    expect((await call('GET', path('alice', '/api/v1/cookbooks/replayed'))).status).toBe(404);
    const missing = await call('GET', p, { 'X-Ops-Userid': 'alice' });
    expect(missing.status).toBe(401);
  });

  test('permissions: anonymous, other users, token scopes; signed users act within their rights', async () => {
    const tarball = cookbookTarball('perm', '1.0.0');
    expect((await share('alice', tarball, {})).status).toBe(401);
    expect((await share('alice', tarball, { token: await server.token(alice, ['read:package']) })).status).toBe(403);
    expect((await share('alice', tarball, { token: await server.token(bob, ['write:package']) })).status).toBe(403);
    const bobKey = keyPair();
    expect(
      (await server.api('PUT', '/user/chef/key', { basic: [bob.name, bob.password], body: { public_key: bobKey.publicPem } })).status,
    ).toBe(200);
    expect((await share('alice', tarball, { signedAs: ['bob', bobKey.privateKey] })).status).toBe(403);
    expect((await share('bob', tarball, { signedAs: ['bob', bobKey.privateKey] })).status).toBe(201);
    expect((await signed('alice', aliceKey.privateKey, 'DELETE', path('bob', '/api/v1/cookbooks/perm'))).status).toBe(403);
    expect((await call('DELETE', path('alice', '/api/v1/cookbooks/perm'), { Authorization: `token ${write}` })).status).toBe(403);
    // Chef signatures authenticate on the chef mount only.
    const elsewhere = await call(
      'GET',
      '/api/v1/user',
      signHeaders({ method: 'GET', path: '/api/v1/user', userId: 'bob', privateKey: bobKey.privateKey }),
    );
    expect(elsewhere.status).toBe(401);
    const hidden = await server.user('hidden', { visibility: 'private' });
    expect((await call('GET', path('hidden', '/api/v1/universe'))).status).toBe(404);
    expect(
      (await call('GET', path('hidden', '/api/v1/universe'), { Authorization: `token ${await server.token(hidden, ['read:package'])}` }))
        .status,
    ).toBe(200);
  });

  test('deletes: a version, a whole cookbook, and through the package API', async () => {
    for (const v of ['1.0.0', '1.1.0', '2.0.0'])
      expect((await share('alice', cookbookTarball('gone', v), { token: write })).status).toBe(201);
    expect((await share('alice', cookbookTarball('other', '0.1'), { token: write })).status).toBe(201);
    const universe = async () => (await json(await call('GET', path('alice', '/universe')))).body;
    expect(Object.keys((await universe()).gone)).toEqual(['2.0.0', '1.1.0', '1.0.0']);

    expect((await signed('alice', aliceKey.privateKey, 'DELETE', path('alice', '/api/v1/cookbooks/gone/versions/2_0_0'))).status).toBe(200);
    expect(Object.keys((await universe()).gone)).toEqual(['1.1.0', '1.0.0']);
    expect((await json(await call('GET', path('alice', '/api/v1/cookbooks/gone/versions/latest')))).body.version).toBe('1.1.0');

    const del = await server.api('DELETE', '/packages/alice/chef/gone/1.1.0', { token: await server.token(alice, ['delete:package']) });
    expect(del.status).toBe(204);
    expect(Object.keys((await universe()).gone)).toEqual(['1.0.0']);

    expect((await signed('alice', aliceKey.privateKey, 'DELETE', path('alice', '/api/v1/cookbooks/gone'), { version: '1.3' })).status).toBe(
      200,
    );
    expect((await universe()).gone).toBeUndefined();
    expect((await call('GET', path('alice', '/api/v1/cookbooks/gone'))).status).toBe(404);
    expect((await signed('alice', aliceKey.privateKey, 'DELETE', path('alice', '/api/v1/cookbooks/gone'))).status).toBe(404);

    await server.api('DELETE', '/packages/alice/chef/other/0.1', { token: await server.token(alice, ['delete:package']) });
    const names = (await json(await call('GET', path('alice', '/api/v1/cookbooks?items=100')))).body.items.map((i: any) => i.cookbook_name);
    expect(names).not.toContain('other');
    expect(names).not.toContain('gone');
    // The name is free again, in another case too.
    expect((await share('alice', cookbookTarball('Gone', '3.0.0'), { token: write })).status).toBe(201);
  });
});

test('a server without the chef plugin: no routes, no tables, no signed-header authentication', async () => {
  const server = await startServer();
  try {
    const dave = await server.user('dave');
    expect((await fetch(new URL('api/packages/dave/chef/api/v1/universe', server.url))).status).toBe(404);
    expect((await server.api('GET', '/user/chef/key', { basic: [dave.name, dave.password] })).status).toBe(404);
    expect(await server.kernel.db.schema.hasTable('chef_user_key')).toBe(false);
    expect(await server.kernel.db.schema.hasTable('chef_cookbook')).toBe(false);
    const { privateKey } = keyPair();
    const p = '/api/packages/dave/generic/api/v1/cookbooks';
    const res = await fetch(new URL(p, server.url), {
      method: 'PUT',
      headers: signHeaders({ method: 'PUT', path: p, userId: 'dave', privateKey }),
      body: 'x',
    });
    expect(res.status).toBe(401);
  } finally {
    await server.close();
  }
});
